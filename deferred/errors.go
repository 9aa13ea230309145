package deferred

import "errors"

// Sentinel errors.
var (
	// ErrClosed is the error of operations canceled by [Group.Close].
	ErrClosed = errors.New("deferred: group closed")
	// ErrPanic wraps a panic raised by an operation.
	ErrPanic = errors.New("deferred: operation panicked")
)
