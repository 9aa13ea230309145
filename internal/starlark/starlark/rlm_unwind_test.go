package starlark

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type testUnwind struct{}

func (*testUnwind) Error() string { return "unwind" }
func (*testUnwind) Unwinding()    {}

// TestUnwindingPassesThrough: an Unwinding error returned by a builtin
// comes out of Call of the Starlark function that called it (directly,
// through another Starlark function, inside a comprehension) as it is,
// with no EvalError and no call stack; any other error is still an
// EvalError with the frames of the calls.
func TestUnwindingPassesThrough(t *testing.T) {
	stop := &testUnwind{}
	plain := errors.New("plain")
	for _, c := range []struct {
		name, src string
		err       error
		unwound   bool
	}{
		{"direct", "def f():\n    return fail_with()", stop, true},
		{"nested-call", "def g():\n    return fail_with()\ndef f():\n    return g()", stop, true},
		{"comprehension", "def f():\n    return [fail_with() for x in range(3)]", stop, true},
		{"ordinary-error", "def f():\n    return fail_with()", plain, false},
		{"ordinary-error-nested", "def g():\n    return fail_with()\ndef f():\n    return g()", plain, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			failWith := NewBuiltin("fail_with", func(*Thread, *Builtin, Tuple, []Tuple) (Value, error) {
				return nil, c.err
			})
			thread := new(Thread)
			globals, err := ExecFile(thread, "x.star", c.src, StringDict{"fail_with": failWith})
			require.NoError(t, err)
			_, err = Call(thread, globals["f"], nil, nil)
			require.Error(t, err)
			var ee *EvalError
			if c.unwound {
				assert.Same(t, stop, err)
				assert.False(t, errors.As(err, &ee))
			} else {
				require.ErrorAs(t, err, &ee)
				assert.ErrorIs(t, err, plain)
				assert.NotEmpty(t, ee.CallStack)
			}
			assert.Empty(t, thread.CallStack(), "frames left pushed")
		})
	}
}
