package pyfront

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoweringRendering(t *testing.T) {
	tests := []struct{ src, want string }{
		{`y = f"{x:>{w}} {x!r}"`, "y = ((_py_format(x, (\">\" + _py_format(w, \"\"))) + \" \") + _py_repr(x))\n"},
		{`y = -2 ** x ** 2`, "y = -_py_pow(2, _py_pow(x, 2))\n"},
		{`z = a is not None`, "z = not _py_is(a, None)\n"},
		{`ok = 0 < x <= 10`, "ok = ((0 < x) and (x <= 10))\n"},
		{`ok = 0 < f(x) < 10`, "ok = _py_chain(0, \"<\", lambda: f(x), \"<\", lambda: 10)\n"},
		{`s = {1, 2}`, "s = _py_set([1, 2])\n"},
		{`d = {}`, "d = {}\n"},
		{`s = "%d" % n`, "s = _py_mod(\"%d\", n)\n"},
		{`n = a * 2`, "n = _py_mul(a, 2)\n"},
		{`xs.sort(key=len)`, "_py_method(xs, \"sort\", key=len)\n"},
		{`xs.append(1)`, "xs.append(1)\n"},
		{`t = [c for c in s]`, "t = [c for c in _py_iter(s)]\n"},
		{`for i in range(3): pass`, "for i in range(3):\n    pass\n"},
		{`import re as r`, "r = _py_import(\"re\")\n"},
		{`from collections import Counter as C`, "C = _py_import(\"collections\", \"Counter\")\n"},
		{`raise ValueError("x")`, "_py_raise(ValueError(\"x\"))\n"},
		{`assert x, "m"`, "if not x:\n    _py_assert_fail(\"m\")\n"},
		{`del d[k]`, "_py_del(d, k)\n"},
		{`a, *b = xs`, "(a, b) = _py_unpack(xs, 1, 0)\n"},
		{`n = True + (a == b)`, "n = (_py_b2i(True) + _py_b2i((_py_eq(a, b))))\n"},
		{`n += x > 0`, "n += _py_b2i((x > 0))\n"},
		{`n = a + b - 1`, "n = ((a + b) - 1)\n"},
		{`s = "%s" % (a == b)`, "s = _py_mod(\"%s\", (_py_eq(a, b)))\n"},
		{`ok = x != "yes"`, "ok = not _py_eq(x, \"yes\")\n"},
		{`ok = n == 0`, "ok = (n == 0)\n"},
		{`ok = len(xs) == n`, "ok = (len(xs) == n)\n"},
		{`ok = flag == 1 and True == 1`, "ok = ((flag == 1) and _py_eq(True, 1))\n"},
		{`d = f.__doc__`, "d = _py_dunder(f, \"__doc__\")\n"},
		{`t = [a for a, *_ in rows]`, "t = [a for _py_t1 in _py_iter(rows) for (a, _) in [_py_unpack(_py_t1, 1, 0)]]\n"},
		{`print(*a, *b, sep="|")`, "print(sep=\"|\", *(_py_list(_py_iter(a)) + _py_list(_py_iter(b))))\n"},
		{`a = b = []`, "_py_t1 = []\na = _py_t1\nb = _py_t1\n"},
		{"def f():\n    return 1", "def f():\n    _py_enter()\n    return 1\n"},
		{`x **= 2`, "x = _py_pow(x, 2)\n"},
		{`y = sum(v for v in xs)`, "y = sum([v for v in _py_iter(xs)])\n"},
		{"if (m := f(x)):\n    pass", "m = f(x)\nif m:\n    pass\n"},
		{
			"def g(n):\n    if n:\n        return\n    yield n",
			"def g(n):\n    _py_enter()\n    _py_t1 = []\n    if n:\n        return iter(_py_t1)\n    _py_t1.append(n)\n    return iter(_py_t1)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			prog, err := Compile("t.py", tt.src, Options{})
			require.NoError(t, err)
			require.Len(t, prog.Chunks, 1)
			assert.Equal(t, tt.want, Unparse(prog.Chunks[0].File.Stmts))
		})
	}
}

func TestClassLowering(t *testing.T) {
	src := `@dataclass
class Point(Base):
    """A point."""
    x: int
    y: int = 0
    def __init__(self, x):
        super().__init__(x)
        self.x = x
    @staticmethod
    def origin():
        return Point(0)
`
	prog, err := Compile("t.py", src, Options{Classes: true})
	require.NoError(t, err)
	want := `def _py_t1():
    "A point."
    y = 0
    def __init__(self, x):
        _py_enter()
        _py_super(Point, self).__init__(x)
        self.x = x
    def origin():
        _py_enter()
        return Point(0)
    origin = staticmethod(origin)
    return {"y": y, "__init__": __init__, "origin": origin, "__annotations__": ["x", "y"]}
Point = _py_class("Point", [Base], _py_t1())
Point = dataclass(Point)
`
	assert.Equal(t, want, Unparse(prog.Chunks[0].File.Stmts))

	_, err = Compile("t.py", "class A:\n    pass\n", Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	_, err = Compile("t.py", "class A(metaclass=M):\n    pass\n", Options{Classes: true})
	require.ErrorIs(t, err, ErrUnsupported)
}

func TestDecoratorOrder(t *testing.T) {
	src := "class C:\n    @property\n    def x(self):\n        return 1\n    @x.setter\n    def x(self, v):\n        pass\n"
	prog, err := Compile("t.py", src, Options{Classes: true})
	require.NoError(t, err)
	want := `def _py_t2():
    def x(self):
        _py_enter()
        return 1
    x = property(x)
    _py_t1 = x.setter
    def x(self, v):
        _py_enter()
        pass
    x = _py_t1(x)
    return {"x": x}
C = _py_class("C", [], _py_t2())
`
	assert.Equal(t, want, Unparse(prog.Chunks[0].File.Stmts))
}

func TestParseExpr(t *testing.T) {
	for src, want := range map[string]string{
		`[1, 'a', (2,), {"k": None}, -3.5, {1, 2}]`: `[1, "a", ((2,)), {"k": None}, -3.5, _py_set([1, 2])]`,
		"  (1,\n 2)  ":  "((1, 2))",
		`f"{x}"`:        `_py_format(x, "")`,
		`a if b else c`: "(a if b else c)",
	} {
		x, err := ParseExpr("e", src, Options{})
		require.NoError(t, err, src)
		assert.Equal(t, want, unparseExpr(x), src)
	}
	for _, src := range []string{"x = 1", "1 2", "(", "y := 2"} {
		_, err := ParseExpr("e", src, Options{})
		assert.Error(t, err, src)
	}
}

// TestFStringsOption: with Options.FStrings an f-string and the literals
// next to it become one _py_fstr call whose template lists the literals
// and, per field, its conversion and constant spec; a nested spec is
// itself such a call, passed after its value.
func TestFStringsOption(t *testing.T) {
	for src, want := range map[string]string{
		`f"{i}: {x:.2f}!"`:     `_py_fstr("F\x00\x00L\x02: F\x00\x03.2fL\x01!", i, x)`,
		`"a" f"{x!r}" 'b'`:     `_py_fstr("L\x01aFr\x00L\x01b", x)`,
		`f"{x=}"`:              `_py_fstr("L\x02x=Fr\x00", x)`,
		`f"{x:>{w}} {y!s:^3}"`: `_py_fstr("D\x00L\x01 Fs\x02^3", x, _py_fstr("L\x01>F\x00\x00", w), y)`,
		`f"{x}"`:               `_py_format(x, "")`,
		`f"plain"`:             `"plain"`,
		`f"{x!a}{{}}"`:         `_py_fstr("Fa\x00L\x02{}", x)`,
	} {
		x, err := ParseExpr("e", src, Options{FStrings: true})
		require.NoError(t, err, src)
		assert.Equal(t, want, unparseExpr(x), src)
	}
}
