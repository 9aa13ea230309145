package py

import (
	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// MaxRenderDepth is how deeply nested containers [Repr], [Str] and the
// other walks of a value (==, <, json, copy, conversion to Go) go; Python
// code gets a RecursionError beyond it (or beyond the step's recursion
// limit, if lower), as CPython does past its recursion limit.
const MaxRenderDepth = 1000

func init() {
	// Starlark bounds recursive comparisons at 10 levels by default, which
	// fails == on ordinary nested data; CPython's bound is its recursion
	// limit.
	starlark.CompareLimit = MaxRenderDepth
	// Hashing and Starlark's own printing of nested tuples have the same
	// bound (our patch of go.starlark.net; upstream's are unbounded).
	starlark.NestingLimit = MaxRenderDepth
	// Python's recursion limit on calls of defs: each step's thread sets
	// its own (Limits.MaxRecursion); other threads that run Python code
	// (e.g. a dunder method called from Go) have the default. The
	// interpreter checks it (our patch of go.starlark.net) instead of a
	// _py_enter() call at the top of every def.
	starlark.MaxCallDepth = DefaultMaxRecursion
	starlark.CallDepthError = errRecursion
}

// errRecursion is CPython's RecursionError for a call past the recursion
// limit. Python code may catch it: it does not end the step.
func errRecursion() error {
	return &PyError{Kind: "RecursionError", Msg: "maximum recursion depth exceeded", Err: ErrRecursionLimit}
}

// ValueDepthLimit is how deeply a walk of a value may nest on thread: the
// step's recursion limit, at most MaxRenderDepth.
func ValueDepthLimit(thread *starlark.Thread) int {
	if thread != nil {
		if st := StepOf(thread); st != nil && st.Depth > 0 && st.Depth < MaxRenderDepth {
			return st.Depth
		}
	}
	return MaxRenderDepth
}

// ErrDepth is CPython's RecursionError for a walk of a value (what says
// what was being done, e.g. "while getting the repr of an object").
func ErrDepth(what string) error {
	return &PyError{Kind: "RecursionError", Msg: "maximum recursion depth exceeded " + what, Err: ErrRecursionLimit}
}
