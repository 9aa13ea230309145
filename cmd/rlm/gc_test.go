package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
				setGCPercent:   func(p int) { gc = p },
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
