package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"go"}]}`))
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
