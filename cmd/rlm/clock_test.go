package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/runs"
)

// clockScript is a root model whose code reads the clock in its first step
// (printed, so the next request depends on it) and submits what it read.
func clockScript(c llmtest.Call) llmtest.Reply {
	n := 0
	for _, m := range c.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	if n == 0 {
		return llmtest.Text("```python\nimport datetime, time\nt0 = str(datetime.datetime.now())\nprint(t0, time.time())\n```")
	}
	return llmtest.Text("```python\nSUBMIT({\"answer\": t0})\n```")
}

// pyDatetime renders t as str(datetime) does.
func pyDatetime(t time.Time) string {
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("2006-01-02 15:04:05.000000")
}

// runStartClock returns the clock of the first run_start event of a
// trajectory file.
func runStartClock(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct {
			Type string
			Data struct{ Clock string }
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		if ev.Type == "run_start" {
			return ev.Data.Clock
		}
	}
	t.Fatal("no run_start event")
	return ""
}

func TestExecClockFlag(t *testing.T) {
	tests := []struct{ clock, want string }{
		{"2026-01-02T03:04:05Z", "2026-01-02 03:04:05 2026-01-02 1767323045.000002 2026-01-02 03:04:05.000003+00:00\n"},
		{"2026-01-02T05:04:05+02:00", "2026-01-02 03:04:05 2026-01-02 1767323045.000002 2026-01-02 03:04:05.000003+00:00\n"},
		{"2026-01-02", "2026-01-02 00:00:00 2026-01-02 1767312000.000002 2026-01-02 00:00:00.000003+00:00\n"},
	}
	code := "import datetime, time\nprint(datetime.datetime.now(), datetime.date.today(), time.time(), datetime.datetime.now(datetime.timezone.utc))"
	for _, tt := range tests {
		t.Run(tt.clock, func(t *testing.T) {
			rc, out, errOut := runCLI(t, "", nil, "exec", "--clock", tt.clock, "-c", code)
			require.Equal(t, 0, rc, "stderr: %s", errOut)
			assert.Equal(t, tt.want, out)
		})
	}
	rc, _, errOut := runCLI(t, "", nil, "exec", "--clock", "yesterday", "-c", "print(1)")
	assert.Equal(t, 2, rc)
	assert.Contains(t, errOut, `--clock "yesterday": want a time such as 2026-01-02T03:04:05Z`)
	// Without --clock: the real time at the start.
	before := time.Now().UTC().Add(-time.Second)
	rc, out, errOut := runCLI(t, "", nil, "exec", "-c", "import time\nprint(int(time.time()))")
	require.Equal(t, 0, rc, "stderr: %s", errOut)
	got, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, got, before.Unix())
	assert.LessOrEqual(t, got, time.Now().Unix())
}

// TestRunClockReplayResume: the clock a run's code reads is recorded (in
// run_start and in the recording), a --replay and a --resume give the
// code the same clock (else the re-executed step would print another time
// and the replay would miss, the resume diverge), and --clock fixes it.
func TestRunClockReplayResume(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(clockScript)
	dir := t.TempDir()
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte("notes\n"), 0o644))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root", "RLM_RUNS_DIR": filepath.Join(dir, "runs")}
	args := []string{"run", "--query", "q", "--var", "context=" + ctxFile, "--quiet"}

	rec, traj := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "traj.jsonl")
	code, recorded, errOut := runCLI(t, "", env, append(args, "--record", rec, "--trajectory", traj)...)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	clock, err := time.Parse(time.RFC3339Nano, runStartClock(t, traj))
	require.NoError(t, err)
	assert.Equal(t, pyDatetime(clock)+"\n", recorded, "the code read the recorded clock")
	meta, err := llm.ReadRecordingMeta(rec)
	require.NoError(t, err)
	assert.True(t, clock.Equal(meta.Clock), "the recording holds the clock")

	time.Sleep(2 * time.Millisecond) // the real time moves on
	traj2 := filepath.Join(dir, "traj2.jsonl")
	code, replayed, errOut := runCLI(t, "", nil, append(args, "--replay", rec, "--trajectory", traj2)...)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, recorded, replayed)
	assert.Equal(t, runStartClock(t, traj), runStartClock(t, traj2))

	code, out, errOut := runCLI(t, "", env, append(args, "--clock", "2030-05-06T07:08:09Z", "--no-keep")...)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "2030-05-06 07:08:09\n", out)

	// A run stopped by its budget after the first step, resumed later.
	runsDir := filepath.Join(dir, "kept")
	env["RLM_RUNS_DIR"] = runsDir
	code, _, errOut = runCLI(t, "", env, append(args, "--max-llm-calls", "1")...)
	require.Equal(t, 1, code, "stderr: %s", errOut)
	id := onlyRun(t, runsDir).ID
	first := runStartClock(t, filepath.Join(runsDir, id, runs.TrajectoryFile))
	time.Sleep(2 * time.Millisecond)
	code, out, errOut = runCLI(t, "", env, "run", "--resume", id, "--max-llm-calls", "10", "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	c, err := time.Parse(time.RFC3339Nano, first)
	require.NoError(t, err)
	assert.Equal(t, pyDatetime(c)+"\n", out, "the resumed run re-executed its first step at the recorded clock")
}
