package deferred

import (
	"context"
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
	"github.com/rlmhq/rlm/sandbox"
)

// Future is the Starlark value of a deferred operation. It is done once its
// operation has settled with a value or an error.
type Future struct {
	label string
	key   string
	done  chan struct{}
	val   starlark.Value // set before done is closed
	err   error
	g     *Group // the group that started it (nil: Resolved, Failed)
}

var (
	_ starlark.Value      = (*Future)(nil)
	_ starlark.HasAttrs   = (*Future)(nil)
	_ starlark.Mapping    = (*Future)(nil)
	_ starlark.Iterable   = (*Future)(nil)
	_ starlark.HasBinary  = (*Future)(nil)
	_ starlark.Comparable = (*Future)(nil)
)

// Label names the operation, e.g. "llm_query".
func (f *Future) Label() string { return f.label }

// Key is the memoization key the future was started with.
func (f *Future) Key() string { return f.key }

// Done reports whether the operation has settled.
func (f *Future) Done() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// DoneChan is closed when the operation settles.
func (f *Future) DoneChan() <-chan struct{} { return f.done }

// Wait waits for the operation and returns its result or error. If ctx is
// canceled first, Wait returns ctx's error; the operation keeps running.
func (f *Future) Wait(ctx context.Context) (starlark.Value, error) {
	select {
	case <-f.done:
		return f.val, f.err
	default:
	}
	if f.g != nil {
		start := f.g.now()
		defer func() { f.g.waited.Add(int64(f.g.now().Sub(start))) }()
	}
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Err returns the operation's error, or nil if it succeeded or is pending.
func (f *Future) Err() error {
	if !f.Done() {
		return nil
	}
	return f.err
}

// ProxyTarget waits for the operation and returns the value it stands for
// (sandbox.Proxy): its result, or, when the operation failed, a string
// describing the failure so that printing a failed future reports the error
// instead of failing the step.
func (f *Future) ProxyTarget(thread *starlark.Thread) (starlark.Value, error) {
	v, err := f.Wait(sandbox.ThreadContext(thread))
	if err != nil {
		if !f.Done() { // the thread was canceled while waiting
			return nil, err
		}
		return starlark.String(f.failureNote()), nil
	}
	return v, nil
}

func (f *Future) name() string {
	if f.label == "" {
		return "operation"
	}
	return f.label
}

func (f *Future) failureNote() string {
	return fmt.Sprintf("<%s failed: %v>", f.name(), f.err)
}

// String renders the result if the operation has settled (without waiting),
// else a pending marker.
func (f *Future) String() string {
	if !f.Done() {
		return fmt.Sprintf("<%s pending>", f.name())
	}
	if f.err != nil {
		return f.failureNote()
	}
	if s, ok := f.val.(starlark.String); ok {
		return string(s)
	}
	return f.val.String()
}

// Type returns "future".
func (f *Future) Type() string { return "future" }

// Freeze is a no-op: the result is frozen when it is set.
func (f *Future) Freeze() {}

// Truth waits and returns the truth of the result (False for a failed
// operation).
func (f *Future) Truth() starlark.Bool {
	v, err := f.Wait(context.Background())
	if err != nil {
		return starlark.False
	}
	return v.Truth()
}

// target waits (without cancellation: Starlark's value interfaces carry no
// thread) and returns the result, or the operation's error.
func (f *Future) target() (starlark.Value, error) {
	v, err := f.Wait(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s failed: %w", f.name(), err)
	}
	return v, nil
}

// Get implements f[k] on the result: a dict lookup, or a list, tuple or
// string index (negative indices count from the end).
func (f *Future) Get(k starlark.Value) (v starlark.Value, found bool, err error) {
	t, err := f.target()
	if err != nil {
		return nil, false, err
	}
	switch t := t.(type) {
	case starlark.Mapping:
		return t.Get(k)
	case starlark.String:
		// Starlark evaluates `x in f` with Get: for a str result, a str key
		// means a substring test.
		if sub, ok := k.(starlark.String); ok {
			return starlark.None, strings.Contains(string(t), string(sub)), nil
		}
	}
	switch t := t.(type) {
	case starlark.Indexable:
		i, err := starlark.AsInt32(k)
		if err != nil {
			return nil, false, fmt.Errorf("%s indices must be integers, not %s", t.Type(), k.Type())
		}
		n := t.Len()
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, false, fmt.Errorf("%s index out of range", t.Type())
		}
		return t.Index(i), true, nil
	}
	return nil, false, fmt.Errorf("'%s' object is not subscriptable", t.Type())
}

// Iterate iterates over the result (a failed or non-iterable result
// yields nothing; use .value to see the error).
func (f *Future) Iterate() starlark.Iterator {
	t, err := f.target()
	if err == nil {
		switch t := t.(type) {
		case starlark.Iterable:
			return t.Iterate()
		case starlark.String:
			chars := make([]starlark.Value, 0, len(t))
			for _, r := range string(t) {
				chars = append(chars, starlark.String(string(r)))
			}
			return starlark.NewList(chars).Iterate()
		}
	}
	return starlark.NewList(nil).Iterate()
}

// Binary applies a binary operator to the result, so that "x: " + f works.
func (f *Future) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	t, err := f.target()
	if err != nil {
		return nil, err
	}
	if yf, ok := y.(*Future); ok {
		if y, err = yf.target(); err != nil {
			return nil, err
		}
	}
	if side == starlark.Left {
		return starlark.Binary(op, t, y)
	}
	return starlark.Binary(op, y, t)
}

// Hash waits and hashes the result.
func (f *Future) Hash() (uint32, error) {
	t, err := f.target()
	if err != nil {
		return 0, err
	}
	return t.Hash()
}

// CompareSameType compares the results of two futures (sorted(futures)).
func (f *Future) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	a, err := f.target()
	if err != nil {
		return false, err
	}
	b, err := y.(*Future).target()
	if err != nil {
		return false, err
	}
	return starlark.CompareDepth(op, a, b, depth)
}

// AttrNames lists the attributes.
func (f *Future) AttrNames() []string { return []string{"done", "error", "result", "value"} }

// Attr returns .value (waits; raises the operation's error), .done (bool),
// .error (None or the error message) and .result() (like .value). Other
// names are the result's attributes (so f.upper() works on a str result).
func (f *Future) Attr(name string) (starlark.Value, error) {
	switch name {
	case "value":
		return f.value(nil)
	case "done":
		return starlark.Bool(f.Done()), nil
	case "error":
		if err := f.Err(); err != nil {
			return starlark.String(err.Error()), nil
		}
		return starlark.None, nil
	case "result":
		return starlark.NewBuiltin(
			"result",
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if err := starlark.UnpackPositionalArgs("result", args, kwargs, 0); err != nil {
					return nil, err
				}
				return f.value(thread)
			},
		), nil
	}
	t, err := f.target()
	if err != nil {
		return nil, err
	}
	if ha, ok := t.(starlark.HasAttrs); ok {
		return ha.Attr(name)
	}
	return nil, nil
}

func (f *Future) value(thread *starlark.Thread) (starlark.Value, error) {
	v, err := f.Wait(sandbox.ThreadContext(thread))
	if err != nil {
		if !f.Done() {
			return nil, err
		}
		return nil, fmt.Errorf("%s failed: %w", f.name(), err)
	}
	return v, nil
}
