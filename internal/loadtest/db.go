package loadtest

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// dbWrites returns the committed transactions and the rows inserted,
// updated and deleted so far in the database at url (PostgreSQL's
// statistics, which lag by up to the stats interval: read after a pause);
// -1, -1 without a url or when it cannot be read.
func dbWrites(ctx context.Context, url string) (commits, rows int64) {
	if url == "" {
		return -1, -1
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return -1, -1
	}
	defer c.Close(ctx)
	// The statistics of this backend's own transactions are flushed at
	// its end; others' within a second.
	time.Sleep(1200 * time.Millisecond)
	_, _ = c.Exec(ctx, "SELECT pg_stat_clear_snapshot()")
	err = c.QueryRow(ctx, `SELECT xact_commit, tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&commits, &rows)
	if err != nil {
		return -1, -1
	}
	return commits, rows
}
