package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/sandbox"
)

// twoStepRoot scripts a root model that runs code, then submits; it
// returns the observation the model was shown after the code ran.
func twoStepRoot(srv *llmtest.Server, code string) func() string {
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				return llmtest.Text("```python\nSUBMIT(answer='done')\n```")
			}
		}
		return llmtest.Text("```python\n" + code + "\n```")
	})
	return func() string {
		calls := srv.Calls()
		if len(calls) < 2 {
			return ""
		}
		msgs := calls[1].Messages
		return msgs[len(msgs)-1].Content
	}
}

func TestRunSandboxLimitFlags(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		code  string
		want  string
	}{
		{"max-recursion", []string{"--max-recursion", "20"}, "def f(n):\n    return f(n + 1)\nf(0)", "maximum recursion depth exceeded"},
		{"max-steps", []string{"--max-steps", "5000"}, "t = 0\nfor i in range(1000000):\n    t += i", "step limit exceeded"},
		{
			"max-output-bytes",
			[]string{"--max-output-bytes", "1K"},
			"for i in range(500):\n    print('line', i)",
			"the step printed more than 1024 bytes",
		},
		{"step-timeout", []string{"--step-timeout", "50ms"}, "while True:\n    pass", "time limit exceeded"},
		{
			"max-memory",
			[]string{"--max-memory", "16M"},
			"xs = []\nfor i in range(10000000):\n    xs.append('x' * 100 + str(i))",
			"MemoryError",
		},
		{"observation-tokens", []string{"--observation-tokens", "40"}, "print('x' * 5000)", "output truncated: 5001 chars printed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			obs := twoStepRoot(srv, tt.code)
			env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
			args := append([]string{"run", "--query", "q", "--var", "context=-", "--quiet"}, tt.flags...)
			code, out, errOut := runCLI(t, "some text", env, args...)
			require.Equal(t, 0, code, "stderr: %s", errOut)
			assert.Equal(t, "done\n", out)
			assert.Contains(t, obs(), tt.want)
		})
	}
}

func TestRunDefaultObservationIsNotTruncated(t *testing.T) {
	srv := llmtest.NewServer(t)
	obs := twoStepRoot(srv, "print('x' * 2000)")
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	code, _, errOut := runCLI(t, "some text", env, "run", "--query", "q", "--var", "context=-", "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.NotContains(t, obs(), "output truncated", "2,000 chars fit the default excerpt")
}

func TestRunSizeFlags(t *testing.T) {
	srv := llmtest.NewServer(t)
	obs := twoStepRoot(srv, "print(len(context_chunks), max(len(c) for c in context_chunks) <= 512)")
	dir := t.TempDir()
	file := filepath.Join(dir, "big.txt")
	require.NoError(t, os.WriteFile(file, []byte(strings.Repeat("a line of text\n", 300)), 0o644))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	code, out, errOut := runCLI(
		t,
		"",
		env,
		"run",
		"--query",
		"q",
		"--var",
		"context="+file,
		"--chunk-threshold",
		"1KB",
		"--chunk-size",
		"512B",
		"--warn-size",
		"2KB",
	)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "done\n", out)
	assert.Contains(t, obs(), "True")
	assert.NotContains(t, obs(), "NameError")
	assert.Contains(t, errOut, "context_chunks")
}

func TestLimitFlagErrors(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "RLM_MODEL": "m"}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--query", "q", "--observation-tokens", "0"}, "--observation-tokens must be positive"},
		{
			[]string{"run", "--query", "q", "--history-tokens", "1000", "--observation-tokens", "6000"},
			"--observation-tokens 6000 does not fit --history-tokens 1000",
		},
		{[]string{"run", "--query", "q", "--max-meta-tokens", "200"}, "--max-meta-tokens >= --meta-tokens"},
		{[]string{"run", "--query", "q", "--max-recursion", "-1"}, "must be positive"},
		{[]string{"run", "--query", "q", "--max-memory", "lots"}, "want a positive size"},
		{[]string{"run", "--query", "q", "--chunk-size", "-5"}, "bad size"},
		{[]string{"exec", "--step-timeout", "0s", "-c", "x = 1"}, "must be positive"},
		{[]string{"exec", "--warn-size", "big", "-c", "x = 1"}, "bad size"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, "", env, tt.args...)
			assert.Equal(t, 2, code, errOut)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestExecLimitAndSizeFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "big.txt")
	require.NoError(t, os.WriteFile(file, []byte(strings.Repeat("a line of text\n", 300)), 0o644))
	tests := []struct {
		name    string
		args    []string
		code    int
		wantOut string
		wantErr string
	}{
		{
			"max-recursion",
			[]string{"--max-recursion", "10", "-c", "def f(n):\n    return f(n + 1)\nf(0)"},
			1,
			"",
			"maximum recursion depth exceeded",
		},
		{"max-steps", []string{"--max-steps", "1000", "-c", "for i in range(100000):\n    pass"}, 1, "", "step limit exceeded"},
		{
			"chunk flags",
			[]string{"--var", "notes=" + file, "--chunk-threshold", "1KB", "--chunk-size", "512B", "-c", "print(len(notes_chunks) > 1)"},
			0,
			"True\n",
			"notes_chunks",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", nil, append([]string{"exec"}, tt.args...)...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Equal(t, tt.wantOut, out)
			assert.Contains(t, errOut, tt.wantErr)
		})
	}
}

// The limit flags fill one sandbox.Limits, handed whole to the engine.
func TestRunLimitFlagsFillSandboxLimits(t *testing.T) {
	o, err := parseRunFlags(envOf(nil), []string{"--query", "q", "--max-steps", "7", "--step-timeout", "3s",
		"--max-memory", "2M", "--max-session-memory", "5M", "--max-recursion", "9", "--max-output-bytes", "1K", "--observation-tokens", "11"})
	require.NoError(t, err)
	require.NoError(t, o.validate())
	assert.Equal(
		t,
		sandbox.Limits{
			MaxSteps:          7,
			Timeout:           3 * time.Second,
			MaxMemory:         2 << 20,
			MaxSessionMemory:  5 << 20,
			MaxRecursion:      9,
			MaxOutputBytes:    1 << 10,
			ObservationTokens: 11,
		},
		o.limits.Limits,
	)

	o, err = parseRunFlags(envOf(nil), []string{"--query", "q"})
	require.NoError(t, err)
	want := sandbox.DefaultLimits()
	want.ObservationTokens = orchestrator.DefaultObservationTokens
	assert.Equal(t, want, o.limits.Limits, "defaults are the sandbox's, with the orchestrator's excerpt size")
}

// rlm run and rlm bench check their shared budget flags the same way.
func TestBudgetFlagsSharedByRunAndBench(t *testing.T) {
	cmds := [][]string{{"run", "--query", "q"}, {"bench", "--dry-run"}}
	flags := []struct{ flag, val, want string }{
		{"--max-iterations", "0", "--max-iterations must be >= 1"},
		{"--max-depth", "0", "--max-depth must be >= 1"},
		{"--max-cost", "-1", "must be >= 0"},
		{"--timeout", "-1s", "must be >= 0"},
		{"--max-active-time", "-1s", "must be >= 0"},
	}
	for _, cmd := range cmds {
		for _, fl := range flags {
			t.Run(cmd[0]+" "+fl.flag, func(t *testing.T) {
				code, _, errOut := runCLI(t, "", nil, append(append([]string{}, cmd...), fl.flag, fl.val)...)
				assert.Equal(t, 2, code, errOut)
				assert.Contains(t, errOut, fl.want)
			})
		}
	}
}
