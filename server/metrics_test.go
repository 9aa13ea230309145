package server

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// metricValue reads one series (name and labels as printed) from a
// /metrics text; 0 if absent.
func metricValue(t *testing.T, text, series string) float64 {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, l)
			return f
		}
	}
	return 0
}

func (ts *testServer) scrape(t *testing.T) string {
	t.Helper()
	code, hdr, body := ts.do(t, "GET", "/metrics", nil)
	require.Equal(t, 200, code)
	assert.Contains(t, hdr.Get("Content-Type"), "text/plain")
	return string(body)
}

// TestMetricsMoveWithRuns scrapes /metrics around runs and checks each
// counter moved by what the runs did.
func TestMetricsMoveWithRuns(t *testing.T) {
	up := fakeUpstream(t, 0)
	up.Enqueue(rootModel, llmtest.ServerError()) // one retried upstream failure
	ts := newTestServerOn(t, up, func(c *Config) {
		c.LLM.MaxRetries = 1
		c.LLM.RetryBaseDelay = 1
		c.Engine.DynamicBudget = 1000
		c.Engine.Limits.ObservationTokens = 200
		c.Engine.MaxIterations = 8
	})
	before := ts.scrape(t)
	assert.Zero(t, metricValue(t, before, "rlm_runs_started_total"))
	// Labelled counters are there at 0 before their first event, and the
	// build is described.
	for _, series := range []string{`rlm_runs_finished_total{stop_reason="model_error"} 0`, `rlm_upstream_errors_total{kind="auth"} 0`,
		`rlm_sandbox_errors_total{type="MemoryError"} 0`, `rlm_build_info{go_version="` + runtime.Version() + `",version="test"} 1`,
		`rlm_http_request_duration_seconds_count{route="POST /v1/responses"} 0`, `rlm_http_request_duration_seconds_count{route="other"} 0`} {
		assert.Contains(t, before, series)
	}

	for _, q := range []string{"sub", "loop", "fill", "memo"} {
		code, _, body := ts.do(t, "POST", "/v1/chat/completions", chatBody(q, nil))
		require.Equal(t, 200, code, string(body))
	}
	code, _, _ := ts.do(t, "GET", "/v1/nothing-here", nil)
	require.Equal(t, 404, code)
	// A sub-call refused by the run's call budget.
	code, _, body := ts.do(t, "POST", "/v1/chat/completions", chatBody("sub", map[string]any{"max_llm_calls": 1}))
	require.Equal(t, 200, code, string(body))

	after := ts.scrape(t)
	checks := []struct {
		series string
		min    float64
	}{
		{"rlm_runs_started_total", 5},
		{"rlm_sub_call_memo_hits_total", 1},
		{`rlm_runs_finished_total{stop_reason="submit"}`, 3},
		{`rlm_runs_finished_total{stop_reason="errors"}`, 1},
		{`rlm_model_requests_total{role="root"}`, 8},
		{`rlm_model_requests_total{role="sub"}`, 1},
		{"rlm_sub_calls_total", 1},
		{`rlm_prompt_tokens_by_section_total{section="system"}`, 1000},
		{`rlm_prompt_tokens_by_section_total{section="meta"}`, 1},
		{`rlm_prompt_tokens_by_section_total{section="dynamic"}`, 1},
		{"rlm_compressions_total", 1},
		{"rlm_compression_saved_tokens_total", 1},
		{`rlm_upstream_calls_total{model="root-model"}`, 8},
		{`rlm_upstream_calls_total{model="sub-model"}`, 1},
		{`rlm_upstream_request_duration_seconds_count{model="root-model",role="root"}`, 8},
		{`rlm_upstream_request_duration_seconds_count{model="sub-model",role="sub"}`, 1},
		{`rlm_upstream_time_to_first_byte_seconds_count{model="root-model",role="root"}`, 8},
		{`rlm_upstream_time_to_first_byte_seconds_count{model="sub-model",role="sub"}`, 1},
		{`rlm_tokens_total{model="root-model",type="prompt"}`, 1000},
		{`rlm_tokens_total{model="root-model",type="completion"}`, 10},
		{`rlm_upstream_retries_total{kind="transient"}`, 1},
		{`rlm_budget_refusals_total{budget="calls"}`, 1},
		{`rlm_sandbox_errors_total{type="TimeoutError"}`, 2},
		{"rlm_sandbox_step_duration_seconds_count", 8},
		{"rlm_run_iterations_count", 4},
		{"rlm_run_duration_seconds_count", 4},
		{`rlm_http_requests_total{code="200"}`, 5},
		{`rlm_http_request_duration_seconds_count{route="POST /v1/chat/completions"}`, 5},
		{`rlm_http_request_duration_seconds_count{route="GET /metrics"}`, 1},
		{`rlm_http_request_duration_seconds_count{route="other"}`, 1},
	}
	for _, c := range checks {
		got := metricValue(t, after, c.series)
		assert.GreaterOrEqual(t, got, c.min, "%s", c.series)
		assert.Greater(t, got, metricValue(t, before, c.series), "%s moved", c.series)
	}
	assert.Zero(t, metricValue(t, after, "rlm_runs_in_flight"))
	assert.Zero(t, metricValue(t, after, "rlm_queue_depth"))
	// Every rlm metric follows the naming conventions.
	for _, l := range strings.Split(after, "\n") {
		if name, ok := strings.CutPrefix(l, "# TYPE "); ok && strings.HasPrefix(name, "rlm_") {
			f := strings.Fields(name)
			if f[1] == "counter" {
				assert.True(t, strings.HasSuffix(f[0], "_total"), "%s: counters end in _total", f[0])
			}
		}
	}
}

// TestMetricLabelsAreBounded: clients cannot grow the label sets: an
// upstream model a request names (rlm:MODEL) is counted as "other", an
// exception class of the code's own as "other".
func TestMetricLabelsAreBounded(t *testing.T) {
	up := llmtest.NewServer(t).RequireKey(canaryKey)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if strings.Contains(queryOf(c.Messages), "own error") && assistants(c.Messages) == 0 {
			return code("class MyOwnError(Exception):\n    pass\nraise MyOwnError('x')")
		}
		return rootReply(c)
	})
	ts := newTestServerOn(t, up, nil)
	for _, model := range []string{"rlm:client-model-1", "rlm:client-model-2"} {
		code, _, body := ts.do(
			t,
			"POST",
			"/v1/chat/completions",
			map[string]any{"model": model, "messages": []map[string]any{{"role": "user", "content": "echo x"}}},
		)
		require.Equal(t, 200, code, string(body))
	}
	code, _, body := ts.do(t, "POST", "/v1/chat/completions", chatBody("own error", nil))
	require.Equal(t, 200, code, string(body))
	text := ts.scrape(t)
	assert.NotContains(t, text, "client-model")
	assert.Equal(t, 2.0, metricValue(t, text, `rlm_upstream_calls_total{model="other"}`))
	assert.NotContains(t, text, "MyOwnError")
	assert.Equal(t, 1.0, metricValue(t, text, `rlm_sandbox_errors_total{type="other"}`))
}

// TestMetricsPassPromtool lints a scrape taken after runs with Prometheus's
// own checker, promtool check metrics (scripts/promtool installs one; CI
// sets RLM_PROMTOOL to it).
func TestMetricsPassPromtool(t *testing.T) {
	promtool := os.Getenv("RLM_PROMTOOL")
	if promtool == "" {
		p, err := exec.LookPath("promtool")
		if err != nil {
			t.Skip("promtool not found: set RLM_PROMTOOL=$(scripts/promtool)")
		}
		promtool = p
	}
	ts := newTestServerOn(t, fakeUpstream(t, 0), nil)
	for _, q := range []string{"sub", "loop"} {
		code, _, body := ts.do(t, "POST", "/v1/chat/completions", chatBody(q, nil))
		require.Equal(t, 200, code, string(body))
	}
	scrape := ts.scrape(t)
	require.Contains(t, scrape, "rlm_runs_started_total")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(scrape)
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "promtool check metrics:\n%s", out)
	assert.Empty(t, strings.TrimSpace(string(out)), "promtool reports no problem")
}
