package pyjson

import (
	"errors"
	"unsafe"
)

// Sentinel errors. Errors returned by this package wrap one of these.
var (
	// ErrInvalidUTF8: text input is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("pyjson: invalid UTF-8")
	// ErrSyntax: malformed JSON input (see *SyntaxError).
	ErrSyntax = errors.New("pyjson: malformed input")
	// ErrUnsupportedValue: a Go value that has no JSON value form.
	ErrUnsupportedValue = errors.New("pyjson: unsupported value")
	// ErrIntTooLong: an integer literal with more than MaxIntDigits digits
	// (CPython's int_max_str_digits rule; see *SyntaxError for where).
	ErrIntTooLong = errors.New("pyjson: integer string too long")
	// ErrTooDeep: arrays and objects nested deeper than the decoder allows
	// (see *SyntaxError for where).
	ErrTooDeep = errors.New("pyjson: nesting too deep")
)

// MaxIntDigits is the most digits an integer literal may have, CPython's
// default sys.get_int_max_str_digits(): converting longer ones takes time
// quadratic in their length (a 3-million-digit integer took 23 s).
const MaxIntDigits = 4300

// bytesToString views b as a string without copying; b must not change.
func bytesToString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
