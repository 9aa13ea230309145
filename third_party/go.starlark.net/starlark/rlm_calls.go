package starlark

import (
	"errors"
	"strings"
)

// rlm: Python's recursion limit, checked by the interpreter when a
// Starlark function is called, in place of a runtime helper call
// (_py_enter) at the top of every def (see PATCHES.md).

// MaxCallDepth is the default recursion limit: calling a Starlark
// function other than a lambda, in a program compiled with the Recursion
// option, fails with CallDepthError() when the thread's call stack (every
// frame, builtins' included) already holds more than this many frames.
// 0 (the default) means no limit beyond upstream's. A thread's own limit
// (SetMaxCallDepth) overrides it. Set it once, before any thread runs.
var MaxCallDepth int

// CallDepthError returns the error of a call past the recursion limit
// (nil: a plain "maximum recursion depth exceeded" error).
var CallDepthError func() error

// SetMaxCallDepth sets thread's recursion limit (0: MaxCallDepth).
func (thread *Thread) SetMaxCallDepth(n int) { thread.maxCallDepth = n }

// callDepthExceeded reports the error of a call of a function named name
// on thread, or nil when the call is within the recursion limit.
func (thread *Thread) callDepthExceeded(name string) error {
	limit := thread.maxCallDepth
	if limit == 0 {
		limit = MaxCallDepth
	}
	if limit <= 0 || len(thread.stack) <= limit || name == "lambda" {
		return nil
	}
	if CallDepthError != nil {
		return CallDepthError()
	}
	return errMaxCallDepth
}

var errMaxCallDepth = errors.New("maximum recursion depth exceeded")

// rlm: the locals and operand stack of a Starlark call come from the
// thread's value stack instead of a heap allocation per call (upstream
// allocated them in each Function.CallInternal). Calls are LIFO, so a
// call takes the next nspace values and gives them back, cleared, when
// it returns. When the value stack is full a new, larger one replaces
// it; the calls still active keep the slices of the old one, which is
// garbage once they return. Nothing keeps a frame's locals or stack
// after the call returns: closures capture cells, and argument tuples
// given to other functions are copied (setArgs) or, for the _py_*
// builtins, not kept.

// minValueStack is the size of a thread's first value stack.
const minValueStack = 1024

// allocSpace returns n cleared values for a call and the mark that
// freeSpace restores.
func (thread *Thread) allocSpace(n int) ([]Value, int) {
	mark := thread.vsp
	if mark+n > len(thread.vstack) {
		thread.vstack = make([]Value, max(2*len(thread.vstack), mark+n, minValueStack))
	}
	thread.vsp = mark + n
	return thread.vstack[mark : mark+n : mark+n], mark
}

// freeSpace gives back the values allocSpace returned with mark, cleared
// so that they keep nothing alive and the next call finds them nil.
func (thread *Thread) freeSpace(space []Value, mark int) {
	clear(space)
	thread.vsp = mark
}

// rlm: the interpreter copies the positional arguments of a call of
// anything but a Starlark function, since the callee might keep the
// tuple, which is a slice of the caller's operand stack. Callables that
// promise not to keep it (nor a part of it) after they return are called
// with the slice itself: a heap allocation less per call.

// ArgsNotKept is implemented by callables that may be given their
// positional arguments without a copy: ArgsNotKept reports whether they
// never keep the argument tuple, nor a slice of it, after they return.
type ArgsNotKept interface {
	ArgsNotKept() bool
}

// ArgsNotKept reports whether b keeps no argument tuple: set by
// SetArgsNotKept, and true for the runtime helpers named _py_* of rlm's
// front end.
func (b *Builtin) ArgsNotKept() bool {
	return b.argsNotKept || strings.HasPrefix(b.name, "_py_")
}

// SetArgsNotKept records that b never keeps its argument tuple after it
// returns, and returns b. Set it before b is shared.
func (b *Builtin) SetArgsNotKept() *Builtin {
	b.argsNotKept = true
	return b
}

// argsNotKept reports whether fn may be given its arguments uncopied.
func argsNotKept(fn Value) bool {
	c, ok := fn.(ArgsNotKept)
	return ok && c.ArgsNotKept()
}

// UnpackPositionalArgsNoEscape is [UnpackPositionalArgs] for variables
// whose addresses do not escape, so that a builtin's variables are not
// moved to the heap (an allocation per variable per call). It panics if a
// pointer in vars implements [Unpacker]. (rlm: upstream's
// unpackPositionalArgsNoEscape, exported.)
func UnpackPositionalArgsNoEscape(fnname string, args Tuple, kwargs []Tuple, min int, vars ...any) error {
	return unpackPositionalArgsNoEscape(fnname, args, kwargs, min, vars...)
}

// setOp returns op(iter) and then calls iter.Done. rlm: Binary's set
// operations call it instead of deferring iter.Done themselves: a defer
// anywhere in Binary, too large for open-coded defers, costs every call
// of Binary (every + of two ints) a deferreturn.
func setOp(iter Iterator, op func(Iterator) (Value, error)) (Value, error) {
	defer iter.Done()
	return op(iter)
}
