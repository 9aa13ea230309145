package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/rlmhq/rlm/runs"
)

// Lease is an owner's hold on a running run, fenced by its epoch: each of
// its writes succeeds only while the run's epoch is still the lease's. A
// background heartbeat renews it every LeaseTTL/3 until Finish or Release.
type Lease struct {
	db    *DB
	run   Run
	ttlUS int64

	done     chan struct{}
	doneOnce sync.Once
	mu       sync.Mutex
	cause    error
	ended    bool // Finish or Release returned (or fenced)

	poke     chan struct{} // asks the heartbeat to beat now
	stopBeat chan struct{}
	stopOnce sync.Once
	beatDone chan struct{}
}

// Claim takes run id for this process: if it is queued, or running with
// an expired lease (on the database clock), its epoch is incremented, its
// owner, lease and owners count set, its status becomes running (and
// started_at is set if unset), and the lease's heartbeat starts.
//
// Claim returns an error wrapping ErrNotFound for an unknown run,
// ErrFinished for a finished one, ErrLeaseHeld if another owner's lease is
// still live, and ErrTooManyOwners when the claim would make more than
// MaxOwners owners: the run's previous owners all died, so the run is
// marked failed instead (its events and recording stay).
func (db *DB) Claim(ctx context.Context, id string) (*Lease, error) {
	var run Run
	var tooMany int
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var status string
		var owners int
		var live bool
		err := tx.QueryRow(ctx, `SELECT status, owners, coalesce(lease_until > clock_timestamp(), false)
			FROM rlm_runs WHERE id = $1 FOR UPDATE`, id).Scan(&status, &owners, &live)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		switch {
		case finished(runs.Status(status)):
			return fmt.Errorf("%w: %s is %s", ErrFinished, id, status)
		case runs.Status(status) == runs.StatusRunning && live:
			return fmt.Errorf("%w: %s", ErrLeaseHeld, id)
		case owners+1 > db.cfg.MaxOwners:
			tooMany = owners
			msg := fmt.Sprintf("cluster: the run's owners died %d times (the limit is %d owners)", owners, db.cfg.MaxOwners)
			if _, err := tx.Exec(ctx, `UPDATE rlm_runs SET status = $2, error = $3, epoch = epoch + 1, owner = '',
				lease_until = NULL, ended_at = clock_timestamp() WHERE id = $1`, id, string(runs.StatusFailed), msg); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, db.eventsChannel, id)
			return err
		}
		run, err = scanRun(tx.QueryRow(ctx, `UPDATE rlm_runs SET status = $2, epoch = epoch + 1, owner = $3,
			lease_until = clock_timestamp() + $4::bigint * interval '1 microsecond', owners = owners + 1,
			started_at = coalesce(started_at, clock_timestamp())
			WHERE id = $1 RETURNING `+runCols, id, string(runs.StatusRunning), db.cfg.Owner, db.cfg.LeaseTTL.Microseconds()))
		return err
	})
	if err != nil {
		return nil, wrapErr("claim "+id, err)
	}
	if tooMany > 0 {
		db.log.Warn("cluster: run failed: too many owners", "run", id, "owners", tooMany)
		return nil, fmt.Errorf("%w: %s: %d owners died", ErrTooManyOwners, id, tooMany)
	}
	l := &Lease{
		db:       db,
		run:      run,
		ttlUS:    db.cfg.LeaseTTL.Microseconds(),
		done:     make(chan struct{}),
		poke:     make(chan struct{}, 1),
		stopBeat: make(chan struct{}),
		beatDone: make(chan struct{}),
	}
	db.addLease(l)
	go l.heartbeatLoop()
	if run.CancelRequested {
		l.lose(ErrCancelRequested)
	}
	return l, nil
}

// RunID returns the id of the leased run.
func (l *Lease) RunID() string { return l.run.ID }

// Epoch returns the lease's fencing epoch.
func (l *Lease) Epoch() int64 { return l.run.Epoch }

// Run returns the run's row as Claim left it.
func (l *Lease) Run() Run { return l.run }

// Done is closed when the owner must stop the run: the lease was lost (a
// write or heartbeat was fenced, or the heartbeat could not renew the
// lease within its TTL) or the run's cancellation was requested. Cause
// says which. It is not closed by Finish or Release.
func (l *Lease) Done() <-chan struct{} { return l.done }

// Cause returns why Done was closed (nil while it is open): an error
// wrapping ErrFenced, ErrLeaseExpired or ErrCancelRequested (which wraps
// context.Canceled). After a cancellation, the lease still holds the run:
// the owner should Finish it as canceled.
func (l *Lease) Cause() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cause
}

// lose closes Done with cause (the first cause wins).
func (l *Lease) lose(cause error) {
	l.doneOnce.Do(func() {
		l.mu.Lock()
		l.cause = cause
		l.mu.Unlock()
		close(l.done)
	})
}

// fenced marks the lease as taken over and returns the error to report.
func (l *Lease) fenced(op string) error {
	err := fmt.Errorf("%w: %s run %s at epoch %d", ErrFenced, op, l.run.ID, l.run.Epoch)
	l.lose(err)
	l.stopHeartbeat()
	l.db.removeLease(l)
	return err
}

func (l *Lease) stopHeartbeat() {
	l.stopOnce.Do(func() { close(l.stopBeat) })
}

// end stops the heartbeat and forgets the lease after Finish or Release.
func (l *Lease) end() {
	l.mu.Lock()
	l.ended = true
	l.mu.Unlock()
	l.stopHeartbeat()
	l.db.removeLease(l)
}

func (l *Lease) isEnded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// Heartbeat renews the lease now (LeaseTTL from the database clock) if
// its epoch is still the run's; otherwise it returns an error wrapping
// ErrFenced and closes Done. It also closes Done with ErrCancelRequested
// when the run's cancellation was requested. The background heartbeat
// calls it; an owner need not.
func (l *Lease) Heartbeat(ctx context.Context) error {
	if l.isEnded() {
		return fmt.Errorf("%w: heartbeat of run %s after its lease ended", ErrFenced, l.run.ID)
	}
	var cancel bool
	err := l.db.pool.QueryRow(ctx, `UPDATE rlm_runs SET lease_until = clock_timestamp() + $3::bigint * interval '1 microsecond'
		WHERE id = $1 AND epoch = $2 AND status = 'running' RETURNING cancel_requested`,
		l.run.ID, l.run.Epoch, l.ttlUS).Scan(&cancel)
	if errors.Is(err, pgx.ErrNoRows) {
		return l.fenced("heartbeat")
	}
	if err != nil {
		return wrapErr("heartbeat "+l.run.ID, err)
	}
	if cancel {
		l.lose(ErrCancelRequested)
	}
	return nil
}

// heartbeatLoop renews the lease every TTL/3 (and at once when poked, as
// on a cancel notification) until stopped. If no renewal succeeded for a
// whole TTL, measured on the monotonic clock from the start of the last
// successful renewal, the lease may be taken over: Done closes with
// ErrLeaseExpired and the loop ends.
func (l *Lease) heartbeatLoop() {
	defer close(l.beatDone)
	ttl := time.Duration(l.ttlUS) * time.Microsecond
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-l.stopBeat:
			return
		case <-t.C:
		case <-l.poke:
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), max(ttl-time.Since(last), ttl/10))
		ctx, stop := contextStopOn(ctx, l.stopBeat)
		err := l.Heartbeat(ctx)
		stop()
		cancel()
		switch {
		case err == nil:
			last = start
		case errors.Is(err, ErrFenced):
			return
		default:
			select {
			case <-l.stopBeat:
				return
			default:
			}
			l.db.log.Warn("cluster: lease heartbeat failed", "run", l.run.ID, "err", err)
			if time.Since(last) >= ttl {
				l.lose(fmt.Errorf("%w: run %s: %w", ErrLeaseExpired, l.run.ID, err))
				return
			}
		}
	}
}

// contextStopOn returns ctx canceled also when stop closes.
func contextStopOn(ctx context.Context, stop <-chan struct{}) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// guard locks the run row and checks the lease's epoch in one statement,
// applying set (an UPDATE's SET list, with $1 the run id and $2 the epoch
// as parameters, then args). It returns the RETURNING value of ret (if
// any); a fenced lease gets ErrFenced. Claim locks the row FOR UPDATE, so a
// takeover and a guarded write are serialized: the write either commits
// before the takeover or sees the new epoch and fails.
func (l *Lease) guard(ctx context.Context, tx pgx.Tx, op, set, ret string, args []any, dest ...any) error {
	q := `UPDATE rlm_runs SET ` + set + ` WHERE id = $1 AND epoch = $2 AND status = 'running'`
	if ret != "" {
		q += ` RETURNING ` + ret
	} else {
		q += ` RETURNING epoch`
		var e int64
		dest = []any{&e}
	}
	err := tx.QueryRow(ctx, q, append([]any{l.run.ID, l.run.Epoch}, args...)...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return l.fenced(op)
	}
	return err
}

// AppendEvents appends lines to the run's trajectory, numbered on from the
// last stored seq, and returns the seq of the first (0 with no lines). It
// fails with ErrFenced, writing nothing, if the lease was taken over. The
// followers of the run are notified in the same transaction.
func (l *Lease) AppendEvents(ctx context.Context, lines [][]byte) (firstSeq int64, err error) {
	if len(lines) == 0 {
		return 0, nil
	}
	err = pgx.BeginFunc(ctx, l.db.pool, func(tx pgx.Tx) error {
		var last int64
		if err := l.guard(ctx, tx, "append events to", `event_seq = event_seq + $3`, `event_seq`, []any{len(lines)}, &last); err != nil {
			return err
		}
		firstSeq = last - int64(len(lines)) + 1
		if _, err := tx.Exec(ctx, `INSERT INTO rlm_events (run_id, seq, epoch, line)
			SELECT $1, $2 + t.ord - 1, $3, t.line FROM unnest($4::bytea[]) WITH ORDINALITY AS t(line, ord)`,
			l.run.ID, firstSeq, l.run.Epoch, lines); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, l.db.eventsChannel, l.run.ID)
		return err
	})
	if err != nil {
		return 0, wrapErr("append events "+l.run.ID, err)
	}
	return firstSeq, nil
}

// AppendRecording appends lines to the run's recording. It returns once
// they are durable (committed with synchronous_commit on), and fails with
// ErrFenced, writing nothing, if the lease was taken over.
func (l *Lease) AppendRecording(ctx context.Context, lines [][]byte) error {
	if len(lines) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, l.db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = on`); err != nil {
			return err
		}
		var last int64
		if err := l.guard(ctx, tx, "append recording to", `recording_seq = recording_seq + $3`, `recording_seq`, []any{len(lines)}, &last); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO rlm_recording (run_id, seq, epoch, line)
			SELECT $1, $2 + t.ord - 1, $3, t.line FROM unnest($4::bytea[]) WITH ORDINALITY AS t(line, ord)`,
			l.run.ID, last-int64(len(lines))+1, l.run.Epoch, lines)
		return err
	})
	return wrapErr("append recording "+l.run.ID, err)
}

// Progress records the run's iterations and tokens so far (guarded like
// AppendEvents).
func (l *Lease) Progress(ctx context.Context, iterations, tokens int) error {
	err := pgx.BeginFunc(ctx, l.db.pool, func(tx pgx.Tx) error {
		return l.guard(ctx, tx, "record progress of", `iterations = $3, tokens = $4`, "", []any{iterations, tokens})
	})
	return wrapErr("progress "+l.run.ID, err)
}

// Outcome is how a run ended.
type Outcome struct {
	// Status is the final status: done, stopped, failed or canceled.
	Status runs.Status
	// Result is the content of result.json (nil: none).
	Result     []byte
	Error      string
	StopReason string
	Iterations int
	Tokens     int
	CostUSD    *float64 // nil: unknown
}

// OutcomeFrom converts a runs.Outcome.
func OutcomeFrom(o runs.Outcome) Outcome {
	return Outcome{Status: o.Status, Result: o.Result, Error: o.Error, StopReason: o.StopReason,
		Iterations: o.Iterations, Tokens: o.Tokens, CostUSD: o.CostUSD}
}

// Finish records the run's outcome and ends the lease (guarded like
// AppendEvents: a fenced lease records nothing). Followers are notified so
// they close once they delivered every event.
func (l *Lease) Finish(ctx context.Context, o Outcome) error {
	switch o.Status {
	case runs.StatusDone, runs.StatusStopped, runs.StatusFailed, runs.StatusCanceled:
	default:
		return fmt.Errorf("cluster: finish %s: status %q is not a final status", l.run.ID, o.Status)
	}
	err := pgx.BeginFunc(ctx, l.db.pool, func(tx pgx.Tx) error {
		if err := l.guard(ctx, tx, "finish", `status = $3, result = $4, error = $5, stop_reason = $6,
			iterations = $7, tokens = $8, cost_usd = $9, ended_at = clock_timestamp(), owner = '', lease_until = NULL`,
			"", []any{string(o.Status), o.Result, o.Error, o.StopReason, o.Iterations, o.Tokens, o.CostUSD}); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, l.db.eventsChannel, l.run.ID)
		return err
	})
	if err != nil {
		return wrapErr("finish "+l.run.ID, err)
	}
	l.end()
	return nil
}

// Release gives the run up without finishing it, as a draining process
// does: the run stays running with a new epoch (fencing this lease), no
// owner and an expired lease, and a new job for it is inserted at once, so
// another process takes it over (replaying its recording) without waiting
// for the lease to expire or the reaper. A released claim does not count
// as a dead owner towards MaxOwners.
func (l *Lease) Release(ctx context.Context) error { return l.release(ctx, 0) }

// release is Release with the new job scheduled after delay (0: at once).
func (l *Lease) release(ctx context.Context, delay time.Duration) error {
	var opts *river.InsertOpts
	if delay > 0 {
		opts = &river.InsertOpts{ScheduledAt: time.Now().Add(delay)}
	}
	err := pgx.BeginFunc(ctx, l.db.pool, func(tx pgx.Tx) error {
		var epoch int64
		if err := l.guard(ctx, tx, "release", `epoch = epoch + 1, owner = '', lease_until = clock_timestamp(),
			owners = greatest(owners - 1, 0)`, "epoch", nil, &epoch); err != nil {
			return err
		}
		_, err := l.db.river.InsertTx(ctx, tx, runArgs{RunID: l.run.ID, Epoch: epoch}, opts)
		return err
	})
	if err != nil {
		return wrapErr("release "+l.run.ID, err)
	}
	l.end()
	return nil
}

func (db *DB) addLease(l *Lease) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.leases[l] = struct{}{}
}

func (db *DB) removeLease(l *Lease) {
	db.mu.Lock()
	defer db.mu.Unlock()
	delete(db.leases, l)
}

// pokeLeases makes the heartbeats of this DB's leases of run id (all
// leases if id is "") beat now, as when a cancellation was notified.
func (db *DB) pokeLeases(id string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	for l := range db.leases {
		if id == "" || l.run.ID == id {
			select {
			case l.poke <- struct{}{}:
			default:
			}
		}
	}
}
