// Package telemetry traces rlm runs with OpenTelemetry, following the
// GenAI semantic conventions: a run is a trace whose root span is the
// root RLM (invoke_agent rlm), with a span for each step of each RLM
// (rlm.step), each model call (chat MODEL; a step's root call or a
// sub-call its code made) and each child RLM started by rlm_query, under
// the step that started it. Tokens, cost and stop reasons are attributes;
// no prompt, reply, variable or secret is.
//
// [FromEnv] configures tracing from the standard OTEL_* environment
// variables and exports OTLP over HTTP (http/protobuf or http/json); it
// is off (nil) unless an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp is
// set. [New] takes
// any TracerProvider (e.g. one with the SDK's in-memory exporter in
// tests). A nil *Tracing is valid and traces nothing: [Tracing.Tracer]
// returns a nil orchestrator.Tracer, which the engine skips at no cost.
package telemetry
