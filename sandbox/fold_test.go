package sandbox

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/pyfront"
)

// TestFoldSemantics: sum, min and max of a generator expression or list
// comprehension fold its elements as they come (foldSink) with the
// builtins' results and errors; a user's sum, min or max of the same name
// still gets the elements as a list. Expected outputs are CPython's.
func TestFoldSemantics(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{
			"sum-genexp",
			"print(sum(x * x for x in range(100000)), sum(-x * x for x in range(100000)))",
			"333328333350000 -333328333350000\n",
		},
		{"sum-listcomp", "print(sum([1.5 for _ in range(3)]), sum(x for x in []), sum(i for i in range(5) if i % 2))", "4.5 0 4\n"},
		{"sum-nested-clauses", "print(sum(a * b for a in range(3) for b in range(3) if a != b))", "4\n"},
		{
			"sum-bools-big-floats",
			"print(sum(x for x in [True, True, 3]), sum(x for x in [2**70, 1]), sum(x for x in [0.1, 0.2]))",
			"5 1180591620717411303425 0.30000000000000004\n",
		},
		{
			"min-max",
			"print(max(x % 1000 for x in range(3000)), min((x - 5) ** 2 for x in range(10)), max(c for c in 'hello'), min([w for w in 'b a c'.split()]))",
			"999 0 o a\n",
		},
		{
			"min-max-lists",
			"print(min([3, -2, 7]), max([3, -2, 7]), min(4, 2, 9), max([2**70, 5]), min([1.5, 1, True]), max([0, False]), max([1, 3, 2], key=lambda x: -x), min([], default='none'))",
			"-2 7 2 1180591620717411303424 1 0 1 none\n",
		},
		{"parenthesized", "print(max((x for x in range(5))), sum((x for x in range(5))))", "4 10\n"},
		{"in-comprehension", "print([sum(y for y in range(x)) for x in range(5)])", "[0, 0, 1, 3, 6]\n"},
		{
			"shadowed",
			"def f():\n    sum = lambda xs: 'mine:' + str(list(xs))\n    return sum(x for x in range(3))\nprint(f())\nmax = sorted\nprint(max(x for x in 'cab'))",
			"mine:[0, 1, 2]\n['a', 'b', 'c']\n",
		},
		{
			"empty-max",
			"try:\n    max(x for x in [])\nexcept ValueError as e:\n    print('ValueError', e)",
			"ValueError max() arg is an empty sequence\n",
		},
		{
			"sum-type-error",
			"try:\n    sum(x for x in [1, 'a'])\nexcept TypeError as e:\n    print('TypeError', e)",
			"TypeError unsupported operand type(s) for +: 'int' and 'str'\n",
		},
		{
			"max-type-error",
			"try:\n    max(x for x in [1, 'a'])\nexcept TypeError as e:\n    print('TypeError', e)",
			"TypeError '>' not supported between instances of 'str' and 'int'\n",
		},
		{
			"error-in-body",
			"try:\n    sum(1 // x for x in [1, 0])\nexcept ZeroDivisionError as e:\n    print('ZeroDivisionError', e)",
			"ZeroDivisionError integer division or modulo by zero\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}

// TestFoldAnyAll: any and all of a generator expression stop at the
// first true (any) or false (all) element, so the rest of the generator
// is never evaluated, as in CPython (side effects and errors included);
// of a list comprehension they see every element, built first. Expected
// outputs are CPython's.
func TestFoldAnyAll(t *testing.T) {
	logf := "log = []\ndef f(x):\n    log.append(x)\n    return x\n"
	tests := []struct{ name, code, want string }{
		{"any-stops-before-error", "print(any(1 / x > 0 for x in [1, 0]))", "True\n"},
		{"all-stops-before-error", "print(all(1 / x > 0 for x in [-1, 0]))", "False\n"},
		{"any-side-effects", logf + "print(any(f(x) for x in [0, 0, 3, 4]), log)", "True [0, 0, 3]\n"},
		{"all-side-effects", logf + "print(all(f(x) for x in [1, 2, 0, 4]), log)", "False [1, 2, 0]\n"},
		{
			"no-deciding-element",
			logf + "print(any(f(x) for x in [0, '']), all(f(x) for x in [1, 'a']), log)",
			"False True [0, '', 1, 'a']\n",
		},
		{"empty", "print(any(x for x in []), all(x for x in []))", "False True\n"},
		{
			"list-comprehension-is-built-first",
			"try:\n    any([1 / x for x in [1, 0]])\nexcept ZeroDivisionError as e:\n    print('ZeroDivisionError', e)",
			"ZeroDivisionError division by zero\n",
		},
		{"parenthesized", "print(any((x > 2 for x in range(10))), all(((x < 5) for x in range(10))))", "True False\n"},
		{
			"closure-over-locals",
			"def g(xs):\n    k = 2\n    return any(x > k for x in xs), all(x > k for x in xs)\nprint(g([1, 3]), g([3, 4]), g([]))",
			"(True, False) (True, True) (False, True)\n",
		},
		{"in-comprehension", "print([any(y > x for y in [1, 2, 3]) for x in range(4)])", "[True, True, True, False]\n"},
		{
			"nested",
			"print(all(any(y for y in row) for row in [[0, 1], [0, 0]]), any(all(y for y in row) for row in [[0, 1], [1, 1]]))",
			"False True\n",
		},
		{
			"clauses-and-unpacking",
			"print(any(x for x in range(3) for y in range(2) if x * y), any(a == b for a, b in [(1, 2), (3, 3)]))",
			"True True\n",
		},
		{"truthiness", "print(any(x for x in ['', None, 0.0, [], 'a']), all(x for x in [1, 'a', [0], 0.0]))", "True False\n"},
		{
			"error-before-decision",
			"try:\n    any(1 / x for x in [0, 1])\nexcept ZeroDivisionError as e:\n    print('ZeroDivisionError', e)",
			"ZeroDivisionError division by zero\n",
		},
		{"shadowed", "def any(xs):\n    return 'mine:' + str(list(xs))\nprint(any(x for x in range(3)))", "mine:[0, 1, 2]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}

// TestFoldBuilders: list, sorted, set, dict and Counter of a
// generator expression take its elements as they come: no list is built
// beside the value they return, errors stop at the failing element as in
// CPython, and a list comprehension given to set, dict or Counter is still
// built first. Expected outputs are CPython's.
func TestFoldBuilders(t *testing.T) {
	logf := "from collections import Counter\nlog = []\ndef f(x):\n    log.append(x)\n    return x\n"
	tests := []struct{ name, code, want string }{
		{"list", "print(list(x * 2 for x in range(5)), list([x for x in 'ab']), list(x for x in []))", "[0, 2, 4, 6, 8] ['a', 'b'] []\n"},
		{
			"tuple",
			"print(tuple(x * 2 for x in range(5)), tuple([x for x in 'ab']), tuple(x for x in []))",
			"(0, 2, 4, 6, 8) ('a', 'b') ()\n",
		},
		{
			"sorted",
			"print(sorted(x % 7 for x in range(10)), sorted((w for w in 'b a c'.split()), reverse=True), sorted((w for w in ['aa', 'b', 'ccc']), key=len))",
			"[0, 0, 1, 1, 2, 2, 3, 4, 5, 6] ['c', 'b', 'a'] ['b', 'aa', 'ccc']\n",
		},
		{
			"set",
			"print(set(x % 3 for x in range(10)) == {0, 1, 2}, len(set(x for x in [])), type(set(x for x in [1])).__name__)",
			"True 0 set\n",
		},
		{
			"dict",
			"print(dict((k, v) for k, v in [('a', 1), ('b', 2)]), dict((x, x * x) for x in range(3)), dict(x for x in ['ab', 'cd']))",
			"{'a': 1, 'b': 2} {0: 0, 1: 1, 2: 4} {'a': 'b', 'c': 'd'}\n",
		},
		{
			"counter",
			logf + "c = Counter(w for w in 'a b a c a b'.split())\nprint(c, c.most_common(1), Counter(x for x in []), isinstance(c, dict))",
			"Counter({'a': 3, 'b': 2, 'c': 1}) [('a', 3)] Counter() True\n",
		},
		{
			"results-are-new-values",
			"t = tuple(x for x in range(3))\nl = list(x for x in range(3))\nl.append(9)\ns = sorted(x for x in [3, 1, 2])\ns.append(0)\nprint(t + (9,), l, s)",
			"(0, 1, 2, 9) [0, 1, 2, 9] [1, 2, 3, 0]\n",
		},
		{
			"set-error-stops-generator",
			logf + "try:\n    set(f(x) for x in [1, [2], 3])\nexcept TypeError as e:\n    print('TypeError', e, log)",
			"TypeError unhashable type: 'list' [1, [2]]\n",
		},
		{
			"set-of-list-comprehension-builds-it-first",
			logf + "try:\n    set([f(x) for x in [1, [2], 3]])\nexcept TypeError as e:\n    print('TypeError', e, log)",
			"TypeError unhashable type: 'list' [1, [2], 3]\n",
		},
		{
			"dict-errors",
			logf + "try:\n    dict(f(x) for x in [(1, 2), (1, 2, 3), (4, 5)])\nexcept ValueError as e:\n    print('ValueError', e, log)\ntry:\n    dict(x for x in [1])\nexcept TypeError as e:\n    print('TypeError', e)",
			"ValueError dictionary update sequence element #1 has length 3; 2 is required [(1, 2), (1, 2, 3)]\nTypeError cannot convert dictionary update sequence element #0 to a sequence\n",
		},
		{
			"counter-error-stops-generator",
			logf + "try:\n    Counter(f(x) for x in [1, {}, 2])\nexcept TypeError as e:\n    print('TypeError', e, log)",
			"TypeError unhashable type: 'dict' [1, {}]\n",
		},
		{
			"sorted-errors",
			"try:\n    sorted(x for x in [1, 'a'])\nexcept TypeError as e:\n    print('TypeError', e)\ntry:\n    sorted((x for x in [1]), foo=1)\nexcept TypeError as e:\n    print('TypeError', e)",
			"TypeError '<' not supported between instances of 'str' and 'int'\nTypeError 'foo' is an invalid keyword argument for sort()\n",
		},
		{
			"shadowed",
			"def g():\n    list = lambda xs: 'mine'\n    sorted = lambda xs, key=None: 'mine sorted'\n    return list(x for x in [1]), sorted((x for x in [1]), key=abs)\nprint(g())",
			"('mine', 'mine sorted')\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}

// TestFoldJoin: X.join of a generator expression or list comprehension
// writes the elements into one buffer as they come; like CPython it
// evaluates every element before reporting the first that is not a str.
// A receiver other than a str gets the list. Expected outputs are
// CPython's.
func TestFoldJoin(t *testing.T) {
	logf := "log = []\ndef f(x):\n    log.append(x)\n    return x\n"
	tests := []struct{ name, code, want string }{
		{
			"genexpr",
			"print('-'.join(str(x) for x in range(5)), repr(', '.join(x for x in [])), '|'.join((c for c in 'xyz')))",
			"0-1-2-3-4 '' x|y|z\n",
		},
		{"list-comprehension", "print(''.join([c.upper() for c in 'abc']))", "ABC\n"},
		{
			"separator-variable",
			"def g(xs):\n    s = '+'\n    return s.join(str(x) for x in xs)\nsep = ', '\nprint(g([1, 2, 3]), sep.join(k for k in sorted({'b': 1, 'a': 2})))",
			"1+2+3 a, b\n",
		},
		{
			"bad-item-after-all-elements",
			logf + "try:\n    ''.join(f(x) for x in ['a', 1, 'b', 2])\nexcept TypeError as e:\n    print('TypeError', e, log)",
			"TypeError sequence item 1: expected str instance, int found ['a', 1, 'b', 2]\n",
		},
		{
			"other-receiver",
			"class J:\n    def join(self, xs):\n        return 'J' + str(list(xs))\nprint(J().join(x for x in [1, 2]))",
			"J[1, 2]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}

// TestFoldAnyAllLimits: the generator inside any/all still runs under
// the step limit, and an error in it has CPython's <genexpr> frame.
func TestFoldAnyAllLimits(t *testing.T) {
	s := New(Config{Limits: Limits{MaxSteps: 100000}})
	_, err := s.Exec(context.Background(), "print(any(x < 0 for x in range(10**9)))")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "step")

	res, err := New(Config{}).Exec(context.Background(), "xs = [1, 0]\nok = all(\n    1 / x > 0\n    for x in xs)")
	require.Error(t, err, res.Output)
	var se *ScriptError
	require.ErrorAs(t, err, &se)
	assert.Equal(
		t,
		"Traceback (most recent call last):\n  line 2, in <module>\n    ok = all(\n  line 3, in <genexpr>\n    1 / x > 0\nZeroDivisionError: division by zero",
		se.Traceback,
	)

	// A lambda of the user's called inside the generator is not named as
	// the generator's frame (CPython shows it as <lambda>; here a lambda
	// frame on the line of the frame before it is still left out).
	_, err = New(Config{}).Exec(context.Background(), "xs = [1, 0]\nok = all((lambda v:\n    1 / v)(x) for x in xs)")
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, strings.Count(se.Traceback, "<genexpr>"), se.Traceback)
}

// TestFoldBuildsNoList: sum, max, any, all, set, dict and Counter of a
// generator expression run in a step whose memory limit the list of its
// elements would exceed (the list of 3 million ints is about 48 MB).
func TestFoldBuildsNoList(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{"print(sum(x for x in range(3000000)), max(x % 7 for x in range(3000000)))", "4499998500000 6\n"},
		{"print(any(x < 0 for x in range(3000000)), all(x >= 0 for x in range(3000000)))", "False True\n"},
		{"print(len(set(x % 1000 for x in range(3000000))), len(dict((x % 10, x) for x in range(3000000))))", "1000 10\n"},
		{"from collections import Counter\nprint(len(Counter(x % 100 for x in range(3000000))))", "100\n"},
		{"print(len(''.join(str(x % 10) for x in range(3000000))))", "3000000\n"},
	} {
		// The memory limit is what is tested; the step timeout is generous
		// because each step takes ~4 s under -race and up to 60 s on a
		// heavily loaded machine.
		s := New(Config{Limits: Limits{MaxMemory: 16 << 20, Timeout: 5 * time.Minute}})
		res, err := s.Exec(context.Background(), tt.code)
		require.NoError(t, err, tt.code)
		assert.Equal(t, tt.want, res.Output, tt.code)
	}
}

// TestFoldBuilderMemoryLimit: a set, tuple or dict growing from a generator past
// the step's memory limit ends with a MemoryError, as a growing list does.
func TestFoldBuilderMemoryLimit(t *testing.T) {
	for _, code := range []string{
		"s = set(x for x in range(10**8))",
		"t = tuple(x for x in range(10**8))",
		"d = dict((x, x) for x in range(10**8))",
	} {
		s := New(Config{Limits: Limits{MaxMemory: 16 << 20, Timeout: 60 * time.Second}})
		_, err := s.Exec(context.Background(), code)
		require.Error(t, err, code)
		assert.Contains(t, err.Error(), "MemoryError", code)
	}
}

// TestFoldLowering: with FoldCalls the front end lowers sum, min and max
// of a comprehension to _py_fold, and leaves other calls alone.
func TestFoldLowering(t *testing.T) {
	for _, tt := range []struct {
		src  string
		fold bool
	}{
		{"y = sum(x * x for x in xs)", true},
		{"y = max([x for x in xs])", true},
		{"y = min((x for x in xs))", true},
		{"y = sum({x for x in xs})", false},
		{"y = sorted(x for x in xs)", true},
		{"y = sorted((x for x in xs), key=len, reverse=True)", true},
		{"y = sorted((x for x in xs), cmp=len)", false},
		{"y = set([x for x in xs])", false},
		{"y = set(x for x in xs)", true},
		{"y = tuple(x for x in xs)", false},
		{"y = list([x for x in xs])", true},
		{"y = {x for x in xs}", false},
		{"y = ''.join(x for x in xs)", true},
		{"y = sep.join([x for x in xs])", true},
		{"y = sep.join(xs)", false},
		{"y = sum(xs)", false},
		{"y = any(x > 0 for x in xs)", true},
		{"y = all((x for x in xs))", true},
		{"y = any([x > 0 for x in xs])", false},
		{"y = all(([x for x in xs]))", false},
	} {
		prog, err := pyfront.Compile("x.py", tt.src, pyfront.Options{NativeOps: true, FoldCalls: true})
		require.NoError(t, err)
		out := pyfront.Unparse(prog.Chunks[0].File.Stmts)
		assert.Equal(t, tt.fold, strings.Contains(out, "_py_fold("), "%s -> %s", tt.src, out)
	}
}

// TestSmallDictBytes: a small dict (a record) costs under 400 bytes of
// heap (the hash table's inline bucket holds 4 entries; with 8 it was 512
// bytes before any other allocation).
func TestSmallDictBytes(t *testing.T) {
	s := New(Config{})
	ctx := context.Background()
	_, err := s.Exec(ctx, "n = 100000\nrecords = None")
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = s.Exec(ctx, `records = [{"id": i, "v": i % 7} for i in range(n)]`)
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	perDict := float64(after.TotalAlloc-before.TotalAlloc) / 100000
	assert.Less(t, perDict, 400.0, "bytes allocated per record dict (list slot included)")
}

// TestRecordDictBytes: a dict of 5 to 8 entries (a JSON record) chains one
// overflow bucket to its inline one instead of growing to a table of two
// buckets beside the unused inline one (with four-entry buckets that cost
// over 250 bytes more per record).
func TestRecordDictBytes(t *testing.T) {
	s := New(Config{})
	ctx := context.Background()
	_, err := s.Exec(ctx, "n = 100000\nrecords = None")
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = s.Exec(ctx, `records = [{"id": i, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5} for i in range(n)]`)
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	perDict := float64(after.TotalAlloc-before.TotalAlloc) / 100000
	assert.Less(t, perDict, 700.0, "bytes allocated per 6-entry record dict (list slot included)")
}

// TestFoldAnyAllInline: any and all of a generator expression run the
// generator inline in the enclosing function when they are the builtins
// (and inside _py_fold otherwise); results, short-circuiting and
// tracebacks (with CPython's <genexpr> frame) are as before.
func TestFoldAnyAllInline(t *testing.T) {
	logf := "log = []\ndef f(x):\n    log.append(x)\n    return x\n"
	tests := []struct{ name, code, out, tb string }{
		{
			name: "results",
			code: "print(any(x > 2 for x in range(5)), all(x < 2 for x in range(5)), any(x for x in []), all(x for x in []), [any(y for y in x) for x in [[0, 0], [0, 1]]])\n" +
				"print(all(w != 'a' and w != 'b' for w in 'x y'.split()), any(k in 'xay' for k in ('a', 'b')), any(not x for x in [1, 2]), all(x or y for x in [0, 1] for y in [1]))",
			out: "True False False True [False, True]\nTrue True False True\n",
		},
		{
			name: "short-circuit",
			code: logf + "print(any(f(x) for x in [0, 2, 3]), all(f(x) for x in [1, 0, 5]), any(f(x) for x in [1] if x > 5), log)",
			out:  "True False False [0, 2, 1, 0]\n",
		},
		{
			name: "shadowed",
			code: "def any(xs):\n    return list(xs)\nprint(any(x * 2 for x in [1, 0]))\nall = lambda xs: 'mine'\nprint(all(x for x in [0]))",
			out:  "[2, 0]\nmine\n",
		},
		{name: "rebound-builtin", code: "any = all\nprint(any(x for x in [0, 1]))", out: "False\n"},
		{
			name: "error",
			code: "xs = [1, 0]\nok = all(\n    1 / x > 0\n    for x in xs)",
			tb:   "Traceback (most recent call last):\n  line 2, in <module>\n    ok = all(\n  line 3, in <genexpr>\n    1 / x > 0\nZeroDivisionError: division by zero",
		},
		{
			name: "nested",
			code: "xs = [[1], [0]]\nok = any(any(1 / y < 0 for y in x) for x in xs)",
			tb:   "Traceback (most recent call last):\n  line 2, in <module>\n    ok = any(any(1 / y < 0 for y in x) for x in xs)\n  line 2, in <genexpr>\n    ok = any(any(1 / y < 0 for y in x) for x in xs)\n  line 2, in <genexpr>\n    ok = any(any(1 / y < 0 for y in x) for x in xs)\nZeroDivisionError: division by zero",
		},
		{
			name: "in-def",
			code: "def f(xs):\n    return any(1 / x for x in xs if x != 5)\nf([5, 0])",
			tb:   "Traceback (most recent call last):\n  line 3, in <module>\n    f([5, 0])\n  line 2, in f\n    return any(1 / x for x in xs if x != 5)\n  line 2, in <genexpr>\n    return any(1 / x for x in xs if x != 5)\nZeroDivisionError: division by zero",
		},
		{
			name: "shadowed-error",
			code: "def any(xs):\n    return list(xs)\nprint(any(1 / x for x in [1, 0]))",
			tb:   "Traceback (most recent call last):\n  line 3, in <module>\n    print(any(1 / x for x in [1, 0]))\n  line 3, in <genexpr>\n    print(any(1 / x for x in [1, 0]))\nZeroDivisionError: division by zero",
		},
		{
			name: "called-def",
			code: "def g(x):\n    return 1 / x\nprint(all(g(x) for x in [1, 0]))",
			tb:   "Traceback (most recent call last):\n  line 3, in <module>\n    print(all(g(x) for x in [1, 0]))\n  line 3, in <genexpr>\n    print(all(g(x) for x in [1, 0]))\n  line 2, in g\n    return 1 / x\nZeroDivisionError: division by zero",
		},
		{
			name: "not-iterable",
			code: "print(all(x for x in [1, 2] for y in x))",
			tb:   "Traceback (most recent call last):\n  line 1, in <module>\n    print(all(x for x in [1, 2] for y in x))\n  line 1, in <genexpr>\n    print(all(x for x in [1, 2] for y in x))\nTypeError: 'int' object is not iterable",
		},
		{
			name: "lambda-inside",
			code: "xs = [1, 0]\nok = all((lambda v:\n    1 / v)(x) for x in xs)",
			tb:   "Traceback (most recent call last):\n  line 2, in <module>\n    ok = all((lambda v:\n  line 3, in <genexpr>\n    1 / v)(x) for x in xs)\nZeroDivisionError: division by zero",
		},
		{
			name: "recursive",
			code: "def h(n):\n    return any(h(n - 1) for x in [1]) if n else 1 / 0\nh(1)",
			tb:   "Traceback (most recent call last):\n  line 3, in <module>\n    h(1)\n  line 2, in h\n    return any(h(n - 1) for x in [1]) if n else 1 / 0\n  line 2, in <genexpr>\n    return any(h(n - 1) for x in [1]) if n else 1 / 0\n  line 2, in h\n    return any(h(n - 1) for x in [1]) if n else 1 / 0\nZeroDivisionError: division by zero",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := New(Config{}).Exec(context.Background(), tt.code)
			if tt.tb == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.out, res.Output)
				return
			}
			var se *ScriptError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.tb, se.Traceback)
		})
	}
}
