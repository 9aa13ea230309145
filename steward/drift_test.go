package steward

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/meta"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/runs"
)

// synth makes n runs of model at meta version v whose iterations are
// base plus a small deterministic spread.
func synth(model string, v, n, base int, start time.Time) []Evidence {
	out := make([]Evidence, n)
	for i := range out {
		it := base + i%3
		out[i] = Evidence{Run: model + "-" + time.Duration(i).String(), Source: "run", Started: start.Add(time.Duration(i) * time.Minute),
			Model: model, MetaVersion: v, StopReason: "submit", Iterations: it, Lost: i % 2, Tokens: 1000 * it}
	}
	return out
}

func TestDriftFindsShiftsTiedToMetaVersions(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	stable := append(synth("gpt-a", 1, 20, 5, t0), synth("gpt-a", 1, 20, 5, t0.Add(time.Hour))...)
	rep := Drift(stable, DriftOptions{Window: 20})
	require.NotEmpty(t, rep.Shifts)
	assert.Empty(t, rep.Drifted(), "no drift between like windows")

	shifted := append(synth("gpt-a", 1, 20, 5, t0), synth("gpt-a", 2, 20, 10, t0.Add(time.Hour))...)
	shifted = append(shifted, synth("gpt-b", 1, 3, 5, t0)...)
	rep = Drift(shifted, DriftOptions{Window: 20})
	d := rep.Drifted()
	require.NotEmpty(t, d)
	byMetric := map[string]Shift{}
	for _, s := range d {
		byMetric[s.Metric] = s
	}
	it, ok := byMetric["iterations_to_submit"]
	require.True(t, ok, "iterations doubled: %+v", d)
	assert.Equal(t, "gpt-a", it.Model)
	assert.InDelta(t, 1.0, it.Change, 0.2)
	assert.Less(t, it.P, 0.01)
	assert.Equal(t, "v1 (20)", it.MetaThen)
	assert.Equal(t, "v2 (20)", it.MetaNow)
	assert.Contains(t, byMetric, "tokens_per_run")
	assert.Equal(t, []string{"gpt-b (3 runs)"}, rep.Skipped)
}

// TestBackfill: an old-shaped trajectory (no version field, no meta in
// run_start, no metrics in run_end, no kept_refs) is migrated and its
// derived data recomputed; the original is kept as it was, a second pass
// changes nothing, and a trajectory from a newer rlm is left alone.
func TestBackfill(t *testing.T) {
	_, runsDir := newSteward(t)
	root := runs.NewRoot(runsDir)
	_, m := keptRun(t, root, "gpt-a", "code: 7\n", orchestrator.MetaNotes{},
		"```python\nprint('a' * 50)\n```", "```python\nprint('b')\n```", submit)
	path := filepath.Join(runsDir, m.ID, runs.TrajectoryFile)
	cur, err := os.ReadFile(path)
	require.NoError(t, err)
	var old []string
	compressions := 0
	for _, line := range strings.Split(strings.TrimSpace(string(cur)), "\n") {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &ev))
		delete(ev, "v")
		data, _ := ev["data"].(map[string]any)
		switch ev["type"] {
		case "run_start":
			delete(data, "meta")
		case "run_end":
			delete(data, "metrics")
		case "compression":
			compressions++
			delete(data, "kept_refs")
		}
		b, _ := json.Marshal(ev)
		old = append(old, string(b))
	}
	oldBytes := []byte(strings.Join(old, "\n") + "\n")
	require.NoError(t, os.WriteFile(path, oldBytes, 0o644))

	res, err := Backfill(runsDir)
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, len(old), res[0].Events, "every line lacked the version")
	assert.Contains(t, res[0].Recomputed, "run_start.meta")
	assert.Contains(t, res[0].Recomputed, "run_end.metrics")
	orig, err := os.ReadFile(filepath.Join(runsDir, m.ID, OriginalFile))
	require.NoError(t, err)
	assert.Equal(t, oldBytes, orig, "the original lines are kept untouched")

	migrated, err := os.ReadFile(path)
	require.NoError(t, err)
	evs, err := readEvents(path)
	require.NoError(t, err)
	for _, ev := range evs {
		assert.Equal(t, orchestrator.TrajectoryVersion, ev.V)
		if ev.Type == "run_end" && ev.Run == "0" {
			var d struct {
				Metrics map[string]int `json:"metrics"`
			}
			require.NoError(t, json.Unmarshal(ev.Data, &d))
			assert.Equal(t, 3, d.Metrics["requests"])
			assert.Equal(t, 3, d.Metrics["iterations"])
			assert.Equal(t, compressions, d.Metrics["compressions"])
		}
	}
	// The migrated run reads like a new one.
	e, err := runEvidence(filepath.Join(runsDir, m.ID), m)
	require.NoError(t, err)
	assert.Equal(t, "submit", e.StopReason)

	res, err = Backfill(runsDir)
	require.NoError(t, err)
	assert.Zero(t, res[0].Events, "idempotent")
	assert.Empty(t, res[0].Recomputed)
	again, _ := os.ReadFile(path)
	assert.Equal(t, migrated, again)

	newer := strings.Replace(string(migrated), `"v":1`, `"v":99`, 1)
	require.NoError(t, os.WriteFile(path, []byte(newer), 0o644))
	res, err = Backfill(runsDir)
	require.NoError(t, err)
	assert.Contains(t, res[0].Skipped, "newer")
	after, _ := os.ReadFile(path)
	assert.Equal(t, newer, string(after))
}

// TestCollectorExportsProposalsAndDrift: the Prometheus collector serves
// the meta version, pending proposals by action and drift per model.
func TestCollectorExportsProposalsAndDrift(t *testing.T) {
	st, runsDir := newSteward(t)
	root := runs.NewRoot(runsDir)
	for range 2 {
		keptRun(t, root, "gpt-a", "code: 7\n", orchestrator.MetaNotes{}, "Let me think.", submit)
	}
	evs, _, err := Collect(runsDir, time.Time{}, nil)
	require.NoError(t, err)
	doc := meta.New()
	require.NoError(t, st.SaveProposals(Propose(doc, evs, Options{}, st.now())))

	reg := prometheus.NewRegistry()
	reg.MustRegister(&Collector{Steward: st, RunsDir: runsDir, Drift: DriftOptions{MinRuns: 1, Window: 1}})
	families, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetGauge().GetValue()
		}
	}
	assert.Equal(t, 0.0, got["rlm_meta_version"])
	assert.Contains(t, got, "rlm_meta_hit_rate")
	assert.Equal(t, 0.0, got["rlm_meta_lesson_runs"], "no run had a lesson")
	assert.Equal(t, 1.0, got["rlm_steward_proposals_pending,action=add_lesson"], "no_code: %v", got)

	// With the no_code lesson in force, the runs that reply without code
	// are hits.
	v1 := meta.New()
	text, err := meta.LessonText("no_code", meta.Params{})
	require.NoError(t, err)
	v1.Version, v1.Lessons = 1, []meta.Lesson{{ID: "no_code", Template: "no_code", Text: text, Since: 1}}
	require.NoError(t, v1.Save(st.MetaPath))
	notes := orchestrator.MetaNotes{Version: 1, Lessons: []string{"no_code"}, Text: text}
	keptRun(t, root, "gpt-a", "code: 7\n", notes, "Let me think.", submit)
	keptRun(t, root, "gpt-a", "code: 7\n", notes, submit)
	reg = prometheus.NewRegistry()
	reg.MustRegister(&Collector{Steward: st, RunsDir: runsDir})
	families, err = reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		for _, m := range f.GetMetric() {
			got[f.GetName()] = m.GetGauge().GetValue()
		}
	}
	assert.Equal(t, 2.0, got["rlm_meta_lesson_runs"])
	assert.Equal(t, 0.5, got["rlm_meta_hit_rate"])
	assert.Contains(t, got, "rlm_steward_drift,metric=iterations_to_submit,model=gpt-a")
}
