package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEveryFlagIsGrouped: -h lists each command's flags under their
// purpose; a new flag must be put in a group of flagGroups.
func TestEveryFlagIsGrouped(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			code, out, _ := runCLI(t, "", nil, name, "-h")
			assert.Equal(t, 0, code)
			assert.NotContains(t, out, "\n other:\n", "a flag of rlm %s is in no group of flagGroups", name)
			assert.Contains(t, out, "\nexamples:\n  ", "rlm %s -h ends with examples", name)
		})
	}
	for _, sub := range [][]string{{"store", "put"}, {"store", "ls"}, {"store", "fsck"}, {"store", "summarize"}, {"runs", "gc"},
		{"steward", "drift"}, {"steward", "apply"}, {"steward", "rollback"}, {"bench", "gen"}} {
		_, out, _ := runCLI(t, "", map[string]string{"RLM_STORE": t.TempDir()}, append(sub, "-h")...)
		assert.Contains(t, out, "usage: rlm "+sub[0]+" "+sub[1], sub)
		assert.NotContains(t, out, "\n other:\n", "a flag of rlm %v is in no group of flagGroups", sub)
	}
	_, out, _ := runCLI(t, "", nil, "run", "-h")
	for _, title := range []string{"\n task:\n", "\n model:\n", "\n budgets:\n", "\n sandbox limits (each code step):\n", "\n output and kept runs:\n", "\nexamples:\n"} {
		assert.Contains(t, out, title)
	}
}
