package sandbox

import (
	"context"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBoxStrings: strings boxed in place are starlark.Strings like any
// other (type switch, equality, hashing as dict keys, order), still
// intact after the parts' slice and their text are unreachable but for
// them and garbage collections ran.
func TestBoxStrings(t *testing.T) {
	text := strings.Repeat("alpha beta gamma ", 1000) + "é日本"
	vals := starlark.StringValues(strings.Fields(text))
	text = ""
	for range 3 {
		runtime.GC()
	}
	require.Len(t, vals, 3001)
	d := starlark.NewDict(4)
	for i, v := range vals {
		s, ok := v.(starlark.String)
		require.True(t, ok, "%d: %T", i, v)
		want := []string{"alpha", "beta", "gamma"}[i%3]
		if i == 3000 {
			want = "é日本"
		}
		require.Equal(t, want, string(s))
		eq, err := starlark.Equal(v, starlark.String(want))
		require.NoError(t, err)
		require.True(t, eq)
		require.NoError(t, d.SetKey(v, starlark.MakeInt(i)))
	}
	assert.Equal(t, 4, d.Len())
	got, found, err := d.Get(starlark.String("beta"))
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, starlark.MakeInt(2998), got)
	assert.Equal(t, starlark.String("alpha"), vals[0])
	assert.Empty(t, starlark.StringValues(nil))
}

// TestSplitBoxedStrings: lists made by split hold ordinary strs for the
// program: methods, comparison, sorting, sets, concatenation, mutation
// of the list.
func TestSplitBoxedStrings(t *testing.T) {
	s := New(Config{})
	r, err := s.Exec(context.Background(), `words = "b a c a".split()
words.append("z")
words[0] = words[0] + "!"
print(words, sorted(set(words)), words[1] == "a", words[1] == words[3], "-".join(words).upper(), len(words[0]))
parts = "x,y,,z".split(",")
print(parts, [p * 2 for p in parts], "a\nb\r\nc".splitlines())`)
	require.NoError(t, err)
	assert.Equal(
		t,
		"['b!', 'a', 'c', 'a', 'z'] ['a', 'b!', 'c', 'z'] True True B!-A-C-A-Z 2\n['x', 'y', '', 'z'] ['xx', 'yy', '', 'zz'] ['a', 'b', 'c']\n",
		r.Output,
	)
}

// TestBoxInt: str of an int boxed with its digits is the str CPython
// writes, a starlark.String equal to the usual one, one allocation, and
// intact after garbage collections.
func TestBoxInt(t *testing.T) {
	ns := []int64{0, 7, 99, 100, -1, -100, 123456789, math.MaxInt64, math.MinInt64}
	vals := make([]starlark.Value, len(ns))
	for i, n := range ns {
		vals[i] = starlark.IntString(n)
	}
	runtime.GC()
	runtime.GC()
	for i, n := range ns {
		s, ok := vals[i].(starlark.String)
		require.True(t, ok, "%d: %T", n, vals[i])
		assert.Equal(t, strconv.FormatInt(n, 10), string(s))
		h1, err := vals[i].Hash()
		require.NoError(t, err)
		h2, _ := starlark.String(strconv.FormatInt(n, 10)).Hash()
		assert.Equal(t, h2, h1, "%d", n)
	}
	var sink starlark.Value
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { sink = starlark.IntString(123456) }))
	_ = sink
}

// TestBoxTuples: pairs boxed in place are starlark.Tuples like any other,
// intact after garbage collections, and dict.items() made with them
// sorts, compares, indexes and unpacks as in CPython.
func TestBoxTuples(t *testing.T) {
	d := starlark.NewDict(3)
	for i, k := range []string{"b", "a", "c"} {
		require.NoError(t, d.SetKey(starlark.String(k), starlark.MakeInt(i)))
	}
	vals := starlark.TupleValues(d.Items())
	runtime.GC()
	runtime.GC()
	require.Len(t, vals, 3)
	tu, ok := vals[1].(starlark.Tuple)
	require.True(t, ok, "%T", vals[1])
	assert.Equal(t, `("a", 1)`, tu.String())
	eq, err := starlark.Equal(vals[2], starlark.Tuple{starlark.String("c"), starlark.MakeInt(2)})
	require.NoError(t, err)
	assert.True(t, eq)
	h, err := vals[0].Hash()
	require.NoError(t, err)
	h2, _ := starlark.Tuple{starlark.String("b"), starlark.MakeInt(0)}.Hash()
	assert.Equal(t, h2, h)

	s := New(Config{})
	r, err := s.Exec(context.Background(), `d = {"b": 2, "a": 3, "c": 1}
items = d.items()
print(sorted(items), sorted(items, key=lambda kv: kv[1]), list(items)[0], [k + str(v) for k, v in items], ("a", 3) in items, dict(items) == d)`)
	require.NoError(t, err)
	assert.Equal(t, "[('a', 3), ('b', 2), ('c', 1)] [('c', 1), ('b', 2), ('a', 3)] ('b', 2) ['b2', 'a3', 'c1'] True True\n", r.Output)
}

// TestStrBoxer: strings boxed a chunk at a time are the strings given,
// across chunk boundaries and garbage collections, and re.findall made
// with them gives CPython's results.
func TestStrBoxer(t *testing.T) {
	var b starlark.StringBoxer
	var vals []starlark.Value
	for i := 0; i < 3000; i++ {
		vals = append(vals, b.Box(strconv.Itoa(i)))
	}
	runtime.GC()
	runtime.GC()
	for i, v := range vals {
		s, ok := v.(starlark.String)
		require.True(t, ok)
		require.Equal(t, strconv.Itoa(i), string(s))
	}
	s := New(Config{})
	r, err := s.Exec(context.Background(), `import re
t = " ".join(["id%d=%d" % (i, i * i) for i in range(2000)])
a = re.findall(r"id\d+", t)
b = re.findall(r"=(\d+)", t)
print(len(a), a[:2], a[-1], b[1999], sorted(set(a[:3])))`)
	require.NoError(t, err)
	assert.Equal(t, "2000 ['id0', 'id1'] id1999 3996001 ['id0', 'id1', 'id2']\n", r.Output)
}
