package server

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/runs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keptRun records a finished run in the server's runs directory, as an
// earlier server process would have, with a trajectory of about size
// bytes in lines of 1 MB; it returns its id and the trajectory's size.
func keptRun(t *testing.T, ts *testServer, size int) (string, int64) {
	kept, err := runs.NewRoot(ts.s.cfg.RunsDir).Create(runs.Meta{Query: "big"})
	require.NoError(t, err)
	line := `{"type":"exec","run":"r","data":{"code":"` + strings.Repeat("x", 1<<20) + `"}}` + "\n"
	for range size / len(line) {
		_, err := kept.Trajectory().Write([]byte(line))
		require.NoError(t, err)
	}
	require.NoError(t, kept.Finish(runs.Outcome{Status: runs.StatusDone, StopReason: "submit"}))
	st, err := os.Stat(filepath.Join(ts.s.cfg.RunsDir, kept.ID(), runs.TrajectoryFile))
	require.NoError(t, err)
	return kept.ID(), st.Size()
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// stalledReaders opens n connections that send a GET of path and never
// read the answer.
func (ts *testServer) stalledReaders(t *testing.T, path string, n int) {
	for range n {
		c := ts.rawConn(t, "GET "+path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+canaryToken+"\r\n\r\n")
		_ = c.(*net.TCPConn).SetReadBuffer(4096)
	}
}

// TestStalledReadersOfAFinishedRunAreBounded: clients that never read a
// finished run's trajectory or events hold a bounded buffer each, not the
// trajectory (issue 26: 60 stalled readers of 32 MB took 868 MB).
func TestStalledReadersOfAFinishedRunAreBounded(t *testing.T) {
	ts := newTestServer(t, nil)
	id, size := keptRun(t, ts, 16<<20)
	before := heapInUse()
	const readers = 8
	ts.stalledReaders(t, "/v1/runs/"+id+"/trajectory", readers)
	ts.stalledReaders(t, "/v1/runs/"+id+"/events", readers)
	time.Sleep(time.Second) // the handlers fill the sockets and block
	grown := heapInUse() - before
	t.Logf("trajectory %d MB, %d stalled readers: heap +%.1f MB", size>>20, 2*readers, float64(grown)/(1<<20))
	assert.Less(t, grown, size, "each stalled reader holds a bounded buffer, not the trajectory")
}

// TestEventsResumeAfterLastEventID: a client reconnecting with
// Last-Event-ID gets the events after it, from a live run's memory and
// from a finished run's file alike.
func TestEventsResumeAfterLastEventID(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Retain = 1 })
	ids := map[string]string{}
	for _, q := range []string{"echo first", "echo second"} {
		code, _, body := ts.do(t, "POST", "/v1/runs", chatBody(q, nil))
		require.Equal(t, 202, code, string(body))
		var r RunResult
		require.NoError(t, json.Unmarshal(body, &r))
		ts.waitRun(t, r.ID)
		ids[q] = r.ID
	}
	// Retain 1: the first run is read from its directory only.
	require.Eventually(t, func() bool { return ts.s.lookup(ids["echo first"]) == nil }, 5*time.Second, time.Millisecond)
	for q, id := range ids {
		all := sseIDs(t, ts, id, "")
		require.Greater(t, len(all), 3, q)
		resumed := sseIDs(t, ts, id, "2")
		assert.Equal(t, all[2:], resumed, q)
	}
}

// sseIDs reads a run's event stream and returns the ids of its events.
func sseIDs(t *testing.T, ts *testServer, id, last string) []string {
	req, err := http.NewRequest("GET", ts.http.URL+"/v1/runs/"+id+"/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+canaryToken)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	var out []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			out = append(out, v)
		}
	}
	return out
}

// TestSlowEventsClientIsDropped: a live run's events client that stops
// reading is dropped at StreamWriteTimeout while the run goes on.
func TestSlowEventsClientIsDropped(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 50*time.Millisecond), func(c *Config) {
		c.StreamWriteTimeout = 300 * time.Millisecond
		c.Engine.MaxIterations = 200
	})
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("slow", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	// Large events, as 8 MB steps write.
	line := []byte(`{"type":"exec","run":"r","data":{"code":"` + strings.Repeat("x", 4<<20) + `"}}` + "\n")
	j := ts.s.lookup(r.ID)
	for range 4 {
		_, _ = j.Write(line)
	}
	ts.stalledReaders(t, "/v1/runs/"+r.ID+"/events", 1)
	require.Eventually(t, func() bool {
		return strings.Contains(ts.logs.String(), `"path":"/v1/runs/`+r.ID+`/events"`)
	}, 20*time.Second, 10*time.Millisecond, "the stalled client was dropped")
	_, _, b := ts.do(t, "GET", "/v1/runs/"+r.ID, nil)
	assert.Contains(t, string(b), `"status":"running"`)
}

// TestStalledReadersOfALargeResultShareIt: clients that never read a
// finished run's large answer (GET /v1/runs/{id}, its events' end event)
// share one encoding of it instead of holding a copy each.
func TestStalledReadersOfALargeResultShareIt(t *testing.T) {
	up := llmtest.NewServer(t).RequireKey(canaryKey)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply { return code("SUBMIT(answer='a' * (4 << 20))") })
	ts := newTestServerOn(t, up, nil)
	answer := strings.Repeat("a", 4<<20)
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("big answer", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	got := ts.waitRun(t, r.ID)
	require.Equal(t, len(answer), len(got.Answer))
	before := heapInUse()
	const readers = 8
	ts.stalledReaders(t, "/v1/runs/"+r.ID, readers)
	ts.stalledReaders(t, "/v1/runs/"+r.ID+"/events", readers)
	time.Sleep(time.Second) // the handlers fill the sockets and block
	grown := heapInUse() - before
	t.Logf("a %d MB answer, %d stalled readers: heap +%.1f MB", len(answer)>>20, 2*readers, float64(grown)/(1<<20))
	assert.Less(t, grown, int64(3*len(answer)), "one shared encoding, not one per reader")
}
