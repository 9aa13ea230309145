package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/cluster"
	"github.com/rlmhq/rlm/cluster/clustertest"
	"github.com/rlmhq/rlm/internal/bench"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/sandbox"
)

// inProcessWorker works a cluster's sweep cells in this process with the
// endpoint of env, as rlm worker does.
func inProcessWorker(t *testing.T, url, owner string, env map[string]string) {
	t.Helper()
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	var m modelFlags
	m.register(fs)
	require.NoError(t, fs.Parse(nil))
	cenv := &cliEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string { return env[k] }}
	db, err := cluster.Open(
		context.Background(),
		cluster.Config{URL: url, Owner: owner, CellWorkers: 4, LeaseTTL: 2 * time.Second, ReapEvery: 500 * time.Millisecond},
	)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	db.SetCellExecutor(newCellExecutor(cenv, m))
	require.NoError(t, db.Start(context.Background(), cluster.ExecutorFunc(func(context.Context, *cluster.Lease) error { return nil })))
}

// timingField matches the fields of a result that measure time.
var timingField = regexp.MustCompile(`"(wall_seconds|finished)":("[^"]*"|[0-9.e+-]+),?`)

// sameReport asserts that two report folders hold the same results (in
// the same order) and the same report and charts, timings aside.
func sameReport(t *testing.T, want, got string) {
	t.Helper()
	w, err := os.ReadFile(filepath.Join(want, bench.ResultsFile))
	require.NoError(t, err)
	g, err := os.ReadFile(filepath.Join(got, bench.ResultsFile))
	require.NoError(t, err)
	assert.Equal(t, timingField.ReplaceAllString(string(w), ""), timingField.ReplaceAllString(string(g), ""), "results.jsonl")
	// The report and charts, rendered from the results without their
	// timings, are the same files.
	render := func(dir string) string {
		rs, err := bench.ReadResults(filepath.Join(dir, bench.ResultsFile))
		require.NoError(t, err)
		for i := range rs {
			rs[i].WallSeconds, rs[i].Finished = 0, ""
		}
		out := t.TempDir()
		_, err = bench.WriteReport(out, rs, "t")
		require.NoError(t, err)
		return out
	}
	wr, gr := render(want), render(got)
	entries, err := os.ReadDir(wr)
	require.NoError(t, err)
	gotEntries, err := os.ReadDir(gr)
	require.NoError(t, err)
	require.Equal(t, len(entries), len(gotEntries))
	for _, e := range entries {
		a, _ := os.ReadFile(filepath.Join(wr, e.Name()))
		b, err := os.ReadFile(filepath.Join(gr, e.Name()))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), e.Name())
	}
	// The folders hold the same files.
	list := func(dir string) []string {
		es, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	assert.Equal(t, list(want), list(got))
}

// TestBenchSweepTwoWorkers: rlm bench --cluster-db submits 24 cells; two
// in-process workers run them, each once; re-submitting inserts nothing;
// rlm bench status counts them; rlm bench report merges them into the
// report a single-machine rlm bench of the same cells writes.
func TestBenchSweepTwoWorkers(t *testing.T) {
	url := clustertest.NewDatabase(t)
	srv := benchServer(t)
	env := benchEnv(srv)
	args := []string{"bench", "--task", "niah", "--sizes", "8k", "--n", "12", "--modes", "rlm,direct", "--seed", "4"}
	code, stdout, stderr := runCLI(t, "", env, append(args, "--cluster-db", url, "--sweep", "s1")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "submitted sweep s1: 24 cells of gpt-4o-mini")
	code, stdout, stderr = runCLI(t, "", env, append(args, "--cluster-db", url, "--sweep", "s1")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "nothing inserted")
	code, stdout, _ = runCLI(t, "", env, "bench", "status", "--cluster-db", url, "s1")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "0 done, 0 running, 24 queued, 0 failed (of 24)")

	inProcessWorker(t, url, "w1", env)
	inProcessWorker(t, url, "w2", env)
	require.Eventually(t, func() bool {
		_, stdout, _ := runCLI(t, "", env, "bench", "status", "s1", "--cluster-db", url)
		return strings.Contains(stdout, "24 done")
	}, 2*time.Minute, 100*time.Millisecond)
	// Each cell was sent once: 3 calls per rlm cell, 1 per direct cell.
	assert.Equal(t, 12*3+12, srv.Count())

	merged := filepath.Join(t.TempDir(), "merged")
	code, stdout, stderr = runCLI(t, "", map[string]string{"RLM_CLUSTER_DB": url}, "bench", "report", "s1", "--out", merged)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "| 8k | rlm | 12 | 1.000")
	assert.Empty(t, stderr)

	local := filepath.Join(t.TempDir(), "local")
	code, _, stderr = runCLI(t, "", env, append(args, "--out", local)...)
	require.Equal(t, 0, code, stderr)
	sameReport(t, local, merged)

	// Without a sweep id, the configuration names the sweep: the same
	// flags submit the same sweep.
	code, stdout, stderr = runCLI(t, "", env, append(args[:len(args)-2], "--seed", "5", "--cluster-db", url)...)
	require.Equal(t, 0, code, stderr)
	id := regexp.MustCompile(`submitted sweep (sw-[0-9a-f]+)`).FindStringSubmatch(stdout)
	require.NotNil(t, id, stdout)
	code, stdout, _ = runCLI(t, "", env, append(args[:len(args)-2], "--seed", "5", "--cluster-db", url)...)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "sweep "+id[1]+" was already submitted")
	// Another configuration under a taken id is refused.
	code, _, stderr = runCLI(t, "", env, append(args[:len(args)-2], "--seed", "6", "--cluster-db", url, "--sweep", "s1")...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "another --sweep")
}

func TestBenchSweepUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--sweep", "x"}, "pass --cluster-db"},
		{[]string{"bench", "--cluster-db", "postgres://x", "--out", "d"}, "rlm bench report"},
		{[]string{"bench", "status"}, "name the sweep"},
		{[]string{"bench", "status", "a", "b"}, `unexpected argument "b"`},
		{[]string{"bench", "status", "a"}, "pass --cluster-db"},
		{[]string{"bench", "report", "a", "--cluster-db", "postgres://x"}, "--out is required"},
	} {
		code, _, stderr := runCLI(t, "", map[string]string{"RLM_MODEL": "m", "OPENAI_API_KEY": "k"}, c.args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}
}

// TestSweepConfigKeepsBudgets: every budget flag of rlm bench reaches the
// sweep's cells through the configuration stored with the sweep.
func TestSweepConfigKeepsBudgets(t *testing.T) {
	f := &benchFlags{budgets: budgetFlags{maxIterations: 7, maxDepth: 2, maxCalls: 9, maxTokens: 1000,
		maxCost: 0.5, timeout: time.Minute, maxActive: 30 * time.Second}}
	raw, err := json.Marshal(newSweepConfig(f, llm.Config{Model: "m"}, nil, nil, nil, sandbox.Limits{}))
	require.NoError(t, err)
	var sc sweepConfig
	require.NoError(t, json.Unmarshal(raw, &sc))
	assert.Equal(t, f.budgets, sc.budgets())
}
