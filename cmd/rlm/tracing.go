package main

import (
	"cmp"
	"context"
	"fmt"

	"go.opentelemetry.io/otel"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/telemetry"
)

// startTracing configures OpenTelemetry tracing from the standard OTEL_*
// variables: nil (off, at no cost) unless an OTLP endpoint or
// OTEL_TRACES_EXPORTER=otlp is set. baseURL is the model endpoint the chat
// spans name. When tracing is on, the SDK's errors (an export that
// failed) go to warn instead of the standard logger: the SDK reports them
// through its process-wide handler, which only a command sets.
func startTracing(ctx context.Context, env *cliEnv, baseURL string, warn func(error)) (*telemetry.Tracing, error) {
	tr, err := telemetry.FromEnv(
		ctx,
		telemetry.EnvConfig{Getenv: env.getenv, Version: buildVersion(), BaseURL: cmp.Or(baseURL, llm.DefaultBaseURL)},
	)
	if err != nil {
		return nil, fmt.Errorf("%w (tracing is configured by the OTEL_* variables: see docs/operations.md, Traces)", err)
	}
	if tr.Enabled() {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(warn))
	}
	return tr, nil
}

// flushTracing exports the spans not yet sent, within
// telemetry.DefaultFlushTimeout, and stops tracing.
func flushTracing(tr *telemetry.Tracing) error {
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.DefaultFlushTimeout)
	defer cancel()
	return tr.Shutdown(ctx)
}
