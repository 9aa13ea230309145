package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/rlmhq/rlm/llm/llmtest"
)

// collector is an OTLP/HTTP trace receiver on loopback: it decodes every
// export request with the OTLP protobuf definitions.
type collector struct {
	srv *httptest.Server
	mu  sync.Mutex
	req []*coltracepb.ExportTraceServiceRequest
	bad []string
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		c.mu.Lock()
		defer c.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			c.bad = append(c.bad, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
			http.Error(w, "not an OTLP/HTTP protobuf export", http.StatusBadRequest)
			return
		}
		if err := proto.Unmarshal(body, &req); err != nil {
			c.bad = append(c.bad, err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.req = append(c.req, &req)
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// spans are the spans received, with their resources' attributes.
func (c *collector) spans() (spans []*tracepb.Span, resource map[string]string, bad []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	resource = map[string]string{}
	for _, req := range c.req {
		for _, rs := range req.ResourceSpans {
			for _, kv := range rs.Resource.GetAttributes() {
				resource[kv.Key] = kv.Value.GetStringValue()
			}
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	return spans, resource, c.bad
}

func spanAttr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// The real rlm run, with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP
// collector on loopback, exports the run's spans before it exits: the
// run's span (in the trace TRACEPARENT names, under its span), its step
// and its model call, from a resource named by OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. OTEL_TRACES_EXPORTER=none turns tracing off,
// an unreachable receiver costs a warning, and a gRPC protocol is refused
// with a clear error.
func TestRunExportsTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the rlm binary")
	}
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	up := llmtest.NewServer(t)
	up.SetDefault(func(llmtest.Call) llmtest.Reply { return llmtest.Text("```python\nSUBMIT(answer='forty-two')\n```") })
	run := func(t *testing.T, env map[string]string) (int, string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd, stdout, stderr := childCommand(
			ctx,
			t,
			env,
			"run",
			"--query",
			"What is it?",
			"--base-url",
			up.URL(),
			"--model",
			"m",
			"--api-key",
			"sk-test-NOT-IN-SPANS",
		)
		err := cmd.Run()
		code := 0
		if err != nil {
			ee, ok := err.(interface{ ExitCode() int })
			require.True(t, ok, "rlm run: %v", err)
			code = ee.ExitCode()
		}
		return code, stdout.String(), stderr.String()
	}

	t.Run("exported", func(t *testing.T) {
		col := newCollector(t)
		code, stdout, stderr := run(t, map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": col.srv.URL,
			"OTEL_SERVICE_NAME":           "rlm-under-test",
			"OTEL_RESOURCE_ATTRIBUTES":    "deployment.environment.name=ci",
			"TRACEPARENT":                 "00-" + traceID + "-" + spanID + "-01",
		})
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, "forty-two\n", stdout)
		spans, resource, bad := col.spans()
		require.Empty(t, bad)
		assert.Equal(t, "rlm-under-test", resource["service.name"])
		assert.Equal(t, "ci", resource["deployment.environment.name"])
		names := map[string]*tracepb.Span{}
		for _, s := range spans {
			names[s.Name] = s
			assert.Equal(t, traceID, hexID(s.TraceId), "span %s is in the caller's trace", s.Name)
			for _, kv := range s.Attributes {
				assert.NotContains(t, kv.Value.String(), "sk-test-NOT-IN-SPANS")
				assert.NotContains(t, kv.Value.String(), "What is it?")
			}
		}
		require.Contains(t, names, "invoke_agent rlm")
		require.Contains(t, names, "rlm.step")
		require.Contains(t, names, "chat m")
		root := names["invoke_agent rlm"]
		assert.Equal(t, spanID, hexID(root.ParentSpanId))
		assert.Equal(t, root.SpanId, names["rlm.step"].ParentSpanId)
		assert.Equal(t, names["rlm.step"].SpanId, names["chat m"].ParentSpanId)
		assert.Equal(t, "submit", spanAttr(root, "rlm.stop_reason").GetStringValue())
		assert.Equal(t, "chat", spanAttr(names["chat m"], "gen_ai.operation.name").GetStringValue())
		assert.Positive(t, spanAttr(names["chat m"], "gen_ai.usage.input_tokens").GetIntValue())
		assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, names["chat m"].Kind)
	})

	t.Run("off", func(t *testing.T) {
		col := newCollector(t)
		code, stdout, stderr := run(t, map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": col.srv.URL,
			"OTEL_TRACES_EXPORTER":        "none",
		})
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, "forty-two\n", stdout)
		spans, _, bad := col.spans()
		assert.Empty(t, spans)
		assert.Empty(t, bad)
	})

	t.Run("unreachable receiver", func(t *testing.T) {
		col := newCollector(t)
		col.srv.Close() // nothing listens there any more
		code, stdout, stderr := run(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.srv.URL})
		require.Equal(t, 0, code, "a failed export never fails the run: %s", stderr)
		assert.Equal(t, "forty-two\n", stdout)
		assert.Contains(t, stderr, "rlm run: warning: traces: ")
	})

	t.Run("grpc refused", func(t *testing.T) {
		col := newCollector(t)
		before := up.Count()
		code, _, stderr := run(t, map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": col.srv.URL,
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		})
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: rlm exports OTLP over HTTP only: set it to http/protobuf")
		assert.Equal(t, before, up.Count(), "the run did not start")
	})
}

// rlm serve continues the trace of a request's traceparent and exports
// the run's spans when it shuts down: the batch processor's delay is
// longer than the test, so only the flush after the drain sends them.
func TestServeExportsTracesOnShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the rlm binary")
	}
	const (
		traceID = "0af7651916cd43dd8448eb211c80319c"
		spanID  = "b7ad6b7169203331"
	)
	col := newCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", col.srv.URL+"/v1/traces")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "600000")
	up := llmtest.NewServer(t)
	up.SetDefault(func(llmtest.Call) llmtest.Reply { return llmtest.Text("```python\nSUBMIT(answer='ok')\n```") })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sp := startServeProcess(ctx, t, "--base-url", up.URL(), "--model", "m", "--no-keep")
	req, err := http.NewRequest(
		"POST",
		"http://"+sp.addr+"/v1/chat/completions",
		strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"q"}]}`),
	)
	require.NoError(t, err)
	req.Header.Set("Traceparent", "00-"+traceID+"-"+spanID+"-01")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, string(body))
	spans, _, _ := col.spans()
	require.Empty(t, spans, "nothing is exported before the shutdown (OTEL_BSP_SCHEDULE_DELAY)")

	require.NoError(t, sp.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, sp.cmd.Wait(), sp.logs())
	spans, resource, bad := col.spans()
	require.Empty(t, bad)
	assert.Equal(t, "rlm", resource["service.name"], "service.name defaults to rlm")
	names := map[string]*tracepb.Span{}
	for _, s := range spans {
		names[s.Name] = s
		assert.Equal(t, traceID, hexID(s.TraceId), "span %s", s.Name)
	}
	require.Contains(t, names, "invoke_agent rlm", sp.logs())
	assert.Equal(t, spanID, hexID(names["invoke_agent rlm"].ParentSpanId))
	assert.Contains(t, names, "chat m")
	assert.NotEmpty(t, spanAttr(names["invoke_agent rlm"], "rlm.run.id").GetStringValue())
}

func hexID(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
