package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/runs"
)

// stepsUpstream answers a root run with print() for turns 0..n-1, a
// sub-call at turn 1, then SUBMIT, after delay; sub-calls get "sub:".
func stepsUpstream(t *testing.T, n int, delay time.Duration) *llmtest.Server {
	up := llmtest.NewServer(t).RequireKey(canaryKey)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if c.Model == subModel {
			r := llmtest.Text("sub:" + c.Messages[len(c.Messages)-1].Content)
			r.Delay = delay
			return r
		}
		turn := assistants(c.Messages)
		var r llmtest.Reply
		switch {
		case turn == 1:
			r = code(`print(llm_query("hello"))`)
		case turn < n:
			r = code(fmt.Sprintf("x%d = %d\nprint(x%d)", turn, turn, turn))
		default:
			r = code(`SUBMIT(answer="finished after resume")`)
		}
		r.Delay = delay
		return r
	})
	return up
}

// requestKeys are the hashes of the chat requests the upstream received,
// with how many times each came.
func requestKeys(up *llmtest.Server) map[[32]byte]int {
	out := map[[32]byte]int{}
	for _, c := range up.Calls() {
		b, _ := json.Marshal(struct {
			M any
			S any
		}{c.Model, c.Messages})
		out[sha256.Sum256(b)]++
	}
	return out
}

// TestDrainedRunsResumeOnNextServer: a run-API run that the drain stops is
// recorded as interrupted, not canceled; a server started on the same
// runs directory resumes it from its recording (no request the first
// server got an answer to is sent again), its event stream goes on with
// the ids after the ones sent before, and it finishes with the answer.
func TestDrainedRunsResumeOnNextServer(t *testing.T) {
	up := stepsUpstream(t, 6, 40*time.Millisecond)
	runsDir, storeDir := t.TempDir(), t.TempDir()
	edit := func(c *Config) {
		c.RunsDir, c.StoreDir = runsDir, storeDir
		c.Engine.MaxIterations = 10
		c.Engine.MaxDepth = 1
	}
	a := newTestServerOn(t, up, edit)
	code, _, body := a.do(t, "POST", "/v1/runs", chatBody("count", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	require.Eventually(t, func() bool { return up.Count() >= 4 }, 20*time.Second, 5*time.Millisecond)
	a.s.Drain(context.Background(), 0)
	got := a.waitRun(t, r.ID)
	require.Equal(t, StateInterrupted, got.Status, got.Error)
	assert.Contains(t, got.Error, "resumes it")
	m, err := runs.NewRoot(runsDir).Get(r.ID)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusInterrupted, m.Status)
	_, _, before := a.do(t, "GET", "/v1/runs/"+r.ID+"/trajectory", nil)
	sentBefore := len(up.Calls())

	b := newTestServerOn(t, up, edit)
	ids, err := b.s.ResumeRuns(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{r.ID}, ids)
	got = b.waitRun(t, r.ID)
	require.Equal(t, StateDone, got.Status, got.Error)
	assert.Equal(t, "finished after resume", got.Answer)
	// Each request answered before the drain was answered from the
	// recording; only the one in flight at the drain may come twice.
	twice := 0
	for _, n := range requestKeys(up) {
		assert.LessOrEqual(t, n, 2)
		if n == 2 {
			twice++
		}
	}
	assert.LessOrEqual(t, twice, 1, "requests sent again after the resume")
	assert.Greater(t, len(up.Calls()), sentBefore, "the run went on live")
	// The trajectory goes on after the lines streamed before.
	_, _, after := b.do(t, "GET", "/v1/runs/"+r.ID+"/trajectory", nil)
	require.True(t, strings.HasPrefix(string(after), string(before)), "the resumed trajectory extends the first")
	assert.Contains(t, string(after[len(before):]), `"type":"`+runs.EventResume+`"`)
	code, _, ev := b.do(t, "GET", "/v1/runs/"+r.ID+"/events", nil, "Last-Event-ID", fmt.Sprint(strings.Count(string(before), "\n")))
	require.Equal(t, 200, code)
	assert.Contains(t, string(ev), fmt.Sprintf("id: %d\n", strings.Count(string(before), "\n")+1))
	assert.NotContains(t, string(ev), fmt.Sprintf("id: %d\n", strings.Count(string(before), "\n")))

	// Resumed once: a third server finds nothing to resume.
	c := newTestServerOn(t, up, edit)
	ids, err = c.s.ResumeRuns(context.Background())
	require.NoError(t, err)
	assert.Empty(t, ids)
}

// TestChatRunsAreNotResumed: a chat completion without an Idempotency-Key
// keeps no request (its client is gone when the server stops), so the
// next server leaves it as it is.
func TestChatRunsAreNotResumed(t *testing.T) {
	up := stepsUpstream(t, 50, 30*time.Millisecond)
	runsDir := t.TempDir()
	edit := func(c *Config) { c.RunsDir = runsDir; c.Engine.MaxIterations = 60 }
	a := newTestServerOn(t, up, edit)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b, _ := json.Marshal(chatBody("count", nil))
		req, _ := http.NewRequest("POST", a.http.URL+"/v1/chat/completions", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+canaryToken)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	require.Eventually(t, func() bool { return up.Count() >= 2 }, 20*time.Second, 5*time.Millisecond)
	a.s.Drain(context.Background(), 0)
	<-done
	b := newTestServerOn(t, up, edit)
	ids, err := b.s.ResumeRuns(context.Background())
	require.NoError(t, err)
	assert.Empty(t, ids)
}

// TestResumeFromDivergence: a run the next server resumes whose
// re-executed step comes out differently (here its recorded output is
// altered, as a different rlm version would make it) stops and stays
// interrupted, sending nothing; a server with ResumeFromDivergence
// resumes it from that step with one resume-context message, sends no
// request answered before again, and finishes it.
func TestResumeFromDivergence(t *testing.T) {
	up := stepsUpstream(t, 6, 40*time.Millisecond)
	runsDir, storeDir := t.TempDir(), t.TempDir()
	edit := func(c *Config) {
		c.RunsDir, c.StoreDir = runsDir, storeDir
		c.Engine.MaxIterations = 10
		c.Engine.MaxDepth = 1
	}
	a := newTestServerOn(t, up, edit)
	code, _, body := a.do(t, "POST", "/v1/runs", chatBody("count", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	require.Eventually(t, func() bool { return up.Count() >= 4 }, 20*time.Second, 5*time.Millisecond)
	a.s.Drain(context.Background(), 0)
	require.Equal(t, StateInterrupted, a.waitRun(t, r.ID).Status)
	trajPath := filepath.Join(runsDir, r.ID, runs.TrajectoryFile)
	traj, err := os.ReadFile(trajPath)
	require.NoError(t, err)
	altered := strings.Replace(string(traj), `"output":"0\n"`, `"output":"7\n"`, 1)
	require.NotEqual(t, string(traj), altered)
	require.NoError(t, os.WriteFile(trajPath, []byte(altered), 0o644))

	sent := len(up.Calls())
	b := newTestServerOn(t, up, edit)
	ids, err := b.s.ResumeRuns(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{r.ID}, ids)
	b.waitRun(t, r.ID)
	// Its job ends (run files closed, the run's lock released) before the
	// next server resumes it: the API says the run stopped a moment before.
	b.s.Drain(context.Background(), 0)
	m, err := runs.NewRoot(runsDir).Get(r.ID)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusInterrupted, m.Status, "a divergence leaves the run as it was")
	assert.Contains(t, m.Error, "exec event 1 of run 0 step 1 differs from the recorded one")
	assert.Len(t, up.Calls(), sent, "nothing sent")

	c := newTestServerOn(t, up, func(c *Config) { edit(c); c.ResumeFromDivergence = true })
	ids, err = c.s.ResumeRuns(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{r.ID}, ids)
	got := c.waitRun(t, r.ID)
	require.Equal(t, StateDone, got.Status, got.Error)
	assert.Equal(t, "finished after resume", got.Answer)
	contexts := 0
	for _, call := range up.Calls()[sent:] {
		if strings.Contains(call.Messages[len(call.Messages)-1].Content, "[engine] Resume context:") {
			contexts++
		}
	}
	assert.Equal(t, 1, contexts, "one resume-context message, in the first live request")
	assert.Contains(t, up.Calls()[sent].Messages[len(up.Calls()[sent].Messages)-1].Content, "Resume context")
	for _, n := range requestKeys(up) {
		assert.LessOrEqual(t, n, 2, "only the request in flight at the drain is sent again")
	}
	traj, err = os.ReadFile(trajPath)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(traj), `"from_divergence":true`))
	assert.Equal(t, 1, strings.Count(string(traj), `"type":"resume_context"`))
}
