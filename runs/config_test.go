package runs_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/runs"
)

// TestConfigReadsEarlierRuns: the run configuration of run.json files
// written before it was typed (a map with the same keys) reads into
// Config, and a Config writes those keys back.
func TestConfigReadsEarlierRuns(t *testing.T) {
	old := `{"id":"20260101-000000-abcdef","config":{"api_key_set":true,"base_url":"http://h/v1?key=[REDACTED]",` +
		`"history_tokens":4000,"max_cost_usd":0.5,"max_iterations":12,"max_memory":1073741824,"max_steps":5000000,` +
		`"model":"root","output":"answer:str","step_timeout":"30s","sub_model":"sub","timeout":"10m0s","vars":["doc"]}}`
	var m runs.Meta
	require.NoError(t, json.Unmarshal([]byte(old), &m))
	require.NotNil(t, m.Config)
	want := runs.Config{APIKeySet: true, BaseURL: "http://h/v1?key=[REDACTED]", HistoryTokens: 4000, MaxCostUSD: 0.5,
		MaxIterations: 12, MaxMemory: 1 << 30, MaxSteps: 5000000, Model: "root", Output: "answer:str",
		StepTimeout: "30s", SubModel: "sub", Timeout: "10m0s", Vars: []string{"doc"}}
	assert.Equal(t, want, *m.Config)

	b, err := json.Marshal(want)
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, json.Unmarshal(b, &back))
	for _, k := range []string{"api_key_set", "base_url", "history_tokens", "max_iterations", "model", "vars", "timeout", "meta"} {
		assert.Contains(t, back, k)
	}
	assert.NotContains(t, back, "server", "only rlm serve's runs say server")
	assert.NotContains(t, back, "api_key")
}
