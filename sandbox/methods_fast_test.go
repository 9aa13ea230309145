package sandbox

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/sandbox/internal/py"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPyMethodFast: _py_method's fast path answers the common str and
// dict methods with what the Method hook answers, and leaves errors and
// other methods and arguments to it.
func TestPyMethodFast(t *testing.T) {
	d := starlark.NewDict(2)
	require.NoError(t, d.SetKey(starlark.String("a"), starlark.MakeInt(1)))
	require.NoError(t, d.SetKey(starlark.String("b"), starlark.MakeInt(2)))
	for _, c := range []struct {
		args starlark.Tuple
		fast bool
	}{
		{starlark.Tuple{starlark.String("banana"), starlark.String("count"), starlark.String("a")}, true},
		{starlark.Tuple{starlark.String("héllo wörld"), starlark.String("find"), starlark.String("w")}, true},
		{starlark.Tuple{starlark.String("héllo wörld"), starlark.String("rfind"), starlark.String("l")}, true},
		{starlark.Tuple{starlark.String("a b  c\n"), starlark.String("split")}, true},
		{starlark.Tuple{starlark.String("a,b,,c"), starlark.String("split"), starlark.String(",")}, true},
		{starlark.Tuple{starlark.String("a,b,,c"), starlark.String("rsplit"), starlark.String(",")}, true},
		{starlark.Tuple{starlark.String("x\ny\r\nz"), starlark.String("splitlines")}, true},
		{starlark.Tuple{starlark.String("aXbX"), starlark.String("replace"), starlark.String("X"), starlark.String("-")}, true},
		{starlark.Tuple{starlark.String(", "), starlark.String("join"), starlark.NewList([]starlark.Value{starlark.String("a"), starlark.String("b")})}, true},
		{starlark.Tuple{starlark.String(""), starlark.String("join"), starlark.Tuple{starlark.String("a"), starlark.String("b")}}, true},
		{starlark.Tuple{d, starlark.String("items")}, true},
		{starlark.Tuple{d, starlark.String("keys")}, true},
		{starlark.Tuple{d, starlark.String("values")}, true},
		// errors and other cases: the usual call
		{starlark.Tuple{starlark.String("a"), starlark.String("split"), starlark.String("")}, false},                                    // empty separator
		{starlark.Tuple{starlark.String(","), starlark.String("join"), starlark.NewList([]starlark.Value{starlark.MakeInt(1)})}, false}, // not str
		{starlark.Tuple{starlark.String(","), starlark.String("join"), d}, false},                                                       // any iterable
		{starlark.Tuple{starlark.String("abc"), starlark.String("find"), starlark.String("b"), starlark.MakeInt(1)}, false},             // positions
		{starlark.Tuple{starlark.String("abc"), starlark.String("count"), starlark.MakeInt(1)}, false},
		{starlark.Tuple{starlark.String("abc"), starlark.String("format")}, true},
		{starlark.Tuple{starlark.String("{}={:.1f}"), starlark.String("format"), starlark.String("x"), starlark.Float(0.25)}, true},
		{starlark.Tuple{starlark.String("{}"), starlark.String("format"), starlark.NewList(nil)}, false},  // not a basic value
		{starlark.Tuple{starlark.String("{} {}"), starlark.String("format"), starlark.MakeInt(1)}, false}, // IndexError
		{starlark.Tuple{d, starlark.String("items"), starlark.String("x")}, false},
		{starlark.Tuple{d, starlark.String("get"), starlark.String("a")}, false},
		{starlark.Tuple{starlark.NewList(nil), starlark.String("count"), starlark.String("a")}, false},
		{starlark.Tuple{starlark.String("abc")}, false},
	} {
		thread := &starlark.Thread{}
		got, ok := py.PyMethodFast(thread, c.args)
		assert.Equal(t, c.fast, ok, "%v", c.args)
		if !ok {
			continue
		}
		want, err := py.PyMethod(thread, nil, c.args, nil)
		require.NoError(t, err, "%v", c.args)
		assert.Equal(t, want.Type(), got.Type(), "%v", c.args)
		assert.Equal(t, want.String(), got.String(), "%v", c.args)
	}
}

// TestLenFastWords: len of a short str counted directly agrees with
// StrLen (code points; an invalid byte counts one, as everywhere else).
func TestLenFastWords(t *testing.T) {
	for _, s := range []string{"", "a", "hello", "héllo", "日本語", "\xff\xfe", "a\xffb", "exactly16bytes!!", "seventeen bytes!!"} {
		v, ok := py.LenFast(nil, starlark.Tuple{starlark.String(s)})
		require.True(t, ok, "%q", s)
		n, _ := starlark.AsInt32(v)
		assert.Equal(t, StrLen(s), n, "%q", s)
		assert.Equal(t, len([]rune(s)), n, "%q", s)
	}
}

// TestIsASCII: the 32-byte rounds and the word and byte tails each see a
// non-ASCII byte wherever it sits.
func TestIsASCII(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 31, 32, 33, 64, 100} {
		s := strings.Repeat("a", n)
		assert.True(t, py.IsASCII(s), "len %d", n)
		for i := 0; i < n; i++ {
			assert.False(t, py.IsASCII(s[:i]+"\x80"+s[i+1:]), "len %d, byte %d", n, i)
		}
	}
}

// TestIntOfStr: int(str) agrees with CPython on the short decimal fast
// path (smallDecimal) and off it.
func TestIntOfStr(t *testing.T) {
	s := New(Config{})
	r, err := s.Exec(t.Context(), `out = []
for x in ["0", "-0", "+7", "0123", "-42", "999999999999999999", "9999999999999999999", " 12 ", "1_000", "-"+"9"*18, "\u0663", "\u0661\u0662", "\uff17", "\U0001d7d9"]:
    out.append(int(x))
print(out, int("ff", 16), int("0x10", 0), int("-0b101", 0), float("\u0663.5"))`)
	require.NoError(t, err)
	assert.Equal(t, "[0, 0, 7, 123, -42, 999999999999999999, 9999999999999999999, 12, 1000, -999999999999999999, 3, 12, 7, 1] 255 16 -5 3.5\n", r.Output)
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
