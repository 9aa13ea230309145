package bench

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCellsOrderAndRunCell: Cells lists Run's items in Run's order, and
// RunCell gives each the Result Run records for it (timings aside).
func TestCellsOrderAndRunCell(t *testing.T) {
	kinds := []string{KindNIAH, KindAggregate}
	cfg := Config{Tasks: kinds, Sizes: []int{8000}, N: 2, Seed: 5, Modes: []string{ModeRLM, ModeDirect}, Model: "m"}
	cells, err := Cells(cfg)
	require.NoError(t, err)
	require.Len(t, cells, 8)
	assert.Equal(t, Key{Task: KindNIAH, Size: 8000, Seed: 5, Index: 0, Mode: ModeRLM}, cells[0])
	assert.Equal(t, Key{Task: KindNIAH, Size: 8000, Seed: 5, Index: 0, Mode: ModeDirect}, cells[1])
	assert.Equal(t, Key{Task: KindNIAH, Size: 8000, Seed: 5, Index: 1, Mode: ModeRLM}, cells[2])
	assert.Equal(t, Key{Task: KindAggregate, Size: 8000, Seed: 5, Index: 1, Mode: ModeDirect}, cells[7])

	o := newOracle(t, kinds, []int{8000}, 2, 5)
	var mu sync.Mutex
	var ran []Key
	cfg.Runners = runners(o, &mu, &ran)
	want, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, cells, ran, "Run works the cells in Cells' order")
	for i, k := range cells {
		got, err := RunCell(context.Background(), cfg, k)
		require.NoError(t, err)
		got.WallSeconds, got.Finished = want[i].WallSeconds, want[i].Finished
		assert.Equal(t, want[i], got)
	}

	_, err = Cells(Config{Tasks: []string{"nope"}})
	assert.ErrorIs(t, err, ErrUnknownTask)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = RunCell(ctx, cfg, cells[0])
	assert.ErrorIs(t, err, context.Canceled)
	_, err = RunCell(context.Background(), Config{}, cells[0])
	assert.ErrorIs(t, err, ErrNoRunner)
}
