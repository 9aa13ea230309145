package steward

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rlmhq/rlm/internal/atomicfile"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/runs"
)

// OriginalFile keeps a backfilled run's trajectory as it was first
// written (a hard link to the original file: its lines are never edited).
const OriginalFile = "trajectory.orig.jsonl"

// BackfillResult says what Backfill did to one run.
type BackfillResult struct {
	Run string `json:"run"`
	// Events is how many trajectory lines were migrated (0: none needed).
	Events int `json:"events"`
	// Recomputed names the derived data recomputed.
	Recomputed []string `json:"recomputed,omitempty"`
	Skipped    string   `json:"skipped,omitempty"` // why the run was left alone
}

// Backfill migrates the trajectories of the kept runs under runsDir to the
// current schema (orchestrator.TrajectoryVersion) and recomputes derived
// data missing from older runs: the root's run_start.meta, run_end.metrics
// (from the request and compression events), compression kept_refs, and
// run.json's meta version. It is idempotent (a second pass changes
// nothing) and never edits the original lines in place: the migrated
// trajectory is written to a temporary file and renamed over the old one,
// which stays as trajectory.orig.jsonl. Running runs and trajectories of a
// newer schema are skipped.
func Backfill(runsDir string) ([]BackfillResult, error) {
	list, _, err := runs.NewRoot(runsDir).List()
	if err != nil {
		return nil, err
	}
	var out []BackfillResult
	for _, m := range list {
		r := BackfillResult{Run: m.ID}
		if m.Status == runs.StatusRunning {
			r.Skipped = "running"
			out = append(out, r)
			continue
		}
		if err := backfillRun(filepath.Join(runsDir, m.ID), m, &r); err != nil {
			if !errors.Is(err, ErrNewerTrajectory) {
				return out, fmt.Errorf("run %s: %w", m.ID, err)
			}
			r.Skipped = err.Error()
		}
		out = append(out, r)
	}
	return out, nil
}

func backfillRun(dir string, m runs.Meta, res *BackfillResult) error {
	path := filepath.Join(dir, runs.TrajectoryFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		res.Skipped = "no trajectory"
		return nil
	}
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	type parsed struct {
		ev  map[string]any
		raw []byte
		mod bool
	}
	var evs []parsed
	for _, l := range lines {
		var ev map[string]any
		d := json.NewDecoder(bytes.NewReader(l))
		d.UseNumber()
		if bytes.HasSuffix(l, []byte("\n")) && d.Decode(&ev) == nil {
			evs = append(evs, parsed{ev: ev, raw: l})
		} else {
			evs = append(evs, parsed{raw: l}) // torn or foreign: kept as it is
		}
	}
	// Pass 1: the schema version.
	for i := range evs {
		if evs[i].ev == nil {
			continue
		}
		n, _ := evs[i].ev["v"].(json.Number)
		v, _ := n.Int64()
		switch {
		case v > orchestrator.TrajectoryVersion:
			return fmt.Errorf("%w (v%d)", ErrNewerTrajectory, v)
		case v < 1:
			// Lines from before the version field: the v1 shape.
			evs[i].ev["v"] = 1
			evs[i].mod = true
		}
	}
	// Pass 2: derived data of the root run.
	var (
		requests, compressions, prefixChanges, nudges, iterations int
		lastHash                                                  string
		recomputed                                                = map[string]bool{}
		metaVersion                                               = m.MetaVersion
	)
	for i := range evs {
		ev := evs[i].ev
		if ev == nil {
			continue
		}
		data, _ := ev["data"].(map[string]any)
		if data == nil {
			data = map[string]any{}
		}
		root := ev["run"] == "0"
		switch ev["type"] {
		case orchestrator.EventRunStart:
			if !root {
				continue
			}
			if mv, ok := data["meta"].(map[string]any); ok {
				if n, ok := mv["version"].(json.Number); ok {
					v, _ := n.Int64()
					metaVersion = int(v)
				}
			} else {
				data["meta"] = map[string]any{"version": metaVersion}
				ev["data"] = data
				evs[i].mod = true
				recomputed["run_start.meta"] = true
			}
		case orchestrator.EventRequest:
			if !root {
				continue
			}
			requests++
			if data["nudge"] == true {
				nudges++
			}
			if h, _ := data["prefix_hash"].(string); h != "" {
				if lastHash != "" && h != lastHash {
					prefixChanges++
				}
				lastHash = h
			}
		case orchestrator.EventReply:
			if root && data["error"] == nil {
				iterations++
			}
		case orchestrator.EventCompression:
			if root {
				compressions++
			}
			if _, ok := data["kept_refs"]; !ok {
				var refs []string
				steps, _ := data["steps"].([]any)
				for _, s := range steps {
					refs = append(refs, fmt.Sprintf("outputs[%v]", s))
				}
				data["kept_refs"] = refs
				ev["data"] = data
				evs[i].mod = true
				recomputed["compression.kept_refs"] = true
			}
		case orchestrator.EventRunEnd:
			if !root {
				continue
			}
			if _, ok := data["metrics"]; !ok {
				data["metrics"] = map[string]any{"requests": requests, "compressions": compressions, "prefix_changes": prefixChanges,
					"nudges": nudges, "iterations": iterations}
				data["backfilled"] = []string{"metrics"}
				ev["data"] = data
				evs[i].mod = true
				recomputed["run_end.metrics"] = true
			}
		}
	}
	var buf bytes.Buffer
	for _, p := range evs {
		if !p.mod {
			buf.Write(p.raw)
			continue
		}
		res.Events++
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p.ev); err != nil {
			return err
		}
	}
	if res.Events > 0 {
		if err := swapTrajectory(dir, path, buf.Bytes()); err != nil {
			return err
		}
	}
	if m.MetaVersion != metaVersion {
		if err := updateRunMeta(dir, func(raw map[string]any) { raw["meta_version"] = metaVersion }); err != nil {
			return err
		}
		recomputed["run.json meta_version"] = true
	}
	for _, k := range []string{"run_start.meta", "run_end.metrics", "compression.kept_refs", "run.json meta_version"} {
		if recomputed[k] {
			res.Recomputed = append(res.Recomputed, k)
		}
	}
	return nil
}

// swapTrajectory keeps the original trajectory as OriginalFile (once: the
// first original is the one kept) and renames the migrated copy over it.
func swapTrajectory(dir, path string, data []byte) error {
	orig := filepath.Join(dir, OriginalFile)
	if _, err := os.Stat(orig); errors.Is(err, os.ErrNotExist) {
		if err := os.Link(path, orig); err != nil {
			return fmt.Errorf("steward: keep the original trajectory: %w", err)
		}
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("steward: write the migrated trajectory: %w", err)
	}
	return nil
}

// updateRunMeta rewrites run.json atomically through f, keeping the fields
// this rlm does not know.
func updateRunMeta(dir string, f func(map[string]any)) error {
	path := filepath.Join(dir, runs.MetaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var raw map[string]any
	d := json.NewDecoder(bufio.NewReader(bytes.NewReader(b)))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil {
		return fmt.Errorf("steward: %s: %w", path, err)
	}
	f(raw)
	out, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(out, '\n'), 0o644)
}
