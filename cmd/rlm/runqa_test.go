package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/orchestrator"
)

func TestRunFailureWithoutAnswer(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		want  string
	}{
		{
			"bad key",
			llmtest.ErrorReply(401, "invalid_api_key", "Incorrect API key provided"),
			"check the API key: --api-key or OPENAI_API_KEY",
		},
		{"unknown model", llmtest.ErrorReply(404, "model_not_found", "The model `root` does not exist"), `check the model name "root"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.SetDefault(func(llmtest.Call) llmtest.Reply { return tt.reply })
			env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
			// Even with --quiet the user learns why nothing was printed.
			code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--max-retries", "0", "--quiet")
			assert.Equal(t, 1, code)
			assert.Empty(t, out, "no blank answer line on stdout")
			assert.Contains(t, errOut, "stopped: model_error (no answer)")
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestRunUnreachableEndpointHint(t *testing.T) {
	srv := llmtest.NewServer(t)
	url := srv.URL()
	srv.Close()
	runsDir := t.TempDir()
	env := map[string]string{"OPENAI_BASE_URL": url, "RLM_MODEL": "root", "RLM_RUNS_DIR": runsDir}
	// The default retries: a never-answered endpoint is not retried, so the
	// first failure comes at once.
	code, out, errOut := runCLI(t, "", env, "run", "--query", "q")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "connection refused")
	assert.Contains(
		t,
		errOut,
		"nothing answers at "+url+": start the server there, or point rlm at a model with --base-url URL --model NAME",
	)
	assert.NotContains(t, errOut, "--resume", "a run that never had a model answer is not offered for resuming")
	left, err := os.ReadDir(runsDir)
	require.NoError(t, err)
	assert.Empty(t, left, "no run directory is left for a run the model never answered")
}

func TestRunPaperStyleBareFinal(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue("root", llmtest.Text("The answer is in the text.\nFINAL(forty two)"))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	code, out, errOut := runCLI(t, "", env, "run", "--query", "q")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "forty two\n", out)
}

func TestVarNamesMayNotHideHelpers(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "RLM_MODEL": "m"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"run SUBMIT", []string{"run", "--query", "q", "--var", "SUBMIT=-"}, `"SUBMIT" would hide the REPL helper SUBMIT(`},
		{"run len", []string{"run", "--query", "q", "--var", "len=-"}, `"len" would hide the REPL helper len(`},
		{"run outputs", []string{"run", "--query", "q", "--var", "outputs=-"}, `"outputs" holds the full output of each step`},
		{"exec search", []string{"exec", "--var", "search=-", "-c", "print(1)"}, `"search" would hide the REPL helper search(`},
		{"run print", []string{"run", "--query", "q", "--var", "print=-"}, `"print" would hide Python's builtin print`},
		{
			"exec ValueError",
			[]string{"exec", "--var", "ValueError=-", "-c", "print(1)"},
			`"ValueError" would hide Python's builtin ValueError`,
		},
		{"exec json module", []string{"exec", "--var", "json=-", "-c", "print(1)"}, `"json" is the name of the Python module json`},
		{
			"exec itertools module",
			[]string{"exec", "--var", "itertools=-", "-c", "print(1)"},
			`"itertools" is the name of the Python module`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "data", env, tt.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.want)
			assert.Contains(t, errOut, "rename the variable")
		})
	}
	// rlm exec has no engine outputs variable: the name is free there.
	code, out, errOut := runCLI(t, "data", env, "exec", "--var", "outputs=-", "-c", "print(outputs)")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "data\n", out)
}

func TestBadFlagIsNotBuriedUnderTheFlagList(t *testing.T) {
	code, out, errOut := runCLI(t, "", nil, "exec", "--var", "1x=a.txt", "-c", "print(1)")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `invalid variable name "1x"`)
	assert.Contains(t, errOut, "usage: rlm exec ")
	assert.Contains(t, errOut, "Run 'rlm exec -h' for the list of flags.")
	assert.NotContains(t, errOut, "-max-steps", "the flag list is for -h")
	assert.LessOrEqual(t, strings.Count(errOut, "\n"), 4)

	code, out, _ = runCLI(t, "", nil, "exec", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "-max-steps")
}

func TestHelpShowsEachDefaultOnce(t *testing.T) {
	_, out, _ := runCLI(t, "", nil, "run", "-h") // help is on stdout
	for _, line := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, strings.Count(line, "(default"), 1, line)
	}
	assert.Contains(t, out, "(default 100KB)")
	assert.Contains(t, out, "(default 1GB)")
}

func TestRunMaxErrorsFlag(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(llmtest.Call) llmtest.Reply { return llmtest.Text("```python\nprint(undefined)\n```") })
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--max-errors", "2", "--json")
	assert.Equal(t, 1, code)
	assert.Len(t, srv.Calls(), 2, "stopped after 2 failed steps")
	assert.Contains(t, out, `"stop_reason": "errors"`)
	assert.Contains(t, errOut, "too many consecutive errors: 2 in a row")

	code, _, errOut = runCLI(t, "", env, "run", "--query", "q", "--max-errors", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--max-errors must be >= 1")
}

func TestMaxCostNeedsKnownPrices(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(llmtest.Call) llmtest.Reply { return llmtest.Text("```python\nFINAL('ok')\n```") })
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "my-local-model"}
	for _, cmd := range [][]string{{"run", "--query", "q"}, {"bench", "--task", "niah", "--sizes", "8k", "--n", "1", "--out", t.TempDir()}} {
		code, _, errOut := runCLI(t, "", env, append(cmd, "--max-cost", "0.5")...)
		assert.Equal(t, 2, code, errOut)
		assert.Contains(t, errOut, `no price is known for model "my-local-model"`)
		assert.Contains(t, errOut, "--prices FILE")
	}
	assert.Empty(t, srv.Calls(), "nothing is sent")

	prices := t.TempDir() + "/prices.json"
	require.NoError(t, os.WriteFile(prices, []byte(`{"my-local-model": {"input": 0.1, "output": 0.2}}`), 0o644))
	code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--max-cost", "0.5", "--prices", prices)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "ok\n", out)
}

func TestRunToolsUnsupportedHint(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(llmtest.Call) llmtest.Reply {
		return llmtest.ErrorReply(400, "", "registry.ollama.ai/library/gemma:2b does not support tools")
	})
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "gemma:2b"}
	code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--protocol", "tools")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "does not support tools")
	assert.Contains(t, errOut, "try --protocol text")
}

func TestFailedRunKeepsAnEarlierRecording(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(llmtest.Call) llmtest.Reply { return llmtest.ErrorReply(401, "invalid_api_key", "bad key") })
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	rec := t.TempDir() + "/rec.jsonl"
	earlier := []byte(`{"earlier":"recording"}` + "\n")
	require.NoError(t, os.WriteFile(rec, earlier, 0o644))

	// A typo in --var fails before any model call.
	code, _, errOut := runCLI(t, "", env, "run", "--query", "q", "--record", rec, "--var", "x="+t.TempDir()+"/missing.txt")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "missing.txt")
	got, err := os.ReadFile(rec)
	require.NoError(t, err)
	assert.Equal(t, earlier, got)

	// A run the model fails leaves its recording in FILE.partial.
	code, _, errOut = runCLI(t, "", env, "run", "--query", "q", "--record", rec, "--max-retries", "0")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "its recording is in "+rec+".partial")
	got, err = os.ReadFile(rec)
	require.NoError(t, err)
	assert.Equal(t, earlier, got)
	assert.FileExists(t, rec+".partial")
}

func TestExecBadVarKeepsAnEarlierRecording(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	rec := t.TempDir() + "/rec.jsonl"
	earlier := []byte(`{"earlier":"recording"}` + "\n")
	require.NoError(t, os.WriteFile(rec, earlier, 0o644))
	code, _, errOut := runCLI(t, "", env, "exec", "--record", rec, "--var", "x="+t.TempDir()+"/missing.txt", "-c", "print(1)")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "missing.txt")
	got, err := os.ReadFile(rec)
	require.NoError(t, err)
	assert.Equal(t, earlier, got)
}

func TestBenchBadOutKeepsAnEarlierRecording(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	dir := t.TempDir()
	rec := dir + "/rec.jsonl"
	earlier := []byte(`{"earlier":"recording"}` + "\n")
	require.NoError(t, os.WriteFile(rec, earlier, 0o644))
	code, _, errOut := runCLI(t, "", env, "bench", "--task", "niah", "--sizes", "8k", "--n", "1", "--record", rec, "--out", rec+"/out")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--out")
	got, err := os.ReadFile(rec)
	require.NoError(t, err)
	assert.Equal(t, earlier, got)
	assert.Empty(t, srv.Calls())
}

func TestInterruptedCommandSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := runMain(ctx, env, []string{"exec", "-c", "while True:\n    pass"})
	assert.Equal(t, 130, code)
	assert.Equal(t, "rlm exec: interrupted\n", errb.String())
}

func TestStopNote(t *testing.T) {
	ans := orchestrator.Result{StopReason: orchestrator.StopCanceled, Partial: true, Answer: "so far", Err: context.Canceled}
	assert.Equal(t, "stopped: interrupted (best partial answer)", stopNote(&ans, llm.Config{}, orchestrator.ProtocolText))
	none := orchestrator.Result{StopReason: orchestrator.StopBudget, Partial: true, Err: llm.ErrBudgetExceeded}
	assert.Equal(t, "stopped: budget (no answer): llm: budget exceeded", stopNote(&none, llm.Config{}, orchestrator.ProtocolText))
	ext := orchestrator.Result{StopReason: orchestrator.StopMaxIterations, Extracted: true, Answer: "a", Err: orchestrator.ErrMaxIterations}
	assert.Equal(
		t,
		"stopped: max_iterations (answer from the final extraction turn): orchestrator: iteration limit reached",
		stopNote(&ext, llm.Config{}, orchestrator.ProtocolText),
	)
}

// The library's model errors name no flag; stopNote adds the flag to use.
func TestStopNoteAddsFlagAdvice(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{
			"replay miss",
			&llm.Error{Kind: llm.KindReplayMiss, Message: "recording r has no answer (the run diverged from the recording)"},
			"(re-record with --record)",
		},
		{
			"rate-limit wait",
			&llm.Error{Kind: llm.KindRateLimit, Message: "the requests limit needs a 3s wait", Err: llm.ErrRateLimitWait},
			"(raise --rpm/--tpm, or --request-timeout)",
		},
		{"auth", &llm.Error{Kind: llm.KindAuth, Message: "bad key"}, "--api-key or OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NotContains(t, tt.err.Error(), "--")
			res := orchestrator.Result{StopReason: orchestrator.StopModelError, Partial: true, Iterations: 1, Err: tt.err}
			assert.Contains(t, stopNote(&res, llm.Config{}, orchestrator.ProtocolText), tt.want)
		})
	}
}
