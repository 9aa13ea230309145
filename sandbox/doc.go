// Package sandbox is the Python-style REPL in which the root model's code runs.
//
// A [Session] keeps top-level variables across [Session.Exec] calls like a
// Python REPL. Each step runs on a fresh go.starlark.net thread with its own
// limits (execution steps, wall time, output size, memory, recursion depth)
// and no access to files, network, processes, the clock or load().
//
// Python source is translated to Starlark by the front-end in sandbox/pyfront;
// the runtime predeclares the Python builtins Starlark lacks (sum, round, map,
// isinstance, ...), the helpers the front-end calls (_py_*), and the modules
// re, json, math, collections, itertools, string and statistics. Values print
// as CPython prints them ([Repr], [Str]).
//
// Errors come back as a [*ScriptError] carrying the Python exception name and
// a short Python-style traceback using the model's line numbers.
package sandbox
