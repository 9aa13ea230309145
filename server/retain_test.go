package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFinishedRunsDropTheirVariables: finished runs keep their status
// and result, not their request's variables (issue 26: 48 chats with a
// 20 MB variable grew the heap by 20 MB a run), with a runs directory and
// without.
func TestFinishedRunsDropTheirVariables(t *testing.T) {
	for _, keep := range []bool{true, false} {
		name := map[bool]string{true: "kept", false: "no-keep"}[keep]
		t.Run(name, func(t *testing.T) {
			ts := newTestServer(t, func(c *Config) {
				if !keep {
					c.RunsDir = ""
				}
			})
			big := strings.Repeat("lorem ipsum ", (4<<20)/12)
			chat := func() {
				code, _, body := ts.do(
					t,
					"POST",
					"/v1/chat/completions",
					chatBody("echo hi", map[string]any{"variables": map[string]any{"doc": big}}),
				)
				require.Equal(t, 200, code, string(body))
			}
			chat()
			after1 := heapInUse()
			const runs = 8
			for range runs - 1 {
				chat()
			}
			grown := heapInUse() - after1
			t.Logf(
				"%s: heap after 1 run %.1f MB, +%.1f MB after %d more runs with a %d MB variable",
				name,
				float64(after1)/(1<<20),
				float64(grown)/(1<<20),
				runs-1,
				len(big)>>20,
			)
			// A run keeping its variable would grow the heap by 7 x 4 MB; the
			// last request's body and buffers may still be live when the heap
			// is read (±4 MB seen), so the bound is two variables, not one.
			assert.Less(t, grown, 2*int64(len(big)), "finished runs hold no variable")
		})
	}
}

// TestRetainedTrajectoriesAreBounded: without a runs directory, finished
// runs' trajectories are kept in memory within RetainTrajectoryBytes;
// beyond, the oldest are dropped (410) while their status stays.
func TestRetainedTrajectoriesAreBounded(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.RunsDir = "" })
	var ids []string
	for _, q := range []string{"echo one", "echo two"} {
		code, _, body := ts.do(t, "POST", "/v1/runs", chatBody(q, nil))
		require.Equal(t, 202, code, string(body))
		var r RunResult
		require.NoError(t, json.Unmarshal(body, &r))
		ts.waitRun(t, r.ID)
		ids = append(ids, r.ID)
	}
	_, _, traj := ts.do(t, "GET", "/v1/runs/"+ids[1]+"/trajectory", nil)
	// Room for the newer trajectory only: the older one goes.
	ts.s.mu.Lock()
	ts.s.cfg.RetainTrajectoryBytes = int64(len(traj)) * 3 / 2
	ts.s.mu.Unlock()
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("echo three", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	ts.waitRun(t, r.ID)
	require.Eventually(t, func() bool { return ts.s.lookup(ids[1]).trajectoryGone() }, 5*time.Second, time.Millisecond)
	for _, path := range []string{"/trajectory", "/events"} {
		code, _, out := ts.do(t, "GET", "/v1/runs/"+ids[0]+path, nil)
		assert.Equal(t, 410, code, string(out))
		assert.Contains(t, string(out), "trajectory memory limit")
	}
	code, _, out := ts.do(t, "GET", "/v1/runs/"+ids[0], nil)
	assert.Equal(t, 200, code, string(out))
	code, _, _ = ts.do(t, "GET", "/v1/runs/"+r.ID+"/trajectory", nil)
	assert.Equal(t, 200, code, "the newest trajectory is kept")
	ts.s.mu.Lock()
	assert.LessOrEqual(t, ts.s.retainedBytes, ts.s.cfg.RetainTrajectoryBytes)
	ts.s.mu.Unlock()
}
