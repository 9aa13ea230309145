package telemetry

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// DefaultFlushTimeout bounds the export of the spans left when a command
// ends ([Tracing.Shutdown]'s context, as cmd/rlm uses it).
const DefaultFlushTimeout = 10 * time.Second

// ServiceName is the service.name of rlm's spans unless OTEL_SERVICE_NAME
// (or service.name in OTEL_RESOURCE_ATTRIBUTES) names another.
const ServiceName = "rlm"

// EnvConfig configures [FromEnv].
type EnvConfig struct {
	// Getenv reads the variables that decide whether tracing is on (nil:
	// os.Getenv). The exporter and the resource read the process's
	// environment themselves (the OTLP endpoint, headers, timeout,
	// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES).
	Getenv func(string) string
	// Version is rlm's version (service.version and the scope's version).
	Version string
	// BaseURL is the model endpoint (the chat spans' server.address).
	BaseURL string
}

// Enabled reports whether the OTEL_* variables read with getenv turn
// tracing on, or why they cannot be honoured (ErrUnsupported):
//
//   - OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none: off;
//   - OTEL_TRACES_EXPORTER=otlp: on (the endpoint defaults to
//     http://localhost:4318);
//   - OTEL_TRACES_EXPORTER unset: on when OTEL_EXPORTER_OTLP_ENDPOINT or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, else off;
//   - another exporter, or an OTLP protocol (OTEL_EXPORTER_OTLP_PROTOCOL,
//     OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) other than http/protobuf (the
//     default) or http/json, such as grpc: ErrUnsupported.
func Enabled(getenv func(string) string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	on := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	if v := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); v != "" {
		on = false
		for _, name := range strings.Split(v, ",") {
			switch name = strings.TrimSpace(name); name {
			case "none":
				return false, nil
			case "otlp":
				on = true
			case "":
			default:
				return false, fmt.Errorf(
					"%w: OTEL_TRACES_EXPORTER=%s: rlm exports traces with otlp only (set otlp, or none to turn tracing off)",
					ErrUnsupported,
					name,
				)
			}
		}
	}
	if !on {
		return false, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		p := strings.TrimSpace(getenv(name))
		if p == "" {
			continue
		}
		if p != "http/protobuf" && p != "http/json" {
			return false, fmt.Errorf(
				"%w: %s=%s: rlm exports OTLP over HTTP only: set it to http/protobuf (or unset it) and point the endpoint at the collector's OTLP/HTTP port (usually 4318)",
				ErrUnsupported,
				name,
				p,
			)
		}
		break // the traces-specific setting wins
	}
	return true, nil
}

// FromEnv configures tracing from the standard OTEL_* variables (see
// [Enabled]): spans are batched (OTEL_BSP_*) and exported with OTLP over
// HTTP (OTEL_EXPORTER_OTLP_* and OTEL_EXPORTER_OTLP_TRACES_*), from a
// resource with service.name rlm unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES say otherwise; the sampler follows
// OTEL_TRACES_SAMPLER. It returns nil, and no error, when tracing is off.
// Call [Tracing.Shutdown] at the end to flush the spans.
func FromEnv(ctx context.Context, cfg EnvConfig) (*Tracing, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	on, err := Enabled(getenv)
	if err != nil || !on {
		return nil, err
	}
	attrs := semconv.ServiceName(ServiceName)
	res, err := sdkresource.New(ctx,
		sdkresource.WithAttributes(attrs, semconv.ServiceVersion(cfg.Version)),
		sdkresource.WithTelemetrySDK(),
		sdkresource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES: last, so they win
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return New(Config{Provider: tp, BaseURL: cfg.BaseURL, Version: cfg.Version, Shutdown: tp.Shutdown}), nil
}
