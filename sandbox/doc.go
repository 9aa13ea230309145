// Package sandbox is the Python-style REPL in which the root model's code runs.
//
// A [Session] keeps top-level variables across [Session.Exec] calls like a
// Python REPL. Each step runs on a fresh go.starlark.net thread with its own
// limits (execution steps, wall time, output size, memory, recursion depth)
// and no access to files, network, processes, the clock or load().
//
// Python source is translated to Starlark by the front-end in sandbox/pyfront;
// the runtime predeclares the Python builtins Starlark lacks (sum, round, map,
// isinstance, ...), the helpers the front-end calls (_py_*), classes, and the
// modules re, json, math, collections, itertools, functools, string,
// statistics, heapq, bisect, operator, textwrap, copy, dataclasses and
// datetime (without a clock). Values print as CPython prints them ([Repr],
// [Str]).
//
// Errors come back as a [*ScriptError] carrying the Python exception name and
// a short Python-style traceback using the model's line numbers.
//
// Known differences from CPython: strings are indexed, sliced and measured
// by len() in UTF-8 bytes (as in Starlark), not code points, so they agree
// with CPython only on ASCII text; generator expressions are evaluated
// eagerly (they arrive as lists); re runs on RE2 (no lookaround or
// backreferences); set iteration order follows insertion except for small
// non-negative ints, which print sorted as in CPython; bools are not ints in
// arithmetic (True + True fails) and NaN == NaN (Starlark semantics).
package sandbox
