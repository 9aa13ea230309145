package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	_, dir, ctxFile, env := magicFixture(t)
	runsDir := filepath.Join(dir, "runs")
	env["OPENAI_API_KEY"], env["RLM_RUNS_DIR"] = "sk-secret-kept", runsDir

	code, out, errOut := runCLI(t, "", env, "run", "--query", "What is the magic number?", "--var", "context="+ctxFile, "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "42\n", out)

	m := onlyRun(t, runsDir)
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

// onlyRun is the one run kept in runsDir.
func onlyRun(t *testing.T, runsDir string) runs.Meta {
	t.Helper()
	list, _, err := runs.NewRoot(runsDir).List()
	require.NoError(t, err)
	require.Len(t, list, 1)
	return list[0]
}

// TestResumeBudgetStop: a run stopped by --max-llm-calls is resumed with a
// raised budget: the recorded answers are replayed (the server sees no
// request twice), the run finishes with the same answer as an
// uninterrupted run, and the trajectory continues with a resume event.
func TestResumeBudgetStop(t *testing.T) {
	srv, dir, ctxFile, env := magicFixture(t)
	runsDir := filepath.Join(dir, "runs")
	env["RLM_RUNS_DIR"] = runsDir

	code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile, "--max-llm-calls", "2")
	require.Equal(t, 1, code, "stderr: %s", errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "stopped: budget")
	stopped := onlyRun(t, runsDir)
	id := stopped.ID
	assert.Equal(t, runs.StatusStopped, stopped.Status)
	assert.Contains(t, errOut, "rlm run --resume "+id)
	before := srv.Calls()
	require.Len(t, before, 2)

	code, _, errOut = runCLI(t, "", env, "run", "--resume", id, "--var", "x=y")
	assert.Equal(t, 2, code)
	assert.Contains(
		t,
		errOut,
		`--var (recorded "context=`+ctxFile+`", given "x=y") cannot be changed`,
		"the recorded and the given value are named",
	)
	code, _, errOut = runCLI(t, "", env, "run", "--resume", id, "--model", "other")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--model (recorded "root", given "other") cannot be changed`)

	// The user's own command again, with --resume and a raised budget: the
	// unchanged query, variable and model are accepted.
	code, out, errOut = runCLI(t, "", env, "run", "--resume", id, "--query", "q", "--var", "context="+ctxFile, "--model", "root",
		"--max-llm-calls", "10", "--quiet")
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
	answered := 0
	for _, line := range strings.Split(string(traj), "\n") {
		if strings.Contains(line, `"type":"reply","run":"0"`) && !strings.Contains(line, `"error"`) {
			answered++
		}
	}
	assert.Equal(t, 2, answered, "each answered root reply once, though a replayed one takes no time")

	code, _, errOut = runCLI(t, "", env, "run", "--resume", id)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "finished with a valid SUBMIT")

	// A changed variable file refuses the resume.
	code, _, _ = runCLI(t, "", env, "run", "--query", "q2", "--var", "context="+ctxFile, "--max-llm-calls", "1", "--quiet")
	require.Equal(t, 1, code)
	list, _, _ := runs.NewRoot(runsDir).List()
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

// TestSaveAndChildResults: --save KEY stores the SUBMIT outputs for a later
// --var NAME=store:KEY; the child run's result is stored in the kept run's
// agent scope; a KEY written by someone else during the run is not
// clobbered (compare-and-swap), and a run without a valid SUBMIT saves
// nothing.
func TestSaveAndChildResults(t *testing.T) {
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	storeDir := filepath.Join(dir, "store")
	var intruder atomic.Pointer[func()]
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if f := intruder.Swap(nil); f != nil {
			(*f)()
		}
		return resumeScript(c)
	})
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte("x\nthe magic number is 42\n"), 0o644))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub", "RLM_STORE": storeDir}
	args := []string{"run", "--query", "What is the magic number?", "--var", "context=" + ctxFile, "--max-depth", "2"}

	code, out, errOut := runCLI(t, "", env, append(args, "--save", "magic")...)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, errOut, "outputs saved to store key magic (version 1)")
	assert.Contains(t, errOut, "1 child result(s) stored in scope agent:")

	code, got, errOut := runCLI(t, "", env, "exec", "--var", "prev=store:magic", "-c", "print(prev['answer'])")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, out, got, "the saved outputs load as a variable")

	code, lsOut, errOut := runCLI(t, "", env, "store", "ls")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	var childKey string
	for _, line := range strings.Split(lsOut, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "/0.2.") {
			childKey = f[0]
		}
	}
	require.NotEmpty(t, childKey, "store ls:\n%s", lsOut)
	code, child, errOut := runCLI(t, "", env, "exec", "--var", "c=store:"+childKey, "-c", "print(c['answer'])")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.True(t, strings.HasPrefix(child, "child says s"), child)

	// Another writer sets the key during the run: the save is refused.
	put := func() {
		code, _, errOut := runCLI(t, "", env, "store", "put", "magic", ctxFile)
		assert.Equal(t, 0, code, "stderr: %s", errOut)
	}
	intruder.Store(&put)
	code, out2, errOut := runCLI(t, "", env, append(args, "--save", "magic")...)
	assert.Equal(t, 1, code)
	assert.Equal(t, out, out2, "the answer is printed all the same")
	assert.Contains(t, errOut, "another writer changed the key during the run")
	assert.Contains(t, errOut, runs.ResultFile)
	code, got, _ = runCLI(t, "", env, "exec", "--var", "prev=store:magic", "-c", "print(prev[:1])")
	require.Equal(t, 0, code)
	assert.Equal(t, "x\n", got, "the other writer's value is kept")

	// No valid SUBMIT: nothing saved.
	code, _, errOut = runCLI(t, "", env, append(args, "--save", "fresh", "--max-llm-calls", "1")...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--save fresh: not saved")
	code, _, _ = runCLI(t, "", env, "store", "show", "fresh")
	assert.Equal(t, 1, code)
}

// TestStoreSummarize: rlm store summarize asks the sub-model once per
// content: the summary of an unchanged value comes from the cache, a
// changed value is summarized again; without a model it says what to do.
func TestStoreSummarize(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Text(fmt.Sprintf("summary #%d by %s", len(srv.Calls()), c.Model))
	})
	dir := t.TempDir()
	storeDir := filepath.Join(dir, "store")
	src := filepath.Join(dir, "doc.txt")
	require.NoError(t, os.WriteFile(src, []byte("alpha beta gamma\n"), 0o644))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub", "RLM_STORE": storeDir}
	code, _, errOut := runCLI(t, "", env, "store", "put", "doc", src)
	require.Equal(t, 0, code, "stderr: %s", errOut)

	tests := []struct {
		name   string
		change string
		want   string
		calls  int
	}{
		{"first", "", "summary #1 by sub\n", 1},
		{"cached", "", "summary #1 by sub\n", 1},
		{"changed", "delta\n", "summary #2 by sub\n", 2},
	}
	for _, tt := range tests {
		if tt.change != "" {
			require.NoError(t, os.WriteFile(src, []byte(tt.change), 0o644))
			code, _, errOut := runCLI(t, "", env, "store", "put", "doc", src)
			require.Equal(t, 0, code, "stderr: %s", errOut)
		}
		code, out, errOut := runCLI(t, "", env, "store", "summarize", "doc")
		require.Equal(t, 0, code, "%s: stderr: %s", tt.name, errOut)
		assert.Equal(t, tt.want, out, tt.name)
		assert.Equal(t, tt.calls, srv.Count(), tt.name)
	}
	assert.Contains(t, srv.Calls()[1].Messages[1].Content, "delta")

	code, _, errOut = runCLI(t, "", map[string]string{"RLM_STORE": storeDir}, "store", "summarize", "doc")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "rlm store show KEY")
}

// TestResumeSubCallBudgetStop: a run whose sub-call the call budget
// refused is resumed with a raised budget: the step the refusal cut short
// runs again and makes the sub-call now, the answered root request is
// replayed (sent once in all), and the step's output file holds the new
// output, not the cut one twice.
func TestResumeSubCallBudgetStop(t *testing.T) {
	srv, dir, ctxFile, env := magicFixture(t)
	runsDir := filepath.Join(dir, "runs")
	env["RLM_RUNS_DIR"] = runsDir

	code, _, errOut := runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile, "--max-llm-calls", "1")
	require.Equal(t, 1, code, "stderr: %s", errOut)
	assert.Contains(t, errOut, "stopped: budget")
	id := onlyRun(t, runsDir).ID
	require.Len(t, srv.Calls(), 1, "the sub-call was refused before sending")
	traj, err := os.ReadFile(filepath.Join(runsDir, id, runs.TrajectoryFile))
	require.NoError(t, err)
	require.Contains(t, string(traj), "llm_query: llm: budget: call limit 1 reached")

	code, out, errOut := runCLI(t, "", env, "run", "--resume", id, "--max-llm-calls", "10", "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "42\n", out)
	calls := srv.Calls()
	require.Len(t, calls, 3, "the refused sub-call and the next root request, nothing twice")
	assert.Equal(t, []string{"root", "sub", "root"}, []string{calls[0].Model, calls[1].Model, calls[2].Model})
	m, err := runs.NewRoot(runsDir).Get(id)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusDone, m.Status)
	b, err := os.ReadFile(filepath.Join(runsDir, id, "outputs", "0-1.txt"))
	require.NoError(t, err)
	assert.Equal(t, "magic\n", string(b), "the step's output once")
}

// TestResumeStopsOnDivergence: when a re-executed step comes out
// differently from the recorded one (here the recorded output is altered,
// as a different rlm version would make it), the resume stops with a
// clear error before sending anything live, and the run keeps its status.
func TestResumeStopsOnDivergence(t *testing.T) {
	srv, dir, ctxFile, env := magicFixture(t)
	runsDir := filepath.Join(dir, "runs")
	env["RLM_RUNS_DIR"] = runsDir
	code, _, errOut := runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile, "--max-llm-calls", "2")
	require.Equal(t, 1, code, "stderr: %s", errOut)
	id := onlyRun(t, runsDir).ID
	trajPath := filepath.Join(runsDir, id, runs.TrajectoryFile)
	b, err := os.ReadFile(trajPath)
	require.NoError(t, err)
	altered := strings.Replace(string(b), `"output":"magic\n"`, `"output":"MAGIC\n"`, 1)
	require.NotEqual(t, string(b), altered)
	require.NoError(t, os.WriteFile(trajPath, []byte(altered), 0o644))

	n := srv.Count()
	code, _, errOut = runCLI(t, "", env, "run", "--resume", id, "--max-llm-calls", "10")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "diverged from the recording: exec event 1 of run 0 step 1 differs")
	assert.Contains(t, errOut, "rlm run --resume "+id+" --from-divergence", "the way on is named")
	assert.Equal(t, n, srv.Count(), "nothing is sent live")
	m, err := runs.NewRoot(runsDir).Get(id)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusStopped, m.Status)
	assert.Contains(t, m.Error, "diverged")
}

// BenchmarkKeptRunOverhead times a 2-step run (3 model calls against a
// local fake server) kept in a run directory, with the recording synced
// to disk after each answer, against the same run with --no-keep, and
// reports the ratio.
func BenchmarkKeptRunOverhead(b *testing.B) {
	_, dir, ctxFile, env := magicFixture(b)
	env["RLM_RUNS_DIR"] = filepath.Join(dir, "runs")
	run := func(extra ...string) time.Duration {
		start := time.Now()
		var out, errb bytes.Buffer
		if code := runCLIOn(b, "", env, &out, &errb, append([]string{"run", "--query", "q", "--var", "context=" + ctxFile, "--quiet"}, extra...)...); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
		return time.Since(start)
	}
	var kept, plain time.Duration
	for b.Loop() {
		kept += run()
		plain += run("--no-keep")
	}
	b.ReportMetric(float64(kept)/float64(plain), "keep/no-keep")
}

// TestResumeActiveTimeStop: a run stopped by --max-active-time stops as a
// budget and resumes with a raised limit like the ledger's budgets: the
// recorded answer is replayed and only the refused request is sent. A
// limit of 1ns lets the first root request through (nothing was active
// yet) and refuses the second.
func TestResumeActiveTimeStop(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				return llmtest.Text("```python\nSUBMIT(answer=str(x))\n```")
			}
		}
		return llmtest.Text("```python\nx = 6 * 7\n```")
	})
	dir := t.TempDir()
	runsDir := filepath.Join(dir, "runs")
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub", "RLM_RUNS_DIR": runsDir}

	code, _, errOut := runCLI(t, "", env, "run", "--query", "q", "--max-active-time", "1ns")
	require.Equal(t, 1, code, "stderr: %s", errOut)
	assert.Contains(t, errOut, "stopped: budget")
	assert.Contains(t, errOut, "active time")
	stopped := onlyRun(t, runsDir)
	assert.Equal(t, "budget", stopped.StopReason)
	require.Equal(t, 1, srv.Count())

	code, out, errOut := runCLI(t, "", env, "run", "--resume", stopped.ID, "--max-active-time", "1h", "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "42\n", out)
	assert.Equal(t, 2, srv.Count(), "one new request: the one the budget refused")
}
