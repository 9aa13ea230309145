package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// Due reports whether this process should do the cluster-wide periodic
// task name now, and if so records that it began: true at most once per
// every across all the processes sharing the database (its clock
// decides), however many of them tick for the task. A process that ticks
// every period and does the task only when Due says so makes the task
// run about once per period in the whole cluster instead of once per
// process (the blob GC uses it).
func (db *DB) Due(ctx context.Context, name string, every time.Duration) (bool, error) {
	var ok bool
	err := db.pool.QueryRow(ctx, `INSERT INTO rlm_periodic (name, last_at) VALUES ($1, clock_timestamp())
		ON CONFLICT (name) DO UPDATE SET last_at = clock_timestamp()
		WHERE rlm_periodic.last_at <= clock_timestamp() - $2::bigint * interval '1 microsecond'
		RETURNING true`, name, every.Microseconds()).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return ok, wrapErr("periodic "+name, err)
}
