package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/runs"
)

// TestServeKeepsAnswersAfterKill: rlm serve, which syncs the run files in
// batches (group commit) instead of once per file, is killed with SIGKILL
// the moment it has answered a run: the run directory has the answer it
// acknowledged in result.json, run.json says done, and every trajectory
// line is whole.
func TestServeKeepsAnswersAfterKill(t *testing.T) {
	const subAnswer = "the-sub-answer-42"
	up := llmtest.NewServer(t)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if c.Messages[len(c.Messages)-1].Content == "ping" {
			return llmtest.Text(subAnswer)
		}
		return llmtest.Text("```python\nr = llm_query(\"ping\")\nSUBMIT({\"answer\": r})\n```")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	runsDir := t.TempDir()
	cmd, _, _ := childCommand(ctx, t, nil, "serve", "--addr", "127.0.0.1:0", "--base-url", up.URL(), "--model", "m", "--runs-dir", runsDir)
	stderr, pw := io.Pipe()
	cmd.Stderr = pw
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()
	addrRE := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	sc := bufio.NewScanner(stderr)
	var addr string
	for addr == "" && sc.Scan() {
		if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
		}
	}
	require.NotEmpty(t, addr, "rlm serve listens")
	go func() {
		for sc.Scan() {
		}
	}()
	resp, err := http.Post(
		"http://"+addr+"/v1/chat/completions",
		"application/json",
		strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"go"}]}`),
	)
	require.NoError(t, err)
	var cc struct {
		Choices []struct {
			Message struct{ Content string }
		}
		RLM struct {
			RunID string `json:"run_id"`
		} `json:"rlm"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&cc))
	resp.Body.Close()
	require.NoError(t, cmd.Process.Kill()) // SIGKILL, at once
	_ = cmd.Wait()
	pw.Close()
	require.Len(t, cc.Choices, 1)
	require.Equal(t, subAnswer, cc.Choices[0].Message.Content)

	dir := filepath.Join(runsDir, cc.RLM.RunID)
	res, err := os.ReadFile(filepath.Join(dir, runs.ResultFile))
	require.NoError(t, err)
	assert.Contains(t, string(res), subAnswer, "the acknowledged answer is kept")
	m, err := runs.NewRoot(runsDir).Get(cc.RLM.RunID)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusDone, m.Status)
	traj, err := os.ReadFile(filepath.Join(dir, runs.TrajectoryFile))
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(traj)), "\n") {
		assert.True(t, json.Valid([]byte(line)), "a whole trajectory line: %s", line)
	}
	assert.Contains(t, string(traj), subAnswer)
}

// serveProcess is an rlm serve child process with its log.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  strings.Builder
}

func (r *serveProcess) logs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

// startServeProcess starts rlm serve as a child process with args and
// waits until it listens; its log is kept (logs). It is killed (after a
// SIGCONT, should the test have stopped it) at the test's end.
func startServeProcess(ctx context.Context, t *testing.T, args ...string) *serveProcess {
	t.Helper()
	cmd, _, _ := childCommand(ctx, t, nil, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	require.NoError(t, cmd.Start())
	r := &serveProcess{cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		pw.Close()
	})
	addrRE := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			r.mu.Lock()
			r.log.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case r.addr = <-found:
	case <-time.After(30 * time.Second):
		t.Fatalf("rlm serve did not listen: %s", r.logs())
	}
	return r
}

// TestServeResumesRunsAfterKill: rlm serve is killed with SIGKILL while a
// run-API run is between model calls; an rlm serve started on the same
// runs directory resumes the run from its recording and finishes it,
// without sending again a request the first one got an answer to.
func TestServeResumesRunsAfterKill(t *testing.T) {
	up := llmtest.NewServer(t)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		turn := 0
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				turn++
			}
		}
		r := llmtest.Text(fmt.Sprintf("```python\nx = %d\nprint(x)\n```", turn))
		if turn >= 6 {
			r = llmtest.Text("```python\nSUBMIT({\"answer\": \"six steps\"})\n```")
		}
		r.Delay = 60 * time.Millisecond
		return r
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	runsDir, store := t.TempDir(), t.TempDir()
	args := []string{"--base-url", up.URL(), "--model", "m", "--runs-dir", runsDir, "--store", store, "--max-iterations", "10"}
	a := startServeProcess(ctx, t, args...)
	addr := a.addr
	resp, err := http.Post(
		"http://"+addr+"/v1/runs",
		"application/json",
		strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"go"}]}`),
	)
	require.NoError(t, err)
	var created struct{ ID string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))
	resp.Body.Close()
	require.NotEmpty(t, created.ID)
	require.Eventually(t, func() bool { return up.Count() >= 3 }, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, a.cmd.Process.Kill())
	_ = a.cmd.Wait()
	before := up.Count()

	addr = startServeProcess(ctx, t, args...).addr
	var got struct {
		Status, Answer, Error string
	}
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/v1/runs/" + created.ID)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(&got)
		return got.Status != "queued" && got.Status != "running"
	}, 60*time.Second, 20*time.Millisecond)
	require.Equal(t, "done", got.Status, got.Error)
	assert.Equal(t, "six steps", got.Answer)
	seen := map[string]int{}
	for _, c := range up.Calls() {
		b, _ := json.Marshal(c.Messages)
		seen[string(b)]++
	}
	twice := 0
	for _, n := range seen {
		if n > 1 {
			twice += n - 1
		}
	}
	assert.LessOrEqual(t, twice, 1, "requests sent again: only the one in flight at the kill may be")
	assert.Greater(t, up.Count(), before)
	// run.json follows the answer the API gives (its Finish is written
	// as the run's job ends).
	var m runs.Meta
	require.Eventually(t, func() bool {
		var err error
		m, err = runs.NewRoot(runsDir).Get(created.ID)
		return err == nil && m.Status == runs.StatusDone
	}, 10*time.Second, 20*time.Millisecond, "run.json says done")
	assert.Len(t, m.Resumes, 1)
}
