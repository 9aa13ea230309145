package pyfront

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompileRun(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"print", `print("hi")`, "hi\n"},
		{"fstring", `x = 3; print(f"x is {x} and {x+1:d}!")`, "x is 3 and <4|d>!\n"},
		{"fstring braces", `print(f"{{a}} {'b'} {{")`, "{a} b {\n"},
		{"fstring repr", `s = "q"; print(f"{s!r} {s=} {s!s}")`, "\"q\" s=\"q\" q\n"},
		{"fstring nested spec", `w = 5; x = 3; print(f"[{x:{w}d}]")`, "[<3|5d>]\n"},
		{"fstring nested quotes", `d = {"k": 1}; print(f"v={d['k']} {d["k"]}")`, "v=1 1\n"},
		{"fstring triple", "print(f'''a\n{1+1}''')", "a\n2\n"},
		{"rf string", `print(rf"\d{1}")`, "\\d1\n"},
		{"fstring not equal", `a = 1; print(f"{a != 2}")`, "True\n"},
		{"implicit concat", `print("a" 'b' f"{1}")`, "ab1\n"},
		{"pow", `print(2**10, -2**2, 2**3**2)`, "1024 -4 512\n"},
		{"pow assign", `x = 3; x **= 2; print(x)`, "9\n"},
		{"mod", `print("%d-%s" % (1, "a"), 7 % 3)`, "1-a 1\n"},
		{"is", `x = None; print(x is None, x is not None)`, "True False\n"},
		{"chain pure", `x = 5; print(0 < x < 10, 0 < x < 3, 1 <= x <= 5 == x)`, "True False True\n"},
		{"chain call", `def f(): 
    print("f")
    return 5
print(0 < f() < 10)
print(9 < f() < 10)`, "f\nTrue\nf\nFalse\n"},
		{"chain short circuit", `def f(): 
    print("called")
    return 5
print(3 < 2 < f())`, "False\n"},
		{"set literal", `s = {1, 2, 2}; print(len(s), 2 in s)`, "2 True\n"},
		{"set comp", `s = {c for c in "abca"}; print(sorted(s))`, "[\"a\", \"b\", \"c\"]\n"},
		{"empty dict", `d = {}; d["a"] = 1; print(d)`, "{\"a\": 1}\n"},
		{"dict comp", `print({k: len(k) for k in ["a", "bb"]})`, "{\"a\": 1, \"bb\": 2}\n"},
		{"string iter", `print([c for c in "ab"])
for c in "xy":
    print(c)`, "[\"a\", \"b\"]\nx\ny\n"},
		{"generator arg", `print(sum([1]) , max(len(w) for w in ["a", "abc"]))`, "1 3\n"},
		{"generator paren", `g = (x * 2 for x in range(3)); print(g)`, "[0, 2, 4]\n"},
		{"method rewrite", `xs = [3, 1, 2]; xs.sort(); print(xs, xs.count(1), "7".zfill(3))`, "[1, 2, 3] 1 007\n"},
		{
			"import",
			"import re\nimport json as j, math\nfrom collections import Counter, defaultdict as dd\nprint(re.name, j.name, math.answer, Counter, dd)",
			"re json 42 Counter defaultdict\n",
		},
		{"import paren", "from collections import (\n  Counter,\n  defaultdict,\n)\nprint(Counter)", "Counter\n"},
		{"multi assign", `a = b = []; a.append(1); print(b, a is b)`, "[1] True\n"},
		{"multi assign literal", `a = b = 0; print(a, b)`, "0 0\n"},
		{"star unpack", `first, *rest = [1, 2, 3]; print(first, rest)
*init, last = "abc"; print(init, last)
a, *m, z = (1, 2, 3, 4); print(a, m, z)`, "1 [2, 3]\n[\"a\", \"b\"] c\n1 [2, 3] 4\n"},
		{"star display", `a = [1, 2]; print([0, *a, 3], (*a, 9), {*a})`, "[0, 1, 2, 3] (1, 2, 9) set([1, 2])\n"},
		{"dict unpack", `a = {"x": 1}; print({**a, "y": 2})`, "{\"x\": 1, \"y\": 2}\n"},
		{"walrus if", "import re\nif (n := len('abc')) > 2:\n    print(n)", "3\n"},
		{"walrus elif", "x = 0\nif x:\n    pass\nelif (m := x + 5):\n    print(m)", "5\n"},
		{
			"walrus and",
			"def f(x):\n    if x > 0 and (y := x * 2) > 4:\n        return y\n    return -1\nprint(f(1), f(3), f(-1))",
			"-1 6 -1\n",
		},
		{"walrus comp", `print([y for x in [1, 2, 3] if (y := x * x) > 1])`, "[4, 9]\n"},
		{"walrus while", "xs = [1, 2, 0, 3]\ni = 0\nwhile (v := xs[i]) != 0:\n    print(v)\n    i += 1", "1\n2\n"},
		{
			"for else",
			"for i in range(3):\n    if i == 5:\n        break\nelse:\n    print('done')\nfor i in range(3):\n    if i == 1:\n        break\nelse:\n    print('no')\nprint(i)",
			"done\n1\n",
		},
		{"while else", "n = 0\nwhile n < 2:\n    n += 1\nelse:\n    print('end', n)", "end 2\n"},
		{"assert ok", `assert 1 == 1, "msg"; print("ok")`, "ok\n"},
		{"del", `d = {"a": 1, "b": 2}; del d["a"]; xs = [1, 2, 3]; del xs[0]; print(d, xs)`, "{\"b\": 2} [2, 3]\n"},
		{"del name", "x = 1\ndel x\nprint(x)", "None\n"},
		{
			"annotations",
			"def f(x: int, y: str = 'a', *args: int, **kw: str) -> str:\n    return y * x\nz: int = 3\nw: list\nprint(f(2), z)",
			"aa 3\n",
		},
		{"kwonly", "def f(a, /, b, *, c=3):\n    return a + b + c\nprint(f(1, 2), f(1, b=2, c=0))", "6 3\n"},
		{"lambda", `f = lambda x, y=2: x * y; print(f(3), sorted([3, 1], key=lambda v: -v))`, "6 [3, 1]\n"},
		{"numbers", `print(1_000, 0x1F, 0o17, 0b101, 1e3, 1_0.5)`, "1000 31 15 5 1000.0 10.5\n"},
		{"strings", `print(u"a", r"\n", "\d", 'it\'s', """x""")`, "a \\n \\d it's x\n"},
		{
			"one-character escapes",
			`print(len("\\\'\"\a\b\f\n\r\t\v"), "\a\b\f\n\r\t\v" == "\x07\x08\x0c\x0a\x0d\x09\x0b", "\'\"\\")`,
			"10 True '\"\\\n",
		},
		{"continuation", "x = 1 + \\\n    2\nprint(x)", "3\n"},
		{"tabs", "if True:\n\tprint('tab')", "tab\n"},
		{"docstring", "def f():\n    \"\"\"Doc.\"\"\"\n    return 1\nprint(f())", "1\n"},
		{"ellipsis", "def f():\n    ...\nprint(f())", "None\n"},
		{"semicolons", "a = 1; b = 2;\nprint(a + b)", "3\n"},
		{
			"global without assignment",
			"xs = []\ndef add(v):\n    global xs\n    xs.append(v)\n    return len(xs)\nprint(add(1), xs)",
			"1 [1]\n",
		},
		{
			"nested recursion",
			"def outer(n):\n    def inner(k):\n        return 0 if k == 0 else 1 + inner(k - 1)\n    return inner(n)\nprint(outer(4))",
			"4\n",
		},
		{"fstring dict literal", "print(f\"{ {'a': 1}['a'] } {'x' if 1 else 'y'}\")", "1 x\n"},
		{"fstring nested fstring", "x = 2\nprint(f\"{f'{x}!'}\")", "2!\n"},
		{"fstring selfdoc spaces", "x = 2\nprint(f\"{x = }\")", "x = 2\n"},
		{"crlf", "x = 1\r\nif x:\r\n    print('crlf')\r\n", "crlf\n"},
		{"match as name", "match = 3\nprint(match)", "3\n"},
		{"string prefix ident", "rb = 1; f = 2; print(rb + f)", "3\n"},
		{"call star string", "print(*\"ab\")", "a b\n"},
		{
			"star then positional",
			"def f(*a): return a\nprint(f(*[1, 2], 3), f(0, *[1], *(2, 3)), f(*'ab'))",
			"(1, 2, 3) (0, 1, 2, 3) (\"a\", \"b\")\n",
		},
		{"comments in brackets", "xs = [1,  # one\n  2,\n]\nif xs:\n    pass\n# col0 comment\nelse:\n    pass\nprint(xs)", "[1, 2]\n"},
		{"one-line compound", "if 1: a = 1; b = 2\nelse: a = 0\ndef f(x): return x\nprint(a, b, f(3))", "1 2 3\n"},
		{"unicode ident", "café = 1\nprint(café)", "1\n"},
		{"empty source", "# nothing\n\n", ""},
		{"lambda default capture", "fs = [lambda x, n=n: x * n for n in range(3)]\nprint([f(2) for f in fs])", "[0, 2, 4]\n"},
		{"multi target none", "x = y = z = None\nprint(x, y, z)", "None None None\n"},
		{"return star", "def f(a): return *a, 9\nprint(f([1]))", "(1, 9)\n"},
		{"tuple index", "d = {(1, 2): 'p'}\nprint(d[1, 2])", "p\n"},
		{"not precedence", "a = 1; b = 2\nprint(not a == b, not (a and b))", "True False\n"},
		{
			"typing imports",
			"from typing import List, Dict, Optional\nimport typing\ndef f(xs: List[int]) -> Optional[Dict[str, int]]:\n    return None\nprint(f([]))",
			"None\n",
		},
		{"slice assign", "xs = [1, 2, 3, 4]\nxs[1:3] = ['a']\nprint(xs)", "[1, \"a\", 4]\n"},
		{
			"chain in comprehension",
			"def f(v): return v * 2\nprint([x for x in range(6) if 0 < f(x) < 7])\ndef g(xs):\n    return [x for x in xs if 1 <= f(x) <= 4]\nprint(g([0, 1, 2, 3]))",
			"[1, 2, 3]\n[1, 2]\n",
		},
		{"indented paste", "    x = 1\n    if x:\n        print('in')\n", "in\n"},
		{
			"decorators",
			"def twice(f):\n    return lambda x: f(f(x))\ndef add(n):\n    return lambda f: (lambda x: f(x) + n)\n@twice\n@add(1)\ndef inc(x):\n    return x + 1\nprint(inc(0))",
			"4\n",
		},
		{
			"dict unpack variants",
			"a = {'x': 1}; b = {'y': 2}\nprint({**a}, {**a, **b,}, {'z': 0, **a}, {'x': 5, **a, 'x': 7})",
			"{\"x\": 1} {\"x\": 1, \"y\": 2} {\"z\": 0, \"x\": 1} {\"x\": 7}\n",
		},
		{"set single and trailing", "print({1}, {1, 2,}, {*[3]})", "set([1]) set([1, 2]) set([3])\n"},
		{
			"generator",
			"def chunks(xs, n):\n    for i in range(0, len(xs), n):\n        yield xs[i:i + n]\nprint(list(chunks([1, 2, 3, 4, 5], 2)))\nfor c in chunks('abcde', 3):\n    print(c)",
			"[[1, 2], [3, 4], [5]]\nabc\nde\n",
		},
		{
			"generator return and from",
			"def g(n):\n    yield from range(2)\n    if n > 1:\n        return\n    yield 9\ndef h():\n    yield\nprint(g(5), g(0), h())",
			"[0, 1] [0, 1, 9] [None]\n",
		},
		{
			"generator while with break",
			"def g():\n    i = 0\n    while True:\n        if i == 3:\n            break\n        yield i\n        i += 1\nprint(sum(g()))",
			"3\n",
		},
		{
			"double starstar",
			"def f(**k): return k\nprint(f(**{'a': 1}, **{'b': 2}), f(*[], **{'c': 3}, **{}))",
			"{\"a\": 1, \"b\": 2} {\"c\": 3}\n",
		},
		{"for star target", "for *init, last in [(1, 2, 3), (4, 5)]:\n    print(init, last)", "[1, 2] 3\n[4] 5\n"},
		{"global at module level", "global x\nx = 1\nprint(x)", "1\n"},
		{"recursion", "def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\nprint(fact(10))", "3628800\n"},
		{
			"nested def closure",
			"def outer():\n    k = 2\n    def inner(x):\n        return x * k\n    return inner(5)\nprint(outer())",
			"10\n",
		},
		{"star args order", `def f(*a, **k): return (a, k)
print(f(1, *[2], x=3))
print(f(x=1, *[2]))`, "((1, 2), {\"x\": 3})\n((2,), {\"x\": 1})\n"},
		{
			"top try",
			"try:\n    x = 1 // 0\nexcept ZeroDivisionError as e:\n    print('caught')\nelse:\n    print('else')\nfinally:\n    print('finally')",
			"caught\nfinally\n",
		},
		{"top try else", "try:\n    x = 1\nexcept:\n    print('caught')\nelse:\n    print('else', x)", "else 1\n"},
		{
			"inner try inlined",
			"def f():\n    try:\n        return 1\n    except Exception:\n        y = 2\n    return 3\nprint(f())",
			"1\n",
		},
		{"not in", `print("a" not in "abc", not 1 in [2])`, "False True\n"},
		{"cond expr", `x = 5; print("big" if x > 3 else "small")`, "big\n"},
		{"augmented", `x = [1]; x += [2]; n = 5; n -= 1; n *= 3; n //= 2; n %= 4; print(x, n)`, "[1, 2] 2\n"},
		{"raise in def not run", "def f(x):\n    if x < 0:\n        raise ValueError('neg')\n    return x\nprint(f(1))", "1\n"},
		{"keyword named print", `load = 3; print(load)`, "3\n"},
		{"paren tuple", `t = (1,); u = (1, 2,); print(t, u, ())`, "(1,) (1, 2) ()\n"},
		{"slices", `s = "hello"; print(s[::-1], s[1:3], s[-1])`, "olleh el o\n"},
		{"enumerate tuple target", "for i, (a, b) in enumerate([(1, 2)]):\n    print(i, a, b)", "0 1 2\n"},
		{"comprehension nested", `print([(i, j) for i in range(2) for j in "ab" if j != "b"])`, "[(0, \"a\"), (1, \"a\")]\n"},
		{"if name main", "__name__ = '__main__'\nif __name__ == '__main__':\n    print('main')", "main\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := run(t, tt.src)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCatchInner(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"loop continue", `vals = ["1", "x", "3"]
out = []
for v in vals:
    try:
        n = int(v)
    except ValueError:
        out.append("bad")
        continue
    out.append(n)
print(out)`, "[1, \"bad\", 3]\n"},
		{"def return and else finally", `def f(d, k):
    try:
        v = d[k]
    except KeyError as e:
        print("missing", k)
        return None
    else:
        print("found", v)
    finally:
        print("finally")
    return v
print(f({"a": 1}, "a"))
print(f({"a": 1}, "b"))`, "found 1\nfinally\n1\nmissing b\nfinally\nNone\n"},
		{"stops at first error", `def g():
    try:
        print("one")
        x = 1 // 0
        print("not reached")
    except Exception:
        print("caught")
g()`, "one\ncaught\n"},
		{"unmatched reraises", `def h():
    try:
        x = 1 // 0
    except KeyError:
        print("wrong")
h()`, ""},
		{"nested blocks", `def k(xs):
    total = 0
    try:
        for x in xs:
            if x > 0:
                total += 10 // x
            else:
                raise ValueError("neg")
    except ValueError as e:
        print("stopped:", e)
    return total
print(k([1, 2]))
print(k([5, -1, 1]))`, "15\nstopped: ValueError: neg\n2\n"},
		{"nested try", `def n():
    try:
        try:
            x = 1 // 0
        except KeyError:
            print("inner")
        print("after inner")
    except Exception:
        print("outer")
n()`, "outer\n"},
		{
			"generator in try",
			"def g(xs):\n    for x in xs:\n        try:\n            yield int(x)\n        except ValueError:\n            pass\nprint(g(['1', 'x', '3']))",
			"[1, 3]\n",
		},
		{"while in try", `def w():
    i = 0
    try:
        while i < 5:
            i += 1
            if i == 3:
                x = 1 // 0
    except Exception:
        print("at", i)
w()`, "at 3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runOpts(t, tt.src, Options{CatchInner: true})
			if tt.name == "unmatched reraises" {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	prog, err := Compile("t.py", "def f():\n    try:\n        x = 1\n    except Exception:\n        pass\n", Options{CatchInner: true})
	require.NoError(t, err)
	assert.Empty(t, prog.InnerTry)
}

func TestInlineModuleTry(t *testing.T) {
	src := `x = 1
def f():
    return x
try:
    x = 2
    y = 1 // 0
except ZeroDivisionError as e:
    print("caught", f())
try:
    try:
        z = {}["k"]
    except KeyError:
        raise
except Exception:
    print("reraised")
print(f())
`
	prog, err := Compile("t.py", src, Options{CatchInner: true, InlineModuleTry: true})
	require.NoError(t, err)
	require.Len(t, prog.Chunks, 1)
	got, err := runOpts(t, src, Options{CatchInner: true, InlineModuleTry: true})
	require.NoError(t, err)
	assert.Equal(t, "caught 2\nreraised\n2\n", got)
}
