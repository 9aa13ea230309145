package server

import "errors"

// Sentinel errors. Errors returned by this package wrap one of these.
var (
	// ErrInsecure: a listen address that is not loopback without a token.
	ErrInsecure = errors.New("server: refusing to serve a non-loopback address without a bearer token")
	// ErrWeakToken: a bearer token shorter than MinTokenLen.
	ErrWeakToken = errors.New("server: bearer token too short")
	// ErrBadRequest: a request that cannot be served as given (bad JSON,
	// an unknown field in rlm, a bad variable name or output schema).
	ErrBadRequest = errors.New("server: bad request")
	// ErrBusy: every run slot and queue place is taken.
	ErrBusy = errors.New("server: too many runs")
	// ErrBodiesBusy: the request bodies being read and decoded at once
	// use all of Config.MaxBodyMemory.
	ErrBodiesBusy = errors.New("server: too many request bodies at once")
	// ErrDraining: the server is shutting down and takes no new runs.
	ErrDraining = errors.New("server: shutting down")
	// ErrNotFound: no such run, store key or model.
	ErrNotFound = errors.New("server: not found")
	// ErrTrajectoryDropped: a finished run whose trajectory is no longer
	// kept in memory (Config.RetainTrajectoryBytes).
	ErrTrajectoryDropped = errors.New("server: trajectory no longer kept")
	// ErrBodyTooLarge: a request body over the configured maximum.
	ErrBodyTooLarge = errors.New("server: request body too large")
	// ErrJSONTooLarge: a request JSON document with more values than
	// Config.MaxJSONValues.
	ErrJSONTooLarge = errors.New("server: request JSON has too many values")
	// ErrJSONTooDeep: a request JSON document nested deeper than
	// Config.MaxJSONDepth.
	ErrJSONTooDeep = errors.New("server: request JSON nested too deep")
	// ErrMeta: a meta document whose recommended budgets do not fit the
	// server's settings.
	ErrMeta = errors.New("server: meta document does not fit the server's settings")
	// ErrCanceled: a run canceled by POST /v1/runs/{id}/cancel.
	ErrCanceled = errors.New("server: run canceled by request")
	// ErrRunNotFinished: DELETE of a run that is queued or running.
	ErrRunNotFinished = errors.New("server: the run has not finished")
	// ErrBadConfig: a Config whose settings do not go together.
	ErrBadConfig = errors.New("server: bad configuration")
	// ErrNoCluster: Server.Work on a server without Config.Cluster.
	ErrNoCluster = errors.New("server: not a cluster replica (no cluster database configured)")
)
