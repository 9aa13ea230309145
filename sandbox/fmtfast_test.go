package sandbox

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	r, err := s.Exec(
		t.Context(),
		`print("{}: {:>8}|{!r}|{:.3f}|{}".format(7, 14, "s", 2/3, None), "{:,}".format(1234567), "{1}{0}{1}".format("a", "b"))`,
	)
	require.NoError(t, err)
	assert.Equal(t, "7:       14|'s'|0.667|None 1,234,567 bab\n", r.Output)
	_, err = s.Exec(t.Context(), `"{} {}".format(1)`)
	assert.ErrorContains(t, err, "Replacement index 1 out of range for positional args tuple")
	_, err = s.Exec(t.Context(), `"{} {0}".format(1)`)
	assert.ErrorContains(t, err, "cannot switch from automatic field numbering to manual field specification")
}
