// Package cluster is the system of record of rlm's cluster mode: several
// rlm serve replicas and workers share runs through PostgreSQL.
//
// A run is a row of rlm_runs (its request, state, lease and outcome), its
// trajectory is rows of rlm_events (seq is the SSE event id), and the
// recording of its model answers is rows of rlm_recording, which a new
// owner replays so that no finished model call is sent again. River
// (github.com/riverqueue/river) carries the work: Submit inserts the run
// and its River job in one transaction, and a DB that was Started works
// the jobs by claiming the run and calling its Executor.
//
// Ownership is a lease with a fencing epoch. Claim increments the run's
// epoch and sets lease_until from the database clock; a background
// heartbeat renews it every TTL/3. Every write of an owner (AppendEvents,
// AppendRecording, Progress, Finish) checks the epoch in the same
// statement that locks the run row, so an owner that was taken over
// writes nothing and gets ErrFenced, even when its write races the
// takeover. A reaper re-dispatches runs whose lease expired, so another
// process takes over within about TTL + ReapEvery; River's own rescuer
// only acts on jobs stuck for an hour, and Claim makes its duplicates
// harmless.
//
// All lease times come from the database clock (clock_timestamp()), never
// from the process clock; a process only measures durations (how long
// since its last renewal) with its monotonic clock.
//
// Follow streams a run's events through LISTEN/NOTIFY on one listener
// connection per DB, re-querying on every notification and on a periodic
// tick, without a gap or a duplicate.
package cluster
