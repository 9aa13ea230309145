package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/pyfront"
)

// TestNativeOpsSemantics runs the operations the front end now leaves
// native (the interpreter's PyOps hooks and int64 fast paths) at the
// edges where Python and Starlark disagree or where int64 overflows; the
// expected outputs are CPython's.
func TestNativeOpsSemantics(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"percent-format", `print("%s|%r|%5.1f|%d%%" % (None, "a", 2.25, 7), "%(k)s" % {"k": [1, "x"]})`, "None|'a'|  2.2|7% [1, 'x']\n"},
		{"percent-mod", `print(-7 % 3, 7 % -3, -(2**40) % 7, (2**40) % -7, 7.5 % 2, -1 % 2**63)`, "2 -2 5 -5 1.5 9223372036854775807\n"},
		{"percent-assign", "s = '%d-%s'\ns %= (1, 'a')\nn = 17\nn %= 5\nprint(s, n)", "1-a 2\n"},
		{"star", `print("ab" * 3, [0] * 2, 3 * (1,), 2**31 * 2**31, (-2**63) * -1, 3037000500 * 3037000500, -3 * 2**62)`,
			"ababab [0, 0] (1, 1, 1) 4611686018427387904 9223372036854775808 9223372037000250000 -13835058055282163712\n"},
		{"star-assign", "xs = [1]\nxs *= 3\nn = 2**40\nn *= 2**30\nprint(xs, n)", "[1, 1, 1] 1180591620717411303424\n"},
		{"add-sub-overflow", `print(2**62 + 2**62, -(2**63) - 1, 2**63 - 1 + 1, -(2**62) - 2**62, (2**63 - 1) - (-1))`,
			"9223372036854775808 -9223372036854775809 9223372036854775808 -9223372036854775808 9223372036854775808\n"},
		{"compare-int64", `print(2**40 < 2**41, -(2**40) > 2**33, 2**63 == 2**63, sorted([2**40, -5, 2**33, 2**70]))`,
			"True False True [-5, 8589934592, 1099511627776, 1180591620717411303424]\n"},
		{"index", "s = 'naïve'\nd = {'k': 1}\nxs = [1, 2, 3]\nprint(s[2], s[-1], d['k'], xs[-1], (4, 5)[0])", "ï e 1 3 4\n"},
		{"slice", "s = 'naïve café'\nprint(s[2:4], s[::-1], [1, 2, 3][::2], s[-4:])", "ïv éfac evïan [1, 3] café\n"},
		{
			"iterate",
			"out = []\nfor c in 'hé':\n    out.append(c)\nxs = [1]\nfor x in xs:\n    if x < 3:\n        xs.append(x + 1)\nd = {'a': 1}\nfor k in d:\n    d[k] = 2\nprint(out, xs, [c for c in 'ab'], d)",
			"['h', 'é'] [1, 2, 3] ['a', 'b'] {'a': 2}\n",
		},
		{
			"errors",
			"try:\n    {}['x']\nexcept KeyError as e:\n    print('KeyError', e)\ntry:\n    1 % 0\nexcept ZeroDivisionError as e:\n    print(e)\ntry:\n    'abc'[5]\nexcept IndexError as e:\n    print(e)\ntry:\n    for x in 5:\n        pass\nexcept TypeError as e:\n    print(e)",
			"KeyError 'x'\ninteger modulo by zero\nstring index out of range\n'int' object is not iterable\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}

// TestNativeOpsLowering checks that with NativeOps the front end emits
// native %, *, subscripts, slices and loop iterables, and the helper calls
// without it.
func TestNativeOpsLowering(t *testing.T) {
	src := "y = [a % 2 * b[1] for a in xs]\nfor c in s[1:]:\n    n %= 3\n"
	for _, native := range []bool{false, true} {
		prog, err := pyfront.Compile("x.py", src, pyfront.Options{CodePoints: true, NativeOps: native})
		require.NoError(t, err)
		out := pyfront.Unparse(prog.Chunks[0].File.Stmts)
		for _, helper := range []string{"_py_mod", "_py_mul", "_py_getitem", "_py_getslice", "_py_iter"} {
			assert.Equal(t, !native, strings.Contains(out, helper), "NativeOps=%v: %s in\n%s", native, helper, out)
		}
	}
}

// TestSortStable checks the merge sort behind list.sort and sorted:
// stable, with key and reverse, on sizes around the insertion-sort cut.
func TestSortStable(t *testing.T) {
	for _, n := range []int{0, 1, 12, 13, 100, 1001} {
		xs := make([]starlark.Value, n)
		for i := range xs {
			xs[i] = starlark.Tuple{starlark.MakeInt((i * 7919) % 13), starlark.MakeInt(i)}
		}
		s := New(Config{})
		s.SetGlobal("xs", starlark.NewList(xs))
		res, err := s.Exec(t.Context(), `
a = sorted(xs, key=lambda p: p[0])
b = sorted(xs, key=lambda p: p[0], reverse=True)
ok = all(a[i][0] < a[i+1][0] or (a[i][0] == a[i+1][0] and a[i][1] < a[i+1][1]) for i in range(len(a) - 1))
ok2 = all(b[i][0] > b[i+1][0] or (b[i][0] == b[i+1][0] and b[i][1] < b[i+1][1]) for i in range(len(b) - 1))
print(ok, ok2, len(a) == len(xs))
`)
		require.NoError(t, err)
		assert.Equal(t, "True True True\n", res.Output, "n=%d", n)
	}
}

// TestLiteralSearchMethods checks str.find, rfind, index, rindex, count,
// replace and `in` on a text past the size where they use the rare-byte
// scan, with code-point offsets in a non-ASCII text; the expected values
// are computed the way CPython would (offsets in code points).
func TestLiteralSearchMethods(t *testing.T) {
	body := strings.Repeat("café the lazy dog ", 40000) // 720,000 code points, non-ASCII
	text := "théad " + body + "the magic word " + body + "end"
	s := New(Config{})
	s.SetGlobal("text", starlark.String(text))
	res, err := s.Exec(t.Context(), `
print(text.find("the magic"), text.index("the magic"), text.rfind("the lazy"), text.rindex("café"), text.find("absent!"), text.rfind("absent!"))
print(text.count("the magic"), text.count("lazy dog"), "the magic" in text, "the magix" in text)
r = text.replace("the magic", "THE MAGIC", 1)
print(r.find("THE MAGIC"), len(r) == len(text), text.replace("absent!", "x") == text)
try:
    text.index("absent!")
except ValueError as e:
    print("ValueError", e)
`)
	require.NoError(t, err)
	body32 := len([]rune(body))
	magic := 6 + body32
	lastLazy := len([]rune(text)) - 3 - 18 + 5
	lastCafe := len([]rune(text)) - 3 - 18
	want := fmt.Sprintf(
		"%d %d %d %d -1 -1\n1 80000 True False\n%d True True\nValueError substring not found\n",
		magic,
		magic,
		lastLazy,
		lastCafe,
		magic,
	)
	assert.Equal(t, want, res.Output)
}
