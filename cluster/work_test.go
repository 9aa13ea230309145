package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/runs"
)

// collect reads ch until it closes (or the timeout).
func collect(t *testing.T, ch <-chan Event, timeout time.Duration) []Event {
	t.Helper()
	var out []Event
	deadline := time.After(timeout)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, e)
		case <-deadline:
			t.Fatalf("follower did not close; got %d events", len(out))
		}
	}
}

func assertSeqs(t *testing.T, evs []Event, after, last int64) {
	t.Helper()
	require.Len(t, evs, int(last-after), "events after %d up to %d", after, last)
	for i, e := range evs {
		require.Equal(t, after+int64(i)+1, e.Seq, "no gap, no duplicate")
		require.Equal(t, fmt.Sprintf("event %d", e.Seq), string(e.Line))
	}
}

func TestFollowNoGapNoDuplicate(t *testing.T) {
	db := openNew(t)
	// Followers on another DB value: their notifications come through
	// another listener connection.
	reader := open(t, testConfig(db.cfg.Schema, "reader"))
	reader.followTick = time.Hour // only notifications wake it
	ctx := tctx(t)
	submit(t, db, "r")
	l, err := db.Claim(ctx, "r")
	require.NoError(t, err)

	const total = 400
	appended := make(chan int64, total)
	go func() {
		defer close(appended)
		seq := int64(0)
		for seq < total {
			n := min(1+rand.IntN(7), total-int(seq))
			batch := make([][]byte, n)
			for i := range batch {
				batch[i] = []byte(fmt.Sprintf("event %d", seq+int64(i)+1))
			}
			first, err := l.AppendEvents(ctx, batch)
			if err != nil {
				t.Errorf("append: %v", err)
				return
			}
			seq = first + int64(n) - 1
			appended <- seq
			time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
		}
	}()
	type follower struct {
		after int64
		ch    <-chan Event
	}
	var fs []follower
	started := map[int64]bool{}
	for seq := range appended {
		// Start followers mid-stream: from the start, and resuming after
		// a seq already delivered.
		switch {
		case seq >= 50 && !started[50]:
			started[50] = true
			fs = append(fs, follower{0, reader.Follow(ctx, "r", 0)})
		case seq >= 150 && !started[150]:
			started[150] = true
			fs = append(fs, follower{120, reader.Follow(ctx, "r", 120)})
			fs = append(fs, follower{seq, db.Follow(ctx, "r", seq)})
		}
	}
	require.Len(t, fs, 3)
	require.NoError(t, l.Finish(ctx, Outcome{Status: runs.StatusDone}))
	for _, f := range fs {
		assertSeqs(t, collect(t, f.ch, 10*time.Second), f.after, total)
	}
	// A follower of a finished run gets the rest and closes.
	assertSeqs(t, collect(t, reader.Follow(ctx, "r", 390), 5*time.Second), 390, total)
	// An unknown run closes at once.
	assert.Empty(t, collect(t, reader.Follow(ctx, "nope", 0), 5*time.Second))
	// A canceled context closes the channel.
	submit(t, db, "open")
	cctx, cancel := context.WithCancel(ctx)
	ch := reader.Follow(cctx, "open", 0)
	cancel()
	assert.Empty(t, collect(t, ch, 5*time.Second))
}

// recorder is an Executor that counts its calls per run.
type recorder struct {
	mu    sync.Mutex
	calls map[string]int
	owner map[string]string
	fn    func(ctx context.Context, l *Lease) error
}

func newRecorder(fn func(ctx context.Context, l *Lease) error) *recorder {
	return &recorder{calls: map[string]int{}, owner: map[string]string{}, fn: fn}
}

func (r *recorder) Execute(ctx context.Context, l *Lease) error {
	r.mu.Lock()
	r.calls[l.RunID()]++
	r.owner[l.RunID()] = l.Run().Owner
	r.mu.Unlock()
	return r.fn(ctx, l)
}

func (r *recorder) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[id]
}

func finishDone(ctx context.Context, l *Lease) error {
	if _, err := l.AppendEvents(ctx, lines("ran by "+l.Run().Owner)); err != nil {
		return err
	}
	return l.Finish(ctx, Outcome{Status: runs.StatusDone, Result: []byte(l.Run().Owner)})
}

func waitStatus(t *testing.T, db *DB, id string, want runs.Status, within time.Duration) Run {
	t.Helper()
	var r Run
	require.Eventually(t, func() bool {
		var err error
		r, err = db.Get(context.Background(), id)
		return err == nil && r.Status == want
	}, within, 20*time.Millisecond, "run %s: status %s, want %s", id, r.Status, want)
	return r
}

func TestExecutorRunsOncePerRunAcrossWorkers(t *testing.T) {
	schema := newSchema(t)
	// No owner dies here: a TTL that a loaded machine's heartbeat keeps.
	cfgA, cfgB := testConfig(schema, "a"), testConfig(schema, "b")
	cfgA.LeaseTTL, cfgB.LeaseTTL = 5*time.Second, 5*time.Second
	a, b := open(t, cfgA), open(t, cfgB)
	rec := newRecorder(func(ctx context.Context, l *Lease) error {
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
		return finishDone(ctx, l)
	})
	ctx := tctx(t)
	require.NoError(t, a.Start(ctx, rec))
	require.NoError(t, b.Start(ctx, rec))
	require.Error(t, a.Start(ctx, rec), "already started")
	const n = 24
	for i := range n {
		submit(t, a, fmt.Sprintf("run-%02d", i))
	}
	owners := map[string]int{}
	for i := range n {
		id := fmt.Sprintf("run-%02d", i)
		r := waitStatus(t, a, id, runs.StatusDone, 20*time.Second)
		owners[string(r.Result)]++
		assert.Equal(t, int64(1), r.Epoch, id)
	}
	time.Sleep(300 * time.Millisecond) // let any duplicate job run
	for i := range n {
		id := fmt.Sprintf("run-%02d", i)
		assert.Equal(t, 1, rec.count(id), "executions of %s", id)
	}
	assert.Equal(t, n, count(t, a, `SELECT count(*) FROM rlm_events`))
	t.Logf("runs per worker: %v", owners)
}

func TestReaperRedispatchesADeadOwnersRun(t *testing.T) {
	schema := newSchema(t)
	cfgA, cfgB := testConfig(schema, "a"), testConfig(schema, "b")
	a, b := open(t, cfgA), open(t, cfgB)
	ctx := tctx(t)
	running := make(chan struct{})
	recA := newRecorder(func(ctx context.Context, l *Lease) error {
		if _, err := l.AppendEvents(ctx, lines("a started")); err != nil {
			return err
		}
		if err := l.AppendRecording(ctx, lines("answer 1")); err != nil {
			return err
		}
		close(running)
		<-ctx.Done() // the process "dies" here
		return ctx.Err()
	})
	var replayed [][]byte
	recB := newRecorder(func(ctx context.Context, l *Lease) error {
		var err error
		replayed, err = l.db.Recording(ctx, l.RunID())
		if err != nil {
			return err
		}
		return finishDone(ctx, l)
	})
	require.NoError(t, a.Start(ctx, recA))
	submit(t, a, "r")
	select {
	case <-running:
	case <-time.After(10 * time.Second):
		t.Fatal("worker a did not start the run")
	}
	require.NoError(t, b.Start(ctx, recB))
	died := time.Now()
	a.crash()
	r := waitStatus(t, b, "r", runs.StatusDone, 10*time.Second)
	took := time.Since(died)
	t.Logf("taken over %v after the owner died", took)
	assert.Less(t, took, cfgA.LeaseTTL+cfgB.ReapEvery+2*time.Second)
	assert.Equal(t, "b", string(r.Result))
	assert.Equal(t, int64(2), r.Epoch)
	assert.Equal(t, 2, r.Owners)
	assert.Equal(t, 1, recA.count("r"))
	assert.Equal(t, 1, recB.count("r"))
	assert.Equal(t, 1, count(t, b, `SELECT count(*) FROM river_job WHERE args->>'run_id' = 'r' AND (args->>'epoch')::int = 1`),
		"the reaper dispatched the run at the dead owner's epoch")
	assert.Equal(t, lines("answer 1"), replayed, "the new owner sees the recording")
	evs, err := b.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, "ran by b", string(evs[1].Line))
}

// TestReaperRedispatchesARunLostBeforeClaim: a queued run whose job a
// worker fetched and died with before claiming the run (the job stays
// running in River) is dispatched again by the reaper and executed once.
func TestReaperRedispatchesARunLostBeforeClaim(t *testing.T) {
	schema := newSchema(t)
	sub := open(t, testConfig(schema, "submitter"))
	submit(t, sub, "r")
	_, err := sub.pool.Exec(tctx(t), `UPDATE river_job SET state = 'running', attempted_at = now() - interval '1 minute', attempt = 1
		WHERE id = (SELECT job_id FROM rlm_runs WHERE id = 'r')`)
	require.NoError(t, err)
	wcfg := testConfig(schema, "w")
	wcfg.LeaseTTL = 10 * time.Second // the lost job ran a minute ago; no owner dies here
	w := open(t, wcfg)
	rec := newRecorder(finishDone)
	require.NoError(t, w.Start(tctx(t), rec))
	r := waitStatus(t, sub, "r", runs.StatusDone, 20*time.Second)
	assert.Equal(t, 1, rec.count("r"))
	assert.Equal(t, 1, r.Owners)
	assert.Equal(t, 1, count(t, sub, `SELECT count(*) FROM river_job WHERE args->>'run_id' = 'r' AND (args->>'epoch')::int = 1`),
		"the reaper dispatched the run again")
}

func TestWorkerEndsRunsItsExecutorLeft(t *testing.T) {
	db := openNew(t, func(c *Config) { c.LeaseTTL = 30 * time.Second })
	ctx := tctx(t)
	boom := errors.New("executor exploded")
	rec := newRecorder(func(ctx context.Context, l *Lease) error {
		switch l.RunID() {
		case "fails":
			return boom
		case "returns":
			return nil
		case "canceled":
			<-ctx.Done()
			if !errors.Is(context.Cause(ctx), ErrCancelRequested) {
				return fmt.Errorf("cause %v", context.Cause(ctx))
			}
			return ctx.Err()
		}
		return nil
	})
	require.NoError(t, db.Start(ctx, rec))
	for _, id := range []string{"fails", "returns", "canceled"} {
		submit(t, db, id)
	}
	r := waitStatus(t, db, "fails", runs.StatusFailed, 10*time.Second)
	assert.Equal(t, "executor exploded", r.Error)
	r = waitStatus(t, db, "returns", runs.StatusFailed, 10*time.Second)
	assert.Contains(t, r.Error, "without finishing")
	waitStatus(t, db, "canceled", runs.StatusRunning, 10*time.Second)
	require.Eventually(t, func() bool { return rec.count("canceled") == 1 }, 5*time.Second, 10*time.Millisecond)
	_, err := db.Cancel(ctx, "canceled")
	require.NoError(t, err)
	r = waitStatus(t, db, "canceled", runs.StatusCanceled, 5*time.Second)
	assert.Equal(t, "canceled", r.Error)
}

func TestStopReleasesRunningRuns(t *testing.T) {
	schema := newSchema(t)
	a, b := open(t, testConfig(schema, "a")), open(t, testConfig(schema, "b"))
	ctx := tctx(t)
	running := make(chan struct{})
	require.NoError(t, a.Start(ctx, newRecorder(func(ctx context.Context, l *Lease) error {
		close(running)
		<-ctx.Done()
		return ctx.Err()
	})))
	submit(t, a, "r")
	<-running
	stopCtx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	require.NoError(t, a.Stop(stopCtx))
	r, err := a.Get(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, runs.StatusRunning, r.Status)
	assert.Zero(t, r.Owners, "released, not dead")
	assert.Empty(t, r.Owner)
	require.NoError(t, b.Start(ctx, newRecorder(finishDone)))
	r = waitStatus(t, b, "r", runs.StatusDone, 5*time.Second)
	assert.Equal(t, 1, r.Owners)
	assert.Equal(t, "b", string(r.Result))
}
