package viewer

import "errors"

var (
	// ErrNotTrajectory: the input does not start with a trajectory event.
	ErrNotTrajectory = errors.New("viewer: not an rlm trajectory")
	// ErrEmpty: the input has no events.
	ErrEmpty = errors.New("viewer: empty trajectory")
	// ErrSources: Write renders one trajectory or compares two.
	ErrSources = errors.New("viewer: a page shows one trajectory or compares two")
	// ErrNoEventsURL: a live page needs the URL of its event stream.
	ErrNoEventsURL = errors.New("viewer: a live page needs an events URL")
)
