package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/runs"
)

func TestClaimLeaseOnDatabaseClock(t *testing.T) {
	// A TTL long enough that a loaded machine's heartbeat keeps the lease.
	db := openNew(t, func(c *Config) { c.LeaseTTL = time.Second })
	ctx := tctx(t)
	submit(t, db, "r")

	_, err := db.Claim(ctx, "nope")
	require.ErrorIs(t, err, ErrNotFound)

	l, err := db.Claim(ctx, "r")
	require.NoError(t, err)
	r := l.Run()
	assert.Equal(t, runs.StatusRunning, r.Status)
	assert.Equal(t, int64(1), l.Epoch())
	assert.Equal(t, "r", l.RunID())
	assert.Equal(t, 1, r.Owners)
	assert.Equal(t, "p1", r.Owner)
	assert.False(t, r.Started.IsZero())
	// lease_until is the database's clock plus the TTL.
	var ahead time.Duration
	require.NoError(
		t,
		db.pool.QueryRow(ctx, `SELECT (extract(epoch FROM $1::timestamptz - clock_timestamp()) * 1e9)::float8`, r.LeaseUntil).
			Scan((*durationNS)(&ahead)),
	)
	assert.True(t, ahead > 0 && ahead <= time.Second, "lease ends %v from the database's now", ahead)

	// The heartbeat keeps it: another process cannot claim it for many TTLs.
	ocfg := testConfig(db.cfg.Schema, "p2")
	ocfg.LeaseTTL = time.Second
	other := open(t, ocfg)
	for range 5 {
		_, err = other.Claim(ctx, "r")
		require.ErrorIs(t, err, ErrLeaseHeld)
		time.Sleep(400 * time.Millisecond)
	}
	select {
	case <-l.Done():
		t.Fatalf("lease lost: %v", l.Cause())
	default:
	}

	// Once its heartbeat stops and the lease passed, another owner takes it.
	expire(t, db, l)
	l2, err := other.Claim(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, int64(2), l2.Epoch())
	assert.Equal(t, 2, l2.Run().Owners)
	assert.Equal(t, "p2", l2.Run().Owner)
	assert.Equal(t, r.Started, l2.Run().Started, "started_at is kept")

	require.ErrorIs(t, l.Heartbeat(ctx), ErrFenced)
	<-l.Done()
	require.ErrorIs(t, l.Cause(), ErrFenced)

	require.NoError(
		t,
		l2.Finish(ctx, Outcome{Status: runs.StatusDone, Result: []byte(`{"answer":1}`), Iterations: 3, Tokens: 40, StopReason: "submit"}),
	)
	_, err = db.Claim(ctx, "r")
	require.ErrorIs(t, err, ErrFinished)
	got, err := db.Get(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, runs.StatusDone, got.Status)
	assert.Equal(t, `{"answer":1}`, string(got.Result))
	assert.Equal(t, 3, got.Iterations)
	assert.Equal(t, 40, got.Tokens)
	assert.Nil(t, got.CostUSD)
	assert.Empty(t, got.Owner)
	assert.True(t, got.LeaseUntil.IsZero())
	assert.False(t, got.Ended.Before(got.Started))
	require.Error(t, l2.Finish(ctx, Outcome{Status: runs.StatusRunning}), "not a final status")
}

// durationNS scans a float number of nanoseconds.
type durationNS time.Duration

func (d *durationNS) Scan(src any) error {
	f, ok := src.(float64)
	if !ok {
		return fmt.Errorf("durationNS: %T", src)
	}
	*d = durationNS(time.Duration(f))
	return nil
}

func TestFencedWritesWriteNothing(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	submit(t, db, "r")
	old, err := db.Claim(ctx, "r")
	require.NoError(t, err)
	_, err = old.AppendEvents(ctx, lines("e1", "e2"))
	require.NoError(t, err)
	require.NoError(t, old.AppendRecording(ctx, lines("a1")))
	expire(t, db, old)
	other := open(t, testConfig(db.cfg.Schema, "p2"))
	cur, err := other.Claim(ctx, "r")
	require.NoError(t, err)

	cost := 1.5
	writes := []struct {
		name string
		do   func() error
	}{
		{"AppendEvents", func() error { _, err := old.AppendEvents(ctx, lines("late")); return err }},
		{"AppendRecording", func() error { return old.AppendRecording(ctx, lines("late")) }},
		{"Progress", func() error { return old.Progress(ctx, 99, 99) }},
		{"Finish", func() error { return old.Finish(ctx, Outcome{Status: runs.StatusDone, CostUSD: &cost}) }},
		{"Release", func() error { return old.Release(ctx) }},
		{"Heartbeat", func() error { return old.Heartbeat(ctx) }},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			err := w.do()
			require.ErrorIs(t, err, ErrFenced)
			assert.Contains(t, err.Error(), "cluster: ")
		})
	}
	assert.Equal(t, 2, count(t, db, `SELECT count(*) FROM rlm_events`))
	assert.Equal(t, 1, count(t, db, `SELECT count(*) FROM rlm_recording`))
	r, err := db.Get(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, runs.StatusRunning, r.Status)
	assert.Zero(t, r.Iterations)
	assert.Equal(t, int64(2), r.Epoch)
	assert.Nil(t, r.CostUSD)
	assert.Equal(t, 1, count(t, db, `SELECT count(*) FROM river_job`), "the fenced Release inserted no job")
	require.ErrorIs(t, old.Cause(), ErrFenced)

	// The current owner continues the numbering.
	first, err := cur.AppendEvents(ctx, lines("e3", "e4"))
	require.NoError(t, err)
	assert.Equal(t, int64(3), first)
	require.NoError(t, cur.AppendRecording(ctx, lines("a2")))
	require.NoError(t, cur.Progress(ctx, 5, 50))
	evs, err := db.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 4)
	for i, e := range evs {
		assert.Equal(t, int64(i+1), e.Seq)
	}
	assert.Equal(t, "e3", string(evs[2].Line))
	assert.Equal(t, []int{1, 1, 2, 2}, epochs(t, db, "rlm_events"))
	assert.Equal(t, []int{1, 2}, epochs(t, db, "rlm_recording"))
	rec, err := db.Recording(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, lines("a1", "a2"), rec)
	evs, err = db.Events(ctx, "r", 1, 2)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, int64(2), evs[0].Seq)
}

func epochs(t *testing.T, db *DB, table string) []int {
	rows, err := db.pool.Query(context.Background(), `SELECT epoch FROM `+table+` ORDER BY seq`)
	require.NoError(t, err)
	defer rows.Close()
	var out []int
	for rows.Next() {
		var e int
		require.NoError(t, rows.Scan(&e))
		out = append(out, e)
	}
	return out
}

// TestFencingRace appends from many goroutines of an expired owner while
// another process claims the run: every append that succeeded is stored,
// none that failed is, none succeeds once the claim returned, and the old
// owner's events all come before the new owner's.
func TestFencingRace(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	submit(t, db, "r")
	old, err := db.Claim(ctx, "r")
	require.NoError(t, err)
	old.stopHeartbeat()
	other := open(t, testConfig(db.cfg.Schema, "p2"))

	var claimed atomic.Bool
	var okEvents, okRec, afterClaim atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				wasClaimed := claimed.Load()
				var err error
				if i%2 == 0 {
					_, err = old.AppendEvents(ctx, lines(fmt.Sprintf("g%d-%d-a", g, i), fmt.Sprintf("g%d-%d-b", g, i)))
					if err == nil {
						okEvents.Add(2)
					}
				} else {
					err = old.AppendRecording(ctx, lines(fmt.Sprintf("g%d-%d", g, i)))
					if err == nil {
						okRec.Add(1)
					}
				}
				if err == nil && wasClaimed {
					afterClaim.Add(1)
				}
				if err != nil && !errors.Is(err, ErrFenced) {
					t.Errorf("append: %v", err)
				}
			}
		})
	}
	var cur *Lease
	require.Eventually(t, func() bool {
		l, err := other.Claim(ctx, "r")
		if err != nil {
			require.ErrorIs(t, err, ErrLeaseHeld)
			return false
		}
		cur = l
		claimed.Store(true)
		return true
	}, 10*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	_, err = cur.AppendEvents(ctx, lines("new"))
	require.NoError(t, err)
	close(stop)
	wg.Wait()

	assert.Zero(t, afterClaim.Load(), "an append started after the takeover succeeded")
	assert.Positive(t, okEvents.Load())
	assert.Equal(t, int(okEvents.Load()), count(t, db, `SELECT count(*) FROM rlm_events WHERE epoch = 1`))
	assert.Equal(t, int(okRec.Load()), count(t, db, `SELECT count(*) FROM rlm_recording WHERE epoch = 1`))
	assert.Equal(t, 1, count(t, db, `SELECT count(*) FROM rlm_events WHERE epoch = 2`))
	assert.Equal(t, int(okEvents.Load())+1, count(t, db, `SELECT max(seq) FROM rlm_events`), "seqs without a gap")
	assert.Equal(t, int(okEvents.Load())+1, count(t, db, `SELECT seq FROM rlm_events WHERE epoch = 2`))
	// Each batch is contiguous: its two lines are adjacent.
	evs, err := db.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	for i := 0; i+1 < len(evs)-1; i += 2 {
		a, b := string(evs[i].Line), string(evs[i+1].Line)
		require.True(t, strings.HasSuffix(a, "-a") && b == strings.TrimSuffix(a, "-a")+"-b", "seq %d: %q then %q", evs[i].Seq, a, b)
	}
}

func TestMaxOwnersFailsTheRun(t *testing.T) {
	db := openNew(t, func(c *Config) { c.MaxOwners = 2 })
	ctx := tctx(t)
	submit(t, db, "r")
	for i := range 2 {
		l, err := db.Claim(ctx, "r")
		require.NoError(t, err, "owner %d", i+1)
		_, err = l.AppendEvents(ctx, lines(fmt.Sprintf("owner %d", i+1)))
		require.NoError(t, err)
		expire(t, db, l)
	}
	_, err := db.Claim(ctx, "r")
	require.ErrorIs(t, err, ErrTooManyOwners)
	r, err := db.Get(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, runs.StatusFailed, r.Status)
	assert.Contains(t, r.Error, "owners died 2 times")
	assert.False(t, r.Ended.IsZero())
	evs, err := db.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	assert.Len(t, evs, 2, "the journal stays")
	_, err = db.Claim(ctx, "r")
	require.ErrorIs(t, err, ErrFinished)
}

func TestReleaseIsNotADeadOwner(t *testing.T) {
	db := openNew(t, func(c *Config) { c.MaxOwners = 1 })
	ctx := tctx(t)
	submit(t, db, "r")
	l, err := db.Claim(ctx, "r")
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx))
	_, err = l.AppendEvents(ctx, lines("late"))
	require.ErrorIs(t, err, ErrFenced)
	r, err := db.Get(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, runs.StatusRunning, r.Status)
	assert.Zero(t, r.Owners)
	assert.Equal(t, 2, count(t, db, `SELECT count(*) FROM river_job WHERE kind = 'rlm_run'`), "a job for the next owner")
	// The lease is free at once, and with MaxOwners 1 the next claim still works.
	l2, err := db.Claim(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, 1, l2.Run().Owners)
	assert.Equal(t, int64(3), l2.Epoch())
}

func TestCancel(t *testing.T) {
	db := openNew(t, func(c *Config) { c.LeaseTTL = 30 * time.Second })
	ctx := tctx(t)

	t.Run("queued", func(t *testing.T) {
		submit(t, db, "q")
		r, err := db.Cancel(ctx, "q")
		require.NoError(t, err)
		assert.Equal(t, runs.StatusCanceled, r.Status)
		assert.False(t, r.Ended.IsZero())
		assert.Equal(t, "cancelled", stringOf(t, db, `SELECT state::text FROM river_job WHERE args->>'run_id' = 'q'`))
		_, err = db.Claim(ctx, "q")
		require.ErrorIs(t, err, ErrFinished)
	})
	t.Run("running", func(t *testing.T) {
		submit(t, db, "r")
		l, err := db.Claim(ctx, "r")
		require.NoError(t, err)
		start := time.Now()
		r, err := db.Cancel(ctx, "r")
		require.NoError(t, err)
		assert.Equal(t, runs.StatusRunning, r.Status)
		assert.True(t, r.CancelRequested)
		select {
		case <-l.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("Done did not close after Cancel")
		}
		// With a 30 s TTL the heartbeat beats every 10 s: the notification did it.
		assert.Less(t, time.Since(start), 5*time.Second)
		require.ErrorIs(t, l.Cause(), ErrCancelRequested)
		require.ErrorIs(t, l.Cause(), context.Canceled)
		// The lease still holds the run: its owner finishes it.
		require.NoError(t, l.Finish(ctx, Outcome{Status: runs.StatusCanceled, Error: "canceled"}))
	})
	t.Run("finished", func(t *testing.T) {
		r, err := db.Cancel(ctx, "r")
		require.NoError(t, err)
		assert.Equal(t, runs.StatusCanceled, r.Status)
		submit(t, db, "d")
		l, err := db.Claim(ctx, "d")
		require.NoError(t, err)
		require.NoError(t, l.Finish(ctx, Outcome{Status: runs.StatusDone}))
		r, err = db.Cancel(ctx, "d")
		require.NoError(t, err)
		assert.Equal(t, runs.StatusDone, r.Status)
		assert.False(t, r.CancelRequested)
	})
	t.Run("unknown", func(t *testing.T) {
		_, err := db.Cancel(ctx, "nope")
		require.ErrorIs(t, err, ErrNotFound)
	})
	t.Run("claimed after the request", func(t *testing.T) {
		submit(t, db, "c")
		l, err := db.Claim(ctx, "c")
		require.NoError(t, err)
		_, err = db.Cancel(ctx, "c")
		require.NoError(t, err)
		<-l.Done()
		l.stopHeartbeat() // the owner dies before finishing
		<-l.beatDone
		_, err = db.pool.Exec(ctx, `UPDATE rlm_runs SET lease_until = clock_timestamp() WHERE id = 'c'`)
		require.NoError(t, err)
		l2, err := db.Claim(ctx, "c")
		require.NoError(t, err)
		<-l2.Done()
		require.ErrorIs(t, l2.Cause(), ErrCancelRequested)
	})
}

func stringOf(t *testing.T, db *DB, q string, args ...any) string {
	t.Helper()
	var s string
	require.NoError(t, db.pool.QueryRow(context.Background(), q, args...).Scan(&s))
	return s
}
