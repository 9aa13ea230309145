package orchestrator

import (
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
)

// TestChildVariableSizes: a child run's variables are described as len()
// and splitlines() see them, and run_start gets their real size (it said
// 0 for anything but str).
func TestChildVariableSizes(t *testing.T) {
	list := starlark.NewList([]starlark.Value{starlark.MakeInt(1), starlark.String("ab")})
	d := starlark.NewDict(1)
	_ = d.SetKey(starlark.String("k"), starlark.String("v"))
	tests := []struct {
		v       starlark.Value
		size    int64
		summary string
	}{
		{starlark.String("h\u00e9llo w\u00f6rld\n\u65e5\u672c\u8a9e\n"), 24, "str, 16 chars, 2 lines; starts"},
		{list, int64(len(`[1, "ab"]`)), ""},
		{d, int64(len(`{"k": "v"}`)), ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.size, valueSize(tt.v), tt.v.String())
		if tt.summary != "" {
			assert.Contains(t, starSummary(tt.v), tt.summary)
		}
	}
}
