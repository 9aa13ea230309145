package telemetry_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/telemetry"
)

const (
	rootModel = "root-model"
	subModel  = "sub-model"
	apiKey    = "sk-test-SECRET-3c9f1e"
	// query and subAnswer are contents: no span may hold them.
	query     = "What is the secret word of the CANARY-QUERY text?"
	subAnswer = "CANARY-SUB-ANSWER"
)

// newTracing is a Tracing over a provider that hands every ended span to
// an in-memory exporter at once.
func newTracing(t *testing.T, baseURL string) (*telemetry.Tracing, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return telemetry.New(telemetry.Config{Provider: tp, BaseURL: baseURL, Version: "test"}), exp
}

func code(s string) llmtest.Reply { return llmtest.Text("```python\n" + s + "\n```") }

func assistants(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}

func mentions(msgs []llm.Message, s string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

// engine is an engine whose model is the real client against srv, metered
// over a ledger with prices for both models, traced by tr.
func engine(t *testing.T, srv *llmtest.Server, tr *telemetry.Tracing, maxDepth int) *orchestrator.Engine {
	t.Helper()
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: apiKey, Model: rootModel, SubModel: subModel, MaxRetries: -1})
	require.NoError(t, err)
	prices := llm.DefaultPrices()
	prices.Set(rootModel, llm.Price{Input: 1, Output: 2})
	prices.Set(subModel, llm.Price{Input: 0.5, Output: 1})
	ledger := llm.NewLedger(llm.LedgerConfig{Prices: prices})
	temp := float32(0.25)
	seed := 7
	return orchestrator.New(orchestrator.Config{
		Model: llm.Metered(client, ledger), Ledger: ledger, RootModel: rootModel, SubModel: subModel,
		MaxDepth: maxDepth, Temperature: &temp, Seed: &seed, MaxOutputTokens: 500,
		Tracer: tr.Tracer(),
	})
}

func rootContext(t *testing.T) *rlmctx.ExternalizedContext {
	c := rlmctx.NewContext(query)
	_, err := c.Add("text", "the secret word is CANARY-VARIABLE")
	require.NoError(t, err)
	return c
}

type tree struct {
	spans  tracetest.SpanStubs
	byID   map[trace.SpanID]tracetest.SpanStub
	byName map[string][]tracetest.SpanStub
}

func spanTree(exp *tracetest.InMemoryExporter) tree {
	tr := tree{spans: exp.GetSpans(), byID: map[trace.SpanID]tracetest.SpanStub{}, byName: map[string][]tracetest.SpanStub{}}
	for _, s := range tr.spans {
		tr.byID[s.SpanContext.SpanID()] = s
		tr.byName[s.Name] = append(tr.byName[s.Name], s)
	}
	return tr
}

func (tr tree) parent(s tracetest.SpanStub) tracetest.SpanStub { return tr.byID[s.Parent.SpanID()] }

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func intAttr(t *testing.T, s tracetest.SpanStub, k string) int {
	t.Helper()
	v, ok := attrs(s)[attribute.Key(k)]
	require.True(t, ok, "span %s has no %s: %v", s.Name, k, s.Attributes)
	return int(v.AsInt64())
}

func strAttr(s tracetest.SpanStub, k string) string { return attrs(s)[attribute.Key(k)].String() }

// noContent checks that no span attribute, event or status holds a
// prompt, a reply, a variable or the key.
func noContent(t *testing.T, spans tracetest.SpanStubs, canaries ...string) {
	t.Helper()
	for _, s := range spans {
		texts := []string{s.Name, s.Status.Description}
		for _, kv := range s.Attributes {
			texts = append(texts, kv.Value.String())
		}
		for _, ev := range s.Events {
			texts = append(texts, ev.Name)
			for _, kv := range ev.Attributes {
				texts = append(texts, kv.Value.String())
			}
		}
		for _, txt := range texts {
			for _, c := range canaries {
				assert.NotContains(t, txt, c, "span %s", s.Name)
			}
		}
	}
}

// One root RLM whose first step makes a sub-call and second submits: a
// trace with the run's span at the root, a span per step under it, and
// each model call (the root calls and the sub-call) under the step that
// made it, with the GenAI attributes, tokens and cost.
func TestRunWithSubCallSpans(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if c.Model == subModel {
			return llmtest.Text(subAnswer)
		}
		if assistants(c.Messages) == 0 {
			return code(`a = llm_query("say the word")` + "\nprint(a)")
		}
		return code("SUBMIT(answer=str(a))")
	})
	tr, exp := newTracing(t, srv.URL())
	res, err := engine(t, srv, tr, 1).Run(context.Background(), rootContext(t))
	require.NoError(t, err)
	require.Equal(t, orchestrator.StopSubmit, res.StopReason, "err: %v", res.Err)

	spans := spanTree(exp)
	require.Len(t, spans.byName["invoke_agent rlm"], 1)
	root := spans.byName["invoke_agent rlm"][0]
	assert.False(t, root.Parent.IsValid(), "the run is the trace's root")
	assert.Equal(t, trace.SpanKindInternal, root.SpanKind)
	assert.Equal(t, "invoke_agent", strAttr(root, "gen_ai.operation.name"))
	assert.Equal(t, "rlm", strAttr(root, "gen_ai.agent.name"))
	assert.Equal(t, "openai", strAttr(root, "gen_ai.provider.name"))
	assert.Equal(t, rootModel, strAttr(root, "gen_ai.request.model"))
	assert.Equal(t, "0", strAttr(root, "rlm.trajectory.run"))
	assert.Equal(t, "submit", strAttr(root, "rlm.stop_reason"))
	assert.Equal(t, 2, intAttr(t, root, "rlm.iterations"))
	assert.Equal(t, 3, intAttr(t, root, "rlm.calls"))
	assert.Equal(t, res.Usage.PromptTokens, intAttr(t, root, "gen_ai.usage.input_tokens"))
	assert.Equal(t, res.Usage.CompletionTokens, intAttr(t, root, "gen_ai.usage.output_tokens"))
	assert.InDelta(t, res.Usage.CostUSD, attrs(root)["rlm.cost_usd"].AsFloat64(), 1e-12)
	assert.Positive(t, res.Usage.CostUSD)
	assert.Equal(t, codes.Unset, root.Status.Code)

	steps := spans.byName[telemetry.StepSpanName]
	require.Len(t, steps, 2)
	for i, st := range steps {
		assert.Equal(t, root.SpanContext.SpanID(), st.Parent.SpanID(), "step %d is under the run", i+1)
		assert.Equal(t, root.SpanContext.TraceID(), st.SpanContext.TraceID())
	}
	stepNo := func(s tracetest.SpanStub) int { return intAttr(t, s, "rlm.step") }
	if stepNo(steps[0]) > stepNo(steps[1]) {
		steps[0], steps[1] = steps[1], steps[0]
	}
	assert.Equal(t, 1, stepNo(steps[0]))
	assert.Equal(t, "false", strAttr(steps[0], "rlm.step.submitted"))
	assert.Equal(t, "true", strAttr(steps[1], "rlm.step.submitted"))

	rootCalls := spans.byName["chat "+rootModel]
	require.Len(t, rootCalls, 2)
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	sum := 0
	for _, c := range rootCalls {
		assert.Equal(t, trace.SpanKindClient, c.SpanKind)
		assert.Equal(t, telemetry.StepSpanName, spans.parent(c).Name, "a root call is under its step")
		a := attrs(c)
		assert.Equal(t, "chat", a["gen_ai.operation.name"].AsString())
		assert.Equal(t, "openai", a["gen_ai.provider.name"].AsString())
		assert.Equal(t, rootModel, a["gen_ai.request.model"].AsString())
		assert.Equal(t, rootModel, a["gen_ai.response.model"].AsString())
		assert.Equal(t, "chatcmpl-test", a["gen_ai.response.id"].AsString())
		assert.Equal(t, []string{"stop"}, a["gen_ai.response.finish_reasons"].AsStringSlice())
		assert.InDelta(t, 0.25, a["gen_ai.request.temperature"].AsFloat64(), 1e-6)
		assert.Equal(t, int64(7), a["gen_ai.request.seed"].AsInt64())
		assert.Equal(t, int64(500), a["gen_ai.request.max_tokens"].AsInt64())
		assert.Equal(t, "root", a["rlm.call.role"].AsString())
		assert.Equal(t, u.Hostname(), a["server.address"].AsString())
		assert.Equal(t, u.Port(), fmt.Sprint(a["server.port"].AsInt64()))
		assert.Positive(t, a["gen_ai.usage.input_tokens"].AsInt64())
		assert.Positive(t, a["rlm.cost_usd"].AsFloat64())
		sum += intAttr(t, c, "gen_ai.usage.input_tokens")
	}
	subs := spans.byName["chat "+subModel]
	require.Len(t, subs, 1)
	sub := subs[0]
	assert.Equal(t, steps[0].SpanContext.SpanID(), sub.Parent.SpanID(), "the sub-call is under the step whose code made it")
	assert.Equal(t, "sub", strAttr(sub, "rlm.call.role"))
	assert.Equal(t, "llm_query", strAttr(sub, "rlm.helper"))
	assert.Equal(t, "0", strAttr(sub, "rlm.trajectory.run"))
	assert.Equal(t, int64(500), attrs(sub)["gen_ai.request.max_tokens"].AsInt64())
	_, hasTemp := attrs(sub)["gen_ai.request.temperature"]
	assert.False(t, hasTemp, "the root's temperature does not apply to sub-calls")
	sum += intAttr(t, sub, "gen_ai.usage.input_tokens")
	assert.Equal(t, res.Usage.PromptTokens, sum, "the calls' input tokens add up to the run's")

	// The server saw the sub-call's prompt and answered; no span holds
	// either, the query, the variable or the key.
	noContent(t, spans.spans, query, "CANARY", "say the word", apiKey)
}

// With max depth 2, rlm_query starts a child RLM: its span is under the
// parent's step that called it, with its own steps and calls below, its
// stop reason and the tokens of its calls.
func TestChildRunSpans(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if mentions(c.Messages, "Find the word") { // the child RLM
			return code(`SUBMIT(answer="found")`)
		}
		if assistants(c.Messages) == 0 {
			return code(`r = rlm_query("Find the word", part=text)` + "\nprint(r)")
		}
		return code("SUBMIT(answer=str(r))")
	})
	tr, exp := newTracing(t, srv.URL())
	res, err := engine(t, srv, tr, 2).Run(context.Background(), rootContext(t))
	require.NoError(t, err)
	require.Equal(t, orchestrator.StopSubmit, res.StopReason, "err: %v", res.Err)
	require.Equal(t, "found", res.Answer)

	spans := spanTree(exp)
	runs := spans.byName["invoke_agent rlm"]
	require.Len(t, runs, 2)
	var root, child tracetest.SpanStub
	for _, r := range runs {
		if strAttr(r, "rlm.depth") == "0" {
			root = r
		} else {
			child = r
		}
	}
	require.Equal(t, "1", strAttr(child, "rlm.depth"))
	assert.True(t, strings.HasPrefix(strAttr(child, "rlm.trajectory.run"), "0.1."), strAttr(child, "rlm.trajectory.run"))
	parentStep := spans.parent(child)
	require.Equal(t, telemetry.StepSpanName, parentStep.Name)
	assert.Equal(t, "0", strAttr(parentStep, "rlm.trajectory.run"))
	assert.Equal(t, 1, intAttr(t, parentStep, "rlm.step"), "the child is under the step whose code called rlm_query")
	assert.Equal(t, root.SpanContext.SpanID(), parentStep.Parent.SpanID())
	assert.Equal(t, root.SpanContext.TraceID(), child.SpanContext.TraceID())
	assert.Equal(t, "submit", strAttr(child, "rlm.stop_reason"))
	assert.Equal(t, 1, intAttr(t, child, "rlm.iterations"))

	// The child's step and call hang under the child.
	var childIn int
	for _, s := range spans.byName[telemetry.StepSpanName] {
		if s.Parent.SpanID() == child.SpanContext.SpanID() {
			for _, c := range spans.byName["chat "+rootModel] {
				if c.Parent.SpanID() == s.SpanContext.SpanID() {
					childIn += intAttr(t, c, "gen_ai.usage.input_tokens")
					assert.Equal(t, strAttr(child, "rlm.trajectory.run"), strAttr(c, "rlm.trajectory.run"))
				}
			}
		}
	}
	assert.Positive(t, childIn)
	assert.Equal(t, childIn, intAttr(t, child, "gen_ai.usage.input_tokens"), "the child's tokens are its calls'")
	assert.Equal(t, 1, intAttr(t, child, "rlm.calls"))
	assert.Equal(t, 3, intAttr(t, root, "rlm.calls"))
	assert.Equal(t, res.Usage.PromptTokens, intAttr(t, root, "gen_ai.usage.input_tokens"), "the root's tokens are the whole tree's")
	noContent(t, spans.spans, query, "CANARY", "Find the word", apiKey)
}

// A failing upstream: the call's span and the run's carry the error
// (status and error.type), the key the server echoed in its message not
// among them.
func TestModelErrorSpans(t *testing.T) {
	srv := llmtest.NewServer(t).RequireKey("sk-other-key-not-ours")
	tr, exp := newTracing(t, srv.URL())
	res, err := engine(t, srv, tr, 1).Run(context.Background(), rootContext(t))
	require.NoError(t, err)
	require.Equal(t, orchestrator.StopModelError, res.StopReason)

	spans := spanTree(exp)
	root := spans.byName["invoke_agent rlm"][0]
	assert.Equal(t, codes.Error, root.Status.Code)
	assert.Equal(t, "model_error", strAttr(root, "error.type"))
	assert.Equal(t, "model_error", strAttr(root, "rlm.stop_reason"))
	calls := spans.byName["chat "+rootModel]
	require.Len(t, calls, 1)
	assert.Equal(t, codes.Error, calls[0].Status.Code)
	assert.Equal(t, "auth", strAttr(calls[0], "error.type"))
	assert.NotEmpty(t, calls[0].Status.Description)
	steps := spans.byName[telemetry.StepSpanName]
	require.Len(t, steps, 1)
	assert.Equal(t, codes.Error, steps[0].Status.Code)
	noContent(t, spans.spans, apiKey, query)
}

// An incoming traceparent (a request's header, or the TRACEPARENT
// variable of a command) makes the run's spans part of the caller's
// trace, the run's span a child of the caller's.
func TestRunContinuesTheCallersTrace(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	parent := "00-" + traceID + "-" + spanID + "-01"
	for _, tc := range []struct {
		name    string
		extract func(tr *telemetry.Tracing) context.Context
	}{
		{"header", func(tr *telemetry.Tracing) context.Context {
			h := http.Header{}
			h.Set("Traceparent", parent)
			h.Set("Tracestate", "vendor=1")
			return tr.Extract(context.Background(), h)
		}},
		{"environment", func(tr *telemetry.Tracing) context.Context {
			env := map[string]string{"TRACEPARENT": parent, "TRACESTATE": "vendor=1"}
			return tr.ExtractEnv(context.Background(), func(k string) string { return env[k] })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.SetDefault(func(llmtest.Call) llmtest.Reply { return code(`SUBMIT(answer="x")`) })
			tr, exp := newTracing(t, srv.URL())
			ctx := telemetry.WithRunID(tc.extract(tr), "run_abc")
			res, err := engine(t, srv, tr, 1).Run(ctx, rootContext(t))
			require.NoError(t, err)
			require.Equal(t, orchestrator.StopSubmit, res.StopReason)
			spans := spanTree(exp)
			require.NotEmpty(t, spans.spans)
			for _, s := range spans.spans {
				assert.Equal(t, traceID, s.SpanContext.TraceID().String(), "span %s", s.Name)
			}
			root := spans.byName["invoke_agent rlm"][0]
			assert.Equal(t, spanID, root.Parent.SpanID().String())
			assert.True(t, root.Parent.IsRemote())
			assert.Equal(t, "vendor=1", root.SpanContext.TraceState().String())
			assert.Equal(t, "run_abc", strAttr(root, "rlm.run.id"))
		})
	}
}

// A nil Tracing traces nothing: no engine hook, requests' trace headers
// and the environment ignored, Shutdown a no-op.
func TestNilTracing(t *testing.T) {
	var tr *telemetry.Tracing
	assert.Nil(t, tr.Tracer())
	assert.False(t, tr.Enabled())
	h := http.Header{}
	h.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	ctx := tr.Extract(context.Background(), h)
	assert.False(t, trace.SpanContextFromContext(ctx).IsValid())
	assert.NoError(t, tr.Shutdown(context.Background()))
	assert.Nil(t, telemetry.New(telemetry.Config{}), "no provider: no tracing")
}

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		on      bool
		wantErr string
	}{
		{"nothing set", nil, false, ""},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, ""},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true, ""},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, ""},
		{"exporter none", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, false, ""},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false, ""},
		{"sdk not disabled", map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, true, ""},
		{"http/protobuf", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, true, ""},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: rlm exports OTLP over HTTP only: set it to http/protobuf"},
		{"traces protocol wins", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, true, ""},
		{"http/json", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, true, ""},
		{"traces grpc", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, false, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc"},
		{"console exporter", map[string]string{"OTEL_TRACES_EXPORTER": "console"}, false, "OTEL_TRACES_EXPORTER=console: rlm exports traces with otlp only"},
		{"grpc while off", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			on, err := telemetry.Enabled(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				require.ErrorIs(t, err, telemetry.ErrUnsupported)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.on, on)
		})
	}
}

// FromEnv with tracing off returns nil (nothing to flush); a bad protocol
// is refused before anything is built.
func TestFromEnvOff(t *testing.T) {
	tr, err := telemetry.FromEnv(context.Background(), telemetry.EnvConfig{Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	assert.Nil(t, tr)
	_, err = telemetry.FromEnv(context.Background(), telemetry.EnvConfig{Getenv: func(k string) string {
		return map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}[k]
	}})
	require.ErrorIs(t, err, telemetry.ErrUnsupported)
}
