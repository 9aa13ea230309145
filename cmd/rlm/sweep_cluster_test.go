package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClusterSweepKilledWorker: a sweep of 1,000 cells (direct mode
// against a fast scripted model) over three rlm worker processes, one
// killed with SIGKILL midway: every cell completes exactly once (one
// result each; only the cells the killed worker had in flight ran twice),
// re-submitting inserts nothing, and the merged report equals a
// single-machine rlm bench of the same cells against the same model.
func TestClusterSweepKilledWorker(t *testing.T) {
	url := needCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv := benchServer(t)
	env := benchEnv(srv)
	const cells, maxCells = 1000, 4
	args := []string{"bench", "--task", "niah", "--sizes", "1k", "--n", fmt.Sprint(cells), "--modes", "direct", "--seed", "7"}
	code, stdout, stderr := runCLI(t, "", env, append(args, "--cluster-db", url, "--sweep", "big")...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, fmt.Sprintf("submitted sweep big: %d cells", cells))

	start := time.Now()
	var workers []*replica
	var logs []*bytes.Buffer
	for range 3 {
		cmd, _, stderr := childCommand(ctx, t, env, "worker", "--cluster-db", url, "--lease-ttl", "2s", "--max-runs", "2",
			"--max-cells", fmt.Sprint(maxCells), "--runs-dir", t.TempDir(), "--store", t.TempDir())
		require.NoError(t, cmd.Start())
		w := &replica{cmd: cmd}
		logs = append(logs, stderr)
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
		workers = append(workers, w)
	}
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	done := func() int {
		var n int
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM rlm_sweep_cells WHERE sweep_id = 'big' AND status = 'done'`).Scan(&n))
		return n
	}
	require.Eventually(t, func() bool { return done() >= cells/4 }, time.Minute, 10*time.Millisecond)
	var heldAtKill int
	require.NoError(
		t,
		conn.QueryRow(ctx, `SELECT count(*) FROM rlm_sweep_cells WHERE sweep_id = 'big' AND status = 'running'`).Scan(&heldAtKill),
	)
	require.NoError(t, workers[0].cmd.Process.Kill())
	_ = workers[0].cmd.Wait()
	killedAt := done()
	require.Less(t, killedAt, cells, "killed midway")
	if !assert.Eventually(t, func() bool { return done() == cells }, 90*time.Second, 50*time.Millisecond) {
		stuckCells(t, conn, "big")
		for i, l := range logs {
			if i > 0 && workers[i].cmd.ProcessState == nil {
				_ = workers[i].cmd.Process.Signal(syscall.SIGQUIT)
				_ = workers[i].cmd.Wait()
			}
			t.Logf("worker %d stderr (last 4 KB):\n%s", i, tail(l.String(), 4<<10))
		}
		t.FailNow()
	}
	t.Logf("%d cells in %s over 3 workers, one killed after %d cells", cells, time.Since(start).Round(time.Millisecond), killedAt)

	var notDone, retaken int
	require.NoError(
		t,
		conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status <> 'done' OR result IS NULL), count(*) FILTER (WHERE owners > 1)
		FROM rlm_sweep_cells WHERE sweep_id = 'big'`).Scan(&notDone, &retaken),
	)
	assert.Zero(t, notDone)
	assert.LessOrEqual(t, retaken, maxCells, "only the killed worker's cells ran again")
	sent := srv.Count()
	t.Logf("cells run again after the kill: %d (%d running at the kill); model requests: %d", retaken, heldAtKill, sent)
	assert.GreaterOrEqual(t, sent, cells)
	assert.LessOrEqual(t, sent, cells+maxCells, "no cell but those in flight at the kill was sent twice (%d running then)", heldAtKill)

	// Re-submitting inserts nothing.
	code, stdout, stderr = runCLI(t, "", env, append(args, "--cluster-db", url, "--sweep", "big")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "nothing inserted")
	var jobs int
	require.NoError(
		t,
		conn.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'rlm_sweep_cell' AND args->>'epoch' = '0'`).Scan(&jobs),
	)
	assert.Equal(t, cells, jobs, "one submitted job per cell")

	merged := filepath.Join(t.TempDir(), "merged")
	code, stdout, stderr = runCLI(t, "", map[string]string{"RLM_CLUSTER_DB": url}, "bench", "report", "big", "--out", merged)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.Contains(stdout, fmt.Sprintf("| 1k | direct | %d | 1.000", cells)), stdout)
	local := filepath.Join(t.TempDir(), "local")
	code, _, stderr = runCLI(t, "", env, append(args, "--out", local, "--quiet")...)
	require.Equal(t, 0, code, stderr)
	sameReport(t, local, merged)
}

// stuckCells logs the cells of a sweep that are not done, with their River
// jobs' states, for a test that waited on them in vain.
func stuckCells(t *testing.T, conn *pgx.Conn, sweep string) {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT c.cell, c.status, c.epoch, c.owners, c.owner,
		coalesce(to_char(c.lease_until - clock_timestamp(), 'SS.MS'), '-'), coalesce(c.job_id, 0), coalesce(j.state::text, '-'),
		coalesce(j.attempt, 0), coalesce(j.args::text, '-'), coalesce(array_to_string(j.errors, ' | '), '')
		FROM rlm_sweep_cells c LEFT JOIN river_job j ON j.id = c.job_id
		WHERE c.sweep_id = $1 AND c.status <> 'done' ORDER BY c.ord LIMIT 20`, sweep)
	if err != nil {
		t.Logf("stuck cells: %v", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var cell, status, owner, lease, state, args, errs string
		var epoch, owners, attempt int
		var job int64
		if err := rows.Scan(&cell, &status, &epoch, &owners, &owner, &lease, &job, &state, &attempt, &args, &errs); err != nil {
			t.Logf("stuck cells: %v", err)
			return
		}
		t.Logf("stuck cell %s: %s epoch %d owners %d owner %q lease %s; job %d %s attempt %d args %s errors %s",
			cell, status, epoch, owners, owner, lease, job, state, attempt, args, errs)
	}
}
