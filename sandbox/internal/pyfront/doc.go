// Package pyfront compiles Python source into go.starlark.net syntax
// trees.
//
// Models write Python; the sandbox runs Starlark. pyfront parses the
// Python that models write with a scanner and parser forked from
// go.starlark.net/syntax (BSD licence, see LICENSE.starlark) whose AST
// node types are aliases of the upstream ones, and lowers every
// Python-only construct into plain Starlark, mostly calls to runtime
// helpers named _py_* that the sandbox predeclares. The contract with the
// runtime is in RUNTIME.md.
//
// Supported beyond Starlark: f-strings (all prefixes, nested quotes,
// conversions, nested format specs, {x=}), implicit string concatenation,
// Python escapes, ** and **=, % through a helper, is / is not, chained
// comparisons, set displays and comprehensions, generator expressions,
// starred displays and assignments, dict unpacking, multiple assignment
// targets, walrus in conditions and comprehension filters, for/while
// else, import / from-import, raise, assert, del (including slices),
// slice assignment, decorators, annotations (dropped), keyword-only and
// positional-only parameters, global declarations (syntax.DefStmt.Globals,
// an interpreter patch: the def's assignments rebind the module global),
// generator functions (run eagerly: a call runs the body to its end and
// returns an iterator over what it yielded),
// try/except/else/finally (module-level ones as Program structure, nested
// ones lowered to _py_try with Options.CatchInner), classes (lowered to
// _py_class with Options.Classes), with statements (lowered to a
// try/finally around _py_enter and _py_exit), and the usual literal forms
// (0o/0x/0b, 1_000, u"", b"", r"", ...).
//
// Rejected with an *Error naming the line and the alternative: class
// (without Options.Classes), yield expressions, infinite
// generators, async/await, match, rebinding nonlocal names (without
// Options.Nonlocal),
// complex numbers.
//
// Compile returns a Program: chunks of upstream *syntax.File ready for
// starlark.ExecREPLChunk, with module-level try statements kept as
// structure so the runtime can honour their handlers.
package pyfront
