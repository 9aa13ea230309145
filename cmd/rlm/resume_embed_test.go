package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/runs"
)

// embedResumeScript: the root ranks the lines with find_relevant
// (embeddings) in its first step, asks a sub-call in its second and
// submits in its third.
func embedResumeScript(c llmtest.Call) llmtest.Reply {
	if c.Model == "gpt-4o" {
		return llmtest.Text("ok")
	}
	n := 0
	for _, m := range c.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	code := func(s string) llmtest.Reply { return llmtest.Text("```python\n" + s + "\n```") }
	switch n {
	case 0:
		return code(`r = find_relevant(context.splitlines(), "magic number", top_k=2)
print(r.value[0]["item"])`)
	case 1:
		return code(`a = llm_query("check: " + r.value[0]["item"])
print(a.value)`)
	default:
		return code(`SUBMIT({"answer": r.value[0]["item"] + " " + a.value})`)
	}
}

// TestResumeChargesReplayedEmbeddings: a run using find_relevant is
// killed after its embeddings were recorded and resumed; the resumed run
// must end with the same usage (calls, tokens, cost) as the uninterrupted
// run: the replayed embeddings are charged like the replayed chat calls,
// so crashing and resuming cannot bypass a budget.
func TestResumeChargesReplayedEmbeddings(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes; skipped with -short")
	}
	ks := newKillServerWith(t, embedResumeScript)
	dir := t.TempDir()
	ctxFile := filepath.Join(dir, "notes.txt")
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("filler line %d about nothing in particular", i))
	}
	lines = append(lines, "the magic number is 42")
	require.NoError(t, os.WriteFile(ctxFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	args := []string{"run", "--query", "What is the magic number?", "--var", "context=" + ctxFile, "--json"}
	envFor := func(runsDir string) map[string]string {
		return map[string]string{"OPENAI_BASE_URL": ks.URL(), "RLM_MODEL": "gpt-4o-mini", "RLM_SUB_MODEL": "gpt-4o",
			"RLM_EMBEDDING_MODEL": "text-embedding-3-small", "RLM_RUNS_DIR": runsDir,
			"OPENAI_API_KEY": "", "RLM_STORE": filepath.Join(dir, "store")}
	}
	type out struct {
		Answer  any                   `json:"answer"`
		Usage   llm.Totals            `json:"usage"`
		ByModel map[string]llm.Totals `json:"usage_by_model"`
	}
	parse := func(stdout string) out {
		t.Helper()
		var o out
		require.NoError(t, json.Unmarshal([]byte(stdout), &o), "stdout: %s", stdout)
		return o
	}

	code, stdout, errOut := ks.run(t, envFor(filepath.Join(dir, "clean")), 0, args...)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	want := parse(stdout)
	embeds := 0
	for _, c := range ks.Calls() {
		if len(c.Inputs) > 0 {
			embeds++
		}
	}
	require.Positive(t, embeds, "the run embedded its lines")
	require.Greater(t, want.Usage.Calls, 4, "3 root calls, a sub-call and the embedding calls")
	require.Positive(t, want.Usage.CostUSD, "every model has a price")
	require.Contains(t, want.ByModel, "text-embedding-3-small")

	// Kill at the root's second request: the embeddings are recorded.
	runsDir := filepath.Join(dir, "killed")
	env := envFor(runsDir)
	code, _, errOut = ks.run(t, env, 2, args...)
	require.True(t, ks.killed.Load(), "killed (exit %d, stderr %s)", code, errOut)
	id := onlyRun(t, runsDir).ID
	before := len(ks.Calls())
	code, stdout, errOut = ks.run(t, env, 0, "run", "--resume", id, "--json")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	for _, c := range ks.Calls()[before:] {
		assert.Empty(t, c.Inputs, "the resume embedded again instead of replaying")
	}
	got := parse(stdout)
	assert.Equal(t, want.Answer, got.Answer)
	assert.Equal(t, want.Usage, got.Usage, "the resumed run's usage")
	assert.Equal(t, want.ByModel, got.ByModel, "the resumed run's usage by model")
	m, err := runs.NewRoot(runsDir).Get(id)
	require.NoError(t, err)
	assert.Equal(t, want.Usage.Tokens(), m.Tokens, "run.json tokens")
}
