package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/runs"
)

// TestRunIsKept: rlm run keeps its run directory by default, with the
// trajectory, the recording, the step outputs, result.json and run.json,
// none holding the API key; rlm runs ls/show/rm/gc manage it; --no-keep
// keeps nothing.
func TestRunIsKept(t *testing.T) {
	srv := llmtest.NewServer(t)
	scriptedRoot(srv)
	dir := t.TempDir()
	runsDir := filepath.Join(dir, "runs")
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte("x\nthe magic number is 42\n"), 0o644))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-secret-kept", "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub", "RLM_RUNS_DIR": runsDir}

	code, out, errOut := runCLI(t, "", env, "run", "--query", "What is the magic number?", "--var", "context="+ctxFile, "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "42\n", out)

	list, _, err := runs.NewRoot(runsDir).List()
	require.NoError(t, err)
	require.Len(t, list, 1)
	m := list[0]
	assert.Equal(t, runs.StatusDone, m.Status)
	assert.Equal(t, "What is the magic number?", m.Query)
	assert.Equal(t, 2, m.Iterations)
	assert.Positive(t, m.Tokens)
	assert.NotEmpty(t, m.ConfigDigest)
	assert.Contains(t, m.VarHashes, "context")
	runDir := filepath.Join(runsDir, m.ID)
	for _, name := range []string{runs.MetaFile, runs.TrajectoryFile, runs.RecordingFile, runs.ResultFile, filepath.Join(runs.OutputsDir, "0-1.txt")} {
		b, err := os.ReadFile(filepath.Join(runDir, name))
		require.NoError(t, err, name)
		assert.NotContains(t, string(b), "sk-secret-kept", "%s holds the API key", name)
	}
	step1, _ := os.ReadFile(filepath.Join(runDir, runs.OutputsDir, "0-1.txt"))
	assert.Equal(t, "magic\n", string(step1), "the full output of step 1")
	var res map[string]any
	b, _ := os.ReadFile(filepath.Join(runDir, runs.ResultFile))
	require.NoError(t, json.Unmarshal(b, &res))
	assert.Equal(t, "42", res["answer"])
	rec, _ := os.ReadFile(filepath.Join(runDir, runs.RecordingFile))
	assert.Equal(t, 4, strings.Count(string(rec), "\n"), "meta line and three answers")

	code, out, errOut = runCLI(t, "", env, "runs", "ls")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, out, m.ID)
	assert.Contains(t, out, "What is the magic number?")
	assert.Contains(t, out, "done")
	code, out, _ = runCLI(t, "", env, "runs", "ls", "--json")
	require.Equal(t, 0, code)
	var listed []runs.Meta
	require.NoError(t, json.Unmarshal([]byte(out), &listed))
	require.Len(t, listed, 1)
	assert.Equal(t, m.ID, listed[0].ID)

	code, out, errOut = runCLI(t, "", env, "runs", "show", m.ID)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, out, "status:     done")
	assert.Contains(t, out, "answer:\n42\n")

	// --no-keep: no new directory.
	code, _, errOut = runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile, "--quiet", "--no-keep")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	ents, _ := os.ReadDir(runsDir)
	assert.Len(t, ents, 1)

	code, _, _ = runCLI(t, "", env, "runs", "gc", "--older-than", "1h")
	require.Equal(t, 0, code)
	assert.DirExists(t, runDir, "a recent run is not collected")
	code, out, _ = runCLI(t, "", env, "runs", "rm", m.ID)
	require.Equal(t, 0, code)
	assert.Equal(t, "removed "+m.ID+"\n", out)
	assert.NoDirExists(t, runDir)

	code, _, errOut = runCLI(t, "", env, "runs", "rm", m.ID)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no such run")
}

// TestResumeBudgetStop: a run stopped by --max-llm-calls is resumed with a
// raised budget: the recorded answers are replayed (the server sees no
// request twice), the run finishes with the same answer as an
// uninterrupted run, and the trajectory continues with a resume event.
func TestResumeBudgetStop(t *testing.T) {
	srv := llmtest.NewServer(t)
	scriptedRoot(srv)
	dir := t.TempDir()
	runsDir := filepath.Join(dir, "runs")
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte("x\nthe magic number is 42\n"), 0o644))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub", "RLM_RUNS_DIR": runsDir}

	code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile, "--max-llm-calls", "2")
	require.Equal(t, 1, code, "stderr: %s", errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "stopped: budget")
	list, _, err := runs.NewRoot(runsDir).List()
	require.NoError(t, err)
	require.Len(t, list, 1)
	id := list[0].ID
	assert.Equal(t, runs.StatusStopped, list[0].Status)
	assert.Contains(t, errOut, "rlm run --resume "+id)
	before := srv.Calls()
	require.Len(t, before, 2)

	code, _, errOut = runCLI(t, "", env, "run", "--resume", id, "--var", "x=y")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--var cannot be changed")

	code, out, errOut = runCLI(t, "", env, "run", "--resume", id, "--max-llm-calls", "10", "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "42\n", out)
	after := srv.Calls()
	require.Len(t, after, 3, "one new request: the one the budget refused")
	seen := map[string]bool{}
	for _, c := range after {
		k := string(c.Body)
		assert.False(t, seen[k], "request sent twice: %s", k)
		seen[k] = true
	}
	m, err := runs.NewRoot(runsDir).Get(id)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusDone, m.Status)
	assert.Len(t, m.Resumes, 1)
	traj, err := os.ReadFile(filepath.Join(runsDir, id, runs.TrajectoryFile))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(traj), `"type":"resume"`))
	assert.Equal(t, 2, strings.Count(string(traj), `"type":"exec"`), "each step's code once")

	code, _, errOut = runCLI(t, "", env, "run", "--resume", id)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "finished with a valid SUBMIT")

	// A changed variable file refuses the resume.
	code, _, _ = runCLI(t, "", env, "run", "--query", "q2", "--var", "context="+ctxFile, "--max-llm-calls", "1", "--quiet")
	require.Equal(t, 1, code)
	list, _, _ = runs.NewRoot(runsDir).List()
	id2 := list[0].ID
	require.NoError(t, os.WriteFile(ctxFile, []byte("changed\n"), 0o644))
	n := srv.Count()
	code, _, errOut = runCLI(t, "", env, "run", "--resume", id2, "--max-llm-calls", "10")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "context changed")
	assert.Equal(t, n, srv.Count(), "nothing is sent")
	m, _ = runs.NewRoot(runsDir).Get(id2)
	assert.Equal(t, runs.StatusStopped, m.Status, "the run can still be resumed once its inputs are restored")
}
