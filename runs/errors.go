package runs

import "errors"

// Sentinel errors.
var (
	// ErrNotFound reports a run id with no run directory.
	ErrNotFound = errors.New("runs: no such run")
	// ErrBadID reports a malformed run id.
	ErrBadID = errors.New("runs: bad run id")
	// ErrRunning reports an operation refused because the run's process is
	// still alive.
	ErrRunning = errors.New("runs: the run is still running")
	// ErrNotResumable reports a run that cannot be resumed as it is (it
	// finished, or it has no recording).
	ErrNotResumable = errors.New("runs: the run cannot be resumed")
	// ErrDiverged reports a resumed run whose state does not match the
	// recorded one (the inputs changed, or the code behaves differently):
	// continuing would build on a different state, so the resume stops.
	ErrDiverged = errors.New("runs: the resumed run diverged from the recording")
	// ErrBadAge reports an unparsable age such as "30x".
	ErrBadAge = errors.New("runs: bad age")
)
