package sandbox

import (
	"strconv"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// TestIntOfStr: int(str) agrees with CPython on the short decimal fast
// path (smallDecimal) and off it.
func TestIntOfStr(t *testing.T) {
	s := New(Config{})
	r, err := s.Exec(t.Context(), `out = []
for x in ["0", "-0", "+7", "0123", "-42", "999999999999999999", "9999999999999999999", " 12 ", "1_000", "-"+"9"*18, "\u0663", "\u0661\u0662", "\uff17", "\U0001d7d9"]:
    out.append(int(x))
print(out, int("ff", 16), int("0x10", 0), int("-0b101", 0), float("\u0663.5"))`)
	require.NoError(t, err)
	assert.Equal(
		t,
		"[0, 0, 7, 123, -42, 999999999999999999, 9999999999999999999, 12, 1000, -999999999999999999, 3, 12, 7, 1] 255 16 -5 3.5\n",
		r.Output,
	)
	for _, bad := range []string{"", "-", "+", "1 2", "1.5", "--1", "0x10", "abc", "+-1"} {
		_, err := s.Exec(t.Context(), "int("+strconv.Quote(bad)+")")
		assert.ErrorContains(t, err, "invalid literal for int()", "%q", bad)
	}
}

// TestBuiltinFastPaths: isinstance and two-int min and max answer on
// their fast paths as the general calls do, and leave the rest to them.
func TestBuiltinFastPaths(t *testing.T) {
	s := New(Config{})
	r, err := s.Exec(t.Context(), `class A:
    pass
class B(A):
    pass
b = B()
print(isinstance(1, int), isinstance(True, int), isinstance("s", (int, str)), isinstance(b, A), isinstance(1.5, int))
print(max(3, 3), min(-2, 5), max(2, 7), min(7, 2), max(1, 2.5), min("b", "a"), max(True, 0), max([3, 9]), min(4, 1, 8))
x, y = 10**20, 3
print(max(x, y), min(x, y))`)
	require.NoError(t, err)
	assert.Equal(t, "True True True True False\n3 -2 7 2 2.5 a True 9 1\n100000000000000000000 3\n", r.Output)
	_, err = s.Exec(t.Context(), `isinstance(1, 2)`)
	assert.ErrorContains(t, err, "isinstance() arg 2 must be a type")
	_, ok := py.MinMaxFast(syntax.GT)(&starlark.Thread{}, starlark.Tuple{starlark.MakeInt(1), starlark.Float(2)})
	assert.False(t, ok, "an int and a float: the general call")
}
