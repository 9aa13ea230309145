package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rlmhq/rlm/llm"
)

// Modes.
const (
	ModeRLM    = "rlm"    // the orchestrator with the context externalized
	ModeDirect = "direct" // the whole context pasted into one prompt
)

// Runner answers one task in one mode: [RLM] (the orchestrator) and
// [Direct] (one prompt with everything) are the built-in modes.
type Runner interface {
	Run(ctx context.Context, t *Task) (*Outcome, error)
}

// Prompter renders the first model request of a mode for a task without
// calling a model; [DryRun] counts its tokens.
type Prompter interface {
	FirstRequest(t *Task) (llm.Request, error)
}

// Outcome is what a [Runner] reports for one item. A run that fails after
// spending tokens returns its Outcome together with the error.
type Outcome struct {
	Answer string
	// RootPromptTokens are the prompt tokens of the root (or the single
	// direct) requests; SubPromptTokens those of sub-calls (llm_query).
	RootPromptTokens int
	SubPromptTokens  int
	// EmbedTokens are the input tokens of embedding requests
	// (find_relevant), counted in Calls and CostUSD too.
	EmbedTokens      int
	CompletionTokens int
	Calls            int
	CostUSD          float64
	CostKnown        bool
	Iterations       int
	StopReason       string
	// Failure is a failure kind the runner already knows (e.g. "budget"),
	// with or without an answer.
	Failure string
	// MetaVersion is the version of the meta document whose lessons and
	// budgets the run used (rlm mode; 0: none).
	MetaVersion int
}

// Result is one line of results.jsonl: one task item in one mode.
type Result struct {
	Key
	Model            string  `json:"model,omitempty"`
	ContextTokens    int     `json:"context_tokens"`
	Score            float64 `json:"score"`
	Answer           string  `json:"answer"`
	Gold             string  `json:"gold"`
	Failure          string  `json:"failure,omitempty"`
	Error            string  `json:"error,omitempty"`
	RootPromptTokens int     `json:"root_prompt_tokens"`
	SubPromptTokens  int     `json:"sub_prompt_tokens"`
	EmbedTokens      int     `json:"embed_tokens,omitempty"`
	CompletionTokens int     `json:"completion_tokens"`
	TotalTokens      int     `json:"total_tokens"`
	Calls            int     `json:"calls"`
	CostUSD          float64 `json:"cost_usd"`
	CostKnown        bool    `json:"cost_known"`
	Iterations       int     `json:"iterations"`
	StopReason       string  `json:"stop_reason,omitempty"`
	MetaVersion      int     `json:"meta_version,omitempty"`
	WallSeconds      float64 `json:"wall_seconds"`
	Finished         string  `json:"finished"` // RFC 3339
}

// Config configures [Run]. Zero fields take defaults.
type Config struct {
	Tasks []string // task kinds (default all)
	Sizes []int    // context sizes in tokens (default 8k)
	N     int      // items per task and size (default 1)
	Seed  uint64
	Modes []string // default rlm, direct
	// Runners serve the modes by name.
	Runners map[string]Runner
	// Model names the model in each result; resuming results made with
	// another model is refused.
	Model string
	// Parallel is the number of items run at once (default 1).
	Parallel int
	// Results is the JSONL file results are appended to, one line per
	// item, synced as each finishes; empty keeps them in memory only.
	Results string
	// Resume skips items already in Results; without it an existing,
	// non-empty Results file is an error.
	Resume bool
	// Progress, if set, receives a progress bar redrawn in place (for a
	// terminal).
	Progress io.Writer
	// OnResult, if set, is called after each result is written.
	OnResult func(Result)
}

func (c Config) withDefaults() Config {
	if len(c.Tasks) == 0 {
		c.Tasks = Kinds()
	}
	if len(c.Sizes) == 0 {
		c.Sizes = []int{8000}
	}
	if c.N <= 0 {
		c.N = 1
	}
	if len(c.Modes) == 0 {
		c.Modes = []string{ModeRLM, ModeDirect}
	}
	if c.Parallel <= 0 {
		c.Parallel = 1
	}
	return c
}

// unit is one generated task and the modes still to run on it.
type unit struct {
	kind  string
	size  int
	index int
	modes []string
}

// Run runs every task × size × item × mode not yet in the results file and
// returns all results (earlier ones included) in the file's order. On
// cancellation it stops starting items, drops the unfinished ones (they
// rerun on resume) and returns the results so far with the context's error.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	for _, m := range cfg.Modes {
		if cfg.Runners[m] == nil {
			return nil, fmt.Errorf("%w %q", ErrNoRunner, m)
		}
	}
	cells, err := Cells(cfg)
	if err != nil {
		return nil, err
	}
	var prev []Result
	if cfg.Results != "" {
		prev, err = ReadResults(cfg.Results)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if len(prev) > 0 && !cfg.Resume {
			return nil, fmt.Errorf("%w: %s holds %d (set Config.Resume to continue that run)", ErrResultsExist, cfg.Results, len(prev))
		}
	}
	done := map[Key]bool{}
	for _, r := range prev {
		if cfg.Model != "" && r.Model != "" && r.Model != cfg.Model {
			return nil, fmt.Errorf("%w: %s holds results of model %s, not %s", ErrOtherModel, cfg.Results, r.Model, cfg.Model)
		}
		done[r.Key] = true
	}
	// Consecutive cells of one item share its generated task.
	var units []unit
	total, skipped := len(cells), 0
	for _, k := range cells {
		if done[k] {
			skipped++
			continue
		}
		if n := len(units); n > 0 && units[n-1].kind == k.Task && units[n-1].size == k.Size && units[n-1].index == k.Index {
			units[n-1].modes = append(units[n-1].modes, k.Mode)
			continue
		}
		units = append(units, unit{kind: k.Task, size: k.Size, index: k.Index, modes: []string{k.Mode}})
	}

	var sink *resultSink
	if cfg.Results != "" {
		var err error
		if sink, err = openSink(cfg.Results); err != nil {
			return nil, err
		}
		defer sink.close()
	}
	bar := newProgress(cfg.Progress, total, skipped)
	defer bar.finish()

	var (
		mu      sync.Mutex
		results = prev
		firstE  error
	)
	work := make(chan unit)
	var wg sync.WaitGroup
	for w := 0; w < min(cfg.Parallel, max(len(units), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range work {
				bar.start(fmt.Sprintf("generating %s/%s #%d", u.kind, FormatSize(u.size), u.index))
				t, err := Generate(u.kind, u.size, cfg.Seed, u.index)
				if err != nil {
					mu.Lock()
					firstE = errors.Join(firstE, err)
					mu.Unlock()
					continue
				}
				ctxTokens := contextTokens(t)
				for _, m := range u.modes {
					if ctx.Err() != nil {
						return
					}
					bar.start(fmt.Sprintf("%s %s/%s #%d", m, u.kind, FormatSize(u.size), u.index))
					r, ok := runItem(ctx, cfg.Runners[m], t, m, ctxTokens)
					if !ok {
						return // canceled: not recorded, reruns on resume
					}
					r.Model = cfg.Model
					mu.Lock()
					if sink != nil {
						if err := sink.write(r); err != nil {
							firstE = errors.Join(firstE, err)
						}
					}
					results = append(results, r)
					mu.Unlock()
					bar.done()
					if cfg.OnResult != nil {
						cfg.OnResult(r)
					}
				}
			}
		}()
	}
feed:
	for _, u := range units {
		select {
		case work <- u:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if firstE != nil {
		return results, firstE
	}
	return results, ctx.Err()
}

// runItem runs one task in one mode and scores it; ok is false when ctx was
// canceled before it finished.
func runItem(ctx context.Context, r Runner, t *Task, mode string, ctxTokens int) (Result, bool) {
	start := time.Now()
	out, err := r.Run(ctx, t)
	if ctx.Err() != nil {
		return Result{}, false
	}
	if out == nil {
		out = &Outcome{}
	}
	res := Result{
		Key:              Key{Task: t.Kind, Size: t.Size, Seed: t.Seed, Index: t.Index, Mode: mode},
		ContextTokens:    ctxTokens,
		Answer:           out.Answer,
		Gold:             t.Gold.Answer,
		Failure:          out.Failure,
		RootPromptTokens: out.RootPromptTokens,
		SubPromptTokens:  out.SubPromptTokens,
		EmbedTokens:      out.EmbedTokens,
		CompletionTokens: out.CompletionTokens,
		TotalTokens:      out.RootPromptTokens + out.SubPromptTokens + out.EmbedTokens + out.CompletionTokens,
		Calls:            out.Calls,
		CostUSD:          out.CostUSD,
		CostKnown:        out.CostKnown,
		Iterations:       out.Iterations,
		StopReason:       out.StopReason,
		MetaVersion:      out.MetaVersion,
		WallSeconds:      time.Since(start).Seconds(),
		Finished:         time.Now().UTC().Format(time.RFC3339),
	}
	if err != nil {
		res.Failure = FailureKind(err)
		res.Error = err.Error()
	}
	if res.Failure == FailContextOverflow || err != nil {
		res.Score = 0
	} else {
		res.Score = Score(t.Gold, out.Answer)
	}
	return res, true
}

// FailureKind classifies a runner error: context_overflow for prompts over
// the window (ours or the server's), the llm error kind (rate_limit,
// budget, auth, ...), timeout, else error.
func FailureKind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrContextOverflow), llm.KindOf(err) == llm.KindContextLength:
		return FailContextOverflow
	case llm.KindOf(err) != llm.KindUnknown:
		return llm.KindOf(err).String()
	case errors.Is(err, context.DeadlineExceeded):
		return FailTimeout
	}
	return FailError
}

// ReadResults reads a results JSONL file. Lines that do not parse (a line
// torn by a crash mid-write) are skipped: their items run again on resume.
func ReadResults(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r Result
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Task == "" || r.Mode == "" {
			continue
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: read %s: %w", path, err)
	}
	return out, nil
}

// resultSink appends results to a JSONL file, syncing after every line.
type resultSink struct {
	f *os.File
}

func openSink(path string) (*resultSink, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bench: open results: %w", err)
	}
	// Start on a fresh line if a previous run was cut mid-line.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte("\n")); err != nil {
				f.Close()
				return nil, err
			}
		}
	}
	return &resultSink{f: f}, nil
}

func (s *resultSink) write(r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("bench: write result: %w", err)
	}
	return s.f.Sync()
}

func (s *resultSink) close() error { return s.f.Close() }
