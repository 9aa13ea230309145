package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMigrationsIdempotentAndConcurrent(t *testing.T) {
	schema := newSchema(t)
	cfg := testConfig(schema, "p")
	var wg sync.WaitGroup
	dbs := make([]*DB, 3)
	errs := make([]error, 3)
	for i := range dbs {
		wg.Go(func() { dbs[i], errs[i] = Open(context.Background(), cfg) })
	}
	wg.Wait()
	for i := range dbs {
		require.NoError(t, errs[i])
		t.Cleanup(dbs[i].Close)
	}
	db := open(t, cfg) // once more, after the fact
	migs, err := migrations()
	require.NoError(t, err)
	assert.Equal(t, len(migs), count(t, db, `SELECT count(*) FROM rlm_schema_version`))
	assert.Equal(t, SchemaVersion(), count(t, db, `SELECT max(version) FROM rlm_schema_version`))
	assert.Positive(t, count(t, db, `SELECT count(*) FROM river_migration`))
	assert.Equal(
		t,
		1,
		count(t, db, `SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'rlm_runs'`, schema),
	)
	require.NoError(t, db.Ping(tctx(t)))
}

func TestOpenRedactsPasswordAndReportsUnavailable(t *testing.T) {
	for _, url := range []string{
		"postgres://rlm:s3cr3t-pw@127.0.0.1:1/x?sslmode=disable&connect_timeout=2",
		"host=127.0.0.1 port=1 user=rlm password=s3cr3t-pw dbname=x sslmode=disable connect_timeout=2",
	} {
		_, err := Open(context.Background(), Config{URL: url})
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "s3cr3t-pw")
		assert.True(t, errors.Is(err, ErrUnavailable), "%v", err)
		assert.True(t, strings.HasPrefix(err.Error(), "cluster: "), "%v", err)
	}
	_, err := Open(context.Background(), Config{URL: "postgres://rlm:s3cr3t-pw@127.0.0.1:bad-port/x"})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cr3t-pw")
}

func TestSubmitIsAtomic(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	// The job insert fails in the database: the run row and its vars must go too.
	_, err := db.pool.Exec(ctx, `ALTER TABLE river_job ADD CONSTRAINT no_runs CHECK (kind <> 'rlm_run') NOT VALID`)
	require.NoError(t, err)
	err = db.Submit(ctx, Run{ID: "r1", Query: "q"}, []Var{{Name: "doc", Digest: "sha256:aa", Size: 3}})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "cluster: "), "%v", err)
	_, err = db.Get(ctx, "r1")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Zero(t, count(t, db, `SELECT count(*) FROM rlm_run_vars`))
	assert.Zero(t, count(t, db, `SELECT count(*) FROM rlm_blobs`))
}

func TestSubmitIdempotent(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	base := Run{ID: "r1", Query: "q", Model: "m", Spec: []byte("spec"), Config: []byte(`{"a": 1, "b": [2]}`)}
	vars := []Var{{Name: "x", Digest: "d1", Size: 1}, {Name: "a", Digest: "d2", Size: 2}}
	require.NoError(t, db.Submit(ctx, base, vars))
	tests := []struct {
		name    string
		run     func(Run) Run
		vars    []Var
		wantErr error
	}{
		{"identical", func(r Run) Run { return r }, vars, nil},
		{
			"same json, other spacing, vars reordered",
			func(r Run) Run { r.Config = []byte(`{"b":[2],"a":1}`); return r },
			[]Var{vars[1], vars[0]},
			nil,
		},
		{"other query", func(r Run) Run { r.Query = "q2"; return r }, vars, ErrExists},
		{"other spec", func(r Run) Run { r.Spec = nil; return r }, vars, ErrExists},
		{"other config", func(r Run) Run { r.Config = nil; return r }, vars, ErrExists},
		{"other vars", func(r Run) Run { return r }, vars[:1], ErrExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := db.Submit(ctx, tt.run(base), tt.vars)
			if tt.wantErr == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.wantErr)
			}
		})
	}
	assert.Equal(t, 1, count(t, db, `SELECT count(*) FROM river_job WHERE kind = 'rlm_run'`))
	assert.Equal(t, 2, count(t, db, `SELECT count(*) FROM rlm_run_vars`))
	r, err := db.Get(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, "q", r.Query)
	assert.Equal(t, []byte("spec"), r.Spec)
	assert.JSONEq(t, `{"a":1,"b":[2]}`, string(r.Config))
	assert.Equal(t, "queued", string(r.Status))
	assert.False(t, r.Created.IsZero())
	got, err := db.Vars(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, []Var{vars[1], vars[0]}, got)

	assert.Error(t, db.Submit(ctx, Run{ID: "../x"}, nil))
	assert.Error(t, db.Submit(ctx, Run{ID: "bad-config", Config: []byte("{")}, nil))
}

func TestListNewestFirstWithCursor(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		submit(t, db, id)
	}
	_, err := db.Cancel(ctx, "c")
	require.NoError(t, err)
	ids := func(rs []Run) (out []string) {
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		opt  ListOptions
		want []string
	}{
		{ListOptions{}, []string{"e", "d", "c", "b", "a"}},
		{ListOptions{Limit: 2}, []string{"e", "d"}},
		{ListOptions{Before: "d", Limit: 2}, []string{"c", "b"}},
		{ListOptions{Before: "a"}, nil},
		{ListOptions{Status: "queued"}, []string{"e", "d", "b", "a"}},
		{ListOptions{Status: "canceled"}, []string{"c"}},
		{ListOptions{Status: "queued", Before: "d"}, []string{"b", "a"}},
	}
	for _, tt := range tests {
		rs, err := db.List(ctx, tt.opt)
		require.NoError(t, err)
		assert.Equal(t, tt.want, ids(rs), "%+v", tt.opt)
	}
}

func TestBlobs(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	require.NoError(t, db.MarkBlob(ctx, "used", 10))
	require.NoError(t, db.MarkBlob(ctx, "free", 20))
	require.NoError(t, db.Submit(ctx, Run{ID: "r"}, []Var{{Name: "v", Digest: "used", Size: 10}}))
	time.Sleep(50 * time.Millisecond)
	got, err := db.UnreferencedBlobs(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"free"}, got)
	got, err = db.UnreferencedBlobs(ctx, time.Hour)
	require.NoError(t, err)
	assert.Empty(t, got)
	ok, err := db.ForgetBlob(ctx, "used", 0)
	require.NoError(t, err)
	assert.False(t, ok, "a referenced blob is kept")
	ok, err = db.ForgetBlob(ctx, "free", time.Hour)
	require.NoError(t, err)
	assert.False(t, ok, "a recently used blob is kept")
	ok, err = db.ForgetBlob(ctx, "free", 0)
	require.NoError(t, err)
	assert.True(t, ok)
	got, err = db.UnreferencedBlobs(ctx, 0)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// withApp returns the test URL with an application_name, so that a test
// can find its own connections in pg_stat_activity.
func withApp(name string) string {
	u := testURL()
	if strings.Contains(u, "?") {
		return u + "&application_name=" + name
	}
	return u + "?application_name=" + name
}

func TestConnectionLossIsUnavailableAndTheListenerReconnects(t *testing.T) {
	schema := newSchema(t)
	db := open(t, testConfig(schema, "w"))
	rcfg := testConfig(schema, "reader")
	rcfg.URL = withApp(schema + "_reader")
	reader := open(t, rcfg)
	reader.followTick = time.Hour // only notifications wake followers
	ctx := tctx(t)
	submit(t, db, "r")
	l, err := db.Claim(ctx, "r")
	require.NoError(t, err)
	ch := reader.Follow(ctx, "r", 0)

	// Kill every connection of the reader: its pool's and its listener's.
	killed := count(t, db, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, schema+"_reader")
	require.Positive(t, killed)
	if _, err := reader.Get(ctx, "r"); err != nil {
		require.ErrorIs(t, err, ErrUnavailable)
	}
	_, err = l.AppendEvents(ctx, lines("event 1", "event 2"))
	require.NoError(t, err)
	require.NoError(t, l.Finish(ctx, Outcome{Status: "done"}))
	// The follower gets the events after the listener reconnected (it
	// re-queries on reconnection, as notifications may have been lost).
	assertSeqs(t, collect(t, ch, 10*time.Second), 0, 2)
	require.NoError(t, reader.Ping(ctx))

	// The new listener connection delivers notifications.
	submit(t, db, "r2")
	ch = reader.Follow(ctx, "r2", 0)
	l, err = db.Claim(ctx, "r2")
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond) // the follower waits for a notification
	_, err = l.AppendEvents(ctx, lines("event 1"))
	require.NoError(t, err)
	require.NoError(t, l.Finish(ctx, Outcome{Status: "done"}))
	assertSeqs(t, collect(t, ch, 5*time.Second), 0, 1)
}

// TestSubmitOnce: submissions with one Idempotency-Key, even concurrent
// ones from several processes, store one run; the key with another body
// is a conflict; past the TTL the key starts a new run.
func TestSubmitOnce(t *testing.T) {
	schema := newSchema(t)
	a, b := open(t, testConfig(schema, "a")), open(t, testConfig(schema, "b"))
	ctx := tctx(t)
	idem := Idempotency{Route: "runs", Key: "k1", BodyHash: []byte("h1"), TTL: time.Hour}
	type result struct {
		id     string
		repeat bool
		err    error
	}
	out := make(chan result, 8)
	for i := range 8 {
		db := a
		if i%2 == 1 {
			db = b
		}
		go func() {
			id, repeat, err := db.SubmitOnce(ctx, Run{ID: fmt.Sprintf("r%d", i), Query: "q", Spec: []byte("s")}, nil, idem)
			out <- result{id, repeat, err}
		}()
	}
	ids := map[string]int{}
	repeats := 0
	for range 8 {
		r := <-out
		require.NoError(t, r.err)
		ids[r.id]++
		if r.repeat {
			repeats++
		}
	}
	require.Len(t, ids, 1, "one run for the key")
	assert.Equal(t, 7, repeats)
	assert.Equal(t, 1, count(t, a, `SELECT count(*) FROM rlm_runs`))
	assert.Equal(t, 1, count(t, a, `SELECT count(*) FROM river_job`))

	_, _, err := b.SubmitOnce(
		ctx,
		Run{ID: "other", Query: "q2"},
		nil,
		Idempotency{Route: "runs", Key: "k1", BodyHash: []byte("h2"), TTL: time.Hour},
	)
	require.ErrorIs(t, err, ErrIdempotencyConflict)
	id, repeat, err := b.SubmitOnce(
		ctx,
		Run{ID: "chat1", Query: "q"},
		nil,
		Idempotency{Route: "chat", Key: "k1", BodyHash: []byte("h1"), TTL: time.Hour},
	)
	require.NoError(t, err)
	assert.Equal(t, "chat1", id, "another route is another key")
	assert.False(t, repeat)
	// Past the TTL the key is free again.
	_, err = a.pool.Exec(ctx, `UPDATE rlm_idempotency SET created_at = now() - interval '2 hours' WHERE route = 'runs'`)
	require.NoError(t, err)
	id, repeat, err = a.SubmitOnce(ctx, Run{ID: "late", Query: "q"}, nil, idem)
	require.NoError(t, err)
	assert.Equal(t, "late", id)
	assert.False(t, repeat)
}

// TestIdleTransactionEnded: a replica stopped inside a transaction (a
// frozen process) does not block the others for longer than about two
// lease TTLs: the server ends its idle transaction and releases its locks.
func TestIdleTransactionEnded(t *testing.T) {
	schema := newSchema(t)
	frozen := open(t, testConfig(schema, "a"))
	other := open(t, testConfig(schema, "b"))
	ctx := tctx(t)
	tx, err := frozen.pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.Background()) }()
	_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(4242)`)
	require.NoError(t, err)
	// The frozen replica does nothing more; the other waits for the lock.
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = other.pool.Exec(wctx, `SELECT pg_advisory_lock(4242), pg_advisory_unlock(4242)`)
	require.NoError(t, err, "the idle transaction kept its lock")
	t.Logf("lock released after %s (idle timeout %s)", time.Since(start).Round(time.Millisecond), idleTxTimeout(300*time.Millisecond))
	_, err = tx.Exec(ctx, `SELECT 1`)
	assert.Error(t, err, "the server ended the frozen transaction")
}
