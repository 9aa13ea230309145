package py

import (
	"errors"
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// errBadSpec marks a format spec that parseSpec could not read to its
// end; formatValue names the value's type in the error, as CPython does.
var errBadSpec = errors.New("sandbox: invalid format specifier")

// Sentinel errors of the limits the value layer enforces itself (the
// public face re-exports them beside its own). An error caused by a limit
// wraps the matching sentinel, so errors.Is(err, ErrMemoryLimit) works.
var (
	// ErrTimeout reports that a step ran longer than Limits.Timeout.
	ErrTimeout = errors.New("sandbox: time limit exceeded")
	// ErrMemoryLimit reports that a step allocated more than Limits.MaxMemory bytes.
	ErrMemoryLimit = errors.New("sandbox: memory limit exceeded")
	// ErrRecursionLimit reports that calls nested deeper than Limits.MaxRecursion.
	ErrRecursionLimit = errors.New("sandbox: maximum recursion depth exceeded")
	// ErrOutputLimit reports that a step printed more than Limits.MaxOutputBytes.
	ErrOutputLimit = errors.New("sandbox: output limit exceeded")
	// ErrUnsupported reports a Python construct or module the sandbox does not provide.
	ErrUnsupported = errors.New("sandbox: unsupported")
)

// PyError is an error raised by a builtin with an explicit Python
// exception kind. Builtins (including other packages' helpers) may return
// one to control the Kind of the resulting [*ScriptError].
type PyError struct {
	Kind string // Python exception name, e.g. "ValueError"
	Msg  string
	Err  error // optional wrapped cause (e.g. a sentinel)

	exc *exception     // the raised Python value, when raised by code
	key starlark.Value // a KeyError's missing key (see KeyErr)
}

// KeyErr is CPython's KeyError of the missing key k: its message is the
// key's repr and the exception's args hold the key itself (a missing
// int key 0 is KeyError(0), not KeyError('0')).
func KeyErr(k starlark.Value) error {
	return &PyError{Kind: "KeyError", Msg: Repr(k), key: k}
}

func (e *PyError) Error() string { return e.Kind + ": " + e.Msg }

// Unwrap returns the wrapped cause.
func (e *PyError) Unwrap() error { return e.Err }

// Errorf returns a [*PyError] of the given Python kind.
func Errorf(kind, format string, args ...any) error {
	return &PyError{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// RaisedByCode reports whether err was raised by the code itself: by a
// raise statement (also re-raising a caught exception the code raised) or
// a failed assert, so that the code chose its exception type and message.
// Every other error of a step — a limit, a builtin's or the interpreter's
// own exception (a KeyError of a missing key, a TypeError of a bad
// operand), a syntax error, a re-raised exception the engine raised — is
// classified by the engine.
func RaisedByCode(err error) bool {
	for err != nil {
		if pe, ok := err.(*PyError); ok && pe.exc != nil {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if RaisedByCode(e) {
					return true
				}
			}
			return false
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return false
		}
	}
	return false
}

var ErrInternal = errors.New("internal error")

// StopError is what a builtin returns when it notices that a limit
// stopped the step; the step's traceback reports the limit.
type StopError struct {
	Limit error
	Msg   string
}

func (e *StopError) Error() string { return e.Msg }

func (e *StopError) Unwrap() error { return e.Limit }
