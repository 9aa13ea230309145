package server

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/sandbox"
)

// metrics are the server's Prometheus metrics. They export the counters
// the runs already keep, each from one source: the trajectory events as
// they are written (requests, prompt sections, compressions, child runs),
// each run's orchestrator.Metrics when it ends (prefix changes, sub-calls,
// summarizer calls), the shared ledger at scrape time (tokens, calls and
// cost by model), the client's failed attempts (retries, upstream errors)
// and each sandbox step (duration, errors).
type metrics struct {
	reg *prometheus.Registry
	// modelLabel bounds the model label to the configured models.
	modelLabel func(string) string
	// upstreamDuration is the wall time of model calls, by model and
	// role (root: an RLM's own request; sub: a sub-call from code).
	upstreamDuration *prometheus.HistogramVec
	// firstByte is the upstream's time to first byte of the answering
	// attempt, by model and role.
	firstByte *prometheus.HistogramVec

	runsStarted    prometheus.Counter
	runsFinished   *prometheus.CounterVec
	rejected       prometheus.Counter
	runDuration    prometheus.Histogram
	iterations     prometheus.Histogram
	requests       *prometheus.CounterVec
	sectionTokens  *prometheus.CounterVec
	compressions   prometheus.Counter
	savedTokens    prometheus.Counter
	prefixChanges  prometheus.Counter
	subCalls       prometheus.Counter
	memoHits       prometheus.Counter
	childRuns      *prometheus.CounterVec
	retries        *prometheus.CounterVec
	upstreamErrors *prometheus.CounterVec
	budgetRefusals *prometheus.CounterVec
	stepDuration   prometheus.Histogram
	sandboxErrors  *prometheus.CounterVec
	queueDepth     prometheus.Gauge
	inFlight       prometheus.Gauge
	httpRequests   *prometheus.CounterVec
	// httpDuration is the time to serve an HTTP request, by route (the
	// pattern it matched: "POST /v1/chat/completions"; "other" for none).
	httpDuration *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry, s *Server) *metrics {
	f := func(c prometheus.Collector) { reg.MustRegister(c) }
	m := &metrics{reg: reg, modelLabel: s.modelLabel}
	m.upstreamDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rlm_upstream_request_duration_seconds",
		Help:    "Wall time of model calls (retries included), by model and role: root (an RLM's own request) or sub (a sub-call from code).",
		Buckets: prometheus.ExponentialBuckets(0.05, 2, 12)}, []string{"model", "role"})
	reg.MustRegister(m.upstreamDuration)
	m.firstByte = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rlm_upstream_time_to_first_byte_seconds",
		Help:    "Time from sending a model request to the first byte of its response (the attempt that answered), by model and role.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)}, []string{"model", "role"})
	reg.MustRegister(m.firstByte)
	m.runsStarted = prometheus.NewCounter(prometheus.CounterOpts{Name: "rlm_runs_started_total", Help: "Runs that got a slot and started."})
	m.runsFinished = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "rlm_runs_finished_total",
			Help: "Runs finished, by stop reason (submit, max_iterations, budget, errors, timeout, canceled, model_error).",
		},
		[]string{"stop_reason"},
	)
	m.rejected = prometheus.NewCounter(
		prometheus.CounterOpts{
			Name: "rlm_runs_rejected_total",
			Help: "Runs refused with 429 because every slot and queue place was taken.",
		},
	)
	m.runDuration = prometheus.NewHistogram(
		prometheus.HistogramOpts{Name: "rlm_run_duration_seconds", Help: "Wall time of runs, queueing included.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2.5, 12)},
	)
	m.iterations = prometheus.NewHistogram(
		prometheus.HistogramOpts{Name: "rlm_run_iterations", Help: "Iterations of each run tree (root and children).",
			Buckets: []float64{1, 2, 3, 5, 8, 13, 21, 34, 55, 89}},
	)
	m.requests = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "rlm_model_requests_total",
			Help: "Model requests: role root (requests of an RLM, root or child), sub (sub-calls from code), summarizer.",
		},
		[]string{"role"},
	)
	m.sectionTokens = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "rlm_prompt_tokens_by_section_total",
			Help: "Prompt tokens of RLM requests by envelope section (system, meta, query, dynamic).",
		},
		[]string{"section"},
	)
	m.compressions = prometheus.NewCounter(
		prometheus.CounterOpts{Name: "rlm_compressions_total", Help: "Compressions of the iteration history into the rolling summary."},
	)
	m.savedTokens = prometheus.NewCounter(
		prometheus.CounterOpts{
			Name: "rlm_compression_saved_tokens_total",
			Help: "Prompt tokens removed by compressions (before minus after).",
		},
	)
	m.prefixChanges = prometheus.NewCounter(
		prometheus.CounterOpts{
			Name: "rlm_prompt_prefix_changes_total",
			Help: "Requests whose system+meta prefix changed from the previous one of the same RLM (prompt-cache misses).",
		},
	)
	m.subCalls = prometheus.NewCounter(
		prometheus.CounterOpts{
			Name: "rlm_sub_calls_total",
			Help: "Sub-model requests made from code (llm_query, summarize, ...) that reached the model.",
		},
	)
	m.memoHits = prometheus.NewCounter(
		prometheus.CounterOpts{
			Name: "rlm_sub_call_memo_hits_total",
			Help: "Sub-calls answered by an identical earlier one of the same RLM (memoized: no request).",
		},
	)
	m.childRuns = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "rlm_rlm_queries_total",
			Help: "rlm_query calls, by mode: rlm (a child RLM) or llm (a plain sub-call at the depth limit).",
		},
		[]string{"mode"},
	)
	m.retries = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "rlm_upstream_retries_total",
			Help: "Upstream request attempts that failed and were retried, by error kind.",
		},
		[]string{"kind"},
	)
	m.upstreamErrors = prometheus.NewCounterVec(
		prometheus.CounterOpts{Name: "rlm_upstream_errors_total", Help: "Upstream requests that failed after retries, by error kind."},
		[]string{"kind"},
	)
	m.budgetRefusals = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "rlm_budget_refusals_total",
			Help: "Model calls refused before sending by a run budget: calls, tokens or cost.",
		},
		[]string{"budget"},
	)
	m.stepDuration = prometheus.NewHistogram(
		prometheus.HistogramOpts{Name: "rlm_sandbox_step_duration_seconds", Help: "Wall time of each code block run in the sandbox.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)},
	)
	m.sandboxErrors = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "rlm_sandbox_errors_total",
			Help: "Code blocks that raised, by Python exception type (MemoryError, TimeoutError, ...).",
		},
		[]string{"type"},
	)
	m.queueDepth = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rlm_queue_depth", Help: "Runs waiting for a slot."})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rlm_runs_in_flight", Help: "Runs executing now."})
	m.httpRequests = prometheus.NewCounterVec(
		prometheus.CounterOpts{Name: "rlm_http_requests_total", Help: "HTTP requests served, by status code."},
		[]string{"code"},
	)
	m.httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "rlm_http_request_duration_seconds",
		Help:    "Time to serve an HTTP request (a streamed one until its stream ends), by route: the pattern it matched, or other.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
	}, []string{"route"})
	reg.MustRegister(m.httpDuration)
	for _, c := range []prometheus.Collector{m.runsStarted, m.runsFinished, m.rejected, m.runDuration, m.iterations, m.requests, m.sectionTokens,
		m.compressions, m.savedTokens, m.prefixChanges, m.subCalls, m.memoHits, m.childRuns, m.retries, m.upstreamErrors, m.budgetRefusals,
		m.stepDuration, m.sandboxErrors, m.queueDepth, m.inFlight, m.httpRequests} {
		f(c)
	}
	// Every labelled counter starts at 0 for each label value it can take
	// (rate() and increase() alerts see the first event, not only the
	// second), and the build is a gauge of 1 with its version.
	for _, l := range []struct {
		c      *prometheus.CounterVec
		values []string
	}{
		{m.runsFinished, []string{"submit", "max_iterations", "budget", "errors", "timeout", "canceled", "model_error"}},
		{m.requests, []string{"root", "sub", "summarizer"}},
		{m.sectionTokens, []string{"system", "meta", "query", "dynamic"}},
		{m.childRuns, []string{"rlm", "llm"}},
		{m.retries, upstreamKinds}, {m.upstreamErrors, upstreamKinds},
		{m.budgetRefusals, []string{"calls", "tokens", "cost"}},
		{m.sandboxErrors, []string{"MemoryError", "TimeoutError", "RecursionError", "other"}},
		{m.httpRequests, []string{"200", "400", "401", "404", "413", "429", "500", "502", "503"}},
	} {
		for _, v := range l.values {
			l.c.WithLabelValues(v)
		}
	}
	buildInfo := prometheus.NewGaugeVec(
		prometheus.GaugeOpts{Name: "rlm_build_info", Help: "The running rlm: its version and Go version (always 1)."},
		[]string{"version", "go_version"},
	)
	buildInfo.WithLabelValues(s.cfg.Version, runtime.Version()).Set(1)
	f(buildInfo)
	f(&ledgerCollector{s: s})
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// upstreamKinds are the error kinds of upstream calls (llm.Kind names).
var upstreamKinds = []string{"rate_limit", "transient", "auth", "context_length", "bad_request", "budget", "replay_miss", "unknown"}

// Registry is the registry of the server's metrics: other components
// register their collectors on it to be served by GET /metrics.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.reg }

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// event feeds one trajectory event, of type typ with fields f, to the
// metrics.
func (m *metrics) event(typ string, f orchestrator.EventFields) {
	switch typ {
	case orchestrator.EventRequest:
		m.requests.WithLabelValues("root").Inc()
		t := f.Tokens
		m.sectionTokens.WithLabelValues("system").Add(float64(t.System))
		m.sectionTokens.WithLabelValues("meta").Add(float64(t.Meta))
		m.sectionTokens.WithLabelValues("query").Add(float64(t.Query))
		m.sectionTokens.WithLabelValues("dynamic").Add(float64(t.Dynamic))
	case orchestrator.EventCompression:
		m.compressions.Inc()
		m.savedTokens.Add(float64(max(f.PreTokens-f.PostTokens, 0)))
	case orchestrator.EventChildStart:
		m.childRuns.WithLabelValues(f.Mode).Inc()
	case orchestrator.EventReply:
		if f.LatencyMS != nil {
			m.upstreamDuration.WithLabelValues(m.modelLabel(f.Model), "root").Observe(float64(*f.LatencyMS) / 1000)
		}
		if f.FirstByteMS > 0 {
			m.firstByte.WithLabelValues(m.modelLabel(f.Model), "root").Observe(f.FirstByteMS / 1000)
		}
	case orchestrator.EventSubCall:
		if f.LatencyMS != nil && !f.Memoized && f.Model != "" {
			m.upstreamDuration.WithLabelValues(m.modelLabel(f.Model), "sub").Observe(float64(*f.LatencyMS) / 1000)
		}
		if f.FirstByteMS > 0 && f.Model != "" {
			m.firstByte.WithLabelValues(m.modelLabel(f.Model), "sub").Observe(f.FirstByteMS / 1000)
		}
	}
}

// finished records a run's end.
func (m *metrics) finished(spec *runSpec, res *orchestrator.Result, d time.Duration) {
	m.runsFinished.WithLabelValues(string(res.StopReason)).Inc()
	m.runDuration.Observe(d.Seconds())
	m.iterations.Observe(float64(res.Metrics.Iterations))
	m.prefixChanges.Add(float64(res.Metrics.PrefixChanges))
	m.subCalls.Add(float64(res.Metrics.SubCalls))
	m.memoHits.Add(float64(res.Metrics.MemoHits))
	m.requests.WithLabelValues("sub").Add(float64(res.Metrics.SubCalls))
	m.requests.WithLabelValues("summarizer").Add(float64(res.Metrics.SummarizerCalls))
}

// attemptFailed counts a failed upstream attempt (llm.Config.OnAttemptError).
func (m *metrics) attemptFailed(err error, retry bool) {
	kind := llm.KindOf(err).String()
	if errors.Is(err, context.Canceled) {
		kind = "canceled"
	}
	if retry {
		m.retries.WithLabelValues(kind).Inc()
	} else {
		m.upstreamErrors.WithLabelValues(kind).Inc()
	}
}

// executors is the run's ExecutorFactory: the sandbox, each step timed
// and its error counted by Python exception type.
func (m *metrics) executors(ctx context.Context, spec orchestrator.ExecSpec) (orchestrator.Executor, error) {
	ex, err := orchestrator.SandboxExecutors(ctx, spec)
	if err != nil {
		return nil, err
	}
	return &timedExecutor{Executor: ex, m: m}, nil
}

type timedExecutor struct {
	orchestrator.Executor
	m *metrics
}

// excType finds the exception type in a traceback's last line.
var excType = regexp.MustCompile(`(?m)^([A-Z][A-Za-z]*(?:Error|Exception|Interrupt|Exit))\b`)

// Exec runs one code block, timing it.
func (t *timedExecutor) Exec(ctx context.Context, code string) (*orchestrator.ExecResult, error) {
	start := time.Now()
	res, err := t.Executor.Exec(ctx, code)
	t.m.stepDuration.Observe(time.Since(start).Seconds())
	if res != nil && res.Err != nil && !res.Submitted {
		t.m.sandboxErrors.WithLabelValues(errorType(res.Err, res.ErrText)).Inc()
	}
	return res, err
}

// errorType is the Python exception type of a step's error, as a metric
// label: one of Python's builtin exception types, else "other" (code can
// raise classes of its own: labels must stay a bounded set).
func errorType(err error, text string) string {
	kind := ""
	var se *sandbox.ScriptError
	var pe *sandbox.PyError
	switch {
	case errors.As(err, &se) && se.Kind != "":
		kind = se.Kind
	case errors.As(err, &pe) && pe.Kind != "":
		kind = pe.Kind
	default:
		if all := excType.FindAllStringSubmatch(text, -1); len(all) > 0 {
			kind = all[len(all)-1][1]
		}
	}
	if kind == "" || !sandbox.IsBuiltinName(kind) || !excType.MatchString(kind) {
		return "other"
	}
	return kind
}

// modelLabel is a model's metric label: the configured models (root,
// sub-call, embedding) by name, any other (a request's rlm:MODEL) as
// "other", so clients cannot grow the label set.
func (s *Server) modelLabel(model string) string {
	switch model {
	case "":
	case s.cfg.LLM.Model, s.cfg.LLM.SubModel, s.cfg.LLM.EmbeddingModel:
		return model
	}
	return "other"
}

// ledgerCollector exports the shared ledger's totals by model at scrape
// time: calls, tokens (prompt, completion, cached) and cost.
type ledgerCollector struct{ s *Server }

var (
	descCalls  = prometheus.NewDesc("rlm_upstream_calls_total", "Successful upstream model calls, by model.", []string{"model"}, nil)
	descTokens = prometheus.NewDesc(
		"rlm_tokens_total",
		"Tokens of successful upstream calls, by model and type (prompt, completion, cached).",
		[]string{"model", "type"},
		nil,
	)
	descCost = prometheus.NewDesc(
		"rlm_cost_usd_total",
		"Cost in USD of the upstream calls of models with a known price, by model.",
		[]string{"model"},
		nil,
	)
)

func (c *ledgerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descCalls
	ch <- descTokens
	ch <- descCost
}

func (c *ledgerCollector) Collect(ch chan<- prometheus.Metric) {
	byLabel := map[string]llm.Totals{}
	for model, t := range c.s.ledger.ByModel() {
		label := c.s.modelLabel(model)
		byLabel[label] = addTotals(byLabel[label], t)
	}
	for model, t := range byLabel {
		ch <- prometheus.MustNewConstMetric(descCalls, prometheus.CounterValue, float64(t.Calls), model)
		ch <- prometheus.MustNewConstMetric(descTokens, prometheus.CounterValue, float64(t.PromptTokens), model, "prompt")
		ch <- prometheus.MustNewConstMetric(descTokens, prometheus.CounterValue, float64(t.CompletionTokens), model, "completion")
		ch <- prometheus.MustNewConstMetric(descTokens, prometheus.CounterValue, float64(t.CachedTokens), model, "cached")
		if t.CostKnown {
			ch <- prometheus.MustNewConstMetric(descCost, prometheus.CounterValue, t.CostUSD, model)
		}
	}
}

// addTotals adds the counts of b to a (cost known only if both are).
func addTotals(a, b llm.Totals) llm.Totals {
	known := (a.Calls == 0 || a.CostKnown) && b.CostKnown
	a.Calls += b.Calls
	a.PromptTokens += b.PromptTokens
	a.CompletionTokens += b.CompletionTokens
	a.CachedTokens += b.CachedTokens
	a.CostUSD += b.CostUSD
	a.CostKnown = known
	return a
}

// otherRoute labels the requests no route matched (a 404, or one refused
// before routing).
const otherRoute = "other"

// observeHTTP records a served request's duration under its route.
func (m *metrics) observeHTTP(pattern string, d time.Duration) {
	if pattern == "" || pattern == "/" {
		pattern = otherRoute
	}
	m.httpDuration.WithLabelValues(pattern).Observe(d.Seconds())
}

// initRoutes makes the duration series of every route exist at zero, so
// that rate() sees a route's first requests.
func (m *metrics) initRoutes(patterns []string) {
	for _, p := range append(patterns, otherRoute) {
		if p != "/" {
			m.httpDuration.WithLabelValues(p)
		}
	}
}
