package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/rlmhq/rlm/runs"
)

// Executor executes a claimed run: it replays the run's recording (a run
// taken over from a dead owner has one), writes through the lease and
// Finishes it. ctx is canceled when the lease's Done closes (with the
// lease's Cause, see context.Cause) or the worker stops; an executor that
// still finishes the run then (as canceled, after a cancel request) passes
// context.WithoutCancel(ctx) to Finish.
//
// If Execute returns without Finish or Release, the worker ends the run
// for it: failed with the returned error (or canceled after a cancel
// request), or released if the worker is stopping, or left alone if the
// lease was lost.
type Executor interface {
	Execute(ctx context.Context, l *Lease) error
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, l *Lease) error

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, l *Lease) error { return f(ctx, l) }

// Start makes this DB a worker: its River client works the run queue
// (Config.Workers runs at a time), claiming each job's run and calling
// exec, and its reaper re-dispatches runs whose lease expired. ctx bounds
// starting only. Start fails if already started.
//
// River's features in use: transactional inserts (Submit stores the run
// and its job atomically), unique jobs (by run and epoch), LISTEN-driven
// fetching, and no job timeout (the lease bounds a dead owner instead).
// River's rescuer only rescues jobs running for an hour, much later than
// the reaper; a rescued job's Claim finds the lease held and completes as
// a no-op. River v0.48.0 and later carry the rescuer fix of River's PR
// #1373 (a rescue no longer overwrites a job that completed meanwhile).
func (db *DB) Start(ctx context.Context, exec Executor) error {
	if exec == nil {
		return errors.New("cluster: start: nil executor")
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return fmt.Errorf("%w: start", ErrClosed)
	}
	if db.started {
		return errors.New("cluster: start: already started")
	}
	if db.cfg.CellWorkers > 0 && db.cellExec == nil {
		return errors.New("cluster: start: Config.CellWorkers is set but no cell executor (SetCellExecutor)")
	}
	db.exec = exec
	db.stopCells, db.stopCellsCancel = context.WithCancel(context.Background())
	// River's Start stops the client when its context ends; this worker
	// stops only through Stop (or Close), which releases running runs.
	if err := db.river.Start(context.WithoutCancel(ctx)); err != nil {
		return wrapErr("start worker", err)
	}
	reapCtx, cancel := context.WithCancel(context.Background())
	db.reaper, db.reapDone = cancel, make(chan struct{})
	go db.reapLoop(reapCtx, db.reapDone)
	db.started = true
	return nil
}

// Stop stops the worker: the reaper stops, no new job is fetched, and Stop
// waits for the running executions until ctx ends; then their contexts
// are canceled and, when their executor returns without finishing, their
// runs are released so that another process takes them over at once.
// Pass a canceled ctx to release at once.
func (db *DB) Stop(ctx context.Context) error {
	db.mu.Lock()
	if !db.started {
		db.mu.Unlock()
		return nil
	}
	db.started = false
	cancel, done := db.reaper, db.reapDone
	db.mu.Unlock()
	cancel()
	<-done
	defer db.stopCellsCancel()
	if ctx.Err() == nil {
		if err := db.river.Stop(ctx); err == nil || ctx.Err() == nil {
			return wrapErr("stop worker", err)
		}
	}
	db.stopCellsCancel()
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer scancel()
	return wrapErr("stop worker", db.river.StopAndCancel(sctx))
}

func (db *DB) executor() Executor {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.exec
}

func (db *DB) isDead() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.dead
}

// runWorker is the River worker of run jobs.
type runWorker struct {
	river.WorkerDefaults[runArgs]
	db *DB
}

// Timeout: no job timeout (see Start).
func (*runWorker) Timeout(*river.Job[runArgs]) time.Duration { return -1 }

// Work claims the job's run and executes it. A run that another owner
// holds, that finished or that is gone makes the job a no-op; only a
// failure to reach the database fails the job (River retries it).
func (w *runWorker) Work(ctx context.Context, job *river.Job[runArgs]) error {
	db := w.db
	id := job.Args.RunID
	l, err := db.Claim(ctx, id)
	switch {
	case errors.Is(err, ErrLeaseHeld), errors.Is(err, ErrFinished), errors.Is(err, ErrNotFound), errors.Is(err, ErrTooManyOwners):
		db.log.Debug("cluster: run job is a no-op", "run", id, "reason", err)
		return nil
	case err != nil:
		return err
	}
	exec := db.executor()
	runCtx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-l.Done():
			cancel(l.Cause())
		case <-runCtx.Done():
		}
	}()
	execErr := exec.Execute(runCtx, l)
	cancel(nil)
	if l.isEnded() {
		return nil
	}
	if db.isDead() {
		// A simulated death: the run is left to the reaper.
		l.stopHeartbeat()
		return nil
	}
	bg, bgCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer bgCancel()
	cause := l.Cause()
	switch {
	case errors.Is(cause, ErrFenced):
		return nil
	case errors.Is(cause, ErrCancelRequested):
		msg := "canceled"
		if execErr != nil && !errors.Is(execErr, context.Canceled) {
			msg = execErr.Error()
		}
		err = l.Finish(bg, Outcome{Status: runs.StatusCanceled, Error: msg})
	case ctx.Err() != nil, errors.Is(cause, ErrLeaseExpired):
		err = l.Release(bg)
	case errors.Is(execErr, ErrRetry):
		db.log.Warn("cluster: run released to be retried", "run", id, "retry_in", db.cfg.RetryDelay.String(), "err", execErr)
		err = l.release(bg, db.cfg.RetryDelay)
	default:
		msg := "cluster: the executor returned without finishing the run"
		if execErr != nil {
			msg = execErr.Error()
		}
		err = l.Finish(bg, Outcome{Status: runs.StatusFailed, Error: msg})
	}
	if err != nil && !errors.Is(err, ErrFenced) {
		db.log.Warn("cluster: ending run after its executor returned", "run", id, "err", err)
	}
	return nil
}

// reapLoop reaps every ReapEvery until ctx ends.
func (db *DB) reapLoop(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(db.cfg.ReapEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := db.reap(ctx); err != nil && ctx.Err() == nil {
			db.log.Warn("cluster: reaper", "err", err)
		} else if n > 0 {
			db.log.Info("cluster: re-dispatched runs and sweep cells whose lease expired", "count", n)
		}
	}
}

// reap inserts a job for each running run whose lease expired, unique by
// run and epoch, so that a worker claims it. A transaction-level advisory
// lock lets one process's reaper act at a time (another skips its turn);
// the unique jobs make an overlap harmless anyway.
func (db *DB) reap(ctx context.Context) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2))`, lockKey, "reaper:"+db.cfg.Schema).Scan(&ok); err != nil ||
			!ok {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, epoch FROM rlm_runs WHERE status = 'running' AND lease_until < clock_timestamp()
			ORDER BY lease_until LIMIT 1000`)
		if err != nil {
			return err
		}
		expired, err := pgx.CollectRows(rows, pgx.RowToStructByPos[runArgs])
		if err != nil {
			return err
		}
		for _, a := range expired {
			res, err := db.river.InsertTx(ctx, tx, a, nil)
			if err != nil {
				return err
			}
			if !res.UniqueSkippedAsDuplicate {
				n++
			}
		}
		lost, err := db.reapLostRuns(ctx, tx)
		n += lost
		if err != nil {
			return err
		}
		cells, err := db.reapCells(ctx, tx)
		n += cells
		return err
	})
	return n, wrapErr("reap", err)
}

// reapLostRuns dispatches again each queued run whose job was fetched by
// a worker that died before claiming the run (the job running longer
// than a lease TTL, or finalized, while the run is still queued): River
// would rescue such a job only after an hour. The run's epoch is
// incremented first, as the dead job holds the unique arguments. The
// reaper's advisory lock is held by tx.
func (db *DB) reapLostRuns(ctx context.Context, tx pgx.Tx) (int, error) {
	rows, err := tx.Query(ctx, `WITH lost AS (
			SELECT r.id FROM rlm_runs r LEFT JOIN river_job j ON j.id = r.job_id
			WHERE r.status = 'queued' AND (j.id IS NULL OR j.state IN ('completed', 'cancelled', 'discarded')
				OR (j.state = 'running' AND j.attempted_at < clock_timestamp() - $1::bigint * interval '1 microsecond'))
			ORDER BY r.created_at LIMIT 1000 FOR UPDATE OF r SKIP LOCKED)
		UPDATE rlm_runs r SET epoch = r.epoch + 1 FROM lost WHERE r.id = lost.id
		RETURNING r.id, r.epoch`, db.cfg.LeaseTTL.Microseconds())
	if err != nil {
		return 0, err
	}
	lost, err := pgx.CollectRows(rows, pgx.RowToStructByPos[runArgs])
	if err != nil {
		return 0, err
	}
	for _, a := range lost {
		res, err := db.river.InsertTx(ctx, tx, a, nil)
		if err != nil {
			return 0, err
		}
		if _, err := tx.Exec(ctx, `UPDATE rlm_runs SET job_id = $2 WHERE id = $1`, a.RunID, res.Job.ID); err != nil {
			return 0, err
		}
		db.log.Warn("cluster: run dispatched again: its job's worker died before claiming it", "run", a.RunID)
	}
	return len(lost), nil
}

// crash simulates the death of this process for tests: the reaper and
// every lease heartbeat stop without writing anything, and the workers
// return without finishing or releasing their runs.
func (db *DB) crash() {
	db.mu.Lock()
	db.dead = true
	leases := make([]*Lease, 0, len(db.leases))
	for l := range db.leases {
		leases = append(leases, l)
	}
	beats := make([]*cellBeat, 0, len(db.cellBeats))
	for h := range db.cellBeats {
		beats = append(beats, h)
	}
	db.mu.Unlock()
	for _, l := range leases {
		l.stopHeartbeat()
	}
	for _, h := range beats {
		h.stop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = db.Stop(ctx)
}
