package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// Sentinel errors for the limits of a step. A [*ScriptError] caused by a
// limit wraps the matching sentinel, so errors.Is(err, ErrStepLimit) works.
var (
	// ErrStepLimit reports that a step executed more than Limits.MaxSteps steps.
	ErrStepLimit = errors.New("sandbox: step limit exceeded")
	// ErrTimeout reports that a step ran longer than Limits.Timeout.
	ErrTimeout = py.ErrTimeout
	// ErrMemoryLimit reports that a step allocated more than Limits.MaxMemory bytes.
	ErrMemoryLimit = py.ErrMemoryLimit
	// ErrSessionMemoryLimit reports that a step grew the session's heap past
	// Limits.MaxSessionMemory bytes (the total across steps).
	ErrSessionMemoryLimit = errors.New("sandbox: session memory limit exceeded")
	// ErrRecursionLimit reports that calls nested deeper than Limits.MaxRecursion.
	ErrRecursionLimit = py.ErrRecursionLimit
	// ErrOutputLimit reports that a step printed more than Limits.MaxOutputBytes.
	ErrOutputLimit = py.ErrOutputLimit
	// ErrUnsupported reports a Python construct or module the sandbox does not provide.
	ErrUnsupported = py.ErrUnsupported
	// ErrCanceled reports that the caller's context was canceled during a step.
	ErrCanceled = errors.New("sandbox: step canceled")
)

// ScriptError is an error raised by the model's code: a syntax error, a
// Python exception, or a limit. Its Unwrap chain includes the Go error
// raised by a builtin, so errors.Is/As see through it.
type ScriptError struct {
	// Kind is the Python exception name, e.g. "KeyError", "SyntaxError".
	Kind string
	// Msg is the exception message, without the kind.
	Msg string
	// Line is the 1-based line of the model's code where the error happened (0 if unknown).
	Line int
	// Traceback is a short Python-style traceback ending with "Kind: Msg".
	Traceback string
	// Err is the underlying error.
	Err error
}

// Error returns "Kind: Msg" with the line, e.g. "line 3: KeyError: 'x'".
func (e *ScriptError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Kind)
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ScriptError) Unwrap() error { return e.Err }

// PyError is an error raised by a builtin with an explicit Python
// exception kind. Builtins (including other packages' helpers) may return
// one to control the Kind of the resulting [*ScriptError].
type PyError = py.PyError

// Errorf returns a [*PyError] of the given Python kind.
func Errorf(kind, format string, args ...any) error { return py.Errorf(kind, format, args...) }

// RaisedByCode reports whether err was raised by the code itself: by a
// raise statement (also re-raising a caught exception the code raised) or
// a failed assert, so that the code chose its exception type and message.
// Every other error of a step (a limit, a builtin's or the interpreter's
// own exception, a syntax error, a re-raised exception the engine raised)
// is classified by the engine.
func RaisedByCode(err error) bool { return py.RaisedByCode(err) }
