package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/rlmhq/rlm/runs"
)

// Run is a row of rlm_runs.
type Run struct {
	ID     string
	Status runs.Status
	Query  string
	Model  string
	// Spec is the opaque request to execute (the executor decodes it).
	Spec []byte
	// Config is the opaque run configuration (JSON; nil: none).
	Config json.RawMessage
	// Created, Started and Ended are the database's times (zero: not yet).
	Created, Started, Ended time.Time
	// Epoch is the fencing token of the current (or last) lease.
	Epoch int64
	// Owner names the process holding the lease ("" when none does).
	Owner string
	// LeaseUntil is when the lease expires, on the database clock.
	LeaseUntil time.Time
	// Owners counts the claims of the run (a Release gives one back).
	Owners          int
	CancelRequested bool
	// Result is the content of result.json (nil: none).
	Result     []byte
	Error      string
	StopReason string
	Iterations int
	Tokens     int
	CostUSD    *float64 // nil: unknown
}

// Finished reports whether the run's status is final.
func (r Run) Finished() bool { return finished(r.Status) }

func finished(s runs.Status) bool {
	return s != runs.StatusQueued && s != runs.StatusRunning
}

// Var is a run variable stored as a blob: a reference for the blob GC,
// and what a worker loads.
type Var struct {
	Name   string
	Digest string
	Size   int64
	// Type is the variable's type and Encoding how the blob holds it
	// ("text" or "json"), as in StoreVar ("": not given).
	Type     string
	Encoding string
}

// Event is one line of a run's trajectory (or recording) and its sequence
// number, from 1 up without a gap.
type Event struct {
	Seq  int64
	Line []byte
}

// ListOptions filters List.
type ListOptions struct {
	// Status keeps only runs with this status ("": all).
	Status runs.Status
	// Before is a cursor: only runs listed after the run with this id
	// (older ones). "": from the newest.
	Before string
	// Limit caps the result (<= 0: 100).
	Limit int
}

const runCols = `id, status, query, model, spec, config, created_at, started_at, ended_at, epoch, owner,
	lease_until, owners, cancel_requested, result, error, stop_reason, iterations, tokens, cost_usd`

func scanRun(row pgx.Row) (Run, error) {
	var r Run
	var status string
	var started, ended, until pgtype.Timestamptz
	var config []byte
	err := row.Scan(&r.ID, &status, &r.Query, &r.Model, &r.Spec, &config, &r.Created, &started, &ended,
		&r.Epoch, &r.Owner, &until, &r.Owners, &r.CancelRequested, &r.Result, &r.Error, &r.StopReason,
		&r.Iterations, &r.Tokens, &r.CostUSD)
	if err != nil {
		return Run{}, err
	}
	r.Status = runs.Status(status)
	if config != nil {
		r.Config = json.RawMessage(config)
	}
	r.Started, r.Ended, r.LeaseUntil = started.Time, ended.Time, until.Time
	return r, nil
}

// jsonArg passes raw JSON to a jsonb parameter (nil or empty: NULL).
func jsonArg(m json.RawMessage) any {
	if len(m) == 0 {
		return nil
	}
	return string(m)
}

// runArgs are the arguments of a run's River job. Epoch is the run's epoch
// when the job was inserted: jobs are unique by run and epoch, so a
// retried Submit or a second reaper pass inserts nothing new, while a run
// whose lease expired again (at a later epoch) gets a new job.
type runArgs struct {
	RunID string `json:"run_id"`
	Epoch int64  `json:"epoch"`
}

// Kind is the River job kind.
func (runArgs) Kind() string { return JobKind }

// InsertOpts puts run jobs on their queue, unique by arguments among jobs
// not yet finalized. Finalized jobs are left out of the uniqueness so that
// a run whose no-op job completed (its lease was still held) can be
// dispatched again at the same epoch; Claim, not the job, guarantees that
// one owner runs it.
func (runArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue: QueueName,
		UniqueOpts: river.UniqueOpts{
			ByArgs: true,
			ByState: []rivertype.JobState{
				rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
				rivertype.JobStateRetryable, rivertype.JobStateScheduled,
			},
		},
	}
}

// Submit stores a new queued run with its variables and inserts its River
// job, in one transaction: either all of it is stored or nothing is. Submitting
// again a run with the same id and the same request (query, model, spec,
// config and vars) is a no-op that returns nil, so a client may retry a
// submission whose answer it lost; a different request with the same id
// returns an error wrapping ErrExists. The run's Status, times, lease and
// outcome fields are ignored.
func (db *DB) Submit(ctx context.Context, r Run, vars []Var) error {
	if r.ID == "" {
		return errors.New("cluster: submit: empty run id")
	}
	if err := runs.CheckID(r.ID); err != nil {
		return fmt.Errorf("cluster: submit: %w", err)
	}
	if len(r.Config) > 0 && !json.Valid(r.Config) {
		return errors.New("cluster: submit: config is not valid JSON")
	}
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error { return db.submitTx(ctx, tx, r, vars) })
	return wrapErr("submit "+r.ID, err)
}

// submitTx stores run r, its variables and its job in tx (see Submit).
func (db *DB) submitTx(ctx context.Context, tx pgx.Tx, r Run, vars []Var) error {
	tag, err := tx.Exec(ctx, `INSERT INTO rlm_runs (id, status, query, model, spec, config, created_at)
		VALUES ($1, $2, $3, $4, $5, $6::jsonb, clock_timestamp()) ON CONFLICT (id) DO NOTHING`,
		r.ID, string(runs.StatusQueued), r.Query, r.Model, r.Spec, jsonArg(r.Config))
	if err != nil {
		return wrapErr("submit "+r.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return db.sameSubmit(ctx, tx, r, vars)
	}
	for _, v := range vars {
		if _, err := tx.Exec(ctx, `INSERT INTO rlm_run_vars (run_id, name, digest, size, type, encoding) VALUES ($1, $2, $3, $4, $5, $6)`,
			r.ID, v.Name, v.Digest, v.Size, v.Type, v.Encoding); err != nil {
			return wrapErr("submit "+r.ID+": var "+v.Name, err)
		}
		if err := markBlob(ctx, tx, v.Digest, v.Size); err != nil {
			return wrapErr("submit "+r.ID+": blob", err)
		}
	}
	res, err := db.river.InsertTx(ctx, tx, runArgs{RunID: r.ID}, nil)
	if err != nil {
		return wrapErr("submit "+r.ID+": insert job", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE rlm_runs SET job_id = $2 WHERE id = $1`, r.ID, res.Job.ID); err != nil {
		return wrapErr("submit "+r.ID, err)
	}
	return nil
}

// Idempotency names a submission made with an Idempotency-Key: Route and
// Key identify it for TTL, BodyHash is the hash of the request it came
// with.
type Idempotency struct {
	Route, Key string
	BodyHash   []byte
	TTL        time.Duration
}

// SubmitOnce submits run r unless a submission with the same
// Idempotency-Key (route and key) was made within idem.TTL, on any
// replica: then it stores nothing and returns the id of that
// submission's run and true. The same key with another request body is
// an error wrapping ErrIdempotencyConflict. Concurrent submissions with
// one key store one run.
func (db *DB) SubmitOnce(ctx context.Context, r Run, vars []Var, idem Idempotency) (string, bool, error) {
	if err := runs.CheckID(r.ID); err != nil {
		return "", false, fmt.Errorf("cluster: submit: %w", err)
	}
	runID, repeat := r.ID, false
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var owner string
		err := tx.QueryRow(ctx, `INSERT INTO rlm_idempotency (route, key, body_hash, run_id) VALUES ($1, $2, $3, $4)
			ON CONFLICT (route, key) DO UPDATE SET body_hash = EXCLUDED.body_hash, run_id = EXCLUDED.run_id, created_at = clock_timestamp()
				WHERE rlm_idempotency.created_at < clock_timestamp() - $5::bigint * interval '1 microsecond'
			RETURNING run_id`, idem.Route, idem.Key, idem.BodyHash, r.ID, idem.TTL.Microseconds()).Scan(&owner)
		if err == nil {
			return db.submitTx(ctx, tx, r, vars)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var hash []byte
		if err := tx.QueryRow(ctx, `SELECT body_hash, run_id FROM rlm_idempotency WHERE route = $1 AND key = $2`, idem.Route, idem.Key).Scan(&hash, &runID); err != nil {
			return err
		}
		if !bytes.Equal(hash, idem.BodyHash) {
			return fmt.Errorf("%w: %s", ErrIdempotencyConflict, idem.Key)
		}
		repeat = true
		return nil
	})
	if err != nil {
		return "", false, wrapErr("submit "+r.ID, err)
	}
	return runID, repeat, nil
}

// sameSubmit returns nil if the stored run r.ID has r's request, and an
// error wrapping ErrExists if not.
func (db *DB) sameSubmit(ctx context.Context, tx pgx.Tx, r Run, vars []Var) error {
	var same bool
	err := tx.QueryRow(ctx, `SELECT query = $2 AND model = $3 AND spec IS NOT DISTINCT FROM $4
			AND config IS NOT DISTINCT FROM $5::jsonb FROM rlm_runs WHERE id = $1`,
		r.ID, r.Query, r.Model, r.Spec, jsonArg(r.Config)).Scan(&same)
	if err != nil {
		return wrapErr("submit "+r.ID, err)
	}
	if same {
		stored, err := runVars(ctx, tx, r.ID)
		if err != nil {
			return wrapErr("submit "+r.ID, err)
		}
		want := slices.Clone(vars)
		slices.SortFunc(want, func(a, b Var) int { return strings.Compare(a.Name, b.Name) })
		same = slices.Equal(stored, want)
	}
	if !same {
		return fmt.Errorf("%w: %s", ErrExists, r.ID)
	}
	return nil
}

func runVars(ctx context.Context, q pgx.Tx, id string) ([]Var, error) {
	rows, err := q.Query(ctx, `SELECT name, digest, size, type, encoding FROM rlm_run_vars WHERE run_id = $1 ORDER BY name`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Var, error) {
		var v Var
		err := row.Scan(&v.Name, &v.Digest, &v.Size, &v.Type, &v.Encoding)
		return v, err
	})
}

// Vars returns the variables of run id, by name.
func (db *DB) Vars(ctx context.Context, id string) ([]Var, error) {
	var out []Var
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var err error
		out, err = runVars(ctx, tx, id)
		return err
	})
	return out, wrapErr("vars "+id, err)
}

// Get returns run id (ErrNotFound if there is none).
func (db *DB) Get(ctx context.Context, id string) (Run, error) {
	r, err := scanRun(db.pool.QueryRow(ctx, `SELECT `+runCols+` FROM rlm_runs WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Run{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return r, wrapErr("get "+id, err)
}

// List returns runs newest first (by creation time, then id).
func (db *DB) List(ctx context.Context, o ListOptions) ([]Run, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = 100
	}
	q := `SELECT ` + runCols + ` FROM rlm_runs r WHERE ($1 = '' OR status = $1)`
	args := []any{string(o.Status), limit}
	if o.Before != "" {
		q += ` AND (created_at, id) < (SELECT created_at, id FROM rlm_runs WHERE id = $3)`
		args = append(args, o.Before)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT $2`
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, wrapErr("list", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Run, error) { return scanRun(row) })
	return out, wrapErr("list", err)
}

// Cancel asks run id to stop. A queued run becomes canceled at once (and
// its job is cancelled); a running run gets cancel_requested, and its
// owner's lease Done closes with ErrCancelRequested (a notification reaches
// it at once, its heartbeat within LeaseTTL/3 otherwise); a finished run is
// left as it is. Cancel returns the run as it is after the call.
func (db *DB) Cancel(ctx context.Context, id string) (Run, error) {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var status string
		var jobID *int64
		err := tx.QueryRow(ctx, `SELECT status, job_id FROM rlm_runs WHERE id = $1 FOR UPDATE`, id).Scan(&status, &jobID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		switch runs.Status(status) {
		case runs.StatusQueued:
			if _, err := tx.Exec(ctx, `UPDATE rlm_runs SET status = $2, cancel_requested = true, ended_at = clock_timestamp(),
				error = 'canceled before it started' WHERE id = $1`, id, string(runs.StatusCanceled)); err != nil {
				return err
			}
			if jobID != nil {
				if _, err := db.river.JobCancelTx(ctx, tx, *jobID); err != nil && !errors.Is(err, river.ErrNotFound) {
					return err
				}
			}
			_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, db.eventsChannel, id)
			return err
		case runs.StatusRunning:
			if _, err := tx.Exec(ctx, `UPDATE rlm_runs SET cancel_requested = true WHERE id = $1`, id); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, db.cancelChannel, id)
			return err
		}
		return nil
	})
	if err != nil {
		return Run{}, wrapErr("cancel "+id, err)
	}
	return db.Get(ctx, id)
}

// Events returns up to limit events of run id with seq > afterSeq, in seq
// order (limit <= 0: all). A run with no events (or no row) gives none.
func (db *DB) Events(ctx context.Context, id string, afterSeq int64, limit int) ([]Event, error) {
	lim := any(nil)
	if limit > 0 {
		lim = limit
	}
	rows, err := db.pool.Query(
		ctx,
		`SELECT seq, line FROM rlm_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
		id,
		afterSeq,
		lim,
	)
	if err != nil {
		return nil, wrapErr("events "+id, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Event, error) {
		var e Event
		err := row.Scan(&e.Seq, &e.Line)
		return e, err
	})
	return out, wrapErr("events "+id, err)
}

// Recording returns the recording of run id, one line per model answer in
// the order they were appended.
func (db *DB) Recording(ctx context.Context, id string) ([][]byte, error) {
	rows, err := db.pool.Query(ctx, `SELECT line FROM rlm_recording WHERE run_id = $1 ORDER BY seq`, id)
	if err != nil {
		return nil, wrapErr("recording "+id, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	return out, wrapErr("recording "+id, err)
}

// MarkBlob records that the blob digest of size bytes exists and was used
// now: a blob store calls it before (re)using a blob, so that the GC, which
// only collects blobs unused for a while, does not delete it under a run
// being submitted.
func (db *DB) MarkBlob(ctx context.Context, digest string, size int64) error {
	return wrapErr("mark blob "+digest, markBlob(ctx, db.pool, digest, size))
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func markBlob(ctx context.Context, q execer, digest string, size int64) error {
	_, err := q.Exec(ctx, `INSERT INTO rlm_blobs (digest, size) VALUES ($1, $2)
		ON CONFLICT (digest) DO UPDATE SET last_used = now()`, digest, size)
	return err
}

// unreferenced is the condition of a blob b that no run variable and no
// store key references.
const unreferenced = `NOT EXISTS (SELECT 1 FROM rlm_run_vars v WHERE v.digest = b.digest)
		AND NOT EXISTS (SELECT 1 FROM rlm_store_vars s WHERE s.digest = b.digest)`

// UnreferencedBlobs returns the digests of blobs that no run variable and
// no store key references and that were last used more than olderThan ago (database
// clock): the candidates of a blob GC.
func (db *DB) UnreferencedBlobs(ctx context.Context, olderThan time.Duration) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT digest FROM rlm_blobs b
		WHERE last_used < now() - $1::bigint * interval '1 microsecond'
		AND `+unreferenced+` ORDER BY digest`, olderThan.Microseconds())
	if err != nil {
		return nil, wrapErr("unreferenced blobs", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, wrapErr("unreferenced blobs", err)
}

// ForgetBlob deletes the row of blob digest if it is still unreferenced and
// unused for olderThan, and reports whether it did: a GC deletes the blob's
// content only after ForgetBlob returned true.
func (db *DB) ForgetBlob(ctx context.Context, digest string, olderThan time.Duration) (bool, error) {
	tag, err := db.pool.Exec(ctx, `DELETE FROM rlm_blobs b WHERE digest = $1
		AND last_used < now() - $2::bigint * interval '1 microsecond'
		AND `+unreferenced, digest, olderThan.Microseconds())
	if err != nil {
		return false, wrapErr("forget blob "+digest, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Delete removes finished run id with its journal, variables' references
// and idempotency keys (the blobs go to the blob GC). A run that is queued
// or running is refused with ErrNotFinished; an unknown one is ErrNotFound.
func (db *DB) Delete(ctx context.Context, id string) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var status string
		if err := tx.QueryRow(ctx, `SELECT status FROM rlm_runs WHERE id = $1 FOR UPDATE`, id).Scan(&status); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("%w: %s", ErrNotFound, id)
			}
			return err
		}
		if !finished(runs.Status(status)) {
			return fmt.Errorf("%w: %s is %s", ErrNotFinished, id, status)
		}
		for _, q := range []string{
			`DELETE FROM rlm_events WHERE run_id = $1`, `DELETE FROM rlm_recording WHERE run_id = $1`,
			`DELETE FROM rlm_run_vars WHERE run_id = $1`, `DELETE FROM rlm_idempotency WHERE run_id = $1`,
			`DELETE FROM rlm_runs WHERE id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	return wrapErr("delete "+id, err)
}
