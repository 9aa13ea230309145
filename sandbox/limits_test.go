package sandbox

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLimits runs hostile code against each limit and checks that the
// step ends with a clear error and the session keeps serving steps.
func TestLimits(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		code     string
		sentinel error
		kind     string
		msg      string
	}{
		{
			"infinite loop hits the step limit",
			Config{Limits: Limits{MaxSteps: 100_000}},
			"n = 0\nwhile True:\n    n += 1\n",
			ErrStepLimit,
			"TimeoutError",
			"step limit exceeded",
		},
		{
			"while True: pass hits the timeout",
			Config{Limits: Limits{Timeout: 200 * time.Millisecond}},
			"while True:\n    pass\n",
			ErrTimeout,
			"TimeoutError",
			"time limit exceeded",
		},
		{"string bomb", Config{}, `s = "x" * 10**10`, ErrMemoryLimit, "MemoryError", "memory limit"},
		{"list bomb", Config{}, `l = [0] * 10**9`, ErrMemoryLimit, "MemoryError", "memory limit"},
		{"huge power", Config{}, `n = 10 ** (10 ** 12)`, ErrMemoryLimit, "MemoryError", "memory limit"},
		{
			"ever-growing list",
			Config{Limits: Limits{MaxMemory: 64 << 20, Timeout: 20 * time.Second}},
			"l = []\nwhile True:\n    l.append('y' * 1000)\n",
			ErrMemoryLimit,
			"MemoryError",
			"memory limit exceeded",
		},
		{
			"deep recursion",
			Config{},
			"def f(n):\n    return f(n + 1)\nf(0)\n",
			ErrRecursionLimit,
			"RecursionError",
			"maximum recursion depth exceeded",
		},
		{
			"1 GB print is bounded",
			Config{Limits: Limits{MaxOutputBytes: 1 << 20}},
			"s = 'z' * (1 << 20)\nfor i in range(1000):\n    print(s)\n",
			ErrOutputLimit,
			"OutputLimitError",
			"printed more than",
		},
		{
			"printing a huge list is bounded",
			Config{Limits: Limits{MaxOutputBytes: 1 << 16}},
			"xs = list(range(10 ** 6))\nprint(xs)",
			ErrOutputLimit,
			"OutputLimitError",
			"printed more than",
		},
		{"load is disabled", Config{}, `load("x.star", "y")`, nil, "", ""},
		{"open is unavailable", Config{}, `open("/etc/passwd")`, ErrUnsupported, "NotImplementedError", "file access is not available"},
		{"unknown module", Config{}, `import os`, ErrUnsupported, "ModuleNotFoundError", "available modules: base64, bisect, collections"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.cfg)
			res, err := s.Exec(context.Background(), tt.code)
			require.NotNil(t, res)
			require.Error(t, err)
			var se *ScriptError
			require.True(t, errors.As(err, &se), "error %T is not a *ScriptError", err)
			if tt.sentinel != nil {
				assert.ErrorIs(t, err, tt.sentinel)
			}
			if tt.kind != "" {
				assert.Equal(t, tt.kind, se.Kind, se.Traceback)
				assert.Contains(t, se.Msg, tt.msg)
				assert.NotContains(t, se.Msg, tt.kind+":", "the kind is not repeated in the message")
			}
			assert.Contains(t, se.Traceback, se.Kind)
			// The session keeps serving steps.
			res, err = s.Exec(context.Background(), "print('still alive', 1 + 1)")
			require.NoError(t, err)
			assert.Equal(t, "still alive 2\n", res.Output)
		})
	}
}

func TestOutputExcerpt(t *testing.T) {
	s := New(Config{Limits: Limits{ObservationTokens: 100}})
	res, err := s.Exec(context.Background(), "for i in range(1000):\n    print('line', i)\n")
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Contains(t, res.Output, "line 999\n")
	assert.Less(t, len(res.Excerpt), 600)
	assert.Contains(t, res.Excerpt, "line 0\n")
	assert.Contains(t, res.Excerpt, "line 999\n")
	assert.Contains(t, res.Excerpt, "output truncated")

	res, err = s.Exec(context.Background(), "print('short')")
	require.NoError(t, err)
	assert.False(t, res.Truncated)
	assert.Equal(t, "short\n", res.Excerpt)
}

func TestCancel(t *testing.T) {
	s := New(Config{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := s.Exec(ctx, "while True:\n    pass\n")
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrCanceled)
}

// A builtin that blocks on ThreadContext returns when the step times out.
func TestThreadContextTimeout(t *testing.T) {
	s := New(Config{
		Limits: Limits{Timeout: 100 * time.Millisecond},
		Predeclared: starlark.StringDict{
			"wait": starlark.NewBuiltin(
				"wait",
				func(th *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
					ctx := ThreadContext(th)
					<-ctx.Done()
					return nil, context.Cause(ctx)
				},
			),
		},
	})
	_, err := s.Exec(context.Background(), "wait()")
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTimeout)
	assert.Equal(t, context.Background(), ThreadContext(&starlark.Thread{}))
}

// Runs of identical lines are collapsed in the model's excerpt (seed 002);
// the full output keeps them.
func TestOutputExcerptCollapsesRepeats(t *testing.T) {
	tests := []struct {
		name, code, excerpt string
		truncated           bool
	}{
		{"loop of 10,000", "print('start')\nfor i in range(10000):\n    print('waiting...')\nprint('done')\n",
			"start\nwaiting...\n[... line repeated 9,998 times ...]\nwaiting...\ndone\n", true},
		{"short run kept", "for i in range(3):\n    print('x')\n", "x\nx\nx\n", false},
		{"blank lines", "print('a' + '\\n' * 6 + 'b')\n", "a\n\n[... line repeated 3 times ...]\n\nb\n", true},
		{"distinct lines kept", "for i in range(5):\n    print(i)\n", "0\n1\n2\n3\n4\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Config{Limits: Limits{ObservationTokens: 1000}})
			res, err := s.Exec(context.Background(), tc.code)
			require.NoError(t, err)
			assert.Equal(t, tc.excerpt, res.Excerpt)
			assert.Equal(t, tc.truncated, res.Truncated)
		})
	}
	s := New(Config{Limits: Limits{ObservationTokens: 1000}})
	res, err := s.Exec(context.Background(), "for i in range(10000):\n    print('waiting...')\n")
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("waiting...\n", 10000), res.Output, "the full output keeps every line")
}

// The limits of a step are timers and a context callback, not watchdog
// goroutines: a short step starts no goroutine (each one cost a start, a
// wake-up on another thread and a join on a server's every step), and a
// disarmed limit never fires (the timeout below would stop the next step
// had it survived the first).
func TestStepLimitsStartNoGoroutine(t *testing.T) {
	var during int
	s := New(Config{
		Limits: Limits{Timeout: 150 * time.Millisecond, MaxMemory: 1 << 30, MaxSessionMemory: 1 << 30},
		Predeclared: starlark.StringDict{
			"goroutines": starlark.NewBuiltin("goroutines", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
				during = runtime.NumGoroutine()
				return starlark.None, nil
			}),
		},
	})
	before := runtime.NumGoroutine()
	_, err := s.Exec(context.Background(), "goroutines()")
	require.NoError(t, err)
	assert.Equal(t, before, during, "goroutines while the step runs")
}
