package loadtest

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStats(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		s         Stats
		perSecond float64
		p50, p99  time.Duration
	}{
		{"empty", Stats{}, 0, 0, 0},
		{
			"ten",
			Stats{
				Elapsed:   time.Second,
				Latencies: []time.Duration{1 * ms, 2 * ms, 3 * ms, 4 * ms, 5 * ms, 6 * ms, 7 * ms, 8 * ms, 9 * ms, 10 * ms},
			},
			10,
			5 * ms,
			9 * ms,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.perSecond, tt.s.Throughput(), 1e-9)
			assert.Equal(t, tt.p50, tt.s.Quantile(0.5))
			assert.Equal(t, tt.p99, tt.s.Quantile(0.99))
		})
	}
}

// TestProcCPU: the CPU time of this process reads from /proc on Linux,
// and grows as it works.
func TestProcCPU(t *testing.T) {
	c0 := procCPU(os.Getpid())
	if runtime.GOOS != "linux" {
		assert.Equal(t, time.Duration(-1), c0)
		return
	}
	require.GreaterOrEqual(t, c0, time.Duration(0))
	for start := time.Now(); time.Since(start) < 100*time.Millisecond; {
	}
	assert.Greater(t, procCPU(os.Getpid()), c0)
	assert.Equal(t, time.Duration(-1), procCPU(-1))
}

// TestReport: a row per phase, and the goals a figure misses marked.
func TestReport(t *testing.T) {
	ms := time.Millisecond
	lat := func(d time.Duration) []time.Duration { return []time.Duration{d, d, d} }
	results := []Result{
		{
			Phase:  Phase{Clients: 64, Requests: 3},
			Direct: Stats{Elapsed: time.Second, Latencies: lat(40 * ms)},
			Served: Stats{Elapsed: 4 * time.Second, Latencies: lat(50 * ms), CPU: 6 * ms},
		},
		{
			Phase:  Phase{Clients: 1, Requests: 3},
			Direct: Stats{Elapsed: time.Second, Latencies: lat(40 * ms)},
			Served: Stats{Elapsed: time.Second, Latencies: lat(41 * ms), CPU: -1},
		},
	}
	var b strings.Builder
	require.NoError(t, Report(&b, Config{ServeArgs: []string{"--max-runs", "8"}}, results))
	out := b.String()
	assert.Contains(t, out, "rlm serve flags: --max-runs 8")
	assert.Contains(t, out, "0.25x (goal >= 0.50x: missed)")
	assert.Contains(t, out, "2.00 ms (goal <= 1.00 ms: missed)")
	assert.Contains(t, out, "n/a")
	assert.NotContains(t, strings.SplitN(out, "\n", 5)[4], "missed", "the 1-client row meets its goals")
}
