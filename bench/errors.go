package bench

import "errors"

// Sentinel errors.
var (
	// ErrUnknownTask means a task kind is not one of [Kinds].
	ErrUnknownTask = errors.New("unknown bench task")
	// ErrBadSize means a size is not a positive token count like 8k or 1m.
	ErrBadSize = errors.New("bad bench size")
	// ErrContextOverflow means the direct prompt does not fit the model's
	// context window; the item is recorded as failed without sending it.
	ErrContextOverflow = errors.New("context exceeds the model's window")
	// ErrNoRunner means a mode was requested without a runner for it.
	ErrNoRunner = errors.New("no runner for bench mode")
)

// Failure kinds recorded in [Result.Failure].
const (
	FailContextOverflow = "context_overflow"
	FailTimeout         = "timeout"
	FailError           = "error"
)
