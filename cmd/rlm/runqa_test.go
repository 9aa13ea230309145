package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
)

func TestRunFailureWithoutAnswer(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		want  string
	}{
		{"bad key", llmtest.ErrorReply(401, "invalid_api_key", "Incorrect API key provided"), "check the API key: --api-key or OPENAI_API_KEY"},
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
	env := map[string]string{"OPENAI_BASE_URL": url, "RLM_MODEL": "root"}
	code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--max-retries", "0")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "is the endpoint "+url+" up? check --base-url or OPENAI_BASE_URL")
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

	code, _, errOut = runCLI(t, "", nil, "exec", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "-max-steps")
}

func TestHelpShowsEachDefaultOnce(t *testing.T) {
	_, _, errOut := runCLI(t, "", nil, "run", "-h")
	for _, line := range strings.Split(errOut, "\n") {
		assert.LessOrEqual(t, strings.Count(line, "(default"), 1, line)
	}
	assert.Contains(t, errOut, "(default 100KB)")
	assert.Contains(t, errOut, "(default 1GB)")
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
