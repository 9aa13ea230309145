package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestQuantilesTooFewPoints: statistics.quantiles needs two data points
// with either method (CPython 3.11).
func TestQuantilesTooFewPoints(t *testing.T) {
	for _, call := range []string{"[5], method='inclusive'", "[5]", "[], method='inclusive'"} {
		t.Run(call, func(t *testing.T) {
			got := run(
				t,
				"import statistics\ntry:\n    print(statistics.quantiles("+call+"))\nexcept statistics.StatisticsError as e:\n    print(type(e).__name__, e)",
			)
			assert.Equal(t, "StatisticsError must have at least two data points\n", got)
		})
	}
}
