package sandbox

import (
	"fmt"
	"strings"
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
