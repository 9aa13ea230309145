// Package pyfront compiles Python source into go.starlark.net syntax
// trees.
//
// Models write Python; the sandbox runs Starlark. pyfront parses the
// Python that models write (f-strings, **, is, chained comparisons, set
// literals, import, try/except, raise, assert, del, walrus, ...) with a
// scanner and parser forked from go.starlark.net/syntax (BSD licence, see
// LICENSE.starlark) and lowers every Python-only construct into plain
// Starlark, mostly calls to runtime helpers named _py_* that the sandbox
// predeclares. The contract with the runtime is in RUNTIME.md.
//
// Compile returns a Program: chunks of upstream *syntax.File ready for
// starlark.ExecREPLChunk, with module-level try statements kept as
// structure so the runtime can honour their handlers.
package pyfront
