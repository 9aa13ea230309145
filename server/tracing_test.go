package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/rlmhq/rlm/telemetry"
)

// A run started by a request carrying a W3C traceparent continues the
// caller's trace: its span is a child of the caller's span and every span
// of the run (steps, the root calls, the sub-call) is in the caller's
// trace; the run's span names the run's id. Without the header, the run
// starts a trace of its own.
func TestRunsContinueTheCallersTrace(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ts := newTestServer(t, func(c *Config) {
		c.Tracing = telemetry.New(telemetry.Config{Provider: tp, BaseURL: c.LLM.BaseURL})
	})
	for _, tc := range []struct {
		name, path string
		parent     bool
	}{
		{"chat completion", "/v1/chat/completions", true},
		{"run API", "/v1/runs", true},
		{"chat completion without traceparent", "/v1/chat/completions", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exp.Reset()
			var hdr []string
			if tc.parent {
				hdr = []string{"Traceparent", "00-" + traceID + "-" + spanID + "-01"}
			}
			code, _, body := ts.do(t, "POST", tc.path, chatBody("sub", nil), hdr...)
			require.Less(t, code, 300, string(body))
			var runID string
			if tc.path == "/v1/runs" {
				var created RunResult
				require.NoError(t, json.Unmarshal(body, &created))
				runID = created.ID
				require.Equal(t, StateDone, ts.waitRun(t, runID).Status)
			} else {
				var out struct{ RLM rlmSummary }
				require.NoError(t, json.Unmarshal(body, &out))
				runID = out.RLM.RunID
			}
			require.NotEmpty(t, runID)

			spans := exp.GetSpans()
			byName := map[string]int{}
			var root tracetest.SpanStub
			for _, s := range spans {
				byName[s.Name]++
				if s.Name == "invoke_agent rlm" {
					root = s
				}
			}
			assert.Equal(
				t,
				map[string]int{"invoke_agent rlm": 1, telemetry.StepSpanName: 2, "chat " + rootModel: 2, "chat " + subModel: 1},
				byName,
			)
			if tc.parent {
				for _, s := range spans {
					assert.Equal(t, traceID, s.SpanContext.TraceID().String(), "span %s", s.Name)
				}
				assert.Equal(t, spanID, root.Parent.SpanID().String())
				assert.True(t, root.Parent.IsRemote())
			} else {
				assert.False(t, root.Parent.IsValid(), "no traceparent: the run is a trace of its own")
				assert.NotEqual(t, traceID, root.SpanContext.TraceID().String())
			}
			var gotID string
			for _, kv := range root.Attributes {
				if kv.Key == attribute.Key("rlm.run.id") {
					gotID = kv.Value.AsString()
				}
			}
			assert.Equal(t, runID, gotID)
			for _, s := range spans {
				for _, kv := range s.Attributes {
					assert.NotContains(t, kv.Value.String(), canaryKey)
					assert.NotContains(t, kv.Value.String(), canaryToken)
				}
			}
		})
	}
}
