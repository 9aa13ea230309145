package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCells returns n cells whose spec is their number.
func testCells(n int) []SweepCell {
	out := make([]SweepCell, n)
	for i := range out {
		out[i] = SweepCell{Key: fmt.Sprintf("c%03d", i), Spec: json.RawMessage(fmt.Sprint(i))}
	}
	return out
}

// echoExecutor returns each cell's spec doubled, counting executions.
type echoExecutor struct {
	mu    sync.Mutex
	runs  map[string]int
	delay time.Duration
	// running and peak count the cells executing at once.
	running, peak atomic.Int32
	// block, if set, is closed to let blocked executions go on.
	block chan struct{}
	// started receives each cell as it starts (if set).
	started chan string
}

func newEcho() *echoExecutor { return &echoExecutor{runs: map[string]int{}} }

func (e *echoExecutor) ExecuteCell(ctx context.Context, c *Cell) ([]byte, error) {
	e.mu.Lock()
	e.runs[c.Key]++
	e.mu.Unlock()
	n := e.running.Add(1)
	defer e.running.Add(-1)
	for {
		p := e.peak.Load()
		if n <= p || e.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if e.started != nil {
		e.started <- c.Key
	}
	if e.block != nil {
		select {
		case <-e.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	select {
	case <-time.After(e.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var v int
	if err := json.Unmarshal(c.Spec, &v); err != nil {
		return nil, err
	}
	if v < 0 {
		return nil, errors.New("negative cell")
	}
	return fmt.Appendf(nil, `{"cell":%q,"double":%d,"config":%s}`, c.Key, 2*v, c.Config), nil
}

// worker opens a DB on schema that works cells with exec.
func sweepWorker(t *testing.T, schema, owner string, exec CellExecutor, mod ...func(*Config)) *DB {
	t.Helper()
	cfg := testConfig(schema, owner)
	cfg.CellWorkers = 4
	for _, m := range mod {
		m(&cfg)
	}
	db := open(t, cfg)
	db.SetCellExecutor(exec)
	require.NoError(t, db.Start(tctx(t), ExecutorFunc(func(context.Context, *Lease) error { return nil })))
	return db
}

func waitSweep(t *testing.T, db *DB, id string, within time.Duration) SweepStatus {
	t.Helper()
	var st SweepStatus
	require.Eventually(t, func() bool {
		var err error
		st, err = db.SweepStatus(context.Background(), id)
		return err == nil && st.Done+st.Failed == st.Cells
	}, within, 20*time.Millisecond)
	return st
}

// TestSweepTwoWorkersExactlyOnce: 40 cells over two workers: every cell
// runs once and completes once with its result; re-submitting inserts
// nothing; another configuration under the same id is refused.
func TestSweepTwoWorkersExactlyOnce(t *testing.T) {
	schema := newSchema(t)
	sub := open(t, testConfig(schema, "submitter"))
	cfg := json.RawMessage(`{"model": "m", "n": 40}`)
	n, err := sub.SubmitSweep(tctx(t), Sweep{ID: "s1", Config: cfg, Provider: "p"}, testCells(40))
	require.NoError(t, err)
	assert.Equal(t, 40, n)
	st, err := sub.SweepStatus(tctx(t), "s1")
	require.NoError(t, err)
	assert.Equal(t, SweepStatus{Sweep: Sweep{ID: "s1", Config: st.Config, Provider: "p", Cells: 40, Created: st.Created}, Queued: 40}, st)
	assert.JSONEq(t, string(cfg), string(st.Config))

	e := newEcho()
	e.delay = 5 * time.Millisecond
	// No worker dies here: leases a loaded machine's heartbeat keeps.
	long := func(c *Config) { c.LeaseTTL = 10 * time.Second }
	sweepWorker(t, schema, "w1", e, long)
	sweepWorker(t, schema, "w2", e, long)
	st = waitSweep(t, sub, "s1", 30*time.Second)
	assert.Equal(t, 40, st.Done)
	assert.Zero(t, st.Failed+st.Running+st.Queued)

	// Re-submitting (same id, same configuration, keys in another
	// spelling of the same JSON) inserts nothing.
	n, err = sub.SubmitSweep(tctx(t), Sweep{ID: "s1", Config: json.RawMessage(`{"n":40,"model":"m"}`), Provider: "p"}, testCells(40))
	require.NoError(t, err)
	assert.Zero(t, n)
	_, err = sub.SubmitSweep(tctx(t), Sweep{ID: "s1", Config: json.RawMessage(`{"n":41}`)}, testCells(40))
	assert.ErrorIs(t, err, ErrSweepExists)
	time.Sleep(300 * time.Millisecond)

	res, err := sub.SweepResults(tctx(t), "s1")
	require.NoError(t, err)
	require.Len(t, res, 40)
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, r := range res {
		assert.Equal(t, fmt.Sprintf("c%03d", i), r.Key, "submission order")
		assert.Equal(t, CellDone, r.Status)
		assert.Equal(t, 1, r.Owners)
		assert.JSONEq(t, fmt.Sprintf(`{"cell":%q,"double":%d,"config":%s}`, r.Key, 2*i, cfg), string(r.Result))
		assert.Equal(t, 1, e.runs[r.Key], "cell %s ran once", r.Key)
	}
	assert.Equal(t, 40, count(t, sub, `SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'completed'`, CellJobKind))
	assert.Equal(t, 40, count(t, sub, `SELECT count(*) FROM river_job WHERE kind = $1`, CellJobKind), "one job per cell")

	_, err = sub.SweepStatus(tctx(t), "nope")
	assert.ErrorIs(t, err, ErrNoSweep)
	_, err = sub.SweepResults(tctx(t), "nope")
	assert.ErrorIs(t, err, ErrNoSweep)
}

// TestSweepWorkerDiesMidCell: a worker dies while running cells; the
// other takes them over once their leases expire, and each cell's result
// is written once.
func TestSweepWorkerDiesMidCell(t *testing.T) {
	schema := newSchema(t)
	sub := open(t, testConfig(schema, "submitter"))
	_, err := sub.SubmitSweep(tctx(t), Sweep{ID: "s", Config: json.RawMessage(`{}`)}, testCells(6))
	require.NoError(t, err)
	stuck := newEcho()
	stuck.block = make(chan struct{})
	stuck.started = make(chan string, 6)
	a := sweepWorker(t, schema, "a", stuck)
	<-stuck.started // a holds cells
	a.crash()
	close(stuck.block)
	e := newEcho()
	// b does not die: a lease a loaded machine's heartbeat keeps, so that
	// each cell a held has exactly one more owner.
	sweepWorker(t, schema, "b", e, func(c *Config) { c.LeaseTTL = 10 * time.Second })
	st := waitSweep(t, sub, "s", 30*time.Second)
	assert.Equal(t, 6, st.Done)
	res, err := sub.SweepResults(tctx(t), "s")
	require.NoError(t, err)
	stuck.mu.Lock()
	defer stuck.mu.Unlock()
	taken := 0
	for i, r := range res {
		assert.Equal(t, CellDone, r.Status)
		assert.Contains(t, string(r.Result), fmt.Sprintf(`"double":%d`, 2*i))
		if stuck.runs[r.Key] > 0 {
			taken++
			assert.Equal(t, 2, r.Owners, "taken over from the dead worker")
		}
	}
	assert.Positive(t, taken)
}

// TestSweepStopReleasesCells: a worker that stops hands its running cells
// to another at once; a cell whose executor fails is failed, not rerun.
func TestSweepStopReleasesCells(t *testing.T) {
	schema := newSchema(t)
	sub := open(t, testConfig(schema, "submitter"))
	cells := testCells(4)
	cells[3].Spec = json.RawMessage("-1")
	_, err := sub.SubmitSweep(tctx(t), Sweep{ID: "s", Config: json.RawMessage(`{}`)}, cells)
	require.NoError(t, err)
	stuck := newEcho()
	stuck.block = make(chan struct{})
	stuck.started = make(chan string, 4)
	a := sweepWorker(t, schema, "a", stuck)
	<-stuck.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, a.Stop(ctx))
	e := newEcho()
	sweepWorker(t, schema, "b", e)
	st := waitSweep(t, sub, "s", 30*time.Second)
	assert.Equal(t, 3, st.Done)
	assert.Equal(t, 1, st.Failed)
	res, err := sub.SweepResults(tctx(t), "s")
	require.NoError(t, err)
	assert.Equal(t, "negative cell", res[3].Error)
	for _, r := range res {
		assert.Equal(t, 1, r.Owners, "a released cell's claim is given back: %+v", r)
	}
}

// TestSweepProviderBound: two workers of four cells each never run more
// than the sweep's bound of cells of its provider at once.
func TestSweepProviderBound(t *testing.T) {
	schema := newSchema(t)
	sub := open(t, testConfig(schema, "submitter"))
	_, err := sub.SubmitSweep(tctx(t), Sweep{ID: "s", Config: json.RawMessage(`{}`), Provider: "api.example", MaxRunning: 2}, testCells(12))
	require.NoError(t, err)
	e := newEcho()
	e.delay = 40 * time.Millisecond
	// No worker dies here: a lease long enough that a loaded machine's
	// late heartbeat never lets it lapse (a lapsed lease no longer counts
	// toward the bound, by design, and a third cell would start).
	long := func(c *Config) { c.LeaseTTL = 10 * time.Second }
	sweepWorker(t, schema, "w1", e, long)
	sweepWorker(t, schema, "w2", e, long)
	st := waitSweep(t, sub, "s", 60*time.Second)
	assert.Equal(t, 12, st.Done)
	assert.LessOrEqual(t, e.peak.Load(), int32(2))
	assert.Equal(t, int32(2), e.peak.Load(), "the bound is used")
}

// TestStartNeedsCellExecutor: CellWorkers without an executor is an error.
func TestStartNeedsCellExecutor(t *testing.T) {
	db := openNew(t, func(c *Config) { c.CellWorkers = 1 })
	err := db.Start(tctx(t), ExecutorFunc(func(context.Context, *Lease) error { return nil }))
	assert.ErrorContains(t, err, "cell executor")
}

// TestSweepJobLostBeforeClaim: a cell whose job a worker fetched and died
// with before claiming the cell (the job stays running in River, the cell
// queued) is re-dispatched by the reaper and completes once.
func TestSweepJobLostBeforeClaim(t *testing.T) {
	schema := newSchema(t)
	sub := open(t, testConfig(schema, "submitter"))
	_, err := sub.SubmitSweep(tctx(t), Sweep{ID: "s", Config: json.RawMessage(`{}`)}, testCells(3))
	require.NoError(t, err)
	_, err = sub.pool.Exec(tctx(t), `UPDATE river_job SET state = 'running', attempted_at = now() - interval '1 minute', attempt = 1
		WHERE id = (SELECT job_id FROM rlm_sweep_cells WHERE cell = 'c001')`)
	require.NoError(t, err)
	e := newEcho()
	// The lost job ran a minute ago: longer than this lease, which a
	// loaded machine's heartbeat keeps.
	sweepWorker(t, schema, "w", e, func(c *Config) { c.LeaseTTL = 10 * time.Second })
	st := waitSweep(t, sub, "s", 30*time.Second)
	assert.Equal(t, 3, st.Done)
	res, err := sub.SweepResults(tctx(t), "s")
	require.NoError(t, err)
	assert.Equal(t, 1, res[1].Owners)
	e.mu.Lock()
	defer e.mu.Unlock()
	assert.Equal(t, 1, e.runs["c001"])
}
