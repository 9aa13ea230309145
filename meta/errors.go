package meta

import "errors"

// Sentinel errors.
var (
	// ErrInvalid reports a meta document that does not follow the schema
	// or the engine's rules (lesson text, ids, duplicates).
	ErrInvalid = errors.New("meta: invalid meta document")
	// ErrUnknownTemplate reports a lesson template the engine does not have.
	ErrUnknownTemplate = errors.New("meta: unknown lesson template")
	// ErrNotRegular reports a meta document path that is not a regular
	// file (a FIFO or a device, which could block or never end).
	ErrNotRegular = errors.New("meta: not a regular file")
	// ErrTooLarge reports a meta document over MaxDocumentBytes.
	ErrTooLarge = errors.New("meta: document too large")
	// ErrOverBudget reports lessons that do not fit the notes budget of the
	// meta section.
	ErrOverBudget = errors.New("meta: lessons over the notes budget")
)
