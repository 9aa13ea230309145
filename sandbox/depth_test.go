package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// deepList and deepTuple build a value nested n levels deep in model code.
const (
	deepList  = "x = []\nfor i in range(%d):\n    x = [x]\n"
	deepTuple = "x = ()\nfor i in range(%d):\n    x = (x,)\n"
)

func nested(tmpl string, n int) string {
	return strings.Replace(tmpl, "%d", itoa(n), 1)
}

func itoa(n int) string { return starlark.MakeInt(n).String() }

// TestDepthBounded checks that walks of deeply nested or cyclic values end
// with CPython's result or error, in time linear in what they render.
func TestDepthBounded(t *testing.T) {
	tests := []struct {
		name string
		code string
		out  string // expected output, when the code succeeds
		kind string // else the expected error
		msg  string
	}{
		{
			"str of a deep list",
			nested(deepList, 200_000) + "s = str(x)",
			"",
			"RecursionError",
			"maximum recursion depth exceeded while getting the repr of an object",
		},
		{
			"print of a deep list",
			nested(deepList, 200_000) + "print(x)",
			"",
			"RecursionError",
			"maximum recursion depth exceeded while getting the repr of an object",
		},
		{"repr of a deep tuple", nested(deepTuple, 200_000) + "s = repr(x)", "", "RecursionError", "while getting the repr"},
		{"f-string of a deep list", nested(deepList, 5000) + "s = f'{x}'", "", "RecursionError", "while getting the repr"},
		{
			"the recursion limit catches it",
			nested(deepList, 200_000) + "try:\n    s = repr(x)\nexcept RecursionError as e:\n    print('caught')",
			"caught\n",
			"",
			"",
		},
		{"nesting below the limit renders", nested(deepList, 900) + "print(len(str(x)))", "1802\n", "", ""},
		{"cyclic list", "x = [1]\nx.append(x)\nprint(x)", "[1, [...]]\n", "", ""},
		{
			"12 levels compare equal",
			"a = [[[[[[[[[[[[1]]]]]]]]]]]]\nb = [[[[[[[[[[[[1]]]]]]]]]]]]\nprint(a == b, a < b)",
			"True False\n",
			"",
			"",
		},
		{
			"deep comparison",
			nested(deepList, 5000) + "y = []\nfor i in range(5000):\n    y = [y]\nprint(x == y)",
			"",
			"RecursionError",
			"maximum recursion depth exceeded in comparison",
		},
		{
			"dict key of a deep tuple",
			nested(deepTuple, 200_000) + "d = {x: 1}",
			"",
			"RecursionError",
			"maximum recursion depth exceeded while calling a Python object",
		},
		{
			"set membership of a deep tuple",
			nested(deepTuple, 200_000) + "s = set([1])\nprint(x in s)",
			"",
			"RecursionError",
			"maximum recursion depth exceeded while calling a Python object",
		},
		{
			"hash of a deep tuple",
			nested(deepTuple, 200_000) + "h = hash(x)",
			"",
			"RecursionError",
			"maximum recursion depth exceeded while calling a Python object",
		},
		{
			"a deep tuple caught as RecursionError",
			nested(deepTuple, 200_000) + "try:\n    d = {x: 1}\nexcept RecursionError:\n    print('caught')",
			"caught\n",
			"",
			"",
		},
		{
			"tuple keys below the limit hash",
			nested(deepTuple, 900) + "d = {x: 1}\nprint(d[x], hash((1, 2)) == hash((1, 2)), hash(5), hash(-1), hash(True))",
			"1 True 5 -2 1\n",
			"",
			"",
		},
		{
			"sorting deep tuples",
			nested(deepTuple, 200_000) + "y = (x,)\nz = sorted([x, y])",
			"",
			"RecursionError",
			"maximum recursion depth exceeded in comparison",
		},
		{"percent format of a deep tuple", nested(deepTuple, 200_000) + "s = '%s' % (x,)", "", "RecursionError", "while getting the repr"},
		{
			"deepcopy keeps a cycle",
			"import copy\nx = [1]\nx.append(x)\ny = copy.deepcopy(x)\nprint(y, y[1] is y, y is x)",
			"[1, [...]] True False\n",
			"",
			"",
		},
		{
			"deepcopy keeps sharing",
			"import copy\na = [1]\nx = [a, a]\ny = copy.deepcopy(x)\nprint(y[0] is y[1], y[0] is a)",
			"True False\n",
			"",
			"",
		},
		{
			"deepcopy of a deep list",
			"import copy\n" + nested(deepList, 5000) + "y = copy.deepcopy(x)",
			"",
			"RecursionError",
			"maximum recursion depth exceeded while calling a Python object",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := New(Config{}).Exec(context.Background(), tt.code)
			if tt.kind == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.out, res.Output)
				return
			}
			var se *ScriptError
			require.True(t, errors.As(err, &se), "error %v", err)
			assert.Equal(t, tt.kind, se.Kind, se.Traceback)
			assert.Contains(t, se.Msg, tt.msg)
			assert.Greater(t, se.Line, 0, "the error names its line")
		})
	}
}

// TestGoWalksBounded checks the Go-side walks: Repr/Str cut deep values,
// ToGo refuses cycles and depth, StrLimit stops early.
func TestGoWalksBounded(t *testing.T) {
	var deep starlark.Value = starlark.NewList(nil)
	for i := 0; i < 100_000; i++ {
		deep = starlark.NewList([]starlark.Value{deep})
	}
	s := Repr(deep)
	assert.Equal(t, MaxRenderDepth*2+3, len(s), "rendered to the depth limit, then ...")
	assert.True(t, strings.HasPrefix(s, "[[[") && strings.Contains(s, "[...]"), s[:20])

	_, err := ToGo(deep)
	var pe *PyError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "RecursionError", pe.Kind)

	cyc := starlark.NewList([]starlark.Value{starlark.MakeInt(1)})
	require.NoError(t, cyc.Append(cyc))
	_, err = ToGo(cyc)
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "ValueError", pe.Kind)
	assert.Equal(t, "Circular reference detected", pe.Msg)

	// A shared (acyclic) value converts.
	shared := starlark.NewList([]starlark.Value{starlark.String("a")})
	g, err := ToGo(starlark.NewList([]starlark.Value{shared, shared}))
	require.NoError(t, err)
	assert.Equal(t, []any{[]any{"a"}, []any{"a"}}, g)

	wide := make([]starlark.Value, 100_000)
	for i := range wide {
		wide[i] = starlark.MakeInt(i)
	}
	assert.Equal(t, "[0, 1, 2, 3, 4", StrLimit(starlark.NewList(wide), 14))
	assert.Equal(t, "'é", ReprLimit(starlark.String("éé"), 4), "cut at a rune boundary")
}

// TestGoWalksOfSharedValues: a value shared at every level of its nesting
// (2**80 leaves in 81 lists) is bounded in time, not only in depth: the
// Go-side Repr, Str and ToGo stop after their walk budget (SUBMIT's
// ToGoOn, which stops with its step, is in cmd/rlm's hostile table).
func TestGoWalksOfSharedValues(t *testing.T) {
	defer func(n int) { py.WalkBudget = n }(py.WalkBudget)
	py.WalkBudget = 1 << 16 // the same stop, sooner
	var dag starlark.Value = starlark.NewList([]starlark.Value{starlark.MakeInt(1)})
	for i := 0; i < 80; i++ {
		dag = starlark.NewList([]starlark.Value{dag, dag})
	}
	for _, s := range []string{Repr(dag), Str(dag)} {
		assert.True(t, strings.HasPrefix(s, "[[[[") && strings.HasSuffix(s, "..."), "cut and marked: %q...%q", s[:10], s[len(s)-10:])
	}
	_, err := ToGo(dag)
	var pe *PyError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "MemoryError", pe.Kind)
	assert.Contains(t, pe.Msg, "value too large to walk")

}
