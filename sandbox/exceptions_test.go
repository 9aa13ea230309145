package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExceptionContext: an exception raised inside an except handler has
// the handled exception as __context__, at module level and inside
// functions and loops, with or without `from` (CPython 3.11's output).
func TestExceptionContext(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{"module level, plain raise", "try:\n    try:\n        int('x')\n    except ValueError:\n        raise KeyError('plain')\nexcept KeyError as e:\n    print(repr(e.__cause__), repr(e.__context__))",
			"None ValueError(\"invalid literal for int() with base 10: 'x'\")\n"},
		{"in a function, class instance", "class MyErr(Exception):\n    pass\ndef f():\n    try:\n        [][1]\n    except IndexError as e:\n        raise MyErr('m')\ntry:\n    f()\nexcept MyErr as e:\n    print(repr(e.__cause__), repr(e.__context__))",
			"None IndexError('list index out of range')\n"},
		{"in a function, from None", "def g():\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        raise ValueError('g') from None\ntry:\n    g()\nexcept ValueError as e:\n    print(repr(e.__cause__), repr(e.__context__))",
			"None ZeroDivisionError('division by zero')\n"},
		{"not in a handler", "try:\n    raise ValueError('alone')\nexcept ValueError as e:\n    print(repr(e.__context__))", "None\n"},
		{"bare re-raise in a loop", "for i in range(2):\n    try:\n        try:\n            raise TypeError('t')\n        except TypeError as e:\n            raise\n    except TypeError as e:\n        print(repr(e.__context__))", "None\nNone\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}
