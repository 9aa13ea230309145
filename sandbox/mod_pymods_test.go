package sandbox

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// execIn runs code in a fresh session with cfg and returns its output and
// the Python error kind ("" when it ran cleanly).
func execIn(t *testing.T, cfg Config, code string) (string, string) {
	t.Helper()
	res, err := New(cfg).Exec(context.Background(), code)
	if err != nil {
		var se *ScriptError
		require.True(t, errors.As(err, &se), "%v", err)
		return res.Output, se.Kind + ": " + se.Msg
	}
	return res.Output, ""
}

// TestRandomSeededPerSession checks that the random module draws from a
// generator seeded by Config.Seed: the same seed gives the same numbers in
// a new session (replay, resume), another seed other numbers, and state
// carries across the steps of one session.
func TestRandomSeededPerSession(t *testing.T) {
	code := "import random\nprint(random.random(), random.randint(1, 10**9), random.sample(range(100), 3))"
	a1, _ := execIn(t, Config{Seed: "0"}, code)
	a2, _ := execIn(t, Config{Seed: "0"}, code)
	b, _ := execIn(t, Config{Seed: "0.2.abcdef"}, code)
	assert.Equal(t, a1, a2)
	assert.NotEqual(t, a1, b)
	ids := "import uuid\nprint(uuid.uuid4(), uuid.uuid4())"
	u1, _ := execIn(t, Config{Seed: "0"}, ids)
	u2, _ := execIn(t, Config{Seed: "0"}, ids)
	u3, _ := execIn(t, Config{Seed: "1"}, ids)
	assert.Equal(t, u1, u2)
	assert.NotEqual(t, u1, u3)

	s := New(Config{Seed: "0"})
	first, err := s.Exec(context.Background(), "import random\nx = random.random()\nprint(x)")
	require.NoError(t, err)
	second, err := s.Exec(context.Background(), "print(random.random())")
	require.NoError(t, err)
	assert.NotEqual(t, first.Output, second.Output, "the second step continues the sequence")
	// random.seed() with no argument goes back to the run's seed.
	again, err := s.Exec(context.Background(), "random.seed()\nprint(random.random() == x)")
	require.NoError(t, err)
	assert.Equal(t, "True\n", again.Output)
}

func TestModuleErrors(t *testing.T) {
	tests := []struct{ code, want string }{
		{"import hashlib\nhashlib.md5('abc')", "TypeError: Strings must be encoded before hashing"},
		{"import hashlib\nhashlib.new('whirlpool')", "ValueError: unsupported hash type whirlpool"},
		{"import random\nrandom.choice([])", "IndexError: Cannot choose from an empty sequence"},
		{"import random\nrandom.randrange(5, 5)", "ValueError: empty range for randrange() (5, 5, 0)"},
		{"import random\nrandom.sample({1: 2}, 1)", "TypeError: Population must be a sequence."},
		{"import sys\nsys.exit(0)", "NotImplementedError: sys.exit"},
		{"import csv\ncsv.reader('a,b')", "TypeError: csv.reader() takes an iterable of lines"},
		{"import csv\nlist(csv.reader(['a,\"b'], strict=True))", "csv.Error: unexpected end of data"},
		{"import io\nf = io.StringIO()\nf.close()\nf.write('x')", "ValueError: I/O operation on closed file."},
		{"import os", "ModuleNotFoundError: No module named 'os' in the sandbox (available modules: "},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, got := execIn(t, Config{}, tt.code)
			assert.Contains(t, got, tt.want)
		})
	}
}

func TestSysStreamsAndLimits(t *testing.T) {
	out, errKind := execIn(t, Config{Limits: Limits{MaxRecursion: 300}}, `import sys
sys.stdout.write("a")
sys.stderr.write("b\n")
sys.setrecursionlimit(100000)
print(sys.getrecursionlimit(), sys.argv)`)
	assert.Empty(t, errKind)
	assert.Equal(t, "ab\n300 []\n", out, "setrecursionlimit changes nothing; the sandbox's limit stays")
}

func TestIntrospection(t *testing.T) {
	tests := []struct{ code, want string }{
		{"x = 1\nprint('x' in globals(), 'nope' in globals(), 'llm_query' in globals())", "True False False"},
		{"def f():\n    return 'y' in globals()\ny = 2\nprint(f())", "True"},
		{"x = 1\ntry:\n    globals()['z'] = 3\nexcept Exception as e:\n    print('read-only')", "read-only"},
		{"class P:\n    def __init__(self):\n        self.a = 1\nprint(vars(P()), hasattr(P(), '__len__'))", "{'a': 1} False"},
		{"print(hasattr([], '__len__'), hasattr(3, '__iter__'), hasattr(print, '__call__'), hasattr('s', 'zfill'))", "True False True True"},
		{"print([m for m in dir({}) if not m.startswith('_')][:3])", "['clear', 'copy', 'fromkeys']"},
		{"import sys\nprint(sum(1 for _ in sys.argv), sys.modules)", "0 {}"},
		{"import urllib.parse\nprint(urllib.parse.quote('a b'))", "a%20b"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			out, errKind := execIn(t, Config{}, tt.code)
			assert.Empty(t, errKind)
			assert.Equal(t, tt.want+"\n", out)
		})
	}
}

// TestDecimalContext: getcontext() is the session's (a setting carries
// across steps, not into another session), and bad settings and huge
// exponents fail with Python errors instead of building huge numbers.
func TestDecimalContext(t *testing.T) {
	s := New(Config{})
	out, err := s.Exec(context.Background(), "from decimal import Decimal, getcontext\ngetcontext().prec = 5\nprint(Decimal(1) / 3)")
	require.NoError(t, err)
	again, err := s.Exec(context.Background(), "print(Decimal(2) / 3, getcontext().prec)")
	require.NoError(t, err)
	assert.Equal(t, "0.33333\n0.66667 5\n", out.Output+again.Output)
	other, _ := execIn(t, Config{}, "from decimal import Decimal\nprint(Decimal(1) / 3)")
	assert.Equal(t, "0.3333333333333333333333333333\n", other)

	tests := []struct{ code, want string }{
		{"import decimal\ndecimal.getcontext().prec = 0", "ValueError: valid range for prec is [1, 10000] in the sandbox"},
		{"import decimal\ndecimal.getcontext().rounding = 'UP'", "TypeError: valid values for rounding are:"},
		{"from decimal import Decimal\nDecimal('1e999999')", "decimal.Overflow: [<class 'decimal.Overflow'>]"},
		{"from decimal import Decimal\nDecimal('1e90000') + Decimal('1e-90000')", "decimal.InvalidOperation: the sandbox's decimal does not align operands"},
		{"from decimal import Decimal\nDecimal(2) ** Decimal('0.5')", "decimal.InvalidOperation: the sandbox's decimal raises only to integral powers"},
		{"from decimal import Decimal\nDecimal('NaN') + 1", "decimal.InvalidOperation: arithmetic on NaN is not supported in the sandbox"},
		{"from fractions import Fraction\nFraction(2) ** (10**7)", "OverflowError: exponent too large"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, got := execIn(t, Config{}, tt.code)
			assert.Contains(t, got, tt.want)
		})
	}
}
