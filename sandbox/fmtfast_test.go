package sandbox

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rlmhq/rlm/sandbox/internal/py"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendFloatRepr: the fast repr of floats writes what formatFloatRepr
// (CPython's repr) writes, on edge values and random bit patterns.
func TestAppendFloatRepr(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, 0.1, 0.1 + 0.2, 1e-4, -1e-4,
		math.Nextafter(1e-4, 0), 9.99e-5, 1e16, math.Nextafter(1e16, 0), 9999999999999998,
		1e15 + 0.3, 123456789.125, 5e-324, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 1e22, 100}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		vals = append(vals, math.Float64frombits(r.Uint64()), r.Float64()*math.Pow(10, float64(r.IntN(40)-20)))
	}
	for _, f := range vals {
		require.Equal(t, py.FormatFloatRepr(f), string(py.AppendFloatRepr(nil, f)), "%b", f)
	}
}

// TestAppendFormatFast: the fast paths of format() agree with the
// general formatting for the specs they take and decline the others.
func TestAppendFormatFast(t *testing.T) {
	tests := []struct {
		spec string
		fast bool
	}{
		{"", true}, {">8", true}, {"<8", true}, {"^9", true}, {"*^9", true}, {"é>6", true},
		{"08", true}, {"+08", true}, {" ", true}, {".2f", true}, {"+10.3f", true}, {"#.0f", true},
		{",", false}, {"_x", false}, {"z.1f", false}, {".3e", false}, {"%", false}, {"c", false},
	}
	s, err := py.ParseSpec(".2s")
	require.NoError(t, err)
	out, ok := py.AppendFormatFast(nil, starlark.String("héllo"), &s)
	assert.True(t, ok)
	assert.Equal(t, "hé", string(out))
	for _, tt := range tests {
		s, err := py.ParseSpec(tt.spec)
		require.NoError(t, err)
		for _, v := range []any{"abc", "", int64(-42), int64(7), int64(math.MinInt64), 2.5, math.Copysign(0, -1), 1e-7, 1e300} {
			val, err := FromGo(v)
			require.NoError(t, err)
			out, ok := py.AppendFormatFast(nil, val, &s)
			want, werr := py.FormatValue(nil, val, tt.spec)
			if !ok {
				continue
			}
			require.NoError(t, werr, "%q %v", tt.spec, v)
			assert.Equal(t, want, string(out), "%q %v", tt.spec, v)
		}
		if !tt.fast {
			_, ok := py.AppendFormatFast(nil, starlark.Float(2.5), &s)
			assert.False(t, ok, tt.spec)
		}
	}
}

// TestPairLoopSteps: a for loop over enumerate, which the interpreter
// runs without building the pairs, counts as many steps per item as the
// same loop over a list of the same pairs (the skipped UNPACK still
// counts).
func TestPairLoopSteps(t *testing.T) {
	steps := func(n int, loop string) uint64 {
		s := New(Config{})
		_, err := s.Exec(context.Background(), fmt.Sprintf("xs = list(range(%d))\npairs = [(i, x) for i, x in zip(range(%d), xs)]", n, n))
		require.NoError(t, err)
		res, err := s.Exec(context.Background(), "n = 0\nfor i, x in "+loop+":\n    n += i\n")
		require.NoError(t, err)
		return res.Steps
	}
	perItem := func(loop string) uint64 { return (steps(2000, loop) - steps(1000, loop)) / 1000 }
	assert.Equal(t, perItem("pairs"), perItem("enumerate(xs)"))
	assert.Greater(t, perItem("enumerate(xs)"), uint64(4))
}

// TestFStrFastPath: f-strings of basic values take _py_fstr's fast path
// with the general call's results; a bad spec still fails with CPython's
// message, and a value whose __str__ is the program's is formatted once.
func TestFStrFastPath(t *testing.T) {
	s := New(Config{})
	r, err := s.Exec(t.Context(), `calls = []
class P:
    def __str__(self):
        calls.append(1)
        return "p"
x, y, n, b = 3.14159, "hi", None, True
print(f"{x:.2f}|{y!r:>6}|{n}|{b}|{7:05d}|{-2**70}|{x:e}|{P()}", len(calls))`)
	require.NoError(t, err)
	assert.Equal(t, "3.14|  'hi'|None|True|00007|-1180591620717411303424|3.141590e+00|p 1\n", r.Output)
	_, err = s.Exec(t.Context(), `f"{'a':d}"`)
	assert.ErrorContains(t, err, "Unknown format code 'd' for object of type 'str'")
}

// TestFormatFastPath: str.format of basic values answered by
// _py_method's fast path gives the general call's results and errors.
func TestFormatFastPath(t *testing.T) {
	s := New(Config{})
	r, err := s.Exec(t.Context(), `print("{}: {:>8}|{!r}|{:.3f}|{}".format(7, 14, "s", 2/3, None), "{:,}".format(1234567), "{1}{0}{1}".format("a", "b"))`)
	require.NoError(t, err)
	assert.Equal(t, "7:       14|'s'|0.667|None 1,234,567 bab\n", r.Output)
	_, err = s.Exec(t.Context(), `"{} {}".format(1)`)
	assert.ErrorContains(t, err, "Replacement index 1 out of range for positional args tuple")
	_, err = s.Exec(t.Context(), `"{} {0}".format(1)`)
	assert.ErrorContains(t, err, "cannot switch from automatic field numbering to manual field specification")
}
