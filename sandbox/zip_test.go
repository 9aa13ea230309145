package sandbox

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLazyZip: zip is Python's lazy zip (enumerate's iterators, like
// zip's, iterate a list live): loops over it see elements appended during
// the loop, its results consumed by list, dict, sorted, set, max, nested
// unpacking and comprehensions are CPython's, and len or a non-iterable
// argument fail as in CPython (expected output from CPython 3.11).
func TestLazyZip(t *testing.T) {
	code := `xs = [1, 2]
for i, x in enumerate(xs):
    if i < 3:
        xs.append(x)
print(xs)
ys = [1, 2, 3]
out = []
for a, b in zip(ys, "abcdef"):
    out.append((a, b))
    if a < 3:
        ys.append(a * 10)
print(out, ys)
z = zip([1, 2, 3], "ab", (7, 8, 9))
print(list(z), list(zip()), dict(zip("abc", range(3))), sorted(zip([3, 1], [0, 2])))
print(type(zip([], [])).__name__, [t for t in zip(range(3))], list(zip(range(2), range(5), strict=False)))
try:
    len(zip([1], [2]))
except TypeError as e:
    print("TypeError", e)
try:
    zip([1], 5)
except TypeError as e:
    print("TypeError", e)
for (a, b), c in zip(zip("xy", "pq"), [1, 2]):
    print(a, b, c)
print(set(zip("aa", "bb")), max(zip([1, 5], "ab")), [a + b for a, b in zip("ab", "cd")])
n, (d, k) = next(iter(enumerate(zip("q", "r"))))
print(n, d, k)
print(list(zip([1, 2], [3, 4], strict=True)))
`
	want := "[1, 2, 1, 2, 1]\n[(1, 'a'), (2, 'b'), (3, 'c'), (10, 'd'), (20, 'e')] [1, 2, 3, 10, 20]\n[(1, 'a', 7), (2, 'b', 8)] [] {'a': 0, 'b': 1, 'c': 2} [(1, 2), (3, 0)]\nzip [(0,), (1,), (2,)] [(0, 0), (1, 1)]\nTypeError object of type 'zip' has no len()\nTypeError 'int' object is not iterable\nx p 1\ny q 2\n{('a', 'b')} (5, 'b') ['ac', 'bd']\n0 q r\n[(1, 3), (2, 4)]\n"
	assert.Equal(t, want, run(t, code))
}

// TestZipLoopSteps: a for loop over zip of two lists, which the
// interpreter runs without building the pairs, counts as many steps per
// item as the same loop over a list of the same pairs, and over zip of
// three lists one more (the UNPACK's, as for a list of triples).
func TestZipLoopSteps(t *testing.T) {
	steps := func(n int, loop string) uint64 {
		s := New(Config{})
		_, err := s.Exec(context.Background(), fmt.Sprintf("xs = list(range(%d))\npairs = [(x, x) for x in xs]\ntriples = [(x, x, x) for x in xs]", n))
		require.NoError(t, err)
		res, err := s.Exec(context.Background(), "n = 0\nfor "+loop+":\n    n += a\n")
		require.NoError(t, err)
		return res.Steps
	}
	perItem := func(loop string) uint64 { return (steps(2000, loop) - steps(1000, loop)) / 1000 }
	assert.Equal(t, perItem("a, b in pairs"), perItem("a, b in zip(xs, xs)"))
	assert.Equal(t, perItem("a, b, c in triples"), perItem("a, b, c in zip(xs, xs, xs)"))
	assert.Greater(t, perItem("a, b in zip(xs, xs)"), uint64(3))
}
