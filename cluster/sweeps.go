package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
)

// Sweeps spread the cells of a benchmark sweep over the cluster's workers.
//
// SubmitSweep stores the sweep, its cells and one River job per cell in
// one transaction. Any Started DB whose Config.CellWorkers is positive
// works the cell jobs (queue SweepQueue) through its CellExecutor.
//
// A cell is owned like a run: a claim takes a lease with a fencing epoch
// (lease times from the database clock), a heartbeat renews it every
// LeaseTTL/3, and the result is written in the transaction that completes
// the River job, only if the epoch is still the cell's. A worker that dies
// mid-cell stops renewing; the reaper re-dispatches the cell (a new job,
// unique by sweep, cell and epoch) once its lease expired, so the cell
// runs again within about LeaseTTL + ReapEvery. A job timeout could not do
// this: it cancels the work of a live worker only, and the job of a dead
// one stays running until River's rescuer acts, an hour later. The result
// row is written once: a former owner that comes back writes nothing.
//
// A sweep may bound how many of its provider's cells run at once across
// the cluster (Sweep.MaxRunning): a claim counts the provider's running
// cells under a transaction advisory lock and, at the bound, snoozes the
// job (River makes it available again after a short delay, without
// counting an attempt). A dead worker's cells hold their places until
// their leases expire.

// Names of the sweep jobs.
const (
	// SweepQueue is the River queue of sweep cell jobs.
	SweepQueue = "rlm_sweep_cells"
	// CellJobKind is the River job kind of sweep cells.
	CellJobKind = "rlm_sweep_cell"
)

// Cell states.
const (
	CellQueued  = "queued"
	CellRunning = "running"
	CellDone    = "done"
	CellFailed  = "failed"
)

// Sweep is a stored sweep.
type Sweep struct {
	// ID names the sweep.
	ID string
	// Config is the submitter's configuration, opaque to this package:
	// each cell's executor receives it. A re-submission of ID must carry
	// the same (compared as JSON values).
	Config json.RawMessage
	// Provider names the model provider the cells call; MaxRunning, when
	// positive, bounds how many cells of sweeps of that provider run at
	// once across the cluster.
	Provider   string
	MaxRunning int
	// Cells is the number of cells (set by SubmitSweep).
	Cells int
	// Created is when the sweep was first submitted (database clock).
	Created time.Time
}

// SweepCell is one cell of a submitted sweep: a key unique within the
// sweep and its description for the executor.
type SweepCell struct {
	Key  string
	Spec json.RawMessage
}

// Cell is a claimed cell, as its executor receives it.
type Cell struct {
	Sweep  string
	Key    string
	Spec   json.RawMessage
	Config json.RawMessage
	// Epoch is the fencing epoch of this claim; Owners counts the claims
	// of the cell so far, this one included (more than one: an earlier
	// owner died or stopped mid-cell).
	Epoch  int64
	Owners int
}

// CellExecutor executes a claimed cell and returns its result, which the
// worker writes (once) with the job's completion. ctx is canceled when the
// cell's lease is lost (context.Cause tells why) or the worker stops; a
// cell canceled because its worker stops is handed to another worker. Any
// other error fails the cell: it is not run again.
type CellExecutor interface {
	ExecuteCell(ctx context.Context, c *Cell) ([]byte, error)
}

// CellExecutorFunc adapts a function to CellExecutor.
type CellExecutorFunc func(ctx context.Context, c *Cell) ([]byte, error)

// ExecuteCell calls f.
func (f CellExecutorFunc) ExecuteCell(ctx context.Context, c *Cell) ([]byte, error) { return f(ctx, c) }

// SetCellExecutor sets the executor of the sweep cells this DB works once
// Started (Config.CellWorkers at once). It must be called before Start.
func (db *DB) SetCellExecutor(ce CellExecutor) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.cellExec = ce
}

func (db *DB) cellExecutor() CellExecutor {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.cellExec
}

// cellArgs are the arguments of a cell's River job: unique by sweep, cell
// and the cell's epoch when the job was inserted (0 at submission), so a
// re-submission or a second reaper pass inserts nothing, while a cell
// whose owner died (its epoch advanced) gets a new job.
type cellArgs struct {
	Sweep string `json:"sweep"`
	Cell  string `json:"cell"`
	Epoch int64  `json:"epoch"`
}

// Kind is the River job kind.
func (cellArgs) Kind() string { return CellJobKind }

// InsertOpts puts cell jobs on their queue, unique by arguments among jobs
// not yet finalized (as run jobs: the cell row, not the job, makes a cell
// complete once).
func (cellArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue: SweepQueue,
		UniqueOpts: river.UniqueOpts{
			ByArgs: true,
			ByState: []rivertype.JobState{
				rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
				rivertype.JobStateRetryable, rivertype.JobStateScheduled,
			},
		},
	}
}

// SubmitSweep stores sw and its cells, in this order, and inserts one job
// per cell, all in one transaction; it returns the number of cells
// inserted. A sweep whose ID is already stored with the same Config and
// number of cells inserts nothing (0, nil): re-submitting is safe. With
// another Config the error wraps ErrSweepExists.
func (db *DB) SubmitSweep(ctx context.Context, sw Sweep, cells []SweepCell) (int, error) {
	if sw.ID == "" || len(cells) == 0 {
		return 0, errors.New("cluster: submit sweep: an id and at least one cell are required")
	}
	if !json.Valid(sw.Config) {
		return 0, errors.New("cluster: submit sweep: the configuration is not JSON")
	}
	inserted := 0
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO rlm_sweeps (id, config, provider, max_running, cells) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (id) DO NOTHING`, sw.ID, []byte(sw.Config), sw.Provider, sw.MaxRunning, len(cells))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var same bool
			var n int
			if err := tx.QueryRow(ctx, `SELECT config = $2::jsonb, cells FROM rlm_sweeps WHERE id = $1`, sw.ID, []byte(sw.Config)).Scan(&same, &n); err != nil {
				return err
			}
			if !same || n != len(cells) {
				return fmt.Errorf("%w: %s", ErrSweepExists, sw.ID)
			}
			return nil
		}
		params := make([]river.InsertManyParams, len(cells))
		for i, c := range cells {
			params[i] = river.InsertManyParams{Args: cellArgs{Sweep: sw.ID, Cell: c.Key}}
		}
		jobs, err := db.river.InsertManyTx(ctx, tx, params)
		if err != nil {
			return err
		}
		rows := make([][]any, len(cells))
		for i, c := range cells {
			spec := c.Spec
			if len(spec) == 0 {
				spec = json.RawMessage("null")
			}
			rows[i] = []any{sw.ID, c.Key, i, []byte(spec), sw.Provider, jobs[i].Job.ID}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"rlm_sweep_cells"}, []string{"sweep_id", "cell", "ord", "spec", "provider", "job_id"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		inserted = len(cells)
		return nil
	})
	return inserted, wrapErr("submit sweep "+sw.ID, err)
}

// SweepStatus is a sweep and how many of its cells are in each state.
type SweepStatus struct {
	Sweep
	Queued, Running, Done, Failed int
}

// SweepStatus returns the sweep id and its cells' counts; an unknown id
// wraps ErrNoSweep.
func (db *DB) SweepStatus(ctx context.Context, id string) (SweepStatus, error) {
	var st SweepStatus
	err := db.pool.QueryRow(ctx, `SELECT s.id, s.config, s.provider, s.max_running, s.cells, s.created_at,
			count(*) FILTER (WHERE c.status = 'queued'), count(*) FILTER (WHERE c.status = 'running'),
			count(*) FILTER (WHERE c.status = 'done'), count(*) FILTER (WHERE c.status = 'failed')
		FROM rlm_sweeps s LEFT JOIN rlm_sweep_cells c ON c.sweep_id = s.id
		WHERE s.id = $1 GROUP BY s.id`, id).Scan(&st.ID, &st.Config, &st.Provider, &st.MaxRunning, &st.Cells, &st.Created,
		&st.Queued, &st.Running, &st.Done, &st.Failed)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, fmt.Errorf("%w: %s", ErrNoSweep, id)
	}
	return st, wrapErr("sweep status "+id, err)
}

// CellResult is a cell of a sweep with its state and, once done, its
// result.
type CellResult struct {
	Key    string
	Spec   json.RawMessage
	Status string
	Result []byte
	Error  string
	// Owners counts the claims of the cell (more than one: an owner died
	// or stopped mid-cell and another ran it again).
	Owners int
}

// SweepResults returns the cells of sweep id in their submission order;
// an unknown id wraps ErrNoSweep.
func (db *DB) SweepResults(ctx context.Context, id string) ([]CellResult, error) {
	var one int
	if err := db.pool.QueryRow(ctx, `SELECT 1 FROM rlm_sweeps WHERE id = $1`, id).Scan(&one); errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrNoSweep, id)
	} else if err != nil {
		return nil, wrapErr("sweep results "+id, err)
	}
	rows, err := db.pool.Query(
		ctx,
		`SELECT cell, spec, status, result, error, owners FROM rlm_sweep_cells WHERE sweep_id = $1 ORDER BY ord`,
		id,
	)
	if err != nil {
		return nil, wrapErr("sweep results "+id, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CellResult, error) {
		var c CellResult
		err := r.Scan(&c.Key, &c.Spec, &c.Status, &c.Result, &c.Error, &c.Owners)
		return c, err
	})
	return out, wrapErr("sweep results "+id, err)
}

// cellWorker is the River worker of cell jobs.
type cellWorker struct {
	river.WorkerDefaults[cellArgs]
	db *DB
}

// Timeout: no job timeout; the cell's lease bounds a dead owner (see the
// comment at the top of this file).
func (*cellWorker) Timeout(*river.Job[cellArgs]) time.Duration { return -1 }

// errWorkerStopping is the cause of a cell canceled by Stop.
var errWorkerStopping = errors.New("cluster: the worker stops")

// errCellBusy: the provider's bound is reached; the job is snoozed.
var errCellBusy = errors.New("cluster: the provider's running cells are at the sweep's bound")

// Work claims the job's cell, executes it and writes its result with the
// job's completion. A cell that is done, failed, gone or held by a live
// owner makes the job a no-op; only a failure to reach the database fails
// the job (River retries it).
func (w *cellWorker) Work(ctx context.Context, job *river.Job[cellArgs]) error {
	db := w.db
	a := job.Args
	// The claim is not canceled with the job: a claim whose commit raced
	// a cancellation might hold the cell without knowing it. A cell
	// claimed as the worker stops is released at once below.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	c, err := db.claimCell(cctx, a)
	ccancel()
	switch {
	case errors.Is(err, errCellBusy):
		return river.JobSnooze(time.Duration(200+rand.IntN(800)) * time.Millisecond)
	case err != nil:
		return err
	case c == nil:
		return nil
	}
	exec := db.cellExecutor()
	cellCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Stop cancels the cells still running when its own context ends,
	// even one whose job River fetched as it stopped.
	defer context.AfterFunc(db.stopCells, func() { cancel(errWorkerStopping) })()
	hb := db.startCellHeartbeat(c, cancel)
	result, execErr := exec.ExecuteCell(cellCtx, c)
	hb.stop()
	if db.isDead() {
		return nil // a simulated death: the cell is left to the reaper
	}
	bg, bgCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer bgCancel()
	cause := context.Cause(cellCtx)
	switch {
	case errors.Is(cause, ErrFenced), errors.Is(cause, ErrLeaseExpired):
		db.log.Warn("cluster: lost a sweep cell's lease; another worker runs it", "sweep", a.Sweep, "cell", a.Cell, "reason", cause)
		return nil
	case execErr != nil && (ctx.Err() != nil || errors.Is(cause, errWorkerStopping)):
		// The worker stops: hand the cell on at once.
		if err := db.releaseCell(bg, c); err != nil {
			db.log.Warn("cluster: releasing a sweep cell", "sweep", a.Sweep, "cell", a.Cell, "err", err)
		}
		return nil
	}
	err = pgx.BeginFunc(bg, db.pool, func(tx pgx.Tx) error {
		var tag interface{ RowsAffected() int64 }
		var err error
		if execErr != nil {
			tag, err = tx.Exec(
				bg,
				`UPDATE rlm_sweep_cells SET status = 'failed', error = $4, result = NULL, ended_at = clock_timestamp(), lease_until = NULL
				WHERE sweep_id = $1 AND cell = $2 AND epoch = $3 AND status = 'running'`,
				a.Sweep,
				a.Cell,
				c.Epoch,
				execErr.Error(),
			)
		} else {
			tag, err = tx.Exec(bg, `UPDATE rlm_sweep_cells SET status = 'done', error = '', result = $4, ended_at = clock_timestamp(), lease_until = NULL
				WHERE sweep_id = $1 AND cell = $2 AND epoch = $3 AND status = 'running'`, a.Sweep, a.Cell, c.Epoch, result)
		}
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: sweep %s cell %s", ErrFenced, a.Sweep, a.Cell)
		}
		_, err = river.JobCompleteTx[*riverpgxv5.Driver](bg, tx, job)
		return err
	})
	if errors.Is(err, ErrFenced) {
		db.log.Warn("cluster: a sweep cell's result was refused: another worker owns the cell", "sweep", a.Sweep, "cell", a.Cell)
		return nil
	}
	return wrapErr("finish cell "+a.Cell, err)
}

// claimCell takes the lease of the job's cell: nil (and no error) if the
// cell is done, failed, gone or held by a live owner; the cell marked
// failed if its owners died MaxOwners times; errCellBusy at the provider's
// bound.
func (db *DB) claimCell(ctx context.Context, a cellArgs) (*Cell, error) {
	var c *Cell
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var (
			status, provider string
			owners, maxRun   int
			expired          bool
			cell             = Cell{Sweep: a.Sweep, Key: a.Cell}
		)
		err := tx.QueryRow(ctx, `SELECT c.status, c.owners, coalesce(c.lease_until < clock_timestamp(), true), c.provider, c.spec, s.config, s.max_running
			FROM rlm_sweep_cells c JOIN rlm_sweeps s ON s.id = c.sweep_id
			WHERE c.sweep_id = $1 AND c.cell = $2 FOR UPDATE OF c`, a.Sweep, a.Cell).
			Scan(&status, &owners, &expired, &provider, &cell.Spec, &cell.Config, &maxRun)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil
		case err != nil:
			return err
		case status == CellDone || status == CellFailed:
			return nil
		case status == CellRunning && !expired:
			return nil
		}
		if owners >= db.cfg.MaxOwners {
			_, err := tx.Exec(ctx, `UPDATE rlm_sweep_cells SET status = 'failed', ended_at = clock_timestamp(), lease_until = NULL,
				error = $3 WHERE sweep_id = $1 AND cell = $2`, a.Sweep, a.Cell,
				fmt.Sprintf("the cell's workers died or stopped %d times", owners))
			return err
		}
		if maxRun > 0 {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))`, lockKey, "provider:"+db.cfg.Schema+":"+provider); err != nil {
				return err
			}
			var running int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM rlm_sweep_cells WHERE provider = $1 AND status = 'running'
				AND lease_until >= clock_timestamp()`, provider).Scan(&running); err != nil {
				return err
			}
			if running >= maxRun {
				return errCellBusy
			}
		}
		if err := tx.QueryRow(ctx, `UPDATE rlm_sweep_cells SET status = 'running', epoch = epoch + 1, owner = $3, owners = owners + 1,
				lease_until = clock_timestamp() + $4::bigint * interval '1 microsecond', started_at = coalesce(started_at, clock_timestamp())
			WHERE sweep_id = $1 AND cell = $2 RETURNING epoch, owners`, a.Sweep, a.Cell, db.cfg.Owner, db.cfg.LeaseTTL.Microseconds()).
			Scan(&cell.Epoch, &cell.Owners); err != nil {
			return err
		}
		c = &cell
		return nil
	})
	if errors.Is(err, errCellBusy) {
		return nil, err
	}
	return c, wrapErr("claim cell "+a.Cell, err)
}

// releaseCell hands a claimed cell back (its worker stops): queued again
// with a new job, its claim given back, if the epoch is still the cell's.
func (db *DB) releaseCell(ctx context.Context, c *Cell) error {
	return wrapErr("release cell "+c.Key, pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE rlm_sweep_cells SET status = 'queued', owner = '', lease_until = NULL, owners = owners - 1
			WHERE sweep_id = $1 AND cell = $2 AND epoch = $3 AND status = 'running'`, c.Sweep, c.Key, c.Epoch)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		_, err = db.dispatchCell(ctx, tx, cellArgs{Sweep: c.Sweep, Cell: c.Key, Epoch: c.Epoch})
		return err
	}))
}

// dispatchCell inserts a job for a cell (unless one with the same
// arguments is pending) and notes it on the cell; it reports whether a
// job was inserted.
func (db *DB) dispatchCell(ctx context.Context, tx pgx.Tx, a cellArgs) (bool, error) {
	res, err := db.river.InsertTx(ctx, tx, a, nil)
	if err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, `UPDATE rlm_sweep_cells SET job_id = $3 WHERE sweep_id = $1 AND cell = $2`, a.Sweep, a.Cell, res.Job.ID); err != nil {
		return false, err
	}
	return !res.UniqueSkippedAsDuplicate, nil
}

// cellBeat is the heartbeat of a claimed cell.
type cellBeat struct {
	stopOnce sync.Once
	stopc    chan struct{}
	done     chan struct{}
}

func (h *cellBeat) stop() {
	h.stopOnce.Do(func() { close(h.stopc) })
	<-h.done
}

// startCellHeartbeat renews c's lease every LeaseTTL/3 until stopped; it
// cancels the cell with ErrFenced when the epoch is no longer the cell's,
// or ErrLeaseExpired when no renewal succeeded for a TTL.
func (db *DB) startCellHeartbeat(c *Cell, cancel context.CancelCauseFunc) *cellBeat {
	h := &cellBeat{stopc: make(chan struct{}), done: make(chan struct{})}
	db.mu.Lock()
	db.cellBeats[h] = struct{}{}
	db.mu.Unlock()
	ttl := db.cfg.LeaseTTL
	go func() {
		defer close(h.done)
		defer func() {
			db.mu.Lock()
			delete(db.cellBeats, h)
			db.mu.Unlock()
		}()
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-h.stopc:
				return
			case <-t.C:
			}
			start := time.Now()
			ctx, cctx := context.WithTimeout(context.Background(), max(ttl-time.Since(last), ttl/10))
			ctx, stop := contextStopOn(ctx, h.stopc)
			tag, err := db.pool.Exec(
				ctx,
				`UPDATE rlm_sweep_cells SET lease_until = clock_timestamp() + $4::bigint * interval '1 microsecond'
				WHERE sweep_id = $1 AND cell = $2 AND epoch = $3 AND status = 'running'`,
				c.Sweep,
				c.Key,
				c.Epoch,
				ttl.Microseconds(),
			)
			stop()
			cctx()
			switch {
			case err == nil && tag.RowsAffected() == 0:
				cancel(fmt.Errorf("%w: sweep %s cell %s", ErrFenced, c.Sweep, c.Key))
				return
			case err == nil:
				last = start
			default:
				select {
				case <-h.stopc:
					return
				default:
				}
				db.log.Warn("cluster: sweep cell heartbeat failed", "sweep", c.Sweep, "cell", c.Key, "err", err)
				if time.Since(last) >= ttl {
					cancel(fmt.Errorf("%w: sweep %s cell %s: %w", ErrLeaseExpired, c.Sweep, c.Key, err))
					return
				}
			}
		}
	}()
	return h
}

// reapCells inserts a job for each running cell whose lease expired,
// unique by sweep, cell and epoch, and for each queued cell whose job
// was fetched by a worker that died before claiming the cell (its job
// running longer than a lease TTL, or finalized): such a cell's epoch is
// incremented first, as its dead job holds the unique arguments. The
// reaper's advisory lock is held by tx.
func (db *DB) reapCells(ctx context.Context, tx pgx.Tx) (int, error) {
	rows, err := tx.Query(
		ctx,
		`SELECT sweep_id, cell, epoch FROM rlm_sweep_cells WHERE status = 'running' AND lease_until < clock_timestamp()
		ORDER BY lease_until LIMIT 1000`,
	)
	if err != nil {
		return 0, err
	}
	expired, err := pgx.CollectRows(rows, pgx.RowToStructByPos[cellArgs])
	if err != nil {
		return 0, err
	}
	rows, err = tx.Query(ctx, `WITH lost AS (
			SELECT c.sweep_id, c.cell FROM rlm_sweep_cells c LEFT JOIN river_job j ON j.id = c.job_id
			WHERE c.status = 'queued' AND (j.id IS NULL OR j.state IN ('completed', 'cancelled', 'discarded')
				OR (j.state = 'running' AND j.attempted_at < clock_timestamp() - $1::bigint * interval '1 microsecond'))
			ORDER BY c.sweep_id, c.ord LIMIT 1000 FOR UPDATE OF c SKIP LOCKED)
		UPDATE rlm_sweep_cells c SET epoch = c.epoch + 1 FROM lost WHERE c.sweep_id = lost.sweep_id AND c.cell = lost.cell
		RETURNING c.sweep_id, c.cell, c.epoch`, db.cfg.LeaseTTL.Microseconds())
	if err != nil {
		return 0, err
	}
	lost, err := pgx.CollectRows(rows, pgx.RowToStructByPos[cellArgs])
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range append(expired, lost...) {
		inserted, err := db.dispatchCell(ctx, tx, a)
		if err != nil {
			return n, err
		}
		if inserted {
			n++
		}
	}
	return n, nil
}
