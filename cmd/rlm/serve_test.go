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
	"syscall"
	"testing"
	"time"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServeFlags(t *testing.T) {
	up := llmtest.NewServer(t)
	base := []string{"serve", "--base-url", up.URL(), "--model", "m"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no token off loopback", []string{"--addr", "0.0.0.0:0"}, nil, "set RLM_SERVE_TOKEN or --token-file"},
		{"record is for run", []string{"--record", "x.jsonl"}, nil, "--record and --replay are for rlm run"},
		{"bad max-runs", []string{"--max-runs", "0"}, nil, "--max-runs"},
		{"empty token file", []string{"--token-file", os.DevNull}, nil, "is empty"},
		{"short token", nil, map[string]string{"RLM_SERVE_TOKEN": "short-token"}, "bearer token too short: 11 characters, at least 16"},
		{"tiny read timeout", []string{"--read-timeout", "1us"}, nil, "--read-timeout must be at least 1ms"},
		{"negative max-conns", []string{"--max-conns", "-1"}, nil, "--max-conns must be >= 0"},
		{
			"blobs without a cluster",
			[]string{"--blobs", "s3://b?endpoint=http://127.0.0.1:1"},
			nil,
			"--blobs (or RLM_BLOBS) is for a cluster",
		},
		{"RLM_BLOBS without a cluster", nil, map[string]string{"RLM_BLOBS": "s3://b"}, "pass --cluster-db URL too"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tt.env, append(base, tt.args...)...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

// TestServeDrainsOnSIGTERM starts rlm serve in a child process, starts a
// long run, sends SIGTERM: the server exits 0 after the drain timeout,
// with the run handed on to the next server (interrupted: see
// TestServeResumesRunsAfterKill) and its partial result recorded.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	up := llmtest.NewServer(t)
	up.SetDefault(func(llmtest.Call) llmtest.Reply {
		r := llmtest.Text("```python\nprint(1)\n```")
		r.Delay = 50 * time.Millisecond
		return r
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	runsDir := t.TempDir()
	cmd, _, _ := childCommand(ctx, t, map[string]string{"RLM_SERVE_TOKEN": "tok-0123456789abcdef"}, "serve", "--addr", "127.0.0.1:0",
		"--base-url", up.URL(), "--model", "m", "--runs-dir", runsDir, "--max-iterations", "200", "--drain-timeout", "300ms")
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	require.NoError(t, cmd.Start())
	addrRE := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var addr string
	var logs []string
	for addr == "" {
		l, ok := <-lines
		require.True(t, ok, "rlm serve ended: %s", strings.Join(logs, "\n"))
		logs = append(logs, l)
		if m := addrRE.FindStringSubmatch(l); m != nil {
			addr = m[1]
		}
	}
	req, _ := http.NewRequest(
		"POST",
		"http://"+addr+"/v1/runs",
		strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"count forever"}]}`),
	)
	req.Header.Set("Authorization", "Bearer tok-0123456789abcdef")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var run struct{ ID string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&run))
	resp.Body.Close()
	require.Equal(t, 202, resp.StatusCode)
	require.Eventually(t, func() bool { return up.Count() >= 2 }, 20*time.Second, 10*time.Millisecond)
	mreq, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
	mreq.Header.Set("Authorization", "Bearer tok-0123456789abcdef")
	mresp, err := http.DefaultClient.Do(mreq)
	require.NoError(t, err)
	metrics, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	assert.Contains(t, string(metrics), "rlm_meta_version 0", "the steward's metrics are served")
	assert.Contains(t, string(metrics), `rlm_steward_proposals_pending{action="add_lesson"} 0`)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	go func() {
		for l := range lines {
			logs = append(logs, l)
		}
	}()
	err = cmd.Wait()
	pw.Close()
	require.NoError(t, err, "exit 0 after the drain")
	b, err := os.ReadFile(filepath.Join(runsDir, run.ID, "result.json"))
	require.NoError(t, err)
	var res struct {
		Status  string `json:"status"`
		Partial bool   `json:"partial"`
		Error   string `json:"error"`
	}
	require.NoError(t, json.Unmarshal(b, &res))
	assert.Equal(t, "interrupted", res.Status)
	assert.True(t, res.Partial)
	assert.Contains(t, res.Error, "the server shut down while the run ran")
}
