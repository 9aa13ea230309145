package loadtest

import "errors"

// Sentinel errors. Errors returned by this package wrap one of these.
var (
	// ErrServe: rlm serve did not start, or ended during the test.
	ErrServe = errors.New("loadtest: rlm serve failed")
	// ErrRequest: a request failed or got an unexpected answer.
	ErrRequest = errors.New("loadtest: request failed")
	// ErrConfig: a configuration that cannot be run.
	ErrConfig = errors.New("loadtest: bad configuration")
)
