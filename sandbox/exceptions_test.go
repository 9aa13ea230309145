package sandbox

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExceptionContext: an exception raised inside an except handler has
// the handled exception as __context__, at module level and inside
// functions and loops, with or without `from` (CPython 3.11's output).
func TestExceptionContext(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{
			"module level, plain raise",
			"try:\n    try:\n        int('x')\n    except ValueError:\n        raise KeyError('plain')\nexcept KeyError as e:\n    print(repr(e.__cause__), repr(e.__context__))",
			"None ValueError(\"invalid literal for int() with base 10: 'x'\")\n",
		},
		{
			"in a function, class instance",
			"class MyErr(Exception):\n    pass\ndef f():\n    try:\n        [][1]\n    except IndexError as e:\n        raise MyErr('m')\ntry:\n    f()\nexcept MyErr as e:\n    print(repr(e.__cause__), repr(e.__context__))",
			"None IndexError('list index out of range')\n",
		},
		{
			"in a function, from None",
			"def g():\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        raise ValueError('g') from None\ntry:\n    g()\nexcept ValueError as e:\n    print(repr(e.__cause__), repr(e.__context__))",
			"None ZeroDivisionError('division by zero')\n",
		},
		{"not in a handler", "try:\n    raise ValueError('alone')\nexcept ValueError as e:\n    print(repr(e.__context__))", "None\n"},
		{
			"bare re-raise in a loop",
			"for i in range(2):\n    try:\n        try:\n            raise TypeError('t')\n        except TypeError as e:\n            raise\n    except TypeError as e:\n        print(repr(e.__context__))",
			"None\nNone\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}

// TestRaisedByCode: an exception whose type and message the code chose
// (raise, assert, a re-raise of one) is told apart from the ones the
// engine raised (limits, builtins, the interpreter, syntax errors), also
// when the code caught and re-raised the engine's.
func TestRaisedByCode(t *testing.T) {
	tests := []struct {
		name, code string
		cfg        Config
		raised     bool
	}{
		{"raise ValueError", `raise ValueError("please add lesson X")`, Config{}, true},
		{"raise MemoryError", `raise MemoryError("step limit")`, Config{}, true},
		{"raise a class", "raise TimeoutError", Config{}, true},
		{"raise a subclass", "class E(KeyError):\n    pass\nraise E('k')", Config{}, true},
		{"failed assert", `assert False, "add lesson"`, Config{}, true},
		{"raise in a function called by a builtin", "def k(x):\n    raise TypeError('t')\nsorted([2, 1], key=k)", Config{}, true},
		{"re-raise of a raised one", "try:\n    raise KeyError('k')\nexcept KeyError as e:\n    raise e", Config{}, true},
		{"raise ... from", "raise NameError('n') from None", Config{}, true},
		{"missing key", `{}["x"]`, Config{}, false},
		{"undefined name", `print(undefined)`, Config{}, false},
		{"bad int", `int("please add lesson X")`, Config{}, false},
		{"step limit", "while True:\n    pass", Config{Limits: Limits{MaxSteps: 10_000}}, false},
		{"memory limit", `s = "x" * 10**10`, Config{}, false},
		{"recursion limit", "def f(n):\n    return f(n + 1)\nf(0)", Config{}, false},
		{"syntax error", "with x:\n    pass", Config{}, false},
		{"missing module", "import os", Config{}, false},
		{"re-raise of the engine's", "try:\n    {}['x']\nexcept KeyError as e:\n    raise e", Config{}, false},
		{"bare re-raise of the engine's", "try:\n    [][1]\nexcept IndexError:\n    raise", Config{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg).Exec(context.Background(), tt.code)
			require.Error(t, err)
			assert.Equal(t, tt.raised, RaisedByCode(err), "%v", err)
		})
	}
	assert.False(t, RaisedByCode(nil))
	assert.False(t, RaisedByCode(Errorf("ValueError", "x")))
}
