package orchestrator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
)

// TestClockReachesCodeAndTrajectory: Config.Clock is what the code of the
// root and of a child reads, and every run_start records it; without it
// the clock is the real time at the start, recorded the same way.
func TestClockReachesCodeAndTrajectory(t *testing.T) {
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var traj bytes.Buffer
	res, _ := runSandboxed(t, Config{Clock: clock, Trajectory: &traj},
		llmtest.Say(code("import datetime, time", "SUBMIT({'answer': str(datetime.datetime.now()) + ' ' + str(time.time())})")))
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "2026-01-02 03:04:05 1767323045.000001", res.Answer)
	assert.Equal(t, []string{"2026-01-02T03:04:05Z"}, runStartClocks(t, traj.Bytes()))

	traj.Reset()
	before := time.Now().UTC().Truncate(time.Microsecond)
	res, _ = runSandboxed(
		t,
		Config{Trajectory: &traj},
		llmtest.Say(code("import datetime", "SUBMIT({'answer': datetime.datetime.now().isoformat()})")),
	)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	clocks := runStartClocks(t, traj.Bytes())
	require.Len(t, clocks, 1)
	got, err := time.Parse(time.RFC3339Nano, clocks[0])
	require.NoError(t, err)
	assert.False(t, got.Before(before))
	assert.Equal(
		t,
		got.Format("2006-01-02T15:04:05.000000"),
		res.Answer+map[bool]string{true: ".000000", false: ""}[got.Nanosecond() == 0],
		"the code read the recorded clock",
	)
}

func runStartClocks(t *testing.T, traj []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(traj))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct {
			Type string
			Data struct{ Clock string }
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		if ev.Type == EventRunStart {
			out = append(out, ev.Data.Clock)
		}
	}
	return out
}
