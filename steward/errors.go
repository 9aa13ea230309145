package steward

import "errors"

// Sentinel errors.
var (
	// ErrNoProposal reports a proposal id that is not pending.
	ErrNoProposal = errors.New("steward: no such pending proposal")
	// ErrStale reports a proposal that no longer applies to the document
	// (the lesson it adds is there already, the one it retires is gone).
	ErrStale = errors.New("steward: the proposal no longer applies")
	// ErrNoVersion reports a rollback to a version with no snapshot.
	ErrNoVersion = errors.New("steward: no snapshot of that meta version")
	// ErrDrift reports drift over the threshold (rlm steward drift exits
	// non-zero).
	ErrDrift = errors.New("steward: drift over the threshold")
	// ErrNewerTrajectory reports a trajectory written by a newer rlm:
	// backfill leaves it alone.
	ErrNewerTrajectory = errors.New("steward: trajectory from a newer rlm")
)
