package orchestrator

import "errors"

// Sentinel errors. A [Result]'s Err wraps one of them when the run did not
// end with a valid SUBMIT.
var (
	// ErrMaxIterations reports that the run used Config.MaxIterations iterations.
	ErrMaxIterations = errors.New("orchestrator: iteration limit reached")
	// ErrIterationBudget reports that the run tree used Config.MaxTotalIterations.
	ErrIterationBudget = errors.New("orchestrator: iteration budget of the run tree exhausted")
	// ErrTooManyErrors reports Config.MaxConsecutiveErrors failed steps in a row.
	ErrTooManyErrors = errors.New("orchestrator: too many consecutive errors")
	// ErrTimeout reports that the run exceeded Config.Timeout.
	ErrTimeout = errors.New("orchestrator: run time limit reached")
	// ErrActiveTimeBudget reports that the run tree's active time reached
	// Config.MaxActiveTime (wrapped with llm.ErrBudgetExceeded).
	ErrActiveTimeBudget = errors.New("orchestrator: active time budget of the run tree exhausted")
	// ErrBadSchema reports an output schema that cannot be parsed.
	ErrBadSchema = errors.New("orchestrator: bad output schema")
	// ErrInvalidSubmit reports SUBMIT outputs that do not match the declared schema.
	ErrInvalidSubmit = errors.New("orchestrator: invalid SUBMIT")
	// ErrReservedName reports a context variable named like a REPL helper
	// (len, search, SUBMIT, ...) or the engine's outputs variable.
	ErrReservedName = errors.New("orchestrator: reserved variable name")
	// ErrObservationBudget reports an observation excerpt
	// (Limits.ObservationTokens) too large for the history budget
	// (DynamicBudget): it must be at most half of it.
	ErrObservationBudget = errors.New("orchestrator: the observation excerpt does not fit the history budget")
	// ErrNoModel reports a Config without a root model.
	ErrNoModel = errors.New("orchestrator: no model configured")
	// ErrUncitedSummary rejects a summarizer's summary with a line that
	// cites no compressed step: the deterministic summary is used.
	ErrUncitedSummary = errors.New("orchestrator: the summary does not cite its steps")
)
