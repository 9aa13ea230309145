package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDataclassFrozenAndMethods: a frozen dataclass refuses del and
// delattr as well as assignment, on its own instances (any name) and on
// instances of a plain subclass (its fields only); the generated methods
// unpack their arguments. Wants are CPython 3.11's output.
func TestDataclassFrozenAndMethods(t *testing.T) {
	const prelude = `from dataclasses import dataclass
@dataclass(frozen=True, order=True)
class S:
    a: int
class T(S):
    pass
class A:
    pass
def tr(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
s, t = S(1), T(1)
`
	tests := []struct {
		name, code, want string
	}{
		{"del field", "def f(): del s.a\ntr(f)", "FrozenInstanceError cannot delete field 'a'\n"},
		{"delattr field", "tr(lambda: delattr(s, 'a'))", "FrozenInstanceError cannot delete field 'a'\n"},
		{"delattr other name", "tr(lambda: delattr(s, 'zz'))", "FrozenInstanceError cannot delete field 'zz'\n"},
		{"subclass assign field", "def f(): t.a = 5\ntr(f)\nprint(t)", "FrozenInstanceError cannot assign to field 'a'\nT(a=1)\n"},
		{"subclass setattr field", "tr(lambda: setattr(t, 'a', 3))", "FrozenInstanceError cannot assign to field 'a'\n"},
		{"subclass other name", "t.z = 5\nprint(t.z)\ndel t.z\nprint(hasattr(t, 'z'))", "5\nFalse\n"},
		{
			"subclass del field",
			"def f(): del t.a\ntr(f)\ntr(lambda: delattr(t, 'a'))",
			"FrozenInstanceError cannot delete field 'a'\nFrozenInstanceError cannot delete field 'a'\n",
		},
		{
			"plain del",
			"x = A()\nx.q = 1\ndel x.q\ntr(lambda: delattr(A(), 'x'))\ndef f(): del x.q\ntr(f)\nprint(hasattr(x, 'q'))",
			"AttributeError 'A' object has no attribute 'x'\nAttributeError 'A' object has no attribute 'q'\nFalse\n",
		},
		{
			"del on a built-in value",
			"tr(lambda: delattr(1, 'a'))\ndef f(): del (1).real\ntr(f)",
			"AttributeError 'int' object has no attribute 'a'\nAttributeError attribute 'real' of 'int' objects is not writable\n",
		},
		{"lt missing other", "tr(lambda: S.__lt__(S(1)))", "TypeError S.__lt__() missing 1 required positional argument: 'other'\n"},
		{"repr missing self", "tr(lambda: S.__repr__())", "TypeError S.__repr__() missing 1 required positional argument: 'self'\n"},
		{
			"methods called on the class",
			"print(S.__lt__(S(1), S(2)), S.__eq__(S(1), S(1)), S.__hash__(S(1)) == hash(S(1)))",
			"True True True\n",
		},
		{"subclass repr", "print(T(1), S.__repr__(T(2)), T(1) < T(2))", "T(a=1) T(a=2) True\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, prelude+tt.code))
		})
	}
}
