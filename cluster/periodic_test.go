package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDueOncePerPeriodAcrossProcesses: three processes asking at once
// whether a periodic task is due get one yes per period between them;
// after the period, one yes again; another task is independent.
func TestDueOncePerPeriodAcrossProcesses(t *testing.T) {
	schema := newSchema(t)
	dbs := []*DB{open(t, testConfig(schema, "p1")), open(t, testConfig(schema, "p2")), open(t, testConfig(schema, "p3"))}
	ctx := context.Background()
	ask := func(name string, every time.Duration) int {
		var yes atomic.Int32
		var wg sync.WaitGroup
		for _, db := range dbs {
			for range 4 {
				wg.Go(func() {
					ok, err := db.Due(ctx, name, every)
					assert.NoError(t, err)
					if ok {
						yes.Add(1)
					}
				})
			}
		}
		wg.Wait()
		return int(yes.Load())
	}
	assert.Equal(t, 1, ask("gc", time.Hour), "the first asker runs it")
	assert.Equal(t, 0, ask("gc", time.Hour), "not again within the period")
	assert.Equal(t, 1, ask("other", time.Hour), "tasks are independent")
	_, err := dbs[0].pool.Exec(ctx, `UPDATE rlm_periodic SET last_at = last_at - interval '61 minutes' WHERE name = 'gc'`)
	require.NoError(t, err)
	assert.Equal(t, 1, ask("gc", time.Hour), "due again once its period passed")
	assert.Equal(t, 0, ask("gc", time.Hour))

	closed := open(t, testConfig(schema, "p4"))
	closed.Close()
	_, err = closed.Due(ctx, "gc", time.Hour)
	require.Error(t, err)
}
