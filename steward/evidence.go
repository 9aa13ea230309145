package steward

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/rlmhq/rlm/internal/bench"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/runs"
)

// Evidence is what one kept run (or one rlm bench result) shows.
type Evidence struct {
	Run    string `json:"run"`
	Source string `json:"source"` // "run" or "bench"
	// Query is a digest of the run's query (run.json), so that proposals
	// can say how many distinct queries show a kind; "" for bench results.
	Query       string    `json:"query_digest,omitempty"`
	Started     time.Time `json:"started"`
	Model       string    `json:"model,omitempty"`
	MetaVersion int       `json:"meta_version"`
	// Lessons are the ids of the lessons the root's prompt had (its
	// run_start event's meta); nil when the trajectory names none (the
	// meta version's lessons then stand for them).
	Lessons    []string `json:"lessons,omitempty"`
	StopReason string   `json:"stop_reason,omitempty"`
	// Iterations of the root run; Steps the steps that ran code.
	Iterations int `json:"iterations"`
	Steps      int `json:"steps"`
	// Lost counts the root iterations lost to failures: steps that raised,
	// rejected SUBMITs and replies without code.
	Lost int `json:"lost"`
	// Errors counts the failed code blocks of the tree by kind (see
	// Classify) whose error the engine raised (exec origin "engine": a
	// limit, a builtin, the interpreter, a syntax error); Samples holds the
	// first one of each kind. Only these are evidence for lessons.
	Errors  map[string]int    `json:"errors,omitempty"`
	Samples map[string]Sample `json:"samples,omitempty"`
	// Raised counts, by kind, the failed blocks whose exception the code
	// raised itself (origin "raise": the code chose its type and message),
	// and Unattributed those of trajectories written before exec events
	// recorded the origin. Both are shown, never counted for a lesson: a
	// run could otherwise steer lessons by raising the types it wants.
	Raised       map[string]int `json:"raised,omitempty"`
	Unattributed map[string]int `json:"unattributed,omitempty"`
	// RejectedSubmits counts SUBMITs refused by the output schema.
	RejectedSubmits int      `json:"rejected_submits,omitempty"`
	Nudges          int      `json:"nudges"`
	Truncated       int      `json:"truncated"` // steps whose output the model saw as an excerpt
	Extracted       bool     `json:"final_extraction,omitempty"`
	Compressions    int      `json:"compressions"`
	PrefixChanges   int      `json:"prefix_changes"`
	HistoryTokens   int      `json:"history_tokens,omitempty"` // the run's history budget
	MaxIterations   int      `json:"max_iterations,omitempty"`
	Tokens          int      `json:"tokens"`
	CostUSD         float64  `json:"cost_usd"`
	CostKnown       bool     `json:"cost_known"`
	Score           *float64 `json:"score,omitempty"`
}

// Sample is an error and the code that raised it, as evidence for review.
// It is run text: shown to the operator, never put in the meta document.
type Sample struct {
	Run   string `json:"run"`
	Step  int    `json:"step"`
	Code  string `json:"code"`
	Error string `json:"error"`
}

// Submitted reports whether the run ended with a valid SUBMIT.
func (e Evidence) Submitted() bool { return e.StopReason == "submit" }

// modelName matches the model names the meta document accepts.
var modelName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,79}$`)

// Collect reads the evidence of the kept runs under runsDir started at or
// after since (zero: all), skipping runs still running, and of the rlm
// bench results files given. Unreadable runs are skipped with a warning.
// The result is sorted by start time.
func Collect(runsDir string, since time.Time, benchFiles []string) ([]Evidence, []string, error) {
	var out []Evidence
	list, warns, err := runs.NewRoot(runsDir).List()
	if err != nil {
		return nil, nil, err
	}
	for _, m := range list {
		if m.Started.Before(since) || m.Status == runs.StatusRunning {
			continue
		}
		ev, err := runEvidence(filepath.Join(runsDir, m.ID), m)
		if err != nil {
			warns = append(warns, fmt.Sprintf("run %s: %v", m.ID, err))
			continue
		}
		out = append(out, ev)
	}
	for _, f := range benchFiles {
		evs, err := benchEvidence(f, since)
		if err != nil {
			return nil, warns, err
		}
		out = append(out, evs...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, warns, nil
}

// event is one trajectory line, its payload left raw.
type event struct {
	V    int             `json:"v"`
	Type string          `json:"type"`
	Run  string          `json:"run"`
	Step int             `json:"step"`
	Data json.RawMessage `json:"data"`
}

// readEvents reads a trajectory; a torn last line (a killed writer) is
// dropped.
func readEvents(path string) ([]event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var evs []event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a torn or foreign line
		}
		evs = append(evs, e)
	}
	return evs, sc.Err()
}

// Payload shapes the steward reads (see orchestrator/TRAJECTORY.md).
type (
	startData struct {
		Config runs.Config `json:"config"`
		Limits struct {
			MaxIterations int `json:"max_iterations"`
		} `json:"limits"`
		Meta *struct {
			Version int      `json:"version"`
			Lessons []string `json:"lessons"`
		} `json:"meta"`
	}
	execPayload struct {
		Code      string `json:"code"`
		Error     string `json:"error"`
		Origin    string `json:"origin"`
		Truncated bool   `json:"truncated"`
	}
	endData struct {
		StopReason string `json:"stop_reason"`
		Extracted  bool   `json:"final_extraction"`
		Iterations int    `json:"iterations"`
		Usage      *struct {
			PromptTokens     int
			CompletionTokens int
			CostUSD          float64
			CostKnown        bool
		} `json:"usage"`
		Metrics *struct {
			Compressions  int `json:"compressions"`
			PrefixChanges int `json:"prefix_changes"`
			Nudges        int `json:"nudges"`
		} `json:"metrics"`
	}
)

func runEvidence(dir string, m runs.Meta) (Evidence, error) {
	evs, err := readEvents(filepath.Join(dir, runs.TrajectoryFile))
	if err != nil {
		return Evidence{}, err
	}
	e := Evidence{
		Run:          m.ID,
		Source:       "run",
		Query:        runs.Digest(m.Query),
		Started:      m.Started,
		MetaVersion:  m.MetaVersion,
		StopReason:   m.StopReason,
		Iterations:   m.Iterations,
		Tokens:       m.Tokens,
		Errors:       map[string]int{},
		Samples:      map[string]Sample{},
		Raised:       map[string]int{},
		Unattributed: map[string]int{},
	}
	if m.CostUSD != nil {
		e.CostUSD, e.CostKnown = *m.CostUSD, true
	}
	if len(evs) == 0 {
		return Evidence{}, errors.New("empty trajectory")
	}
	steps := map[int]bool{}
	lost := map[int]bool{}
	truncated := map[int]bool{}
	for _, ev := range evs {
		root := ev.Run == "0"
		switch ev.Type {
		case "run_start":
			if !root {
				continue
			}
			var d startData
			_ = json.Unmarshal(ev.Data, &d)
			if modelName.MatchString(d.Config.Model) {
				e.Model = d.Config.Model
			}
			e.HistoryTokens = d.Config.HistoryTokens
			e.MaxIterations = d.Limits.MaxIterations
			if d.Meta != nil {
				e.MetaVersion = d.Meta.Version
				if len(d.Meta.Lessons) > 0 {
					e.Lessons = d.Meta.Lessons
				}
			}
		case "exec":
			var d execPayload
			_ = json.Unmarshal(ev.Data, &d)
			if root {
				steps[ev.Step] = true
				if d.Truncated {
					truncated[ev.Step] = true
				}
			}
			if d.Error == "" {
				continue
			}
			if root {
				lost[ev.Step] = true
			}
			kind := Classify(d.Error)
			switch d.Origin {
			case orchestrator.OriginEngine:
			case orchestrator.OriginRaise:
				e.Raised[kind]++
				continue
			default: // written before the origin was recorded: unknown
				e.Unattributed[kind]++
				continue
			}
			e.Errors[kind]++
			if _, ok := e.Samples[kind]; !ok {
				e.Samples[kind] = Sample{
					Run:   m.ID + "/" + ev.Run,
					Step:  ev.Step,
					Code:  clip(d.Code, 300),
					Error: clip(lastLine(d.Error), 200),
				}
			}
		case "submit":
			var d struct {
				Valid bool `json:"valid"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			if !d.Valid {
				e.RejectedSubmits++
				if root {
					lost[ev.Step] = true
				}
			}
		case "request":
			var d struct {
				Nudge bool `json:"nudge"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			if root && d.Nudge {
				e.Nudges++
				lost[ev.Step-1] = true
			}
		case "compression":
			if root {
				e.Compressions++
			}
		case "run_end":
			if !root {
				continue
			}
			var d endData
			_ = json.Unmarshal(ev.Data, &d)
			e.StopReason, e.Extracted, e.Iterations = d.StopReason, d.Extracted, d.Iterations
			if d.Usage != nil {
				e.Tokens = d.Usage.PromptTokens + d.Usage.CompletionTokens
				e.CostUSD, e.CostKnown = d.Usage.CostUSD, d.Usage.CostKnown
			}
			if d.Metrics != nil {
				e.PrefixChanges = d.Metrics.PrefixChanges
			}
		}
	}
	e.Steps, e.Lost, e.Truncated = len(steps), len(lost), len(truncated)
	return e, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// benchEvidence reads the rlm-mode results of an rlm bench results.jsonl.
func benchEvidence(path string, since time.Time) ([]Evidence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("steward: bench results: %w", err)
	}
	defer f.Close()
	var out []Evidence
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r bench.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Mode != "rlm" {
			continue
		}
		t, _ := time.Parse(time.RFC3339, r.Finished)
		if t.Before(since) {
			continue
		}
		score := r.Score
		e := Evidence{Run: "bench:" + r.Key.String(), Source: "bench", Started: t, StopReason: r.StopReason,
			Iterations: r.Iterations, Tokens: r.TotalTokens, CostUSD: r.CostUSD, CostKnown: r.CostKnown, Score: &score,
			MetaVersion: r.MetaVersion}
		if modelName.MatchString(r.Model) {
			e.Model = r.Model
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
