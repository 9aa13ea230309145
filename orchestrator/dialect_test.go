package orchestrator

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDialectNotesAreTrue runs what the root prompt's dialect notes promise
// in the real sandbox: what they list as supported works, what they list as
// not supported fails with an error the model can read.
func TestDialectNotesAreTrue(t *testing.T) {
	ex, err := defaultExecutors(context.Background(), ExecSpec{})
	require.NoError(t, err)
	defer ex.Close()
	run := func(code string) *ExecResult {
		t.Helper()
		res, err := ex.Exec(context.Background(), code)
		require.NoError(t, err)
		return res
	}
	for _, mod := range strings.Split(dialectModules, ", ") {
		require.Contains(t, dialectNotes, mod)
		res := run("import " + mod)
		assert.NoError(t, res.Err, "import %s: %s", mod, res.ErrText)
	}
	// Each supported construct prints what CPython prints.
	supported := map[string]struct{ code, want string }{
		"def and lambda": {"def f(x):\n    return (lambda y: y * 2)(x)\nprint(f(2))", "4"},
		"class": {
			"class P:\n    def __init__(self, x):\n        self.x = x\n    def dbl(self):\n        return self.x * 2\nprint(P(3).dbl())",
			"6",
		},
		"dataclass": {
			"from dataclasses import dataclass\n@dataclass\nclass Q:\n    a: int\n    b: int = 2\nprint(Q(1))",
			"Q(a=1, b=2)",
		},
		"generators": {"def g(n):\n    for i in range(n):\n        yield i * i\nprint(list(g(3)))", "[0, 1, 4]"},
		"try in a function": {
			"def h():\n    try:\n        return {}['k']\n    except KeyError:\n        return 'caught'\n    finally:\n        pass\nprint(h())",
			"caught",
		},
		"raise and except":   {"try:\n    raise ValueError('bad')\nexcept ValueError as e:\n    print('got', e)", "got bad"},
		"format specs":       {"print(f'{1234.5:,.1f} {0.25:.0%}', '%5.2f' % 2, '{:>4}'.format('a'))", "1,234.5 25%  2.00    a"},
		"comprehensions":     {"print({k: v for k, v in zip('ab', [1, 2])}, {x % 2 for x in range(4)})", "{'a': 1, 'b': 2} {0, 1}"},
		"read a global":      {"total = 1\ndef add(v):\n    return total + v\nprint(add(2))", "3"},
		"update a dict/list": {"state = {'n': 0}\ndef inc():\n    state['n'] += 1\ninc()\nprint(state['n'])", "1"},
		"global":             {"n = 0\ndef f():\n    global n\n    n += 1\nf()\nprint(n)", "1"},
		"nonlocal": {
			"def f():\n    n = 0\n    def g():\n        nonlocal n\n        n += 1\n    g()\n    return n\nprint(f())",
			"1",
		},
		"re lookaround": {
			"import re\nprint(re.split(r'(?<=[.!?])\\s+', 'A. B! C'), re.findall(r'(\\w+) \\1', 'a a b'))",
			"['A.', 'B!', 'C'] ['a']",
		},
	}
	for name, c := range supported {
		res := run(c.code)
		if assert.NoError(t, res.Err, "%s: %s", name, res.ErrText) {
			assert.Equal(t, c.want, strings.TrimSuffix(res.Output, "\n"), name)
		}
	}
	unsupported := map[string]string{
		"with":       "with x as y:\n    pass",
		"async":      "async def f():\n    pass",
		"match":      "match x:\n    case 1:\n        pass",
		"os":         "import os",
		"subprocess": "import subprocess",
	}
	for name, code := range unsupported {
		res := run(code)
		assert.Error(t, res.Err, name)
	}
}
