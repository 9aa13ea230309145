package runs

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/orchestrator"
)

// A key the model echoed into its answer is not in the stored value, for
// --save and for child results alike.
func TestStoredResultsRedactSecrets(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	outputs := func() *rlmctx.Dict {
		inner := rlmctx.NewDict(1)
		inner.Set("token "+key, []any{"header: Bearer " + key, int64(3)})
		d := rlmctx.NewDict(2)
		d.Set("answer", "the key is "+key)
		d.Set("extra", inner)
		return d
	}
	st, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: t.TempDir()})
	require.NoError(t, err)
	defer st.Close()

	tests := []struct {
		name string
		save func(d *rlmctx.Dict) string // returns the key stored
	}{
		{"save", func(d *rlmctx.Dict) string {
			_, err := SaveOutputs(st, "answer", d, 0, key)
			require.NoError(t, err)
			return "answer"
		}},
		{"child", func(d *rlmctx.Dict) string {
			c := &ChildSaver{RunID: "r1", Secrets: []string{key}, Open: func() (*rlmctx.Store, error) { return st, nil }}
			c.Save("0.1", &orchestrator.Result{Outputs: d})
			c.mu.Lock()
			defer c.mu.Unlock()
			require.NoError(t, c.err)
			return ChildKey("r1", "0.1")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := outputs()
			k := tc.save(d)
			v, err := st.Get(k)
			require.NoError(t, err)
			b, err := json.Marshal(v)
			require.NoError(t, err)
			assert.NotContains(t, string(b), key)
			assert.Contains(t, string(b), "the key is [REDACTED]")
			assert.Contains(t, string(b), "Bearer [REDACTED]")
			got, _ := d.Get("answer")
			assert.Equal(t, "the key is "+key, got, "the run's own result is not modified")
		})
	}
}
