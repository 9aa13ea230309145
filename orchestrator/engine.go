package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
)

// StopReason says why a run ended.
type StopReason string

// Stop reasons.
const (
	StopSubmit        StopReason = "submit"         // a valid SUBMIT
	StopMaxIterations StopReason = "max_iterations" // iteration limit, then the final extraction turn
	StopBudget        StopReason = "budget"         // a ledger limit refused a root call
	StopErrors        StopReason = "errors"         // too many consecutive failed steps
	StopTimeout       StopReason = "timeout"        // Config.Timeout elapsed
	StopCanceled      StopReason = "canceled"       // the caller's context was canceled
	StopModelError    StopReason = "model_error"    // the root model failed (not retryable)
)

// Result is the outcome of a run.
type Result struct {
	// Answer is the primary output as text: the "answer" field, else the
	// first declared field.
	Answer string
	// Outputs are the SUBMIT outputs (validated unless Partial).
	Outputs *rlmctx.Dict
	// StopReason says why the run ended; Err is the matching error (nil
	// for StopSubmit).
	StopReason StopReason
	Err        error
	// Partial marks a best partial answer (no valid SUBMIT).
	Partial bool
	// Extracted marks outputs that came from the final extraction turn
	// after the iteration limit.
	Extracted bool
	// Iterations of the root run (including the final extraction turn).
	Iterations int
	// Usage of the whole tree, from the ledger.
	Usage   llm.Totals
	ByModel map[string]llm.Totals
	// Duration is the wall time of the run.
	Duration time.Duration
	// ActiveTime is the tree's active time (see Config.MaxActiveTime).
	ActiveTime time.Duration
	Metrics    Metrics
	RunID      string
}

// Metrics are the counters of a run tree (seed 003 observability).
type Metrics struct {
	Requests int `json:"requests"`
	// TokensBySection sums each section over all root-level requests of
	// the tree; LastRequest is the latest root request.
	TokensBySection SectionTokens `json:"tokens_by_section"`
	LastRequest     SectionTokens `json:"last_request"`
	// MaxRequestTokens is the largest request sent (prompt tokens).
	MaxRequestTokens int `json:"max_request_tokens"`
	// FirstPrefixTokens is the system+meta size of the first root request.
	FirstPrefixTokens int `json:"first_prefix_tokens"`
	Compressions      int `json:"compressions"`
	// PrefixChanges counts requests whose system+meta prefix differed from
	// the previous request of the same RLM (prompt-cache misses).
	PrefixChanges int `json:"prefix_changes"`
	// SubCalls counts sub-model requests made from code (llm_query,
	// llm_query_batched, summarize, rlm_query at the depth limit) that
	// reached the model; budget refusals are not counted.
	SubCalls int `json:"sub_calls"`
	// MemoHits counts sub-calls answered by an identical earlier one of
	// the same RLM (memoized: no request).
	MemoHits int `json:"memo_hits,omitempty"`
	// SummarizerCalls counts the calls of Config.Summarizer (each one
	// model request for LLMSummarizer) that were not refused by a budget.
	SummarizerCalls int `json:"summarizer_calls,omitempty"`
	RLMQueries      int `json:"rlm_queries"` // rlm_query calls, child RLM or plain
	ChildRuns       int `json:"child_runs"`  // child RLMs started
	Nudges          int `json:"nudges"`
	// OverBudgetRequests counts requests whose history stayed over
	// Config.DynamicBudget even after compression and clamping.
	OverBudgetRequests int `json:"over_budget_requests,omitempty"`
	Iterations         int `json:"iterations"` // tree-wide
	// Root-run model usage as the server reported it (the root RLM's own
	// requests; sub-calls and child RLMs are the rest of Result.Usage).
	RootCalls            int `json:"root_calls"`
	RootPromptTokens     int `json:"root_prompt_tokens"`
	RootCompletionTokens int `json:"root_completion_tokens"`
}

// Status is the live state reported to Config.OnStatus.
type Status struct {
	RunID      string
	Iteration  int
	MaxIter    int
	Tokens     int
	CostUSD    float64
	CostKnown  bool
	Pending    int // child runs and sub-calls in flight
	Elapsed    time.Duration
	Phase      string // "model", "exec", "done"
	StopReason StopReason
	// Metrics are the tree's counters so far.
	Metrics Metrics
}

// Engine runs RLM tasks with one configuration.
type Engine struct {
	cfg Config
}

// New returns an Engine; zero Config fields take their defaults.
func New(cfg Config) *Engine { return &Engine{cfg: cfg.withDefaults()} }

// Config returns the engine's configuration with defaults applied.
func (e *Engine) Config() Config { return e.cfg }

// tree is the state shared by every RLM of one Run.
type tree struct {
	cfg      Config
	traj     *trajectory
	start    time.Time
	clock    time.Time // Config.Clock, or start
	onStatus func(Status)
	pending  atomic.Int64

	mu      sync.Mutex
	metrics Metrics
	started int                   // iterations started in the tree (mu)
	nodes   map[string]*usageNode // by RLM id (mu)
}

// startIteration claims one iteration of Config.MaxTotalIterations for a
// request about to be sent; false means the tree's budget is spent.
// Claiming before the request (not counting after it) keeps concurrent
// child runs from overshooting the budget together.
func (t *tree) startIteration() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if max := t.cfg.MaxTotalIterations; max > 0 && t.started >= max {
		return false
	}
	t.started++
	return true
}

func (t *tree) addMetrics(f func(m *Metrics)) {
	t.mu.Lock()
	f(&t.metrics)
	t.mu.Unlock()
}

func (t *tree) snapshot() Metrics {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.metrics
}

// maxListedKeys is how many readable stored keys the root prompt lists.
const maxListedKeys = 8

// Run answers c.Query over c's variables. The error is non-nil only when
// the run could not start (bad configuration); a run that stops on a limit
// returns a Result with its StopReason, Err and best partial answer.
func (e *Engine) Run(ctx context.Context, c *rlmctx.ExternalizedContext) (*Result, error) {
	cfg := e.cfg
	if cfg.Model == nil {
		return nil, ErrNoModel
	}
	if c == nil {
		return nil, errors.New("orchestrator: nil context")
	}
	if err := cfg.checkBudgets(); err != nil {
		return nil, err
	}
	start := time.Now()
	clock := cfg.Clock
	if clock.IsZero() {
		clock = start
	}
	clock = clock.UTC().Truncate(time.Microsecond)
	t := &tree{cfg: cfg, traj: newTrajectory(cfg.Trajectory, start), start: start, clock: clock, onStatus: cfg.OnStatus}
	t.newNode("0", nil)
	ctx, endRun := t.startRun(ctx, RunInfo{ID: "0", Model: cfg.RootModel, MaxIterations: cfg.MaxIterations, Protocol: cfg.Protocol})
	parent := ctx
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	vars := make([]Var, 0, len(c.Vars))
	for _, v := range c.Vars {
		if err := CheckVarName(v.Name); err != nil {
			err = fmt.Errorf("orchestrator: variable %s: %w", v.Name, err)
			endRun(RunEnd{Err: err})
			return nil, err
		}
		vars = append(vars, Var{Name: v.Name, Context: v})
	}
	summaries := c.VariableSummaries()
	if cfg.Store != nil {
		// Stored values given to the run are listed with the variables.
		if lines := cfg.Store.Listing(maxListedKeys); len(lines) > 0 {
			if len(c.Vars) == 0 {
				summaries = strings.Join(lines, "\n")
			} else {
				summaries += "\n" + strings.Join(lines, "\n")
			}
		}
	}
	r, err := newRun(ctx, t, runSpec{
		id: "0", depth: 0, query: c.Query, schema: cfg.Outputs, maxIter: cfg.MaxIterations,
		vars: vars, summaries: summaries, infos: rootVarInfos(c),
	})
	if err != nil {
		endRun(RunEnd{Err: err})
		return nil, err
	}
	defer r.exec.Close()
	res := r.loop(ctx, parent)
	res.Duration = time.Since(start)
	res.Usage = cfg.Ledger.Totals()
	res.ByModel = cfg.Ledger.ByModel()
	res.Metrics = t.snapshot()
	res.ActiveTime = t.active()
	r.emitEnd(res)
	t.status(r, "done", res.StopReason)
	endRun(RunEnd{Result: res})
	return res, nil
}

// RootPrompt returns the messages of the first root request for c, and
// their tokens by section, without calling a model (rlm bench --dry-run).
func (e *Engine) RootPrompt(c *rlmctx.ExternalizedContext) ([]llm.Message, SectionTokens) {
	cfg := e.cfg
	env := buildEnvelope(cfg, c.Query, c.VariableSummaries(), rootVarInfos(c), cfg.Outputs, cfg.MaxIterations, 0)
	return env.Messages(), env.tokens(cfg.Tokenizer)
}

// rootVarInfos describes the root run's variables (name, type, size) for
// the run_start event and the meta section.
func rootVarInfos(c *rlmctx.ExternalizedContext) []varInfo {
	infos := make([]varInfo, 0, len(c.Vars))
	for _, v := range c.Vars {
		infos = append(infos, varInfo{Name: v.Name, Type: v.Type.String(), SizeBytes: v.SizeBytes})
	}
	return infos
}

// RootPrompt is New(cfg).RootPrompt(c).
func RootPrompt(cfg Config, c *rlmctx.ExternalizedContext) ([]llm.Message, SectionTokens) {
	return New(cfg).RootPrompt(c)
}

func (t *tree) status(r *run, phase string, stop StopReason) {
	if t.onStatus == nil || r.depth > 0 {
		return
	}
	tot := t.cfg.Ledger.Totals()
	t.onStatus(Status{
		RunID: r.id, Iteration: r.iterations, MaxIter: r.maxIter,
		Tokens: tot.Tokens(), CostUSD: tot.CostUSD, CostKnown: tot.CostKnown,
		Pending: int(t.pending.Load()), Elapsed: time.Since(t.start), Phase: phase, StopReason: stop,
		Metrics: t.snapshot(),
	})
}

func (r *run) emitEnd(res *Result) {
	d := runEndData{
		StopReason: res.StopReason, Answer: res.Answer, Partial: res.Partial, Extracted: res.Extracted,
		Iterations: res.Iterations, DurationMS: res.Duration.Milliseconds(),
	}
	if res.Err != nil {
		d.Error = res.Err.Error()
	}
	if res.Outputs != nil {
		d.Outputs, _ = MarshalValue(res.Outputs)
	}
	r.node.finish()
	d.TreeUsage = usageOf(r.node.snapshot())
	if r.depth == 0 {
		d.Usage = res.Usage
		d.ByModel = res.ByModel
		d.CostUSD = res.Usage.CostUSD
		d.CostKnown = res.Usage.CostKnown
		m := res.Metrics
		d.Metrics = &m
	}
	r.t.traj.emit(EventRunEnd, r.id, 0, d)
}

// stopFor maps a context error to a stop reason.
func stopFor(ctx, parent context.Context) (StopReason, error) {
	if parent.Err() != nil {
		return StopCanceled, parent.Err()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return StopTimeout, ErrTimeout
	}
	return StopCanceled, ctx.Err()
}

// subModel is the model handed to the code of r's REPL: cfg.Model with
// each request that reaches it counted in Metrics.SubCalls (and reported
// to the Tracer as a sub-call of r).
func (r *run) subModel() llm.ChatModel { return subCounter{r.t, r.id, nil} }

type subCounter struct {
	t    *tree
	run  string
	node *usageNode // where the usage is counted (nil: run's)
}

func (c subCounter) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	node := c.node
	if node == nil {
		node = c.t.node(c.run)
	}
	resp, err := c.t.chatFor(ctx, node, c.run, CallSub, req)
	if err == nil || llm.KindOf(err) != llm.KindBudget {
		c.t.addMetrics(func(m *Metrics) { m.SubCalls++ })
	}
	return resp, err
}

// Model reports the wrapped model's default model name, if it has one.
func (c subCounter) Model() string {
	if m, ok := c.t.cfg.Model.(interface{ Model() string }); ok {
		return m.Model()
	}
	return ""
}
