package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/cluster"
	"github.com/rlmhq/rlm/cluster/clustertest"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/runs"
)

// clusterReplica is a test server that is one replica of the cluster at
// url, executing runs if work is set.
func clusterReplica(t *testing.T, up *llmtest.Server, url, owner string, work bool, edit func(*Config)) *testServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := cluster.Open(
		ctx,
		cluster.Config{URL: url, Owner: owner, LeaseTTL: 2 * time.Second, ReapEvery: 200 * time.Millisecond, Workers: 8,
			RetryDelay: 200 * time.Millisecond},
	)
	require.NoError(t, err)
	t.Cleanup(db.Close) // after the server's own cleanup
	ts := newTestServerOn(t, up, func(c *Config) {
		c.Cluster = db
		if edit != nil {
			edit(c)
		}
	})
	if work {
		require.NoError(t, ts.s.Work(context.Background()))
	}
	return ts
}

// TestClusterAnyReplicaAnswers: a run submitted to one replica is executed
// by the replica that works and reported, streamed, listed and canceled
// by either; chat completions (plain and streamed, through the go-openai
// client) work through a replica that executes nothing.
func TestClusterAnyReplicaAnswers(t *testing.T) {
	url := clustertest.NewDatabase(t)
	up := fakeUpstream(t, 0)
	a := clusterReplica(t, up, url, "a", true, nil)
	b := clusterReplica(t, up, url, "b", false, nil)

	code, _, body := b.do(t, "POST", "/v1/runs", chatBody("sub", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	assert.Equal(t, StateQueued, r.Status)
	got := b.waitRun(t, r.ID)
	require.Equal(t, StateDone, got.Status, got.Error)
	assert.Equal(t, "sub:hello", got.Answer)
	assert.Equal(t, 3, got.Usage.Calls, "two root replies and the sub-call")
	code, _, body = a.do(t, "GET", "/v1/runs/"+r.ID, nil)
	require.Equal(t, 200, code)
	assert.Contains(t, string(body), `"answer":"sub:hello"`)

	// The trajectory in the database is the executing replica's file.
	_, _, traj := b.do(t, "GET", "/v1/runs/"+r.ID+"/trajectory", nil)
	file, err := os.ReadFile(filepath.Join(a.s.cfg.RunsDir, r.ID, runs.TrajectoryFile))
	require.NoError(t, err)
	assert.Equal(t, string(file), string(traj))
	n := strings.Count(string(traj), "\n")
	require.Greater(t, n, 4)
	// Events after Last-Event-ID 2, from the other replica, then the end.
	code, _, ev := a.do(t, "GET", "/v1/runs/"+r.ID+"/events", nil, "Last-Event-ID", "2")
	require.Equal(t, 200, code)
	assert.NotContains(t, string(ev), "id: 2\n")
	assert.Contains(t, string(ev), "id: 3\n")
	assert.Contains(t, string(ev), fmt.Sprintf("id: %d\n", n))
	assert.Contains(t, string(ev), "event: end\n")
	assert.Equal(t, n-2, strings.Count(string(ev), "event: trajectory\n"))

	// Chat completions through the replica that executes nothing.
	resp, err := b.client(nil).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "echo through the cluster"}}})
	require.NoError(t, err)
	assert.Equal(t, "through the cluster", resp.Choices[0].Message.Content)
	stream, err := b.client(nil).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "rlm", Stream: true, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "echo streamed too"}}})
	require.NoError(t, err)
	var text strings.Builder
	for {
		c, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if len(c.Choices) > 0 {
			text.WriteString(c.Choices[0].Delta.Content)
		}
	}
	stream.Close()
	assert.Equal(t, "streamed too", text.String())

	// Every run is listed by either replica.
	var list runList
	_, _, body = a.do(t, "GET", "/v1/runs?limit=2", nil)
	require.NoError(t, json.Unmarshal(body, &list))
	require.Len(t, list.Data, 2)
	assert.True(t, list.HasMore)
	_, _, body = b.do(t, "GET", "/v1/runs?after="+list.LastID, nil)
	var rest runList
	require.NoError(t, json.Unmarshal(body, &rest))
	require.Len(t, rest.Data, 1)
	assert.Equal(t, r.ID, rest.Data[0].ID, "the first run is the oldest")

	code, _, body = b.do(t, "GET", "/readyz", nil)
	assert.Equal(t, 200, code, string(body))
	assert.Contains(t, string(body), `"cluster":"ok"`)
	code, _, _ = b.do(t, "GET", "/v1/runs/20260101-000000-abcdef", nil)
	assert.Equal(t, 404, code)
}

// TestClusterCancelFromAnyReplica: a cancel sent to a replica that does not
// run the run stops it where it runs.
func TestClusterCancelFromAnyReplica(t *testing.T) {
	url := clustertest.NewDatabase(t)
	up := fakeUpstream(t, 30*time.Millisecond)
	edit := func(c *Config) { c.Engine.MaxIterations = 500 }
	clusterReplica(t, up, url, "a", true, edit)
	b := clusterReplica(t, up, url, "b", false, edit)
	code, _, body := b.do(t, "POST", "/v1/runs", chatBody("slow", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	require.Eventually(t, func() bool { return up.Count() >= 3 }, 20*time.Second, 5*time.Millisecond)
	code, _, _ = b.do(t, "DELETE", "/v1/runs/"+r.ID, nil)
	assert.Equal(t, 409, code, "a running run is not deleted")
	code, _, body = b.do(t, "POST", "/v1/runs/"+r.ID+"/cancel", nil)
	require.Equal(t, 200, code, string(body))
	var got RunResult
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, StateCanceled, got.Status)
	n := up.Count()
	time.Sleep(200 * time.Millisecond)
	assert.LessOrEqual(t, up.Count(), n+1, "the run stopped calling the model")
	// A finished run is deleted from any replica, journal and all.
	code, _, body = b.do(t, "DELETE", "/v1/runs/"+r.ID, nil)
	require.Equal(t, 200, code, string(body))
	code, _, _ = b.do(t, "GET", "/v1/runs/"+r.ID+"/trajectory", nil)
	assert.Equal(t, 404, code)
	code, _, _ = b.do(t, "DELETE", "/v1/runs/"+r.ID, nil)
	assert.Equal(t, 404, code)
}

// TestClusterDrainHandsRunsOn: a replica's drain releases its run; another
// replica takes it over at once, rebuilds it from the database's journal
// (the recording answers what was answered before: no request is sent
// twice but the one in flight) and finishes it; its trajectory in the
// database is the first owner's followed by the second's.
func TestClusterDrainHandsRunsOn(t *testing.T) {
	url := clustertest.NewDatabase(t)
	up := stepsUpstream(t, 6, 40*time.Millisecond)
	edit := func(c *Config) { c.Engine.MaxIterations = 10 }
	a := clusterReplica(t, up, url, "a", true, edit)
	code, _, body := a.do(t, "POST", "/v1/runs", chatBody("count", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	require.Eventually(t, func() bool { return up.Count() >= 4 }, 20*time.Second, 5*time.Millisecond)
	_, _, before := a.do(t, "GET", "/v1/runs/"+r.ID+"/trajectory", nil)
	a.s.Drain(context.Background(), 0)
	b := clusterReplica(t, up, url, "b", true, edit)
	got := b.waitRun(t, r.ID)
	require.Equal(t, StateDone, got.Status, got.Error)
	assert.Equal(t, "finished after resume", got.Answer)
	twice := 0
	for _, n := range requestKeys(up) {
		assert.LessOrEqual(t, n, 2)
		if n == 2 {
			twice++
		}
	}
	assert.LessOrEqual(t, twice, 1, "requests sent again after the takeover")
	_, _, after := b.do(t, "GET", "/v1/runs/"+r.ID+"/trajectory", nil)
	require.True(t, strings.HasPrefix(string(after), string(before)), "the journal goes on after the first owner's events")
	assert.Contains(t, string(after[len(before):]), `"type":"`+runs.EventResume+`"`)
}

// TestClusterIdempotencyAcrossReplicas: a request repeated with its
// Idempotency-Key on another replica gets the run the first one created
// (no second run, no model call); the key with another body is a 409.
func TestClusterIdempotencyAcrossReplicas(t *testing.T) {
	url := clustertest.NewDatabase(t)
	up := fakeUpstream(t, 0)
	a := clusterReplica(t, up, url, "a", true, nil)
	b := clusterReplica(t, up, url, "b", false, nil)

	code, _, body := a.do(t, "POST", "/v1/runs", chatBody("echo once", nil), "Idempotency-Key", "run-key-1")
	require.Equal(t, 202, code, string(body))
	var first RunResult
	require.NoError(t, json.Unmarshal(body, &first))
	code, hdr, body := b.do(t, "POST", "/v1/runs", chatBody("echo once", nil), "Idempotency-Key", "run-key-1")
	require.Equal(t, 202, code, string(body))
	var again RunResult
	require.NoError(t, json.Unmarshal(body, &again))
	assert.Equal(t, first.ID, again.ID)
	assert.Equal(t, "true", hdr.Get("Idempotent-Replayed"))
	code, _, body = b.do(t, "POST", "/v1/runs", chatBody("echo another", nil), "Idempotency-Key", "run-key-1")
	assert.Equal(t, 409, code)
	assert.Contains(t, string(body), "idempotency_key_reused")
	got := b.waitRun(t, first.ID)
	require.Equal(t, StateDone, got.Status, got.Error)

	calls := up.Count()
	code, _, body = a.do(t, "POST", "/v1/chat/completions", chatBody("echo chat once", nil), "Idempotency-Key", "chat-key-1")
	require.Equal(t, 200, code, string(body))
	var c1, c2 chatResponse
	require.NoError(t, json.Unmarshal(body, &c1))
	after := up.Count()
	assert.Greater(t, after, calls)
	code, hdr, body = b.do(t, "POST", "/v1/chat/completions", chatBody("echo chat once", nil), "Idempotency-Key", "chat-key-1")
	require.Equal(t, 200, code, string(body))
	require.NoError(t, json.Unmarshal(body, &c2))
	assert.Equal(t, c1.RLM.RunID, c2.RLM.RunID)
	assert.Equal(t, "chat once", c2.Choices[0].Message.Content)
	assert.Equal(t, "true", hdr.Get("Idempotent-Replayed"))
	assert.Equal(t, after, up.Count(), "the repeat made no model call")
	var list runList
	_, _, body = a.do(t, "GET", "/v1/runs", nil)
	require.NoError(t, json.Unmarshal(body, &list))
	assert.Len(t, list.Data, 2, "one run per key")
}
