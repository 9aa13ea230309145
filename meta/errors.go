package meta

import "errors"

// Sentinel errors.
var (
	// ErrInvalid reports a meta document that does not follow the schema
	// or the engine's rules (lesson text, ids, duplicates).
	ErrInvalid = errors.New("meta: invalid meta document")
	// ErrUnknownTemplate reports a lesson template the engine does not have.
	ErrUnknownTemplate = errors.New("meta: unknown lesson template")
	// ErrOverBudget reports lessons that do not fit the notes budget of the
	// meta section.
	ErrOverBudget = errors.New("meta: lessons over the notes budget")
)
