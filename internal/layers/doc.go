// Package layers holds no code: its test checks that imports point down the
// project's layers, so that a new feature cannot add an upward import.
//
// From the bottom: the leaves internal/pyjson, internal/pyre,
// internal/jsonl, internal/numfmt, internal/pylines and internal/textdist import only the standard library; the sandbox imports no
// model client, helper or orchestration package, and inside it the Python
// modules (sandbox/internal/pylib) sit above the value layer
// (sandbox/internal/py), which never imports them; llm knows nothing of the
// sandbox; builtins and context sit below the orchestrator; telemetry
// (OpenTelemetry tracing of runs) sits on the orchestrator, below the
// server; only cmd/rlm sees everything.
//
// A second test checks that no library string names a command-line flag:
// libraries are configured through Config fields, and cmd/rlm adds the
// advice about which flag to pass.
package layers
