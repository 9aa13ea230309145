package builtins_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/sandbox"
)

// deep builds x nested 10**6 levels: every helper must answer (or raise)
// quickly, never hang or overflow the Go stack.
const deep = "x = []\nfor i in range(10 ** 6):\n    x = [x]\n"

// TestHelpersOnDeepAndCyclicValues walks the helpers over values nested far
// beyond the recursion limit and over cycles.
func TestHelpersOnDeepAndCyclicValues(t *testing.T) {
	tests := []struct {
		name string
		code string
		out  string // expected output, or "" when kind is set
		kind string
		msg  string
	}{
		{"peek returns the shallow slice", deep + "p = peek(x)\nprint(len(p), type(p[0]).__name__)", "1 list\n", "", ""},
		{"chunk returns the shallow pieces", deep + "print(len(chunk(x, 1)))", "1\n", "", ""},
		{"search renders items bounded", deep + "print(search(x, 'zzz'))", "[]\n", "", ""},
		{"summarize renders items bounded", deep + "s = summarize(x)\nprint(len(s) < 20000, s.count('[') > 10)", "True True\n", "", ""},
		{"find_relevant ranks bounded items", deep + "r = find_relevant([x, 'apple pie'], 'apple')\nprint(len(r) > 0)", "True\n", "", ""},
		{
			"SUBMIT of a cyclic value",
			"x = [1]\nx.append(x)\nSUBMIT(x)",
			"",
			"ValueError",
			"SUBMIT: output 'answer' cannot be submitted: Circular reference detected",
		},
		{
			"SUBMIT of a deep value",
			deep + "SUBMIT(x)",
			"",
			"RecursionError",
			"SUBMIT: output 'answer' cannot be submitted: maximum recursion depth exceeded",
		},
		{
			"a doubly shared value is walked once per list",
			"x = [1]\nfor i in range(200):\n    x = [x, x]\nprint(len(summarize(x)) < 20000)",
			"True\n",
			"",
			"",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, nil)
			out, err := e.exec(tt.code)
			if tt.kind != "" {
				assert.Contains(t, scriptErr(t, err, tt.kind), tt.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.out, out)
		})
	}
}

// TestHelpersStopWithTheStep checks that a helper rendering an
// exponentially shared value (2**80 leaves) ends when the step's time limit
// does, with the step's TimeoutError, instead of rendering on for ever.
func TestHelpersStopWithTheStep(t *testing.T) {
	for _, call := range []string{"search(x, 'zzz')", "find_relevant(x, 'zzz')"} {
		t.Run(call, func(t *testing.T) {
			h := &builtins.Host{}
			s := sandbox.New(sandbox.Config{Limits: sandbox.Limits{Timeout: 300 * time.Millisecond}, Predeclared: builtins.Predeclared(h)})
			_, err := s.Exec(context.Background(), "x = [1]\nfor i in range(80):\n    x = [x, x]\nr = "+call)
			scriptErr(t, err, "TimeoutError")
		})
	}
}
