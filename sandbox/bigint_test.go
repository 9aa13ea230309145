package sandbox

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInt64Bytes: an int past int32 but within int64 (a running total, a
// product of loop counters) is an 8-byte cell, not a big.Int (48 bytes
// with its word), so loops over such ints allocate a fraction of what
// they did.
func TestInt64Bytes(t *testing.T) {
	const n = 100000
	tests := []struct {
		name, code string
		max        float64 // bytes allocated per iteration
	}{
		{"running total past int32", "t = 2**40\nfor i in range(n):\n    t += i", 24},
		{"products", "for i in range(2**20, 2**20 + n):\n    x = i * i", 24},
		{"negative sums", "t = -2**40\nfor i in range(n):\n    t -= i", 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Config{})
			ctx := context.Background()
			_, err := s.Exec(ctx, "n = 100000\nxs = None")
			require.NoError(t, err)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = s.Exec(ctx, tt.code)
			require.NoError(t, err)
			runtime.ReadMemStats(&after)
			per := float64(after.TotalAlloc-before.TotalAlloc) / n
			assert.Less(t, per, tt.max, "bytes allocated per iteration")
		})
	}
}
