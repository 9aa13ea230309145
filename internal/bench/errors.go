package bench

import "errors"

// Sentinel errors.
var (
	// ErrUnknownTask means a task kind is not one of [Kinds].
	ErrUnknownTask = errors.New("bench: unknown task")
	// ErrBadSize means a size is not a positive token count like 8k or 1m.
	ErrBadSize = errors.New("bench: bad size")
	// ErrContextOverflow means the direct prompt does not fit the model's
	// context window; the item is recorded as failed without sending it.
	ErrContextOverflow = errors.New("bench: context exceeds the model's window")
	// ErrNoRunner means a mode was requested without a runner for it.
	ErrNoRunner = errors.New("bench: no runner for mode")
	// ErrResultsExist means Config.Results already holds results and
	// Config.Resume is not set: continue that run, or write elsewhere.
	ErrResultsExist = errors.New("bench: the results file already holds results")
	// ErrOtherModel means Config.Results holds results of another model,
	// which a resumed run must not mix with its own.
	ErrOtherModel = errors.New("bench: the results file holds results of another model")
)

// Failure kinds recorded in [Result.Failure].
const (
	FailContextOverflow = "context_overflow"
	FailTimeout         = "timeout"
	FailError           = "error"
)
