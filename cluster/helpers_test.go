package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// testURL is the server the tests use: RLM_CLUSTER_DB or a local one.
func testURL() string {
	if u := os.Getenv("RLM_CLUSTER_DB"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

var serverUp = sync.OnceValue(func() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, testURL())
	if err != nil {
		return err
	}
	return c.Close(ctx)
})

// newSchema returns a fresh schema name, dropped at the end of the test.
// It skips the test when no PostgreSQL server answers.
func newSchema(t *testing.T) string {
	t.Helper()
	if err := serverUp(); err != nil {
		t.Skipf("no PostgreSQL server answers (set RLM_CLUSTER_DB to a postgres:// URL to run the cluster tests): %v", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "rlm_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, testURL())
		if err != nil {
			t.Logf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	return schema
}

// testConfig is a Config on schema with short, test-sized times.
func testConfig(schema, owner string) Config {
	return Config{
		URL:       testURL(),
		Schema:    schema,
		LeaseTTL:  300 * time.Millisecond,
		ReapEvery: 100 * time.Millisecond,
		Owner:     owner,
		Workers:   4,
	}
}

// open opens a DB with cfg, closed at the end of the test.
func open(t *testing.T, cfg Config) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := Open(ctx, cfg)
	require.NoError(t, err)
	db.followTick = 200 * time.Millisecond
	t.Cleanup(db.Close)
	return db
}

// openNew opens a DB on a fresh schema.
func openNew(t *testing.T, mod ...func(*Config)) *DB {
	t.Helper()
	cfg := testConfig(newSchema(t), "p1")
	for _, m := range mod {
		m(&cfg)
	}
	return open(t, cfg)
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// submit submits a plain run with id.
func submit(t *testing.T, db *DB, id string) {
	t.Helper()
	require.NoError(t, db.Submit(tctx(t), Run{ID: id, Query: "q " + id, Model: "m"}, nil))
}

// expire stops l's heartbeat and waits until the database clock passes
// its lease.
func expire(t *testing.T, db *DB, l *Lease) {
	t.Helper()
	l.stopHeartbeat()
	<-l.beatDone
	require.Eventually(t, func() bool {
		var expired bool
		err := db.pool.QueryRow(context.Background(), `SELECT lease_until < clock_timestamp() FROM rlm_runs WHERE id = $1`, l.RunID()).
			Scan(&expired)
		return err == nil && expired
	}, 5*time.Second, 20*time.Millisecond)
}

func lines(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, x := range s {
		out[i] = []byte(x)
	}
	return out
}

func count(t *testing.T, db *DB, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, db.pool.QueryRow(context.Background(), q, args...).Scan(&n))
	return n
}
