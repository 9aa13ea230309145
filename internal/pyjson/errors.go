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
)

// bytesToString views b as a string without copying; b must not change.
func bytesToString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
