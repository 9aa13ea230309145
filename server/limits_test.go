package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQueueFullIs429WithRetryAfter(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 100*time.Millisecond), func(c *Config) {
		c.MaxRuns, c.Queue = 1, 1
		c.Engine.MaxIterations = 40
	})
	var ids []string
	for range 2 { // one runs, one queues
		code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("slow", nil))
		require.Equal(t, 202, code, string(body))
		var r RunResult
		require.NoError(t, json.Unmarshal(body, &r))
		ids = append(ids, r.ID)
	}
	code, hdr, body := ts.do(t, "POST", "/v1/chat/completions", chatBody("echo x", nil))
	require.Equal(t, 429, code, string(body))
	assert.Equal(t, "5", hdr.Get("Retry-After"))
	assert.Contains(t, string(body), "too_many_runs")
	_, _, b := ts.do(t, "GET", "/v1/runs/"+ids[1], nil)
	assert.Contains(t, string(b), `"status":"queued"`)
	// A canceled queued run never starts and frees its place.
	code, _, b = ts.do(t, "POST", "/v1/runs/"+ids[1]+"/cancel", nil)
	require.Equal(t, 200, code)
	assert.Contains(t, string(b), `"status":"canceled"`)
	ts.do(t, "POST", "/v1/runs/"+ids[0]+"/cancel", nil)
	code, _, body = ts.do(t, "POST", "/v1/chat/completions", chatBody("echo free again", nil))
	require.Equal(t, 200, code, string(body))
}

// TestDrainCancelsRunsKeepingPartials: a server without a runs directory
// cancels the runs the drain stops (one with a runs directory leaves them
// to the next server: TestDrainedRunsResumeOnNextServer).
func TestDrainCancelsRunsKeepingPartials(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 50*time.Millisecond), func(c *Config) { c.Engine.MaxIterations = 200; c.RunsDir = "" })
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("slow", nil))
	require.Equal(t, 202, code)
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	require.Eventually(t, func() bool { return ts.up.Count() >= 2 }, 20*time.Second, 5*time.Millisecond)
	n := ts.s.Drain(context.Background(), 100*time.Millisecond)
	assert.Equal(t, 1, n)
	got := ts.waitRun(t, r.ID)
	assert.Equal(t, StateCanceled, got.Status)
	assert.True(t, got.Partial)
	assert.Contains(t, got.Error, "shutting down")
	// Draining: no new runs, not ready.
	code, _, _ = ts.do(t, "POST", "/v1/runs", chatBody("echo x", nil))
	assert.Equal(t, 503, code)
	code, _, body = ts.do(t, "GET", "/readyz", nil)
	assert.Equal(t, 503, code)
	assert.Contains(t, string(body), "draining")
}

// TestHostileRunsDoNotAffectOthers runs an infinite loop, a growing
// memory bomb and a huge allocation next to normal runs: each hostile run
// is stopped by its own sandbox limits (the loop by TimeoutError, the
// bomb and the huge allocation by MemoryError), the normal ones answer at
// their first step, the server stays up. The memory watchdog measures the
// process's heap, which all runs share; a step is blamed for the heap's
// growth only by what it holds itself (sandbox/memshare.go), so the bomb
// stops no other run's step. (The bomb and the huge allocation can end by
// TimeoutError, their other limit, on a loaded machine under -race: the
// 500 ms step can pass before seven 10 MB strings and the garbage
// collections their memory checks run are done.)
func TestHostileRunsDoNotAffectOthers(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxRuns = 8 })
	doc := strings.Repeat("line of text\n", 1000)
	type out struct {
		query string
		res   RunResult
		errs  []string // the exception of each failed step
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		outs []out
	)
	queries := []string{"loop", "bomb", "huge", "len doc", "len doc", "len doc", "len doc"}
	for _, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, body := ts.do(t, "POST", "/v1/runs", chatBody(q, map[string]any{"variables": map[string]any{"doc": doc}}))
			if !assert.Equal(t, 202, code, string(body)) {
				return
			}
			var r RunResult
			if !assert.NoError(t, json.Unmarshal(body, &r)) {
				return
			}
			res := ts.waitRun(t, r.ID)
			errs := stepErrors(t, ts, r.ID)
			mu.Lock()
			outs = append(outs, out{q, res, errs})
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.Len(t, outs, len(queries))
	failed := 0
	own := map[string][]string{"loop": {"TimeoutError"}, "bomb": {"MemoryError", "TimeoutError"}, "huge": {"MemoryError", "TimeoutError"}}
	for _, o := range outs {
		failed += len(o.errs)
		switch o.query {
		case "len doc":
			assert.Equal(t, StateDone, o.res.Status, o.res.Error)
			assert.Equal(t, fmt.Sprint(len(doc)), o.res.Answer)
			assert.Empty(t, o.errs, "len doc: no step fails")
			assert.Equal(t, 1, o.res.Iterations, "len doc: answered at the first step")
		default:
			assert.Equal(t, "errors", o.res.StopReason, "%s: stopped by its own failed steps", o.query)
			assert.Len(t, o.errs, 2, "%s: both steps failed", o.query)
			if o.query != "loop" && slices.Contains(o.errs, "TimeoutError") {
				t.Logf("%s: steps stopped by %v", o.query, o.errs)
			}
			for _, e := range o.errs {
				assert.Contains(t, own[o.query], e, "%s: a step is stopped by its own limit", o.query)
			}
		}
	}
	code, _, metricsText := ts.do(t, "GET", "/metrics", nil)
	require.Equal(t, 200, code)
	m, tm := metricValue(t, string(metricsText), `rlm_sandbox_errors_total{type="MemoryError"}`),
		metricValue(t, string(metricsText), `rlm_sandbox_errors_total{type="TimeoutError"}`)
	assert.Equal(t, float64(failed), m+tm, "%s", metricLines(string(metricsText), "rlm_sandbox_errors_total"))
	assert.GreaterOrEqual(t, failed, 6, "the hostile runs' steps")
	code, _, _ = ts.do(t, "GET", "/healthz", nil)
	assert.Equal(t, 200, code)
	if t.Failed() {
		for _, o := range outs {
			t.Logf(
				"%s: status %s, stop %s, %d iterations, %d ms, step errors %v, error %q",
				o.query,
				o.res.Status,
				o.res.StopReason,
				o.res.Iterations,
				o.res.DurationMS,
				o.errs,
				o.res.Error,
			)
		}
	}
}

// stepErrors reads the exception type of each failed step of run id from
// its trajectory.
func stepErrors(t *testing.T, ts *testServer, id string) []string {
	code, _, traj := ts.do(t, "GET", "/v1/runs/"+id+"/trajectory", nil)
	if !assert.Equal(t, 200, code) {
		return nil
	}
	var errs []string
	for _, line := range strings.Split(strings.TrimSpace(string(traj)), "\n") {
		var ev struct {
			Type string
			Data struct{ Error string }
		}
		if !assert.NoError(t, json.Unmarshal([]byte(line), &ev), line) || ev.Type != "exec" || ev.Data.Error == "" {
			continue
		}
		errs = append(errs, errorType(nil, ev.Data.Error))
	}
	return errs
}

// TestSecretsNeverLeak uses canary values for the token and the upstream
// key (which the upstream even sends back in a reply) and looks for them
// in every artefact: responses, streams, trajectories, run directories,
// metrics, errors and the access log.
func TestSecretsNeverLeak(t *testing.T) {
	ts := newTestServer(t, nil)
	var seen []string
	add := func(b []byte) { seen = append(seen, string(b)) }
	code, _, body := ts.do(t, "POST", "/v1/chat/completions", chatBody("leak", nil))
	require.Equal(t, 200, code, string(body))
	assert.Contains(t, string(body), "[REDACTED]", "the key the upstream sent back is redacted")
	add(body)
	var out struct{ RLM rlmSummary }
	require.NoError(t, json.Unmarshal(body, &out))
	id := out.RLM.RunID
	for _, p := range []string{"/v1/runs/" + id, "/v1/runs/" + id + "/trajectory", "/v1/runs/" + id + "/events", "/metrics", "/readyz", "/v1/runs/nope",
		"/v1/vars/" + canaryToken} {
		_, _, b := ts.do(t, "GET", p, nil)
		add(b)
	}
	stream := chatBody("leak", nil)
	stream["stream"] = true
	_, _, b := ts.do(t, "POST", "/v1/chat/completions", stream)
	add(b)
	// A request with a wrong token that contains the real one, an error
	// naming the token, and an upstream failing with the key echoed.
	req, _ := http.NewRequest("GET", ts.http.URL+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer x"+canaryToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	add(b)
	_, _, b = ts.do(
		t,
		"POST",
		"/v1/chat/completions",
		chatBody("echo "+canaryToken, map[string]any{"variables": map[string]any{canaryToken: "x"}}),
	)
	add(b)
	// The live viewer page, which a browser loads without the header.
	for _, h := range []string{"", "Bearer x" + canaryToken} {
		req, _ := http.NewRequest("GET", ts.http.URL+"/v1/runs/"+id+"/view", nil)
		if h != "" {
			req.Header.Set("Authorization", h)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, 200, resp.StatusCode)
		add(b)
	}
	bad := newTestServer(t, func(c *Config) { c.LLM.APIKey = canaryKey + "-wrong" })
	_, _, b = bad.do(t, "POST", "/v1/chat/completions", chatBody("echo x", nil))
	assert.Contains(t, string(b), "run_failed")
	add(b)
	_, _, b = bad.do(t, "GET", "/metrics", nil)
	add(b)
	seen = append(seen, ts.logs.String(), bad.logs.String())
	for _, dir := range []string{ts.s.cfg.RunsDir, bad.s.cfg.RunsDir} {
		add([]byte(readTree(t, dir)))
	}
	for i, text := range seen {
		assert.NotContains(t, text, canaryKey, "artefact %d", i)
		assert.NotContains(t, text, canaryToken, "artefact %d", i)
	}
	assert.Contains(t, ts.logs.String(), `"run_id":"`+id+`"`, "the access log names the run")
}

// TestCORS: pages from an allowed origin may call the API (their
// preflight is answered without the token); other origins get no CORS
// headers, so browsers refuse them (issue 27).
func TestCORS(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.CORSOrigins = []string{"https://app.example.com"} })
	preflight := func(origin string) *http.Response {
		req, err := http.NewRequest("OPTIONS", ts.http.URL+"/v1/chat/completions", nil)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	resp := preflight("https://app.example.com")
	assert.Equal(t, 204, resp.StatusCode, "the preflight needs no token")
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), "Authorization")
	resp = preflight("https://evil.example.com")
	assert.Equal(t, 401, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))

	req, err := http.NewRequest("GET", ts.http.URL+"/v1/models", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Authorization", "Bearer "+canaryToken)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id")
}
