// Package py is the sandbox's value layer: the Python types, classes and
// exceptions on top of the Starlark interpreter's values, their methods,
// the builtins (print, len, sorted, isinstance, ...), strings indexed by
// code point, numbers, formatting (format specs, f-strings, %), rendering
// as CPython prints (repr, str), conversion to and from Go, and the
// module registry that import reads.
//
// The modules themselves (json, re, collections, ...) live in
// sandbox/internal/pylib and register here ([RegisterModule]); this
// package never names them. Where it needs a module's behaviour (a deque
// holding values, a Decimal comparing with an int) it declares a small
// interface that the module's type satisfies.
//
// The running step belongs to the public face (package sandbox): a
// builtin finds it through its thread ([Step], set with [SetStep]) and
// asks it, through [StepHost], for memory room, whether a limit stopped
// the step, and where print writes. [State] is what a session keeps for
// the value layer and the modules (its clock, seed, and the modules'
// per-session state behind session keys).
package py
