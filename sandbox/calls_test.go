package sandbox

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/pyfront"
)

// TestCallFrames checks Python calls on the interpreter's call path (our
// go.starlark.net patches: the recursion limit checked when a def is
// called, frames from a per-thread value stack): a call never sees the
// locals of an earlier one, deep recursion that outgrows the value stack
// keeps every frame's values, and the recursion limit, its error and its
// traceback are CPython's.
func TestCallFrames(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		code  string
		out   string // expected output, when the code succeeds
		kind  string // else the expected error
		tb    string // and its traceback
	}{
		{
			name: "a call starts with no locals",
			code: "def f(flag):\n    if flag:\n        x = 1\n    return x\nprint(f(True))\nprint(f(False))",
			out:  "1\n",
			kind: "UnboundLocalError",
			tb:   "Traceback (most recent call last):\n  line 6, in <module>\n    print(f(False))\n  line 4, in f\n    return x\nUnboundLocalError: cannot access local variable 'x' where it is not associated with a value",
		},
		{
			name: "deep frames keep their values",
			code: "def f(n, a, b, c, d, e):\n    g, h, i, j = n * 2, n * 3, [n], (n,)\n    if n == 0:\n        return 0\n    r = f(n - 1, a + 1, b, c, d, e)\n    return r + g + h + i[0] + j[0] + a - n\nprint(f(900, 0, 1, 2, 3, 4), [f(k, 0, 0, 0, 0, 0) for k in range(4)])",
			out:  "2837250 [0, 6, 19, 39]\n",
		},
		{
			name: "the limit counts every frame",
			code: "def g(n):\n    if n == 0:\n        return 0\n    return 1 + g(n - 1)\nfor k in range(990, 1010):\n    try:\n        g(k)\n    except RecursionError as e:\n        print('fail at', k, e)\n        break",
			out:  "fail at 997 maximum recursion depth exceeded\n",
		},
		{name: "a configured limit", limit: 50, code: "def g(n):\n    return 0 if n == 0 else 1 + g(n - 1)\nprint(g(40))\ng(60)",
			out: "40\n", kind: "RecursionError", tb: "Traceback (most recent call last):\n  line 4, in <module>\n    g(60)\n  line 2, in g\n    return 0 if n == 0 else 1 + g(n - 1)\n  line 2, in g\n    return 0 if n == 0 else 1 + g(n - 1)\n  line 2, in g\n    return 0 if n == 0 else 1 + g(n - 1)\n  [Previous line repeated 46 more times]\nRecursionError: maximum recursion depth exceeded"},
		{
			name: "methods of built-in values and of instances",
			code: "class C:\n    def count(self, x):\n        return 42\nxs = [3, 1, 2]\nxs.sort(key=lambda v: -v)\nprint(C().count(1), xs, 'a,b'.split(','), 'a b'.split(), {'k': 1}.items(), 'banana'.count('a'))\ns = 'abc'\ndef f():\n    return s.index('z')\ntry:\n    f()\nexcept ValueError as e:\n    print('caught', e)\ndef g(d):\n    return d.items(1)\ng({})",
			out:  "42 [3, 2, 1] ['a', 'b'] ['a', 'b'] dict_items([('k', 1)]) 3\ncaught substring not found\n",
			kind: "TypeError",
			tb:   "  line 15, in g\n    return d.items(1)\nTypeError: items() takes no arguments (1 given)",
		},
		{
			name: "methods called without a bound method",
			code: "w = ' a,b. '\nprint(w.strip(' .').upper(), [w.strip(c) for c in ' .,'], {'a': 1}.get('a' + '', -1), [1, 2].index(1 + 1))\nd = {}\nd.setdefault('k' * 2, []).append(len([1]))\nf = 'abc'.upper\nprint(d, f(), 'a-b'.replace('-'.strip(), '+'.lower()), 'abc'.count('a' if w else 'b'), [x.upper() for x in 'ab'.split()])\ndef g(s, n):\n    out = []\n    for i in range(n):\n        out.append(s.lower().count(s[i].lower()))\n    return out\nprint(g('AbA', 3))\ntry:\n    'abc'.count(d['x'])\nexcept KeyError as e:\n    print('KeyError', e)\nprint({1, 2}.union([3]), 'x'.join(['a', 'b']))\n",
			out:  "A,B ['a,b.', ' a,b. ', ' a,b. '] 1 1\n{'kk': [1]} ABC a+b 1 ['AB']\n[2, 1, 2]\nKeyError 'x'\n{1, 2, 3} axb\n",
		},
		{name: "an error in a method called without a bound method", code: "def g(x):\n    return x.lower(1)\nprint('a'.lower())\ng('A')",
			out: "a\n", kind: "TypeError", tb: "  line 4, in <module>\n    g('A')\n  line 2, in g\n    return x.lower(1)\nTypeError: lower: got 1 arguments, want 0"},
		{
			name: "failed calls pop their frames",
			code: "def bad(x):\n    return 1 // x\ndef two(a, b):\n    return a\ndef g(n):\n    return 0 if n == 0 else 1 + g(n - 1)\nfor i in range(3000):\n    try:\n        bad(0)\n    except ZeroDivisionError:\n        pass\n    try:\n        two(i)\n    except TypeError as e:\n        msg = str(e)\nprint(msg, g(990))\nbad(0)",
			out:  "two() missing 1 required positional argument: 'b' 990\n",
			kind: "ZeroDivisionError",
			tb:   "Traceback (most recent call last):\n  line 17, in <module>\n    bad(0)\n  line 2, in bad\n    return 1 // x\nZeroDivisionError: integer division or modulo by zero",
		},
		{
			name: "failed method calls pop their frames",
			code: "def g(n):\n    return 0 if n == 0 else 1 + g(n - 1)\nfor i in range(3000):\n    try:\n        'a'.lower(i)\n    except TypeError as e:\n        msg = str(e)\n    try:\n        [].pop()\n    except IndexError as e:\n        msg2 = str(e)\nprint(msg, msg2, g(990))\nxs = []\nxs.pop()",
			out:  "lower: got 1 arguments, want 0 pop from empty list 990\n",
			kind: "IndexError",
			tb:   "Traceback (most recent call last):\n  line 14, in <module>\n    xs.pop()\nIndexError: pop from empty list",
		},
		{name: "lambdas are not limited", code: "h = lambda n: 0 if n == 0 else 1 + h(n - 1)\nprint(h(1500))", out: "1500\n"},
		{
			name: "mutual recursion through a builtin",
			code: "def a(n):\n    return b(n)\ndef b(n):\n    return sorted([3, 1, 2], key=lambda x: a(n + 1))\na(0)",
			kind: "RecursionError",
			tb:   "  line 4, in b\n    return sorted([3, 1, 2], key=lambda x: a(n + 1))\n  line 2, in a\n    return b(n)\n  line 4, in b\n    return sorted([3, 1, 2], key=lambda x: a(n + 1))\nRecursionError: maximum recursion depth exceeded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := New(Config{Limits: Limits{MaxRecursion: tt.limit}}).Exec(t.Context(), tt.code)
			assert.Equal(t, tt.out, res.Output)
			if tt.kind == "" {
				require.NoError(t, err)
				return
			}
			var se *ScriptError
			require.True(t, errors.As(err, &se), "error %v", err)
			assert.Equal(t, tt.kind, se.Kind)
			assert.True(t, strings.HasSuffix(se.Traceback, tt.tb), "traceback:\n%s\nwant the end:\n%s", se.Traceback, tt.tb)
		})
	}
}

// TestNativeDepthLowering checks that with NativeDepth the front end no
// longer starts each def with a _py_enter() call.
func TestNativeDepthLowering(t *testing.T) {
	src := "def f(x):\n    '''doc'''\n    return x\n"
	for _, native := range []bool{false, true} {
		prog, err := pyfront.Compile("x.py", src, pyfront.Options{NativeDepth: native})
		require.NoError(t, err)
		out := pyfront.Unparse(prog.Chunks[0].File.Stmts)
		assert.Equal(t, !native, strings.Contains(out, "_py_enter()"), "NativeDepth=%v:\n%s", native, out)
		assert.Contains(t, out, "def f(x):\n    \"doc\"", "the docstring stays first")
	}
}

// TestCallsAllocateNothing checks that a loop calling a def, builtins and
// str methods allocates nothing per iteration: frames come from the
// thread's value stack, a method of a built-in value runs without the
// _py_method helper's frame, and the arguments of builtins that do not
// keep them are not copied (go.starlark.net patches, rlm_calls.go).
func TestCallsAllocateNothing(t *testing.T) {
	const code = `
def score(s):
    return len(s) * 2 + s.count("a") + s.find("b") + abs(-1) + max(1, 2) + int(True)
total = 0
for w in words:
    total += score(w)
`
	mallocs := func(n int) uint64 {
		s := New(Config{})
		words := make([]starlark.Value, n)
		for i := range words {
			words[i] = starlark.String("banana")
		}
		s.SetGlobal("words", starlark.NewList(words))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := s.Exec(t.Context(), code)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		return after.Mallocs - before.Mallocs
	}
	small, large := mallocs(1000), mallocs(21000)
	perCall := float64(int64(large)-int64(small)) / 20000
	assert.Less(t, perCall, 0.1, "allocations per iteration (%d for 1000 iterations, %d for 21000)", small, large)
}

// TestMethodPlainArgs checks the methods that take their common
// arguments without unpacking (go.starlark.net, plainArgs): results, and
// the errors of other argument lists, as CPython's.
func TestMethodPlainArgs(t *testing.T) {
	const code = "d = {'a': 1}\nprint(d.get('a'), d.get('b'), d.get('b', 2), d.setdefault('c'), d.setdefault('e', 5), d.setdefault('a', 9), d)\nxs = []\nxs.append(1)\nxs.append([2])\nprint(xs, ' a '.strip(), 'xax'.strip('x'), ' a '.lstrip(), 'xax'.rstrip('x'), 'Ab'.lower(), 'Ab'.upper())\nprint('abc'.startswith('ab'), 'abc'.endswith('bc'), 'abc'.startswith(('x', 'a')), 'abc'.endswith('x'), 'abc'.startswith(''))\nfor f in [lambda: d.get(), lambda: d.get(1, 2, 3), lambda: xs.append(), lambda: xs.append(1, 2), lambda: 'a'.lower(1), lambda: 'a'.strip(1), lambda: 'a'.startswith(1), lambda: d.setdefault()]:\n    try:\n        f()\n    except TypeError as e:\n        print('TypeError')\n"
	const want = "1 None 2 None 5 1 {'a': 1, 'c': None, 'e': 5}\n[1, [2]] a a a  xa ab AB\nTrue True True False True\nTypeError\nTypeError\nTypeError\nTypeError\nTypeError\nTypeError\nTypeError\nTypeError\n"
	res, err := New(Config{}).Exec(t.Context(), code)
	require.NoError(t, err)
	assert.Equal(t, want, res.Output)
}

// TestSortFastKeys checks sorting by keys that the comparison fast path
// takes (str, int, tuples of them, ints past int64) and by keys it leaves
// to the general comparison, against CPython's output.
func TestSortFastKeys(t *testing.T) {
	const code = "xs = [(1, \"b\"), (1, \"a\"), (0, \"z\"), (1,), (), (2**70, \"x\"), (-2**70, \"y\"), (1, \"a\", 3), (1, \"a\", 2)]\nprint(sorted(xs), sorted(xs, reverse=True))\nprint(sorted([\"é\", \"e\", \"z\", \"É\", \"a\", \"\\U0001F600\", \"\\uffff\"]), sorted([3, 2**64, -2**64, 0, -1, 2**31, -2**31 - 1]))\nd = {\"k%d\" % i: (i * 7919) % 13 for i in range(40)}\nprint(sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))[:6], sorted(d.items(), key=lambda kv: kv[1], reverse=True)[:6])\nprint(sorted([(1, [2]), (1, [1])]))\n"
	const want = "[(), (-1180591620717411303424, 'y'), (0, 'z'), (1,), (1, 'a'), (1, 'a', 2), (1, 'a', 3), (1, 'b'), (1180591620717411303424, 'x')] [(1180591620717411303424, 'x'), (1, 'b'), (1, 'a', 3), (1, 'a', 2), (1, 'a'), (1,), (0, 'z'), (-1180591620717411303424, 'y'), ()]\n['a', 'e', 'z', 'É', 'é', '\\uffff', '😀'] [-18446744073709551616, -2147483649, -1, 0, 3, 2147483648, 18446744073709551616]\n[('k19', 12), ('k32', 12), ('k6', 12), ('k12', 11), ('k25', 11), ('k38', 11)] [('k6', 12), ('k19', 12), ('k32', 12), ('k12', 11), ('k25', 11), ('k38', 11)]\n[(1, [1]), (1, [2])]\n"
	// Keys all ints of int64 or all strs are sorted as Go values
	// (int64Keys, stringKeys); a bool among ints is not.
	const code2 = "d = {\"k%d\" % i: (i * 7919) % 103 for i in range(300)}\na = sorted(d.items(), key=lambda kv: kv[1], reverse=True)[:8]\nb = sorted(d.items(), key=lambda kv: kv[1])[:8]\nc = sorted(d, reverse=True)[:5]\ne = sorted([3, 1, 2**70, -5, True, 2])\nf = sorted([\"b\", \"\u00e9\", \"a\", \"B\"], reverse=True)\ng = sorted([(1, \"a\"), (0, \"b\")], key=lambda t: t[1])\nxs = [5, 3, 9]; xs.sort(key=lambda v: -v)\nprint(a, b, c, e, f, g, xs, sorted(d.values())[:5], sorted(range(10), key=lambda v: v % 3, reverse=True))\n"
	const want2 = "[('k43', 102), ('k146', 102), ('k249', 102), ('k86', 101), ('k189', 101), ('k292', 101), ('k26', 100), ('k129', 100)] [('k0', 0), ('k103', 0), ('k206', 0), ('k60', 1), ('k163', 1), ('k266', 1), ('k17', 2), ('k120', 2)] ['k99', 'k98', 'k97', 'k96', 'k95'] [-5, 1, True, 2, 3, 1180591620717411303424] ['\u00e9', 'b', 'a', 'B'] [(1, 'a'), (0, 'b')] [9, 5, 3] [0, 0, 0, 1, 1] [2, 5, 8, 1, 4, 7, 0, 3, 6, 9]\n"
	// Keys that are tuples of one length, each position all int64 or
	// all strs, are compared by column (tupleKeys).
	const code3 = "d = {\"k%d\" % i: (i * 7919) % 7 for i in range(30)}\na = sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))[:7]\nb = sorted(d.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:5]\nc = sorted([(\"b\", 2, \"x\"), (\"a\", 3, \"y\"), (\"b\", 1, \"z\"), (\"\u00e9\", 0, \"a\"), (\"a\", 3, \"b\")], key=lambda t: (t[0], -t[1], t[2]))\ne = sorted([(2, \"a\"), (2**70, \"b\"), (1, \"c\")])\nf = sorted([(1, \"a\", 0), (1, \"a\", 0), (0, \"b\", 1)], key=lambda t: (t[0], t[1]))\ng = sorted([(1, \"a\"), (1, 2), (0, 3)], key=lambda t: (t[0],))\nprint(a, b, c, e, f, g)\n"
	const want3 = "[('k10', 6), ('k17', 6), ('k24', 6), ('k3', 6), ('k13', 5), ('k20', 5), ('k27', 5)] [('k3', 6), ('k24', 6), ('k17', 6), ('k10', 6), ('k6', 5)] [('a', 3, 'b'), ('a', 3, 'y'), ('b', 2, 'x'), ('b', 1, 'z'), ('\u00e9', 0, 'a')] [(1, 'c'), (2, 'a'), (1180591620717411303424, 'b')] [(0, 'b', 1), (1, 'a', 0), (1, 'a', 0)] [(0, 3), (1, 'a'), (1, 2)]\n"
	for _, tc := range []struct{ code, want string }{{code, want}, {code2, want2}, {code3, want3}} {
		res, err := New(Config{}).Exec(t.Context(), tc.code)
		require.NoError(t, err)
		assert.Equal(t, tc.want, res.Output)
	}
}
