package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/runs"
)

// resumeScript is a deterministic fake model for a multi-step run with
// sub-calls (llm_query, llm_query_batched) and a child RLM (rlm_query at
// --max-depth 2): every answer depends only on the request, so a replayed
// and a live request get the same answer.
func resumeScript(c llmtest.Call) llmtest.Reply {
	last := ""
	if n := len(c.Messages); n > 0 {
		last = c.Messages[n-1].Content
	}
	if c.Model == "sub" {
		return llmtest.Text(fmt.Sprintf("s%d", len(last)))
	}
	n, child := 0, false
	for _, m := range c.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
		if m.Role == llm.RoleUser && strings.Contains(m.Content, "Find the magic number") {
			child = true
		}
	}
	code := func(s string) llmtest.Reply { return llmtest.Text("```python\n" + s + "\n```") }
	switch {
	case child && n == 0:
		return code(`x = llm_query("child sub: " + part[-30:])
print(x.value)`)
	case child:
		return code(`SUBMIT({"answer": "child says " + x.value})`)
	case n == 0:
		return code(`hits = search(context, "magic")
a = llm_query("double check: " + hits[0]["preview"])
bs = llm_query_batched(["part %d of " % i + context[:20] for i in range(3)])
print(len(hits))`)
	case n == 1:
		return code(`r = rlm_query("Find the magic number", part=context)
print(r.value)`)
	default:
		return code(`SUBMIT({"answer": r.value + " / " + a.value + " / " + ",".join([b.value for b in bs])})`)
	}
}

// requestSig identifies a chat request by its model and messages.
func requestSig(model string, msgs []llm.Message) string {
	var b strings.Builder
	b.WriteString(model)
	for _, m := range msgs {
		b.WriteString("\x00" + m.Role + ":" + m.Content)
	}
	return b.String()
}

// recordedSigs returns the requests whose answers are in a recording.
func recordedSigs(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e struct {
			Type    string       `json:"type"`
			Request *llm.Request `json:"request"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "chat" || e.Request == nil {
			continue // a torn last line
		}
		out[requestSig(e.Request.Model, e.Request.Messages)] = true
	}
	return out
}

// killServer serves resumeScript and kills the current child process with
// SIGKILL when the request numbered killAt (1-based, counted since the
// last arm) arrives.
type killServer struct {
	*llmtest.Server
	mu     sync.Mutex
	proc   *os.Process
	n      int
	killAt int
	killed atomic.Bool
}

func newKillServer(t *testing.T) *killServer {
	return newKillServerWith(t, resumeScript)
}

// newKillServerWith is newKillServer answering with script.
func newKillServerWith(t *testing.T, script func(llmtest.Call) llmtest.Reply) *killServer {
	ks := &killServer{Server: llmtest.NewServer(t)}
	ks.SetDefault(func(c llmtest.Call) llmtest.Reply {
		ks.mu.Lock()
		ks.n++
		kill := ks.n == ks.killAt && ks.proc != nil
		p := ks.proc
		ks.mu.Unlock()
		if kill {
			ks.killed.Store(true)
			_ = p.Kill() // SIGKILL
			return llmtest.ServerError()
		}
		return script(c)
	})
	return ks
}

// run runs rlm in a child process (the test binary re-executed, see
// TestMain), killed at request killAt (0: never).
func (ks *killServer) run(t *testing.T, env map[string]string, killAt int, args ...string) (int, string, string) {
	return ks.runKill(t, env, killAt, 0, args...)
}

// runKill is run, also killing the process after killAfter (0: never)
// wherever it is: running code, writing a file, waiting for an answer.
func (ks *killServer) runKill(
	t *testing.T,
	env map[string]string,
	killAt int,
	killAfter time.Duration,
	args ...string,
) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, stdout, stderr := childCommand(ctx, t, env, args...)
	require.NoError(t, cmd.Start())
	ks.mu.Lock()
	ks.proc, ks.n, ks.killAt = cmd.Process, 0, killAt
	ks.killed.Store(false)
	ks.mu.Unlock()
	if killAfter > 0 {
		timer := time.AfterFunc(killAfter, func() {
			ks.killed.Store(true)
			_ = cmd.Process.Kill()
		})
		defer timer.Stop()
	}
	_ = cmd.Wait()
	ks.mu.Lock()
	ks.proc = nil
	ks.mu.Unlock()
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestResumeAfterKill kills rlm run with SIGKILL in a multi-step run with
// sub-calls and a child run, at requests spread over the run and at two
// arbitrary moments, resumes it (once killing the resume as well), and
// checks that every resume reaches the answer of the uninterrupted run and
// that no request whose answer was recorded before a kill reached the
// server again.
func TestResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes; skipped with -short")
	}
	ks := newKillServer(t)
	dir := t.TempDir()
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte(strings.Repeat("filler line\n", 50)+"the magic number is 42\n"), 0o644))
	args := []string{"run", "--query", "What is the magic number?", "--var", "context=" + ctxFile, "--max-depth", "2", "--quiet"}
	envFor := func(runsDir string) map[string]string {
		return map[string]string{"OPENAI_BASE_URL": ks.URL(), "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub", "RLM_RUNS_DIR": runsDir,
			"OPENAI_API_KEY": "", "RLM_STORE": filepath.Join(dir, "store")}
	}

	start := time.Now()
	code, want, errOut := ks.run(t, envFor(filepath.Join(dir, "clean")), 0, args...)
	clean := time.Since(start)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	require.Contains(t, want, "child says s")
	total := len(ks.Calls())
	require.GreaterOrEqual(t, total, 9, "root, sub-calls, child and child sub-call requests")

	// Kill points: the first root request, mid-way through the concurrent
	// sub-calls, the root request that starts the child (killing the
	// resume too), the child's sub-call and the last request.
	for _, k := range []int{1, 4, 6, 8, total} {
		t.Run(fmt.Sprintf("kill at request %d", k), func(t *testing.T) {
			runsDir := filepath.Join(dir, fmt.Sprint("k", k))
			env := envFor(runsDir)
			code, _, errOut := ks.run(t, env, k, args...)
			require.True(t, ks.killed.Load(), "killed (exit %d, stderr %s)", code, errOut)
			killed := onlyRun(t, runsDir)
			id := killed.ID
			assert.Equal(t, runs.StatusInterrupted, killed.Status)
			// Root replies before request k: 1 after request 1, 2 after request 6.
			assert.Equal(t, min(k/2, 1)+min(k/7, 1), killed.Iterations, "run.json shows how far the killed run got")
			rec := filepath.Join(runsDir, id, runs.RecordingFile)

			// Once, kill the resume too, two requests later.
			if k == 6 {
				done := recordedSigs(t, rec)
				before := len(ks.Calls())
				ks.run(t, env, 2, "run", "--resume", id, "--quiet")
				require.True(t, ks.killed.Load())
				for _, c := range ks.Calls()[before:] {
					assert.False(t, done[requestSig(c.Model, c.Messages)], "a request answered before the kill was sent again")
				}
			}

			done := recordedSigs(t, rec)
			before := len(ks.Calls())
			code, got, errOut := ks.run(t, env, 0, "run", "--resume", id, "--quiet")
			require.Equal(t, 0, code, "stderr: %s", errOut)
			assert.Equal(t, want, got, "the resumed run's answer")
			t.Logf("kill at %d: %d answers recorded, the resume sent %d requests", k, len(done), len(ks.Calls())-before)
			for _, c := range ks.Calls()[before:] {
				assert.False(t, done[requestSig(c.Model, c.Messages)], "a request answered before the kill was sent again: %s", c.Model)
			}
			m, err := runs.NewRoot(runsDir).Get(id)
			require.NoError(t, err)
			assert.Equal(t, runs.StatusDone, m.Status)
			traj, err := os.ReadFile(filepath.Join(runsDir, id, runs.TrajectoryFile))
			require.NoError(t, err)
			assert.Equal(t, 5, strings.Count(string(traj), `"type":"exec"`), "each block of the root (3) and the child (2) once")
			assert.FileExists(t, filepath.Join(runsDir, id, runs.ResultFile))
		})
	}

	// Kills at arbitrary points: fractions of the uninterrupted run's
	// time (a kill that comes after the end changes nothing).
	for _, frac := range []float64{0.6, 0.85} {
		t.Run(fmt.Sprintf("kill at %.0f%% of the run time", 100*frac), func(t *testing.T) {
			runsDir := filepath.Join(dir, fmt.Sprint("t", frac))
			env := envFor(runsDir)
			code, got, _ := ks.runKill(t, env, 0, time.Duration(frac*float64(clean)), args...)
			list, _, err := runs.NewRoot(runsDir).List()
			require.NoError(t, err)
			if code == 0 || len(list) == 0 || list[0].Status == runs.StatusDone {
				if code == 0 {
					assert.Equal(t, want, got)
				}
				t.Logf("killed %v, exit %d, %d runs: nothing to resume", ks.killed.Load(), code, len(list))
				return
			}
			id := list[0].ID
			done := recordedSigs(t, filepath.Join(runsDir, id, runs.RecordingFile))
			before := len(ks.Calls())
			code, got, errOut := ks.run(t, env, 0, "run", "--resume", id, "--quiet")
			require.Equal(t, 0, code, "stderr: %s", errOut)
			assert.Equal(t, want, got, "the resumed run's answer")
			for _, c := range ks.Calls()[before:] {
				assert.False(t, done[requestSig(c.Model, c.Messages)], "a request answered before the kill was sent again: %s", c.Model)
			}
			t.Logf("%d answers recorded, the resume sent %d requests", len(done), len(ks.Calls())-before)
		})
	}
}
