package main

import (
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

// flagScript is a deterministic fake root model for a run whose step 2
// reads store key flag, which a test changes between runs to force a
// divergence; the other steps only print and submit.
func flagScript(c llmtest.Call) llmtest.Reply {
	n := 0
	for _, m := range c.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	code := func(s string) llmtest.Reply { return llmtest.Text("```python\n" + s + "\n```") }
	switch n {
	case 0:
		return code(`print("step one")`)
	case 1:
		return code(`v = store_get("flag")[-3:]
print("flag is " + v)`)
	case 2:
		return code(`print("checked " + v)`)
	default:
		return code(`SUBMIT({"answer": "flag " + v})`)
	}
}

// TestResumeTable is issue 28's resume table: a run stopped by kill -9 or
// by --max-llm-calls on a root request, on a sub-call (llm_query), inside
// a child run (rlm_query at --max-depth 2), and one whose re-execution
// comes out differently (a store value its code reads changed) — each
// resumes to the answer of an uninterrupted run (the divergent one with
// --from-divergence and one resume-context message), and no request whose
// answer was recorded reaches the upstream again: per distinct request,
// what a resume sends was not answered before and is sent once.
func TestResumeTable(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes; skipped with -short")
	}
	ks := newKillServer(t)
	dir := t.TempDir()
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte(strings.Repeat("filler line\n", 50)+"the magic number is 42\n"), 0o644))
	args := []string{"run", "--query", "What is the magic number?", "--var", "context=" + ctxFile, "--max-depth", "2", "--quiet"}
	envFor := func(runsDir string, url string) map[string]string {
		return map[string]string{"OPENAI_BASE_URL": url, "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub", "RLM_RUNS_DIR": runsDir,
			"OPENAI_API_KEY": "", "RLM_STORE": filepath.Join(dir, "store")}
	}
	code, want, errOut := ks.run(t, envFor(filepath.Join(dir, "clean"), ks.URL()), 0, args...)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	require.Contains(t, want, "child says s")
	// The requests of the uninterrupted run, in order: 1 root; 2-5 the
	// step's sub-calls (llm_query, then three batched, concurrent); 6
	// root, starting the child; 7 the child's first request; 8 its
	// sub-call; 9 its second request; 10 root.
	require.Len(t, ks.Calls(), 10)

	tests := []struct {
		name   string
		killAt int // kill -9 at this request (0: none)
		budget int // else --max-llm-calls
	}{
		{"kill -9 on a root request", 6, 0},
		{"kill -9 on a sub-call", 3, 0},
		{"kill -9 inside a child run", 8, 0},
		{"budget stop on a root request", 0, 5},
		{"budget stop on a sub-call", 0, 1},
		{"budget stop inside a child run", 0, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runsDir := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			env := envFor(runsDir, ks.URL())
			first := args
			if tt.budget > 0 {
				first = append(append([]string(nil), args...), "--max-llm-calls", fmt.Sprint(tt.budget))
			}
			code, _, errOut := ks.run(t, env, tt.killAt, first...)
			if tt.killAt > 0 {
				require.True(t, ks.killed.Load(), "killed (exit %d, stderr %s)", code, errOut)
			} else {
				require.Equal(t, 1, code, "stderr: %s", errOut)
			}
			stopped := onlyRun(t, runsDir)
			status := runs.StatusInterrupted
			if tt.budget > 0 {
				status = runs.StatusStopped
			}
			require.Equal(t, status, stopped.Status)

			code, got, errOut := resumeOnce(t, ks, env, runsDir, stopped.ID, 0, "--max-llm-calls", "100")
			require.Equal(t, 0, code, "stderr: %s", errOut)
			assert.Equal(t, want, got, "the resumed run's answer")
			execs := 5 // each block once
			if tt.budget > 0 {
				execs = -1 // the step the budget cut ran again, and what followed it
			}
			assertResumed(t, runsDir, stopped.ID, execs, 0)
		})
	}

	// Forced divergences: the store value step 2 reads changes between
	// the runs, past what the prompt's listing of it previews (step 2's
	// output differs) or within it (the first request differs).
	filler := strings.Repeat("-", 400)
	divergences := []struct {
		name     string
		old, new string
		at       string   // where the run diverged
		context  []string // in the resume-context message
		execs    int      // exec events in the end
	}{
		{"forced divergence in a step's output", filler + "old", filler + "new",
			"exec event 1 of run 0 step 2 differs from the recorded one",
			[]string{"Its steps re-ran exactly as recorded until step 2, which came out differently this time", "- step 1: ran `print(\"step one\")`",
				"- step 2: ran `v = store_get(\"flag\")[-3:] …`; defined v; printed 12 chars, first line `flag is new` -> outputs[2]"}, 5},
		{"forced divergence in the first request", "old", "new",
			"request event 1 of run 0 step 1 differs from the recorded one",
			[]string{"Its steps re-ran exactly as recorded until step 1, which came out differently this time", "No step ran before it."}, 6},
	}
	for i, tt := range divergences {
		t.Run(tt.name, func(t *testing.T) {
			fs := newKillServerWith(t, flagScript)
			runsDir := filepath.Join(dir, fmt.Sprint("divergence", i))
			env := envFor(runsDir, fs.URL())
			env["RLM_STORE"] = filepath.Join(dir, fmt.Sprint("flagstore", i))
			code, _, errOut := runCLI(t, tt.old, env, "store", "put", "flag", "-")
			require.Equal(t, 0, code, "stderr: %s", errOut)
			dargs := []string{"run", "--query", "Which flag is set?", "--store-read", "flag", "--quiet"}
			code, _, errOut = fs.run(t, env, 3, dargs...)
			require.True(t, fs.killed.Load(), "killed at request 3 (exit %d, stderr %s)", code, errOut)
			id := onlyRun(t, runsDir).ID

			code, _, errOut = runCLI(t, tt.new, env, "store", "put", "flag", "-")
			require.Equal(t, 0, code, "stderr: %s", errOut)
			n := len(fs.Calls())
			code, _, errOut = fs.run(t, env, 0, "run", "--resume", id)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, tt.at)
			assert.Contains(t, errOut, "rlm run --resume "+id+" --from-divergence")
			assert.Len(t, fs.Calls(), n, "nothing is sent without --from-divergence")

			// From the divergence, killed again at its second live
			// request (the one after the resume context was answered) ...
			code, _, errOut = resumeOnce(t, fs, env, runsDir, id, 2, "--from-divergence")
			require.True(t, fs.killed.Load(), "killed (exit %d, stderr %s)", code, errOut)
			live := fs.Calls()[n]
			last := live.Messages[len(live.Messages)-1].Content
			assert.True(t, strings.HasPrefix(last, "[engine] Resume context: this run was interrupted and resumed."), last)
			assert.Contains(t, last, tt.at, "the reason")
			for _, want := range tt.context {
				assert.Contains(t, last, want)
			}

			// ... and resumed once more, without the flag: it replays up
			// to there, the resume context included, and goes on.
			code, got, errOut := resumeOnce(t, fs, env, runsDir, id, 0)
			require.Equal(t, 0, code, "stderr: %s", errOut)
			assert.Equal(t, "flag new\n", got)
			assertResumed(t, runsDir, id, tt.execs, 1)
		})
	}
}

// resumeOnce resumes run id (killed at request killAt of the resume if
// not 0) and checks that no request answered before it reached the
// upstream again, and that it sent no request twice.
func resumeOnce(t *testing.T, ks *killServer, env map[string]string, runsDir, id string, killAt int, extra ...string) (int, string, string) {
	t.Helper()
	done := recordedSigs(t, filepath.Join(runsDir, id, runs.RecordingFile))
	before := len(ks.Calls())
	code, out, errOut := ks.run(t, env, killAt, append([]string{"run", "--resume", id, "--quiet"}, extra...)...)
	sent := map[string]int{}
	for _, c := range ks.Calls()[before:] {
		sig := requestSig(c.Model, c.Messages)
		assert.False(t, done[sig], "a request answered before was sent again: %s", c.Model)
		sent[sig]++
		assert.Equal(t, 1, sent[sig], "a request sent twice by one resume: %s", c.Model)
	}
	t.Logf("%d answers recorded, the resume sent %d requests", len(done), len(ks.Calls())-before)
	return code, out, errOut
}

// assertResumed checks a resumed run that finished: done, its trajectory
// with execs exec events (-1: not checked) and the resume-context
// messages it was given, each with its resume event.
func assertResumed(t *testing.T, runsDir, id string, execs, contexts int) {
	t.Helper()
	m, err := runs.NewRoot(runsDir).Get(id)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusDone, m.Status)
	traj, err := os.ReadFile(filepath.Join(runsDir, id, runs.TrajectoryFile))
	require.NoError(t, err)
	s := string(traj)
	if execs >= 0 {
		assert.Equal(t, execs, strings.Count(s, `"type":"exec"`))
	}
	assert.Equal(t, contexts, strings.Count(s, `"type":"resume_context"`))
	assert.Equal(t, contexts, strings.Count(s, `"from_divergence":true`))
}
