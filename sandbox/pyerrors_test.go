package sandbox

import (
	"context"
	"errors"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCPythonErrors checks errors that used to surface as "internal error"
// without a line or as a misleading IndexError. Each kind and message is
// CPython 3.11's (python3 -c CODE).
func TestCPythonErrors(t *testing.T) {
	tests := []struct {
		code, kind, msg string
	}{
		{"x = 1\nsum('abc')", "TypeError", "unsupported operand type(s) for +: 'int' and 'str'"},
		{"import itertools\nitertools.combinations([1, 2], -1)", "ValueError", "r must be non-negative"},
		{"import itertools\nitertools.permutations([1, 2], -1)", "ValueError", "r must be non-negative"},
		{"x = 1\nint('0', 1)", "ValueError", "int() base must be >= 2 and <= 36, or 0"},
		{"x = 1\nint('1', 2**40)", "ValueError", "int() base must be >= 2 and <= 36, or 0"},
		{"x = 1\nint('1', 'x')", "TypeError", "'str' object cannot be interpreted as an integer"},
		{"x = 1\nchr(0x110000)", "ValueError", "chr() arg not in range(0x110000)"},
		{"x = 1\nchr(-1)", "ValueError", "chr() arg not in range(0x110000)"},
		{"x = 1\nchr(2**64)", "OverflowError", "Python int too large to convert to C int"},
		{"x = 1\nchr('a')", "TypeError", "'str' object cannot be interpreted as an integer"},
		{"x = 1\nrange(2**64)", "OverflowError", "Python int too large to convert to C ssize_t"},
		{"x = 1\nrange(1.5)", "TypeError", "'float' object cannot be interpreted as an integer"},
		{"x = 1\n'ab'.center(2**64)", "OverflowError", "Python int too large to convert to C ssize_t"},
		{"x = 1\n[1, 2].insert(2**64, 5)", "OverflowError", "Python int too large to convert to C ssize_t"},
		{"x = 1\n'a' * 2**64", "OverflowError", "cannot fit 'int' into an index-sized integer"},
		{"x = 1\n1 < [1]", "TypeError", "'<' not supported between instances of 'int' and 'list'"},
		{"x = 1\n{} >= 'a'", "TypeError", "'>=' not supported between instances of 'dict' and 'str'"},
		{"x = 1\n'abc'['a':]", "TypeError", "slice indices must be integers or None or have an __index__ method"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, err := New(Config{}).Exec(context.Background(), tt.code)
			var se *ScriptError
			require.True(t, errors.As(err, &se), "%v", err)
			assert.Equal(t, tt.kind, se.Kind, se.Traceback)
			assert.Equal(t, tt.msg, se.Msg)
			assert.Equal(t, 2, se.Line)
		})
	}
}

// TestCPythonResults checks values CPython computes where the sandbox used
// to raise (outputs from python3 -c CODE).
func TestCPythonResults(t *testing.T) {
	tests := []struct{ code, out string }{
		{"print(repr('abc'[2**63-1:]), 'abc'[-2**70:2], 'abc'[::2**70], 'abc'[::-2**70])", "'' ab a c\n"},
		{"print([1, 2][2**63-1:], (1, 2)[:2**64], range(10)[2**63-1:], b'ab'[2**31:])", "[] (1, 2) range(10, 10) b''\n"},
		{
			"print('abc'.find('abc', 2**64), 'abc'.find('c', -2**64), 'abc'.find('c', 1, 2**64), 'abc'.startswith('abc', 2**64))",
			"-1 2 2 False\n",
		},
		{"print({-2: 1, +3: 2, not 0: 3, ~5: 4}, {-x: x for x in range(3)})", "{-2: 1, 3: 2, True: 3, -6: 4} {0: 0, -1: 1, -2: 2}\n"},
		{
			"class E(Exception):\n    def __str__(self):\n        return 'custom'\ntry:\n    raise E('x')\nexcept E as e:\n    print('caught', e, repr(e), e.args, isinstance(e, Exception), isinstance(e, ValueError))",
			"caught custom E('x') ('x',) True False\n",
		},
		{
			"class E(ValueError):\n    code = 7\n    def describe(self):\n        return 'd%d' % self.code\ntry:\n    raise E('boom')\nexcept ValueError as e:\n    print(e, e.describe(), e.code)",
			"boom d7 7\n",
		},
		{"print(chr(True), chr(65), len(range(2**62)))", "\x01 A 4611686018427387904\n"},
		{"import json\nprint(repr(json.dumps([1, {'a': 2}], indent=-1)))", `'[\n1,\n{\n"a": 2\n}\n]'` + "\n"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.out, run(t, tt.code), tt.code)
	}
}

// TestCustomExceptionStr checks that an uncaught exception of a class
// with __str__ is shown as CPython shows it ("E: custom x").
func TestCustomExceptionStr(t *testing.T) {
	_, err := New(
		Config{},
	).Exec(context.Background(), "class E(Exception):\n    def __str__(self):\n        return 'custom ' + str(self.args[0])\nraise E('x')")
	var se *ScriptError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, "E", se.Kind)
	assert.Equal(t, "custom x", se.Msg)
	assert.Equal(t, 4, se.Line)
}

// TestBuiltinPanicHasLine checks the mechanism: a Go panic in a builtin is
// a SystemError raised at the line of the call, and the session goes on.
func TestBuiltinPanicHasLine(t *testing.T) {
	boom := NewBuiltin("boom", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		panic("deliberate failure")
	})
	s := New(Config{Predeclared: starlark.StringDict{"boom": boom}})
	_, err := s.Exec(context.Background(), "x = 1\ny = [boom()]")
	var se *ScriptError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, "SystemError", se.Kind)
	assert.Contains(t, se.Msg, "boom(): internal error: deliberate failure")
	assert.Equal(t, 2, se.Line)
	assert.Contains(t, se.Traceback, "y = [boom()]")
	res, err := s.Exec(context.Background(), "print(x)")
	require.NoError(t, err)
	assert.Equal(t, "1\n", res.Output)
}
