package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExcerptRule: an output a little over the observation budget is shown
// whole (a short middle is never hidden); a longer one is cut at line
// boundaries, and the cut names the lines it hides.
func TestExcerptRule(t *testing.T) {
	line := func(i int) string { return fmt.Sprintf("result %02d: %s\n", i, strings.Repeat("x", 300)) }
	var thirteen strings.Builder
	for i := 1; i <= 13; i++ {
		thirteen.WriteString(line(i)) // 13 lines, ~4.2 KB: the case of issue 28
	}
	got, cut := excerpt(thirteen.String(), DefaultObservationTokens)
	assert.False(t, cut, "under a sixth over the budget: shown whole")
	assert.Equal(t, thirteen.String(), got)

	var many strings.Builder
	for i := 1; i <= 100; i++ {
		many.WriteString(line(i))
	}
	got, cut = excerpt(many.String(), DefaultObservationTokens)
	assert.True(t, cut)
	assert.Regexp(t, `\.\.\. \[output truncated: lines \d+-\d+ of 100 not shown \(\d+ of \d+ bytes\); print less`, got)
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		assert.True(t, strings.HasPrefix(l, "result ") || strings.HasPrefix(l, "... [output truncated"), "whole lines only: %q", l)
	}
	var first, last int
	_, err := fmt.Sscanf(got[strings.Index(got, "lines "):], "lines %d-%d", &first, &last)
	assert.NoError(t, err)
	assert.Contains(t, got, line(first-1), "the line before the cut is shown")
	assert.NotContains(t, got, line(first), "the first hidden line is hidden")
	assert.NotContains(t, got, line(last), "the last hidden line is hidden")
	assert.Contains(t, got, line(last+1), "the line after the cut is shown")
}

// TestHostileMessages: errors of hostile code are CPython's kinds with
// bounded messages (issue 26: a lambda recursion said "Starlark stack
// overflow", a 200 MB message made a 200 MB error line, a huge timedelta
// wrapped around silently).
func TestHostileMessages(t *testing.T) {
	tests := []struct {
		code, kind, msg string
	}{
		{"f = lambda n: f(n + 1)\nf(0)", "RecursionError", "maximum recursion depth exceeded"},
		{"import datetime\ndatetime.timedelta(days=10**18)", "OverflowError", "out of range"},
		{"raise ValueError('x' * (2 * 10**6))", "ValueError", "bytes of the message cut"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			s := New(Config{})
			_, err := s.Exec(context.Background(), tt.code)
			var se *ScriptError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.kind, se.Kind)
			assert.Contains(t, se.Msg, tt.msg)
			assert.Less(t, len(se.Traceback), 2*maxErrorMsg, "a bounded traceback")
		})
	}
}

// TestSubscriptErrorsAreTypeErrors: subscripting what cannot be
// subscripted is CPython's TypeError, so except TypeError catches it
// (issue 28: slicing a dict raised a generic Error).
func TestSubscriptErrorsAreTypeErrors(t *testing.T) {
	tests := []struct{ code, msg string }{
		{"d = {'a': 1}\nd[0:1]", "unhashable type: 'slice'"},
		{"x = 5\nx[0]", "'int' object is not subscriptable"},
		{"x = None\nx['a']", "'NoneType' object is not subscriptable"},
		{"x = 5\nx[0:1]", "'int' object is not subscriptable"},
	}
	for _, tt := range tests {
		s := New(Config{})
		_, err := s.Exec(context.Background(), tt.code)
		var se *ScriptError
		require.ErrorAs(t, err, &se, tt.code)
		assert.Equal(t, "TypeError", se.Kind, tt.code)
		assert.Equal(t, tt.msg, se.Msg, tt.code)
		res, err := s.Exec(
			context.Background(),
			"try:\n    "+strings.ReplaceAll(tt.code, "\n", "\n    ")+"\nexcept TypeError:\n    print('caught')",
		)
		require.NoError(t, err, tt.code)
		assert.Equal(t, "caught\n", res.Output, tt.code)
	}
}
