package telemetry

import "errors"

// ErrUnsupported marks an OTEL_* setting that rlm cannot honour (another
// exporter than otlp, or an OTLP protocol other than http/protobuf).
var ErrUnsupported = errors.New("telemetry: unsupported setting")
