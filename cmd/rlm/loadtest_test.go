package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/internal/loadtest"
)

// TestLoadtestSmoke runs make loadtest's generator for a few requests
// against this binary as rlm serve: every run answers, and the report
// has its row per phase. It asserts no timing.
func TestLoadtestSmoke(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	cfg := loadtest.Config{
		Command: []string{exe},
		Env:     []string{childEnv + "=1"},
		Dir:     t.TempDir(),
		Latency: time.Millisecond,
		Phases:  []loadtest.Phase{{Clients: 3, Requests: 6}, {Clients: 1, Requests: 2}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	results, err := loadtest.Run(ctx, cfg)
	require.NoError(t, err)
	require.Len(t, results, 2)
	for _, r := range results {
		assert.Zero(t, r.Direct.Errors, "%v", r.Direct.FirstError)
		assert.Zero(t, r.Served.Errors, "%v", r.Served.FirstError)
		assert.Len(t, r.Served.Latencies, r.Requests)
	}
	var b strings.Builder
	require.NoError(t, loadtest.Report(&b, cfg, results))
	assert.Contains(t, b.String(), "served req/s")
	assert.Equal(t, 2+1+len(results), strings.Count(b.String(), "\n"), b.String())
}
