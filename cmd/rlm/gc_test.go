package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"

	"github.com/rlmhq/rlm/sandbox"
)

// TestServeGCSettings: rlm serve sets its collector target and the soft
// memory limit unless the environment sets GOGC or GOMEMLIMIT.
func TestServeGCSettings(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		wantGC    int
		wantLimit bool
	}{
		{"defaults", nil, serveGCPercent, true},
		{"GOGC set", map[string]string{"GOGC": "100"}, -1, true},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, serveGCPercent, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gc, limit := -1, int64(-1)
			env := &cliEnv{
				getenv:         func(k string) string { return tc.env[k] },
				setGCPercent:   func(p int) int { prev := gc; gc = p; return prev },
				setMemoryLimit: func(n int64) { limit = n },
			}
			l := sandbox.Limits{MaxMemory: 1 << 30, MaxSessionMemory: 4 << 30}
			softMemoryLimit(env, l)
			serveGC(env)
			assert.Equal(t, tc.wantGC, gc)
			if tc.wantLimit {
				assert.Equal(t, int64(5<<30+256<<20), limit)
			} else {
				assert.Equal(t, int64(-1), limit)
			}
		})
	}
}

// TestLoadPausesGC: loading the variables of rlm exec and rlm run turns
// the collector off (everything the load allocates but a little is the
// variables' values, live to the end: collections during it scan them
// and free almost nothing) and restores it after, on errors too, unless
// the environment sets GOGC.
func TestLoadPausesGC(t *testing.T) {
	tests := []struct {
		name      string
		gogc      string
		vars      []string
		wantErr   bool
		wantPause bool
	}{
		{"load", "", []string{"x=" + tempFile(t, "x.txt", "hello")}, false, true},
		// Paused when the load starts making values: not for a missing file.
		{"failed load", "", []string{"x=/nonexistent/file.txt"}, true, false},
		{"failed decode", "", []string{"x=" + tempFile(t, "bad.json", "{")}, true, true},
		{"GOGC set", "100", []string{"x=" + tempFile(t, "y.txt", "hello")}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gc := 100
			var during []int
			env := &cliEnv{
				getenv: func(k string) string {
					if k == "GOGC" {
						return tc.gogc
					}
					return ""
				},
				setGCPercent: func(p int) int { prev := gc; gc = p; during = append(during, p); return prev },
			}
			_, _, err := loadContextSized(env, "q", tc.vars, "", "", rlmctx.DefaultSizeConfig(), nil, true)
			if tc.wantErr {
				assert.Error(t, err)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, 100, gc, "restored")
			if tc.wantPause {
				assert.Equal(t, []int{-1, 100}, during)
			} else {
				assert.Empty(t, during)
			}
		})
	}
}

func tempFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// TestLoadedGCPercent: after a large load the collector's target is
// scaled by the heap's scannable share (a document of texts collects its
// later garbage early; a heap of pointers keeps its target), within
// [minLoadedGCPercent, prev]; small loads and an off collector keep prev.
func TestLoadedGCPercent(t *testing.T) {
	tests := []struct {
		name             string
		prev             int
		scannable, inUse uint64
		want             int
	}{
		{"texts", 100, 10 << 20, 100 << 20, 10},
		{"mostly texts", 100, 1 << 20, 100 << 20, minLoadedGCPercent},
		{"records", 100, 60 << 20, 100 << 20, 60},
		{"all pointers", 100, 100 << 20, 100 << 20, 100},
		{"small heap", 100, 1 << 20, loadedHeapMin - 1, 100},
		{"lower target kept as the most", 50, 80 << 20, 100 << 20, 40},
		{"collector off", -1, 1 << 20, 100 << 20, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, loadedGCPercent(tc.prev, tc.scannable, tc.inUse))
		})
	}
}

// TestLoadRestoresScaledGC: the load restores the collector with the
// target loadedGCPercent gives for the heap it left.
func TestLoadRestoresScaledGC(t *testing.T) {
	gc := 100
	var during []int
	env := &cliEnv{
		getenv:       func(string) string { return "" },
		setGCPercent: func(p int) int { prev := gc; gc = p; during = append(during, p); return prev },
		heapShares:   func() (uint64, uint64) { return 8 << 20, 96 << 20 },
	}
	_, _, err := loadContextSized(env, "q", []string{"x=" + tempFile(t, "x.txt", "hello")}, "", "", rlmctx.DefaultSizeConfig(), nil, true)
	require.NoError(t, err)
	assert.Equal(t, []int{-1, minLoadedGCPercent}, during)
}

// TestGCPauseReleasesAtFirstPause: the memory left before the load is
// given back at the first pause (after a summary head's count, whose
// garbage and tokenizer pages it then includes), once, GOGC or not, and
// not at all when the load never starts making values.
func TestGCPauseReleasesAtFirstPause(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gogc   string
		pauses int
		want   []string
	}{
		{"paused", "", 2, []string{"release", "-1", "100"}},
		{"GOGC set", "50", 1, []string{"release"}},
		{"never paused", "", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			env := &cliEnv{
				getenv:       func(k string) string { return map[string]string{"GOGC": tc.gogc}[k] },
				setGCPercent: func(p int) int { log = append(log, strconv.Itoa(p)); return 100 },
			}
			g := &gcPause{env: env, release: func() { log = append(log, "release") }}
			for range tc.pauses {
				g.pause()
			}
			g.restore()
			assert.Equal(t, tc.want, log)
		})
	}
}
