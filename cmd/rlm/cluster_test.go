package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/cluster/clustertest"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// The cluster tests run rlm serve processes against one PostgreSQL
// database (make test-cluster; RLM_CLUSTER_TEST=1).

func needCluster(t *testing.T) string {
	t.Helper()
	if os.Getenv("RLM_CLUSTER_TEST") == "" {
		t.Skip("cluster process tests run with RLM_CLUSTER_TEST=1 (make test-cluster)")
	}
	return clustertest.NewDatabase(t)
}

// replica is an rlm serve process of a cluster.
type replica = serveProcess

// startReplica starts rlm serve --cluster-db url with args.
func startReplica(ctx context.Context, t *testing.T, url string, args ...string) *replica {
	t.Helper()
	return startServeProcess(ctx, t, append([]string{"--cluster-db", url, "--runs-dir", t.TempDir(), "--store", t.TempDir()}, args...)...)
}

func (r *replica) get(t *testing.T, path string, v any) int {
	t.Helper()
	resp, err := http.Get("http://" + r.addr + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil {
		require.NoError(t, json.Unmarshal(b, v), string(b))
	}
	return resp.StatusCode
}

func (r *replica) submit(t *testing.T, query string) string {
	t.Helper()
	resp, err := http.Post("http://"+r.addr+"/v1/runs", "application/json",
		strings.NewReader(fmt.Sprintf(`{"model":"rlm","messages":[{"role":"user","content":%q}]}`, query)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var created struct{ ID string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))
	require.Equal(t, 202, resp.StatusCode)
	return created.ID
}

type runState struct {
	Status, Answer, Error string
}

func (r *replica) wait(t *testing.T, id string, within time.Duration) runState {
	t.Helper()
	var got runState
	require.Eventually(t, func() bool {
		got = runState{}
		resp, err := http.Get("http://" + r.addr + "/v1/runs/" + id)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(&got)
		return got.Status != "" && got.Status != "queued" && got.Status != "running"
	}, within, 20*time.Millisecond)
	return got
}

// sseEvent is one event of a stream.
type sseEvent struct {
	id, name, data string
}

// readEvents reads a run's event stream from after last, stopping after
// stopAfter trajectory events (0: to the end).
func readEvents(t *testing.T, r *replica, id string, last, stopAfter int) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+r.addr+"/v1/runs/"+id+"/events", nil)
	if last > 0 {
		req.Header.Set("Last-Event-ID", fmt.Sprint(last))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 8<<20), 8<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		case line == "" && cur.name != "":
			out = append(out, cur)
			if cur.name == "end" || (stopAfter > 0 && len(out) == stopAfter) {
				return out
			}
			cur = sseEvent{}
		}
	}
	return out
}

// stepsModel scripts a root model that prints for n turns, asks one
// sub-call on turn 2, then submits; every reply takes delay, a sub-call
// subDelay.
func stepsModel(t *testing.T, n int, delay, subDelay time.Duration) *llmtest.Server {
	up := llmtest.NewServer(t)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		last := c.Messages[len(c.Messages)-1].Content
		if last == "sub question" {
			r := llmtest.Text("sub answer")
			r.Delay = subDelay
			return r
		}
		turn := 0
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				turn++
			}
		}
		var r llmtest.Reply
		switch {
		case turn == 2:
			r = llmtest.Text("```python\nprint(llm_query(\"sub question\"))\n```")
		case turn < n:
			r = llmtest.Text(fmt.Sprintf("```python\nx%d = %d * 7\nprint(x%d)\n```", turn, turn, turn))
		default:
			r = llmtest.Text("```python\nSUBMIT({\"answer\": \"done after \" + str(len(outputs)) + \" outputs\"})\n```")
		}
		r.Delay = delay
		return r
	})
	return up
}

// TestClusterSharedRuns: three replicas; a run submitted via A is polled
// via B and streamed via C; the stream dropped midway and resumed on B
// with Last-Event-ID has no gap and no duplicate, and equals the run's
// trajectory.
func TestClusterSharedRuns(t *testing.T) {
	url := needCluster(t)
	up := stepsModel(t, 8, 60*time.Millisecond, 60*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"--base-url", up.URL(), "--model", "m", "--max-iterations", "12"}
	a := startReplica(ctx, t, url, args...)
	b := startReplica(ctx, t, url, args...)
	c := startReplica(ctx, t, url, args...)
	id := a.submit(t, "go")
	first := readEvents(t, c, id, 0, 5)
	require.Len(t, first, 5)
	lastID := 0
	_, _ = fmt.Sscan(first[len(first)-1].id, &lastID)
	rest := readEvents(t, b, id, lastID, 0)
	got := b.wait(t, id, time.Minute)
	require.Equal(t, "done", got.Status, got.Error)
	assert.Equal(t, "done after 8 outputs", got.Answer)
	require.NotEmpty(t, rest)
	assert.Equal(t, "end", rest[len(rest)-1].name)
	all := append(first, rest[:len(rest)-1]...)
	resp, err := http.Get("http://" + a.addr + "/v1/runs/" + id + "/trajectory")
	require.NoError(t, err)
	traj, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	lines := strings.Split(strings.TrimSuffix(string(traj), "\n"), "\n")
	require.Len(t, all, len(lines), "every event once")
	for i, e := range all {
		assert.Equal(t, fmt.Sprint(i+1), e.id, "no gap, no duplicate")
		assert.Equal(t, "trajectory", e.name)
		assert.JSONEq(t, lines[i], e.data)
	}
	var s3 runState
	require.Equal(t, 200, c.get(t, "/v1/runs/"+id, &s3))
	assert.Equal(t, "done", s3.Status)
}

// normalized is a trajectory without its timings and resume markers, for
// comparing two executions of one run.
func normalized(t *testing.T, traj string) []string {
	t.Helper()
	var out []string
	timing := regexp.MustCompile(`"(elapsed_ms|latency_ms|first_byte_ms|duration_ms|wall_ms|active_ms|clock|started|time|base_url)":("[^"]*"|[0-9.]+),?`)
	for _, l := range strings.Split(strings.TrimSpace(traj), "\n") {
		if strings.Contains(l, `"type":"resume"`) {
			continue
		}
		out = append(out, timing.ReplaceAllString(l, ""))
	}
	return out
}

// TestClusterTakeoverAfterKill: the replica running a run is killed with
// SIGKILL while a sub-call is pending; within the lease TTL and the
// reaper's period another replica owns the run, rebuilds it from the
// database's journal and finishes it with the answer and trajectory of an
// uninterrupted run against the same scripted model; no request answered
// before the kill is sent again.
func TestClusterTakeoverAfterKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// The uninterrupted run.
	refURL := needCluster(t)
	refUp := stepsModel(t, 6, 20*time.Millisecond, 20*time.Millisecond)
	ref := startReplica(ctx, t, refURL, "--base-url", refUp.URL(), "--model", "m", "--max-iterations", "10")
	refID := ref.submit(t, "go")
	want := ref.wait(t, refID, time.Minute)
	require.Equal(t, "done", want.Status, want.Error)
	resp, err := http.Get("http://" + ref.addr + "/v1/runs/" + refID + "/trajectory")
	require.NoError(t, err)
	wantTraj, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	url := clustertest.NewDatabase(t)
	up := stepsModel(t, 6, 20*time.Millisecond, 3*time.Second)
	args := []string{"--base-url", up.URL(), "--model", "m", "--max-iterations", "10", "--lease-ttl", "2s"}
	a := startReplica(ctx, t, url, args...)
	id := a.submit(t, "go")
	require.Eventually(t, func() bool {
		return slices.ContainsFunc(up.Calls(), func(c llmtest.Call) bool { return c.Messages[len(c.Messages)-1].Content == "sub question" })
	}, time.Minute, 5*time.Millisecond, "the sub-call is pending")
	require.NoError(t, a.cmd.Process.Kill())
	_ = a.cmd.Wait()
	killed := time.Now()
	b := startReplica(ctx, t, url, args...)
	got := b.wait(t, id, time.Minute)
	require.Equal(t, "done", got.Status, got.Error+"\n"+b.logs())
	assert.Less(t, time.Since(killed), 45*time.Second)
	assert.Equal(t, want.Answer, got.Answer)
	resp, err = http.Get("http://" + b.addr + "/v1/runs/" + id + "/trajectory")
	require.NoError(t, err)
	gotTraj, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, normalized(t, string(wantTraj)), normalized(t, string(gotTraj)))
	seen := map[string]int{}
	for _, c := range up.Calls() {
		k, _ := json.Marshal(c.Messages)
		seen[string(k)]++
	}
	for k, n := range seen {
		if n > 1 {
			assert.Contains(t, k, "sub question", "only the call in flight at the kill is sent again")
			assert.Equal(t, 2, n)
		}
	}
}

// TestClusterFencing: the owner of a run is stopped (SIGSTOP) past its
// lease; another replica takes the run over; when the first one continues
// (SIGCONT), none of its writes is accepted: the journal's epochs never go
// back, and the run finishes once, by the new owner.
func TestClusterFencing(t *testing.T) {
	url := needCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	up := stepsModel(t, 10, 100*time.Millisecond, 100*time.Millisecond)
	args := []string{"--base-url", up.URL(), "--model", "m", "--max-iterations", "14", "--lease-ttl", "2s"}
	a := startReplica(ctx, t, url, args...)
	id := a.submit(t, "go")
	require.Eventually(t, func() bool { return up.Count() >= 3 }, time.Minute, 5*time.Millisecond)
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGSTOP))
	b := startReplica(ctx, t, url, args...)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	require.Eventually(t, func() bool {
		var epoch int64
		_ = conn.QueryRow(ctx, `SELECT epoch FROM rlm_runs WHERE id = $1`, id).Scan(&epoch)
		return epoch >= 2
	}, time.Minute, 20*time.Millisecond, "B takes the run over")
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGCONT))
	got := b.wait(t, id, time.Minute)
	require.Equal(t, "done", got.Status, got.Error)
	rows, err := conn.Query(ctx, `SELECT epoch FROM rlm_events WHERE run_id = $1 ORDER BY seq`, id)
	require.NoError(t, err)
	epochs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	assert.True(t, slices.IsSorted(epochs), "an old owner wrote after the takeover: %v", epochs)
	assert.Contains(t, epochs, int64(1))
	require.Eventually(t, func() bool { return strings.Contains(a.logs(), "lost the run's lease") }, 30*time.Second, 50*time.Millisecond,
		"A stops its run: %s", a.logs())
}

// TestClusterDatabaseOutage: the cluster's PostgreSQL stops for 10 s while
// a run runs: /readyz reports it, the run stops writing, and once the
// database is back the run is resumed from its journal and finishes with
// the answer of an uninterrupted run.
func TestClusterDatabaseOutage(t *testing.T) {
	if os.Getenv("RLM_CLUSTER_TEST") == "" {
		t.Skip("cluster process tests run with RLM_CLUSTER_TEST=1 (make test-cluster)")
	}
	pg := clustertest.StartServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	up := stepsModel(t, 12, 150*time.Millisecond, 150*time.Millisecond)
	a := startReplica(ctx, t, pg.URL(), "--base-url", up.URL(), "--model", "m", "--max-iterations", "16", "--lease-ttl", "2s")
	id := a.submit(t, "go")
	require.Eventually(t, func() bool { return up.Count() >= 3 }, time.Minute, 5*time.Millisecond)
	pg.Stop()
	require.Eventually(t, func() bool {
		var ready struct {
			Ready  bool
			Checks map[string]string
		}
		return a.get(t, "/readyz", &ready) == 503 && ready.Checks["cluster"] != "ok"
	}, 20*time.Second, 100*time.Millisecond, "/readyz reports the database")
	resp, err := http.Post(
		"http://"+a.addr+"/v1/runs",
		"application/json",
		strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"go"}]}`),
	)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 503, resp.StatusCode, "no run is accepted without the database")
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))
	time.Sleep(10 * time.Second)
	pg.Start()
	got := a.wait(t, id, 2*time.Minute)
	require.Equal(t, "done", got.Status, got.Error+"\n"+a.logs())
	assert.Equal(t, "done after 12 outputs", got.Answer)
	var ready struct{ Ready bool }
	assert.Equal(t, 200, a.get(t, "/readyz", &ready))
}
