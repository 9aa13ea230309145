package starlark

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedIter is an iterable that hands out the same tuple iterator each
// time (as a Python iterator object does): a loop over it that ends must
// not let the interpreter reuse that iterator for another tuple.
type sharedIter struct{ it Iterator }

func (s *sharedIter) String() string        { return "shared" }
func (s *sharedIter) Type() string          { return "shared" }
func (s *sharedIter) Freeze()               {}
func (s *sharedIter) Truth() Bool           { return True }
func (s *sharedIter) Hash() (uint32, error) { return 0, nil }
func (s *sharedIter) Iterate() Iterator     { return s.it }

// TestTupleLoopIterReuse: loops over tuples reuse the iterator of the
// last one that ended, with the same results as fresh iterators, and an
// iterator another value hands out is never reused.
func TestTupleLoopIterReuse(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"nested", "def f():\n    r = []\n    for x in (1, 2):\n        for y in (10, 20):\n            for z in (x, y):\n                r.append(z)\n    return r\nr = f()", "[1, 10, 1, 20, 2, 10, 2, 20]"},
		{"comprehension", "r = [(k, c) for k in ('ab', 'cd') for c in (k[0], k[1]) if c != 'c']", `[("ab", "a"), ("ab", "b"), ("cd", "d")]`},
		{"break-return", "def f():\n    for x in (1, 2, 3):\n        if x == 2:\n            break\n    for y in (4, 5, 6):\n        if y == 5:\n            return (x, y)\nr = f()", "(2, 5)"},
		{"shared", "def f():\n    r = []\n    for x in shared:\n        r.append(x)\n        break\n    for y in ('p', 'q'):\n        r.append(y)\n    for x in shared:\n        r.append(x)\n    return r\nr = f()", `[1, "p", "q", 2, 3]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			thread := new(Thread)
			shared := &sharedIter{it: Tuple{MakeInt(1), MakeInt(2), MakeInt(3)}.Iterate()}
			globals, err := ExecFile(thread, "x.star", c.src, StringDict{"shared": shared})
			require.NoError(t, err)
			assert.Equal(t, c.want, globals["r"].String())
			if thread.tupleIter != nil {
				assert.Nil(t, thread.tupleIter.elems, "a free iterator keeps its tuple")
			}
		})
	}
}

// TestUnpackList: a list of the assignment's length is unpacked without
// an iterator, with the values in order; other lengths fail as before.
func TestUnpackList(t *testing.T) {
	for _, c := range []struct{ name, src, want, err string }{
		{"two", "a, b = 'x,y'.split(',')\nr = (a, b)", `("x", "y")`, ""},
		{"three", "def f(xs):\n    a, b, c = xs\n    return [c, b, a]\nr = f([1, 2, 3])", "[3, 2, 1]", ""},
		{"one", "[a] = [[7]]\nr = a", "[7]", ""},
		{"nested", "(a, [b, c]) = [1, [2, 3]]\nr = (a, b, c)", "(1, 2, 3)", ""},
		{"too-many", "a, b = [1, 2, 3]", "", "too many values to unpack (got 3, want 2)"},
		{"too-few", "a, b, c = [1, 2]", "", "too few values to unpack (got 2, want 3)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			globals, err := ExecFile(new(Thread), "x.star", c.src, nil)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, globals["r"].String())
		})
	}
}

// TestListSliceCopy: a list slice of step 1 is a new list of exactly
// those elements, independent of the list it came from.
func TestListSliceCopy(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"xs = [1, 2, 3, 4, 5]\nr = xs[1:4]", "[2, 3, 4]"},
		{"xs = [1, 2, 3]\nr = xs[2:1]", "[]"},
		{"xs = [1, 2, 3]\nr = xs[:]", "[1, 2, 3]"},
		{"xs = [1, 2, 3]\nys = xs[0:2]\nys.append(9)\nr = (xs, ys)", "([1, 2, 3], [1, 2, 9])"},
		{"xs = [1, 2, 3]\nys = xs[1:]\nxs[1] = 7\nr = (xs, ys)", "([1, 7, 3], [2, 3])"},
	} {
		globals, err := ExecFile(new(Thread), "x.star", c.src, nil)
		require.NoError(t, err, c.src)
		assert.Equal(t, c.want, globals["r"].String(), c.src)
	}
}
