package sandbox

import (
	"context"

	"go.starlark.net/starlark"
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
}

// valueDepthLimit is how deeply a walk of a value may nest on thread: the
// step's recursion limit, at most MaxRenderDepth.
func valueDepthLimit(thread *starlark.Thread) int {
	if thread != nil {
		if st := stepOf(thread); st != nil && st.depth > 0 && st.depth < MaxRenderDepth {
			return st.depth
		}
	}
	return MaxRenderDepth
}

// errDepth is CPython's RecursionError for a walk of a value (what says
// what was being done, e.g. "while getting the repr of an object").
func errDepth(what string) error {
	return &PyError{Kind: "RecursionError", Msg: "maximum recursion depth exceeded " + what, Err: ErrRecursionLimit}
}

// stopCheck lets a long walk of a value notice that its step was stopped
// (time, memory or output limit, or cancellation): stopped polls the
// step's context every 1024 calls.
type stopCheck struct {
	ctx context.Context
	n   int
}

func newStopCheck(thread *starlark.Thread) stopCheck {
	if thread == nil || stepOf(thread) == nil {
		return stopCheck{}
	}
	return stopCheck{ctx: ThreadContext(thread)}
}

func (c *stopCheck) stopped() error {
	if c.ctx == nil {
		return nil
	}
	c.n++
	if c.n&1023 != 0 {
		return nil
	}
	if c.ctx.Err() != nil {
		return context.Cause(c.ctx)
	}
	return nil
}
