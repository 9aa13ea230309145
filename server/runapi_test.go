package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rlmhq/rlm/runs"
	"github.com/stretchr/testify/require"
)

// sseEvents parses a text/event-stream body into (event, data) pairs.
func sseEvents(t *testing.T, raw []byte) (names []string, data []string) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			names, data = append(names, name), append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	return names, data
}

func TestRunAPI(t *testing.T) {
	ts := newTestServer(t, nil)
	code, hdr, body := ts.do(t, "POST", "/v1/runs", chatBody("sub", nil))
	require.Equal(t, 202, code, string(body))
	var created RunResult
	require.NoError(t, json.Unmarshal(body, &created))
	require.NotEmpty(t, created.ID)
	assert.Equal(t, "/v1/runs/"+created.ID, hdr.Get("Location"))
	assert.Contains(t, []string{StateQueued, StateRunning}, created.Status)

	// The events stream is live: it ends with the run, with an end event.
	code, hdr, raw := ts.do(t, "GET", "/v1/runs/"+created.ID+"/events", nil)
	require.Equal(t, 200, code)
	assert.Equal(t, "text/event-stream", hdr.Get("Content-Type"))
	names, data := sseEvents(t, raw)
	require.NotEmpty(t, names)
	assert.Equal(t, "end", names[len(names)-1])
	var types []string
	for i, d := range data[:len(data)-1] {
		assert.Equal(t, "trajectory", names[i])
		var e struct{ Type string }
		require.NoError(t, json.Unmarshal([]byte(d), &e))
		types = append(types, e.Type)
	}
	assert.Equal(t, "run_start", types[0])
	assert.Equal(t, "run_end", types[len(types)-1])
	var end RunResult
	require.NoError(t, json.Unmarshal([]byte(data[len(data)-1]), &end))
	assert.Equal(t, "sub:hello", end.Answer)

	res := ts.waitRun(t, created.ID)
	assert.Equal(t, StateDone, res.Status)
	assert.Equal(t, "sub:hello", res.Answer)
	assert.Equal(t, "submit", res.StopReason)
	require.NotNil(t, res.Usage)
	assert.Equal(t, 3, res.Usage.Calls, "two root requests and a sub-call")

	// The trajectory is the JSONL the events carried.
	code, _, traj := ts.do(t, "GET", "/v1/runs/"+created.ID+"/trajectory", nil)
	require.Equal(t, 200, code)
	lines := strings.Split(strings.TrimSpace(string(traj)), "\n")
	assert.Len(t, lines, len(types))

	// Unknown runs are 404.
	code, _, _ = ts.do(t, "GET", "/v1/runs/nope", nil)
	assert.Equal(t, 404, code)
}

func TestRunOutlivesRequestAndCancelKeepsPartial(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 150*time.Millisecond), func(c *Config) { c.Engine.MaxIterations = 40 })
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("slow", nil))
	require.Equal(t, 202, code, string(body))
	var created RunResult
	require.NoError(t, json.Unmarshal(body, &created))
	// The request that started it is over; the run goes on.
	require.Eventually(t, func() bool {
		_, _, b := ts.do(t, "GET", "/v1/runs/"+created.ID+"/trajectory", nil)
		return strings.Count(string(b), `"type":"exec"`) >= 2
	}, 20*time.Second, 20*time.Millisecond)
	code, _, body = ts.do(t, "POST", "/v1/runs/"+created.ID+"/cancel", nil)
	require.Equal(t, 200, code, string(body))
	var res RunResult
	require.NoError(t, json.Unmarshal(body, &res))
	assert.Equal(t, StateCanceled, res.Status)
	assert.Equal(t, "canceled", res.StopReason)
	assert.True(t, res.Partial)
	assert.Contains(t, res.Error, "canceled by request")
	assert.GreaterOrEqual(t, res.Iterations, 2)
	// GET after the cancel gives the same record.
	got := ts.waitRun(t, created.ID)
	assert.Equal(t, StateCanceled, got.Status)
	// One outcome vocabulary: the kept run says what the API says.
	m, err := runs.NewRoot(ts.s.cfg.RunsDir).Get(created.ID)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusCanceled, m.Status)
}

func TestStoreAPI(t *testing.T) {
	ts := newTestServer(t, nil)
	code, hdr, body := ts.do(t, "PUT", "/v1/vars/docs/readme", "hello store")
	require.Equal(t, 201, code, string(body))
	tag := hdr.Get("ETag")
	require.NotEmpty(t, tag)

	code, hdr, body = ts.do(t, "GET", "/v1/vars/docs/readme", nil)
	require.Equal(t, 200, code)
	assert.Equal(t, "hello store", string(body))
	assert.Equal(t, tag, hdr.Get("ETag"))
	assert.Equal(t, "text", hdr.Get("X-RLM-Type"))

	// Compare-and-swap on the content hash.
	code, hdr, _ = ts.do(t, "PUT", "/v1/vars/docs/readme", "second", "If-Match", tag)
	require.Equal(t, 200, code)
	newTag := hdr.Get("ETag")
	assert.NotEqual(t, tag, newTag)
	code, _, body = ts.do(t, "PUT", "/v1/vars/docs/readme", "stale write", "If-Match", tag)
	require.Equal(t, 412, code, string(body))
	assert.Contains(t, string(body), "precondition_failed")
	code, _, _ = ts.do(t, "PUT", "/v1/vars/docs/readme", "create only", "If-None-Match", "*")
	assert.Equal(t, 412, code)
	code, _, body = ts.do(t, "GET", "/v1/vars/docs/readme", nil)
	require.Equal(t, 200, code)
	assert.Equal(t, "second", string(body), "the stale writes changed nothing")

	// JSON values are typed.
	code, _, _ = ts.do(t, "PUT", "/v1/vars/data", map[string]any{"n": 41})
	require.Equal(t, 201, code)
	code, _, body = ts.do(t, "GET", "/v1/vars", nil)
	require.Equal(t, 200, code)
	var list struct{ Data []varInfo }
	require.NoError(t, json.Unmarshal(body, &list))
	require.Len(t, list.Data, 2)
	assert.Equal(t, "data", list.Data[0].Key)
	assert.Equal(t, "json", list.Data[0].Type)

	// store:KEY variables load from the store.
	code, _, body = ts.do(t, "POST", "/v1/chat/completions", chatBody("typed", map[string]any{
		"variables": map[string]any{"data": "store:data"}}))
	require.Equal(t, 200, code, string(body))
	assert.Contains(t, string(body), `"content":"42"`)

	code, _, _ = ts.do(t, "DELETE", "/v1/vars/data", nil, "If-Match", `"0000"`)
	assert.Equal(t, 412, code)
	code, _, _ = ts.do(t, "DELETE", "/v1/vars/data", nil)
	assert.Equal(t, 204, code)
	code, _, _ = ts.do(t, "GET", "/v1/vars/data", nil)
	assert.Equal(t, 404, code)
}

// TestCancelByPostAndRequestIDs: POST /v1/runs/{id}/cancel cancels as
// DELETE does (job-style APIs cancel with a POST); every response carries
// an X-Request-Id, the client's own when it sends a plausible one.
func TestCancelByPostAndRequestIDs(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 150*time.Millisecond), func(c *Config) { c.Engine.MaxIterations = 40 })
	code, hdr, body := ts.do(t, "POST", "/v1/runs", chatBody("slow", nil))
	require.Equal(t, 202, code, string(body))
	assert.Len(t, hdr.Get("X-Request-Id"), 36, "a new UUID")
	var created RunResult
	require.NoError(t, json.Unmarshal(body, &created))
	code, _, body = ts.do(t, "POST", "/v1/runs/"+created.ID+"/cancel", nil)
	require.Equal(t, 200, code, string(body))
	var res RunResult
	require.NoError(t, json.Unmarshal(body, &res))
	assert.Equal(t, StateCanceled, res.Status)

	for _, tt := range []struct{ given, want string }{
		{"req-123.abc_X", "req-123.abc_X"},
		{"bad id with spaces", ""},
		{strings.Repeat("a", 200), ""},
	} {
		req, err := http.NewRequest("GET", ts.http.URL+"/healthz", nil)
		require.NoError(t, err)
		req.Header.Set("X-Request-Id", tt.given)
		resp, err := ts.http.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		got := resp.Header.Get("X-Request-Id")
		if tt.want != "" {
			assert.Equal(t, tt.want, got)
		} else {
			assert.Len(t, got, 36, "an implausible id is replaced")
		}
	}
}

// TestIdempotencyKey: a retried request with the same Idempotency-Key and
// body attaches to the first request's run (one run, not three, when an
// SDK times out and retries); another body with the key is a 409
// (issue 27).
func TestIdempotencyKey(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 50*time.Millisecond), nil)
	post := func(path, key string, body any) (int, http.Header, []byte) {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		req, err := http.NewRequest("POST", ts.http.URL+path, bytes.NewReader(b))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+canaryToken)
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := ts.http.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, out
	}
	runID := func(raw []byte) string {
		var v struct {
			ID  string
			RLM struct {
				RunID string `json:"run_id"`
			} `json:"rlm"`
		}
		require.NoError(t, json.Unmarshal(raw, &v), string(raw))
		return v.RLM.RunID + v.ID
	}

	// Chat completions: three tries, one run.
	before := ts.up.Count()
	var ids []string
	for i := range 3 {
		code, hdr, raw := post("/v1/chat/completions", "chat-key-1", chatBody("echo once", nil))
		require.Equal(t, 200, code, string(raw))
		assert.Equal(t, i > 0, hdr.Get("Idempotent-Replayed") == "true")
		ids = append(ids, runID(raw))
	}
	assert.Equal(t, ids[0], ids[1])
	assert.Equal(t, ids[0], ids[2])
	calls := ts.up.Count() - before
	code, _, raw := post("/v1/chat/completions", "", chatBody("echo once", nil))
	require.Equal(t, 200, code, string(raw))
	assert.Equal(t, calls, ts.up.Count()-before-calls, "the retries sent no model request: one run's worth each")
	assert.NotEqual(t, ids[0], runID(raw), "without a key, a new run")

	// The same key with another body.
	code, _, raw = post("/v1/chat/completions", "chat-key-1", chatBody("echo other", nil))
	assert.Equal(t, 409, code, string(raw))
	assert.Contains(t, string(raw), "idempotency_key_reused")

	// The run API: the same run for the same key.
	code, _, raw = post("/v1/runs", "run-key-1", chatBody("echo run", nil))
	require.Equal(t, 202, code, string(raw))
	first := runID(raw)
	code, hdr, raw := post("/v1/runs", "run-key-1", chatBody("echo run", nil))
	require.Equal(t, 202, code, string(raw))
	assert.Equal(t, first, runID(raw))
	assert.Equal(t, "true", hdr.Get("Idempotent-Replayed"))
}

// TestRunList: GET /v1/runs lists the runs newest first, by status, a page
// at a time (issue 27).
func TestRunList(t *testing.T) {
	ts := newTestServer(t, nil)
	var ids []string
	for i := range 3 {
		code, _, body := ts.do(t, "POST", "/v1/runs", chatBody(fmt.Sprintf("echo %d", i), nil))
		require.Equal(t, 202, code, string(body))
		var created RunResult
		require.NoError(t, json.Unmarshal(body, &created))
		ts.waitRun(t, created.ID)
		ids = append(ids, created.ID)
	}
	list := func(query string) (int, runList) {
		code, _, body := ts.do(t, "GET", "/v1/runs"+query, nil)
		var l runList
		if code == 200 {
			require.NoError(t, json.Unmarshal(body, &l), string(body))
		}
		return code, l
	}
	code, page := list("?limit=2")
	require.Equal(t, 200, code)
	require.Len(t, page.Data, 2)
	assert.True(t, page.HasMore)
	assert.Equal(t, ids[2], page.Data[0].ID, "newest first")
	assert.Equal(t, ids[1], page.LastID)
	code, page = list("?limit=2&after=" + page.LastID)
	require.Equal(t, 200, code)
	require.Len(t, page.Data, 1)
	assert.False(t, page.HasMore)
	assert.Equal(t, ids[0], page.Data[0].ID)
	code, page = list("?status=done")
	require.Equal(t, 200, code)
	assert.Len(t, page.Data, 3)
	code, page = list("?status=failed")
	require.Equal(t, 200, code)
	assert.Empty(t, page.Data)
	for _, bad := range []string{"?limit=0", "?limit=1000", "?status=finished", "?after=../x"} {
		code, _ = list(bad)
		assert.Equal(t, 400, code, bad)
	}
}

// TestRunDelete: DELETE removes a finished run (its directory too) and
// refuses one still running with a 409 that says to cancel it first.
func TestRunDelete(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 30*time.Millisecond), func(c *Config) { c.Engine.MaxIterations = 200 })
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("slow", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	code, _, body = ts.do(t, "DELETE", "/v1/runs/"+r.ID, nil)
	assert.Equal(t, 409, code)
	assert.Contains(t, string(body), "run_not_finished")
	assert.Contains(t, string(body), "/cancel")
	code, _, _ = ts.do(t, "POST", "/v1/runs/"+r.ID+"/cancel", nil)
	require.Equal(t, 200, code)
	dir := filepath.Join(ts.s.cfg.RunsDir, r.ID)
	require.DirExists(t, dir)
	code, _, body = ts.do(t, "DELETE", "/v1/runs/"+r.ID, nil)
	require.Equal(t, 200, code, string(body))
	assert.JSONEq(t, `{"id":"`+r.ID+`","object":"rlm.run.deleted","deleted":true}`, string(body))
	assert.NoDirExists(t, dir)
	code, _, _ = ts.do(t, "GET", "/v1/runs/"+r.ID, nil)
	assert.Equal(t, 404, code)
	code, _, _ = ts.do(t, "DELETE", "/v1/runs/"+r.ID, nil)
	assert.Equal(t, 404, code)
}
