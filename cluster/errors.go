package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Sentinel errors. Errors returned by this package wrap one of them where
// one applies; test with errors.Is.
var (
	// ErrNotFound reports a run id with no row in rlm_runs.
	ErrNotFound = errors.New("cluster: no such run")
	// ErrExists reports a Submit of a run id that is already stored with a
	// different request.
	ErrExists = errors.New("cluster: a different run with this id exists")
	// ErrFenced reports a write by a lease whose epoch is no longer the
	// run's: another owner took the run over (or the lease was finished or
	// released). Nothing was written; the owner must stop the run.
	ErrFenced = errors.New("cluster: lease fenced: another owner holds the run")
	// ErrLeaseHeld reports a Claim of a run whose lease another owner holds
	// and has not let expire.
	ErrLeaseHeld = errors.New("cluster: the run's lease is held by another owner")
	// ErrLeaseExpired is the cause of a lease whose heartbeat could not
	// renew it within its TTL: another owner may take the run over at any
	// moment, so the owner must stop.
	ErrLeaseExpired = errors.New("cluster: lease not renewed within its ttl")
	// ErrFinished reports a Claim of a run that already ended.
	ErrFinished = errors.New("cluster: the run has finished")
	// ErrTooManyOwners reports a Claim of a run whose owners died
	// Config.MaxOwners times: the claim marked the run failed instead.
	ErrTooManyOwners = errors.New("cluster: the run's owners died too many times")
	// ErrCancelRequested is the cause of a lease whose run was canceled
	// (DB.Cancel). It wraps context.Canceled, so code that checks for a
	// canceled context treats it as one.
	ErrCancelRequested = &cancelError{}
	// ErrUnavailable reports that the database could not be reached (a
	// connection failed or was lost). The operation may be retried; a
	// server reports it as not ready.
	ErrUnavailable = errors.New("cluster: database unavailable")
	// ErrNoSweep reports a sweep id with no row in rlm_sweeps.
	ErrNoSweep = errors.New("cluster: no such sweep")
	// ErrSweepExists reports a SubmitSweep of a sweep id that is already
	// stored with another configuration or other cells.
	ErrSweepExists = errors.New("cluster: a different sweep with this id exists")
	// ErrNoVar reports a store key that does not exist.
	ErrNoVar = errors.New("cluster: no such store key")
	// ErrVersionMismatch reports a compare-and-swap of a store key that
	// lost: the key's version (or value) is not the one expected.
	ErrVersionMismatch = errors.New("cluster: store key version mismatch")
	// ErrRetry, wrapped in an Executor's error, says that the run could not
	// start here for a reason that may pass (its variables' blob store is
	// unreachable): the run is released, not failed, and dispatched again
	// after Config.RetryDelay.
	ErrRetry = errors.New("cluster: retry the run later")
	// ErrNotFinished reports a Delete of a run that is queued or running.
	ErrNotFinished = errors.New("cluster: the run has not finished")
	// ErrIdempotencyConflict reports an Idempotency-Key used before with
	// another request body.
	ErrIdempotencyConflict = errors.New("cluster: idempotency key used with another request")
	// ErrClosed reports a call on a closed DB or a stopped worker.
	ErrClosed = errors.New("cluster: closed")
)

// cancelError is ErrCancelRequested: it unwraps to context.Canceled.
type cancelError struct{}

func (*cancelError) Error() string { return "cluster: the run's cancellation was requested" }
func (*cancelError) Unwrap() error { return context.Canceled }

// unavailableError wraps a connection failure: errors.Is matches both
// ErrUnavailable and the driver's error.
type unavailableError struct {
	op  string
	err error
}

func (e *unavailableError) Error() string {
	return "cluster: " + e.op + ": database unavailable: " + e.err.Error()
}

func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// wrapErr prefixes err with the operation; connection failures also wrap
// ErrUnavailable. Errors that already carry one of this package's sentinels
// pass through unchanged.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	for _, s := range []error{ErrNotFound, ErrExists, ErrFenced, ErrLeaseHeld, ErrLeaseExpired, ErrFinished, ErrTooManyOwners, ErrCancelRequested, ErrUnavailable, ErrClosed, ErrNoSweep, ErrSweepExists, ErrNoVar, ErrVersionMismatch, ErrIdempotencyConflict, ErrNotFinished} {
		if errors.Is(err, s) {
			return err
		}
	}
	if isConnErr(err) {
		return &unavailableError{op: op, err: err}
	}
	return fmt.Errorf("cluster: %s: %w", op, err)
}

// isConnErr reports whether err is a failure to reach the database rather
// than an error of the statement.
func isConnErr(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return true
	case errors.As(err, &pe):
		// Class 08: connection exception; 57P01-57P03: the server is
		// shutting down or not accepting connections yet.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	return pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed")
}
