package builtins

import (
	"errors"
	"fmt"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/sandbox"
)

// Sentinel errors.
var (
	// ErrSubmit is wrapped by the *SubmitError that SUBMIT, FINAL and
	// FINAL_VAR raise to end a run.
	ErrSubmit = errors.New("builtins: submitted")
	// ErrDepthLimit is raised by rlm_query when no child runner is
	// available (the recursion depth limit is reached).
	ErrDepthLimit = errors.New("builtins: recursion depth limit reached")
	// ErrContextWindow is raised when a sub-call's prompt exceeds the
	// sub-model's context window.
	ErrContextWindow = errors.New("builtins: prompt exceeds the model's context window")
	// ErrChildCanceled is raised when the result of an rlm_query child
	// stopped by its handle's cancel() is read.
	ErrChildCanceled = errors.New("builtins: the child run was cancelled")
	// ErrChildRequest is wrapped by a ChildRunner's refusal of an
	// rlm_query request (e.g. a bad outputs schema or variable name); the
	// code sees a ValueError.
	ErrChildRequest = errors.New("builtins: bad rlm_query request")
)

// SubmitError ends a run with the model's outputs. It is raised by SUBMIT
// (Alias "SUBMIT"), FINAL and FINAL_VAR; errors.Is(err, ErrSubmit) holds.
type SubmitError struct {
	// Outputs are the submitted values (plain Go values, see rlmctx).
	Outputs *rlmctx.Dict
	// Alias is the helper that was called: "SUBMIT", "FINAL" or "FINAL_VAR".
	Alias string
}

// Error says which helper submitted how many outputs.
func (e *SubmitError) Error() string {
	return fmt.Sprintf("%s called with %d output(s)", e.Alias, e.Outputs.Len())
}

// Is reports whether target is ErrSubmit.
func (e *SubmitError) Is(target error) bool { return target == ErrSubmit }

// Uncatchable reports true: the run is ending, so no try/except in the
// model's code may swallow a SUBMIT (it implements sandbox.Uncatchable).
func (e *SubmitError) Uncatchable() bool { return true }

var _ sandbox.Uncatchable = (*SubmitError)(nil)
