package server

import (
	"strings"
	"testing"

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
				code, _, body := ts.do(t, "POST", "/v1/chat/completions", chatBody("echo hi", map[string]any{"variables": map[string]any{"doc": big}}))
				require.Equal(t, 200, code, string(body))
			}
			chat()
			after1 := heapInUse()
			const runs = 8
			for range runs - 1 {
				chat()
			}
			grown := heapInUse() - after1
			t.Logf("%s: heap after 1 run %.1f MB, +%.1f MB after %d more runs with a %d MB variable", name, float64(after1)/(1<<20), float64(grown)/(1<<20), runs-1, len(big)>>20)
			assert.Less(t, grown, int64(len(big)), "finished runs hold no variable")
		})
	}
}
