package telemetry

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
)

// ScopeName is the instrumentation scope of rlm's spans.
const ScopeName = "github.com/rlmhq/rlm/telemetry"

// AgentName is the gen_ai.agent.name of every RLM span (the span is
// named "invoke_agent rlm").
const AgentName = "rlm"

// Attributes of rlm's own (rlm.*), beside the GenAI conventions' gen_ai.*.
const (
	// AttrRunID is the run's id as the CLI or the server names it (rlm
	// serve's run id, rlm run's kept run), on the root RLM's span.
	AttrRunID = attribute.Key("rlm.run.id")
	// AttrTrajectoryRun is the RLM's id in the trajectory: "0" for the
	// root, PARENT.STEP.HASH for a child (the events' "run" field).
	AttrTrajectoryRun = attribute.Key("rlm.trajectory.run")
	AttrDepth         = attribute.Key("rlm.depth")
	AttrMaxIterations = attribute.Key("rlm.max_iterations")
	AttrProtocol      = attribute.Key("rlm.protocol")
	AttrStopReason    = attribute.Key("rlm.stop_reason")
	AttrIterations    = attribute.Key("rlm.iterations")
	AttrPartial       = attribute.Key("rlm.partial")
	AttrExtracted     = attribute.Key("rlm.final_extraction")
	// AttrCalls counts the model calls of an RLM and its descendants (the
	// whole tree's, from the ledger, on the root).
	AttrCalls = attribute.Key("rlm.calls")
	// AttrCostUSD is the cost in US dollars of a call, or of an RLM and
	// its descendants; AttrCostKnown is false when a model had no price
	// (the cost then covers the priced calls only).
	AttrCostUSD   = attribute.Key("rlm.cost_usd")
	AttrCostKnown = attribute.Key("rlm.cost_known")
	AttrStep      = attribute.Key("rlm.step")
	AttrFinal     = attribute.Key("rlm.step.final")
	AttrSubmitted = attribute.Key("rlm.step.submitted")
	AttrFailed    = attribute.Key("rlm.step.failed")
	// AttrCallRole is "root" (a step's call) or "sub" (a sub-call made
	// by the code); AttrHelper the helper that made a sub-call.
	AttrCallRole = attribute.Key("rlm.call.role")
	AttrHelper   = attribute.Key("rlm.helper")
)

// Span names besides "invoke_agent rlm" and "chat MODEL".
const StepSpanName = "rlm.step"

// Config configures [New].
type Config struct {
	// Provider makes the tracer (nil: New returns nil, tracing off).
	Provider trace.TracerProvider
	// Propagator extracts an incoming trace context (nil: W3C Trace
	// Context, traceparent and tracestate).
	Propagator propagation.TextMapPropagator
	// BaseURL is the model endpoint; its host and port become the chat
	// spans' server.address and server.port ("": not recorded).
	BaseURL string
	// Version is the instrumentation scope's version (rlm's version).
	Version string
	// Shutdown, if set, is called by [Tracing.Shutdown] to flush and stop
	// the provider.
	Shutdown func(context.Context) error
}

// Tracing makes the spans of rlm runs. A nil *Tracing traces nothing.
type Tracing struct {
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	server   []attribute.KeyValue
	shutdown func(context.Context) error
}

// New returns a Tracing over cfg.Provider, or nil without one.
func New(cfg Config) *Tracing {
	if cfg.Provider == nil {
		return nil
	}
	t := &Tracing{
		tracer:   cfg.Provider.Tracer(ScopeName, trace.WithInstrumentationVersion(cfg.Version), trace.WithSchemaURL(semconv.SchemaURL)),
		prop:     cfg.Propagator,
		shutdown: cfg.Shutdown,
	}
	if t.prop == nil {
		t.prop = propagation.TraceContext{}
	}
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Host != "" {
		host, port := u.Hostname(), u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		t.server = append(t.server, semconv.ServerAddress(host))
		if p, err := strconv.Atoi(port); err == nil {
			t.server = append(t.server, semconv.ServerPort(p))
		}
	}
	return t
}

// Enabled reports whether t makes spans.
func (t *Tracing) Enabled() bool { return t != nil }

// Tracer is the engine's hook (orchestrator.Config.Tracer): nil when t is
// nil, so that the engine skips tracing altogether.
func (t *Tracing) Tracer() orchestrator.Tracer {
	if t == nil {
		return nil
	}
	return engineTracer{t}
}

// Extract returns ctx with the trace context of an incoming request's
// headers (traceparent, tracestate), so that the run it starts continues
// the caller's trace. Without such headers, or with a nil t, ctx is
// returned as it is.
func (t *Tracing) Extract(ctx context.Context, h http.Header) context.Context {
	if t == nil {
		return ctx
	}
	return t.prop.Extract(ctx, propagation.HeaderCarrier(h))
}

// ExtractEnv returns ctx with the trace context of the environment
// variables TRACEPARENT and TRACESTATE (OpenTelemetry's environment
// carrier, for a command started by a traced process), read with getenv.
func (t *Tracing) ExtractEnv(ctx context.Context, getenv func(string) string) context.Context {
	if t == nil {
		return ctx
	}
	carrier := propagation.MapCarrier{}
	for _, k := range t.prop.Fields() {
		if v := getenv(envName(k)); v != "" {
			carrier[k] = v
		}
	}
	if len(carrier) == 0 {
		return ctx
	}
	return t.prop.Extract(ctx, carrier)
}

// envName is the environment variable of a propagation field:
// traceparent is TRACEPARENT.
func envName(field string) string {
	b := []byte(field)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			b[i] = '_'
		}
	}
	return string(b)
}

// Shutdown flushes the spans not yet exported and stops the provider
// given in Config.Shutdown (a no-op without one).
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

type runIDKey struct{}

// WithRunID returns ctx carrying the run's id as the CLI or the server
// names it; the root RLM's span records it (rlm.run.id).
func WithRunID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, runIDKey{}, id)
}

// engineTracer implements orchestrator.Tracer.
type engineTracer struct{ t *Tracing }

// tally sums the calls of one RLM and its descendants, for its span.
type tally struct {
	parent *tally
	mu     sync.Mutex
	calls  int
	in     int
	out    int
	cost   float64
	known  bool
}

func (a *tally) add(calls, in, out int, cost float64, known bool) {
	for ; a != nil; a = a.parent {
		a.mu.Lock()
		a.calls += calls
		a.in += in
		a.out += out
		a.cost += cost
		a.known = a.known && known
		a.mu.Unlock()
	}
}

type tallyKey struct{}

func tallyOf(ctx context.Context) *tally {
	a, _ := ctx.Value(tallyKey{}).(*tally)
	return a
}

func (e engineTracer) StartRun(ctx context.Context, info orchestrator.RunInfo) (context.Context, func(orchestrator.RunEnd)) {
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIProviderNameOpenAI,
		semconv.GenAIAgentName(AgentName),
		AttrTrajectoryRun.String(info.ID),
		AttrDepth.Int(info.Depth),
		AttrMaxIterations.Int(info.MaxIterations),
		AttrProtocol.String(string(info.Protocol)),
	}
	if info.Model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(info.Model))
	}
	if id, _ := ctx.Value(runIDKey{}).(string); id != "" && info.Depth == 0 {
		attrs = append(attrs, AttrRunID.String(id))
	}
	ctx, span := e.t.tracer.Start(
		ctx,
		"invoke_agent "+AgentName,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...),
	)
	// A child's own tally, whose sums also go to its ancestors'; the
	// root's span takes the ledger's totals instead.
	a := &tally{parent: tallyOf(ctx), known: true}
	ctx = context.WithValue(ctx, tallyKey{}, a)
	return ctx, func(end orchestrator.RunEnd) {
		defer span.End()
		if end.Result == nil {
			if end.Err != nil {
				setError(span, "start_failed", end.Err)
			}
			return
		}
		res := end.Result
		a.mu.Lock()
		calls, in, out, cost, known := a.calls, a.in, a.out, a.cost, a.known
		a.mu.Unlock()
		if info.Depth == 0 {
			u := res.Usage
			calls, in, out, cost, known = u.Calls, u.PromptTokens, u.CompletionTokens, u.CostUSD, u.CostKnown
		}
		span.SetAttributes(
			AttrStopReason.String(string(res.StopReason)),
			AttrIterations.Int(res.Iterations),
			AttrPartial.Bool(res.Partial),
			AttrExtracted.Bool(res.Extracted),
			AttrCalls.Int(calls),
			semconv.GenAIUsageInputTokens(in),
			semconv.GenAIUsageOutputTokens(out),
			AttrCostUSD.Float64(cost),
			AttrCostKnown.Bool(known),
		)
		if res.Err != nil && res.StopReason != orchestrator.StopSubmit && !res.Extracted {
			setError(span, string(res.StopReason), res.Err)
		}
	}
}

func (e engineTracer) StartStep(ctx context.Context, info orchestrator.StepInfo) (context.Context, func(orchestrator.StepEnd)) {
	ctx, span := e.t.tracer.Start(ctx, StepSpanName, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		AttrTrajectoryRun.String(info.Run),
		AttrDepth.Int(info.Depth),
		AttrStep.Int(info.Step),
		AttrFinal.Bool(info.Final),
	))
	return ctx, func(end orchestrator.StepEnd) {
		span.SetAttributes(AttrSubmitted.Bool(end.Submitted), AttrFailed.Bool(end.Failed))
		if end.StopReason != "" {
			span.SetAttributes(AttrStopReason.String(string(end.StopReason)))
		}
		if end.Err != nil {
			setError(span, string(end.StopReason), end.Err)
		}
		span.End()
	}
}

func (e engineTracer) StartCall(ctx context.Context, info orchestrator.CallInfo) (context.Context, func(orchestrator.CallEnd)) {
	req := info.Request
	attrs := append([]attribute.KeyValue{
		semconv.GenAIOperationNameChat,
		semconv.GenAIProviderNameOpenAI,
		AttrTrajectoryRun.String(info.Run),
		AttrCallRole.String(info.Role),
	}, e.t.server...)
	if info.Model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(info.Model))
	}
	if info.Helper != "" {
		attrs = append(attrs, AttrHelper.String(info.Helper))
	}
	if req.MaxTokens > 0 {
		attrs = append(attrs, semconv.GenAIRequestMaxTokens(req.MaxTokens))
	}
	if req.Temperature != nil {
		attrs = append(attrs, semconv.GenAIRequestTemperature(float64(*req.Temperature)))
	}
	if req.TopP != nil {
		attrs = append(attrs, semconv.GenAIRequestTopP(float64(*req.TopP)))
	}
	if req.Seed != nil {
		attrs = append(attrs, semconv.GenAIRequestSeed(*req.Seed))
	}
	name := "chat"
	if info.Model != "" {
		name += " " + info.Model
	}
	a := tallyOf(ctx)
	ctx, span := e.t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, func(end orchestrator.CallEnd) {
		defer span.End()
		if end.Err != nil {
			setError(span, llm.KindOf(end.Err).String(), end.Err)
			return
		}
		resp := end.Response
		u := resp.Usage
		span.SetAttributes(
			semconv.GenAIUsageInputTokens(u.PromptTokens),
			semconv.GenAIUsageOutputTokens(u.CompletionTokens),
		)
		if u.CachedTokens > 0 {
			span.SetAttributes(semconv.GenAIUsageCacheReadInputTokens(u.CachedTokens))
		}
		if resp.Model != "" {
			span.SetAttributes(semconv.GenAIResponseModel(resp.Model))
		}
		if resp.ID != "" {
			span.SetAttributes(semconv.GenAIResponseID(resp.ID))
		}
		if resp.FinishReason != "" {
			span.SetAttributes(semconv.GenAIResponseFinishReasons(resp.FinishReason))
		}
		if end.CostKnown {
			span.SetAttributes(AttrCostUSD.Float64(end.CostUSD))
		}
		a.add(1, u.PromptTokens, u.CompletionTokens, end.CostUSD, end.CostKnown)
	}
}

// maxStatusChars bounds the error message kept as a span's status.
const maxStatusChars = 512

// setError marks span failed: error.type (a low-cardinality kind) and the
// error's message as the status description. The message is the one the
// trajectory records (the model client redacts the key from it).
func setError(span trace.Span, kind string, err error) {
	if kind == "" {
		kind = "_OTHER"
	}
	msg := err.Error()
	if len(msg) > maxStatusChars {
		cut := maxStatusChars
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(kind))
	span.SetStatus(codes.Error, msg)
}
