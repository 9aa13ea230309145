package orchestrator

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/repl"
	"github.com/rlmhq/rlm/sandbox"
)

// Protocol is how the root model writes code and submits.
type Protocol string

// Protocols.
const (
	// ProtocolText: code in fenced blocks, SUBMIT({...}) called in code.
	ProtocolText Protocol = "text"
	// ProtocolTools: execute_code and submit as OpenAI tool calls.
	ProtocolTools Protocol = "tools"
)

// Defaults for zero Config fields.
const (
	DefaultMaxIterations        = 30
	DefaultChildMaxIterations   = 10
	DefaultMaxDepth             = 1
	DefaultMaxConsecutiveErrors = 5
	DefaultSystemBudget         = 1240
	DefaultMetaBudget           = 380
	DefaultMetaTokensPerVar     = 40
	DefaultMaxMetaBudget        = 2400
	DefaultDynamicBudget        = 12000
	DefaultCompressAt           = 0.8
	DefaultObservationTokens    = sandbox.DefaultObservationTokens
)

// Config configures an [Engine]. Zero fields take the defaults above.
type Config struct {
	// Model answers every chat call of the run: root, sub-calls and child
	// RLMs. Wrap it with llm.Metered over Ledger so budgets hold.
	Model llm.ChatModel
	// RootModel and SubModel name the models for root requests and for
	// sub-calls (llm_query, summarize, plain rlm_query); empty means the
	// client's default.
	RootModel string
	SubModel  string
	// Embedder serves find_relevant; nil falls back to BM25.
	Embedder llm.Embedder
	// Ledger is the one budget ledger of the run tree; it reports usage in
	// the Result. Nil creates an unlimited ledger (usage still counted
	// only if Model is metered over it).
	Ledger *llm.Ledger
	// Tokenizer counts prompt sections; nil picks one for RootModel.
	Tokenizer *llm.Tokenizer

	Protocol Protocol
	// Outputs is the declared output schema; nil means DefaultSchema.
	Outputs Schema

	// MaxIterations bounds the root's iterations (default 30); children
	// get ChildMaxIterations (default 10).
	MaxIterations      int
	ChildMaxIterations int
	// MaxDepth is the number of RLM levels: 1 (default) makes rlm_query a
	// plain sub-model call; 2 lets the root start child RLMs, and so on.
	MaxDepth int
	// MaxTotalIterations bounds the iterations of the whole tree (root and
	// children together), checked before each request; 0 means no bound
	// beyond the per-run limits.
	MaxTotalIterations int
	// MaxConsecutiveErrors stops the run after that many failed steps in a
	// row (default 5).
	MaxConsecutiveErrors int
	// Timeout bounds the wall time of the whole tree; 0 means none.
	Timeout time.Duration
	// MaxActiveTime bounds the tree's active time: the time of every model
	// call of its RLMs (root requests and sub-calls) plus the time their
	// code runs, not counting the time code waits for a sub-call or a
	// child (whose own time is counted). It is checked before each model
	// call; a call over it is refused as a budget (StopBudget, wrapping
	// ErrActiveTimeBudget). 0 means no bound.
	MaxActiveTime time.Duration
	// Now is the clock of the usage figures and MaxActiveTime (nil:
	// time.Now); tests pass a fake one.
	Now func() time.Time
	// MaxOutputTokens caps each root reply (0 = client default).
	MaxOutputTokens int
	// Temperature for root requests (nil = client default).
	Temperature *float32
	// TopP, Seed and Stop for root requests (nil = client default, none).
	// Like Temperature and MaxOutputTokens they apply to every call to the
	// root model (each step of the run and of its child RLMs, and the
	// final-extraction turn), not to sub-calls or history compression.
	TopP *float32
	Seed *int
	Stop []string

	// Section token budgets. The system section is static (its budget is
	// only reported); meta is cut to fit its budget; when the dynamic
	// section passes CompressAt (0.8) of its budget, old turns are
	// compressed into the rolling summary.
	SystemBudget int
	// MetaBudget is the meta section's base budget (default 380 tokens);
	// each variable adds MetaTokensPerVar (default 40), up to MaxMetaBudget
	// (default 2,400). When the variable summaries do not fit, the section
	// lists one compact line per variable (name, type, size).
	MetaBudget       int
	MetaTokensPerVar int
	MaxMetaBudget    int
	DynamicBudget    int
	CompressAt       float64
	// Summarizer writes the rolling summary; nil uses the deterministic one.
	Summarizer Summarizer
	// Meta holds the notes of the meta document (package meta) rendered
	// for this run; its text is appended to the meta section of every
	// RLM's prompt (its tokens are added to the meta budget reported in
	// run_start), and the root's run_start records its version.
	Meta MetaNotes

	// Clock is the time the sandbox's clock starts at in every RLM of the
	// tree (what time.time(), datetime.now() and date.today() read; see
	// sandbox.Config.Clock); zero: the real time when Run starts. Each
	// run_start event records it (`clock`), so a replay or a resume can
	// pass the recorded clock back and the code sees the same times.
	Clock time.Time

	// Limits bound each code step of every RLM in the tree; zero fields
	// take the sandbox's defaults, except ObservationTokens (the output
	// excerpt the model sees per step), which defaults to
	// DefaultObservationTokens (1,000 tokens).
	Limits sandbox.Limits
	// HelperDocs overrides the helper list of the system prompt (default
	// builtins.PromptHelp()).
	HelperDocs string

	// Executors creates the REPL of each RLM in the tree; nil uses the
	// sandbox with the builtins.
	Executors ExecutorFactory

	// Trajectory, if set, receives the JSONL trajectory (see TRAJECTORY.md).
	Trajectory io.Writer
	// TrajectoryFull keeps whole prompts and responses in the trajectory's
	// sub_call events instead of excerpts (builtins.OpExcerptChars).
	TrajectoryFull bool
	// RunConfig is recorded in the trajectory's run_start event (redact
	// secrets before passing it).
	RunConfig any
	// OnStatus, if set, is called after every root event with live counters.
	OnStatus func(Status)
	// OnChildEnd, if set, is called when a child RLM started by rlm_query
	// ends, with its id (see TRAJECTORY.md) and result; e.g. to persist
	// the result. Children may end concurrently.
	OnChildEnd func(id string, res *Result)
	// Tracer, if set, observes every RLM, step and model call of the tree
	// (e.g. package telemetry's OpenTelemetry spans); nil costs nothing.
	Tracer Tracer
	// Store, if set, lets the code of every RLM in the tree read the
	// store through store_get and store_keys (e.g. the results OnChildEnd
	// persisted), and the system prompt lists them.
	Store *builtins.StoreView
	// Resume, for a resumed run, tells the engine where the re-executed
	// run diverged from its recording to go on live from there: the RLM
	// that diverged (or, once it ended, its nearest ancestor) gets one
	// resume-context message before its next request. Nil: never.
	Resume ResumeHook
}

func (c Config) withDefaults() Config {
	if c.Protocol == "" {
		c.Protocol = ProtocolText
	}
	if len(c.Outputs) == 0 {
		c.Outputs = DefaultSchema
	}
	if c.MaxIterations <= 0 {
		c.MaxIterations = DefaultMaxIterations
	}
	if c.ChildMaxIterations <= 0 {
		c.ChildMaxIterations = DefaultChildMaxIterations
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.MaxConsecutiveErrors <= 0 {
		c.MaxConsecutiveErrors = DefaultMaxConsecutiveErrors
	}
	if c.SystemBudget <= 0 {
		c.SystemBudget = DefaultSystemBudget
	}
	if c.MetaBudget <= 0 {
		c.MetaBudget = DefaultMetaBudget
	}
	if c.MetaTokensPerVar <= 0 {
		c.MetaTokensPerVar = DefaultMetaTokensPerVar
	}
	if c.MaxMetaBudget <= 0 {
		c.MaxMetaBudget = DefaultMaxMetaBudget
	}
	if c.DynamicBudget <= 0 {
		c.DynamicBudget = DefaultDynamicBudget
	}
	if c.CompressAt <= 0 || c.CompressAt >= 1 {
		c.CompressAt = DefaultCompressAt
	}
	if c.Limits.ObservationTokens <= 0 {
		c.Limits.ObservationTokens = DefaultObservationTokens
	}
	if c.Tokenizer == nil {
		c.Tokenizer = llm.TokenizerForModel(c.RootModel)
	}
	if c.Ledger == nil {
		c.Ledger = llm.NewLedger(llm.LedgerConfig{})
	}
	if c.Executors == nil {
		c.Executors = defaultExecutors
	}
	return c
}

// checkBudgets refuses section budgets that cannot hold together: one
// step's observation excerpt must leave room in the history for the reply,
// the rolling summary and the engine's notes.
func (c Config) checkBudgets() error {
	if c.Limits.ObservationTokens > c.DynamicBudget/2 {
		return fmt.Errorf("%w: the excerpt is %d tokens and the history budget %d; the excerpt can be at most half the history (%d tokens)",
			ErrObservationBudget, c.Limits.ObservationTokens, c.DynamicBudget, c.DynamicBudget/2)
	}
	return nil
}

// MetaNotes are the lessons of a meta document as rendered for one run.
type MetaNotes struct {
	// Version is the meta document's version (0: no document).
	Version int `json:"version"`
	// Digest is the document's content digest.
	Digest string `json:"digest,omitempty"`
	// Lessons are the ids of the lessons in Text.
	Lessons []string `json:"lessons,omitempty"`
	// Sources are, by lesson id, the kept runs (or bench: keys) whose
	// evidence added the lesson (meta.Lesson.Sources).
	Sources map[string][]string `json:"sources,omitempty"`
	// Text is the engine-rendered notes block ("" for none).
	Text string `json:"-"`
}

// Var is one variable handed to an executor (see [repl.Var]).
type Var = repl.Var

// ExecSpec describes the REPL an executor must build for one RLM.
type ExecSpec struct {
	RunID string
	Depth int
	Vars  []Var
	// Store is what store_get and store_keys read (nil: no store).
	Store *builtins.StoreView
	// Child runs rlm_query; it is the builtins.ChildRunner of this RLM.
	Child ChildRunner
	// Model (metered) and SubModel serve llm_query and summarize.
	Model    llm.ChatModel
	SubModel string
	Embedder llm.Embedder
	Ledger   *llm.Ledger
	// SubMaxOutputTokens is the completion budget of each sub-call
	// (llm_query, summarize); 0 means the helpers' default.
	SubMaxOutputTokens int
	// Limits bound each code step (zero fields: the sandbox's defaults).
	Limits sandbox.Limits
	// Clock is the time the session's clock starts at (Config.Clock, or
	// the run's start time).
	Clock time.Time
	// Now is the clock the time the code waits for futures is measured
	// with (ExecResult.Waited; Config.Now).
	Now func() time.Time
	// TraceOps asks the executor to report each sub-call and
	// embedding/ranking operation in DeferredReport.Ops (set when there is
	// a trajectory); TraceFull to keep their whole prompts and responses.
	TraceOps, TraceFull bool
}

// ChildRunner starts the children of rlm_query and rlm_query_batched (see
// builtins.ChildRunner).
type ChildRunner = builtins.ChildRunner

// ExecutorFactory creates the REPL of one RLM.
type ExecutorFactory func(ctx context.Context, spec ExecSpec) (Executor, error)

// Executor is the REPL of one RLM: a sandbox session with the helpers bound.
type Executor interface {
	// Exec runs one code block. Errors raised by the code are reported in
	// the result; the error return is for host failures only.
	Exec(ctx context.Context, code string) (*ExecResult, error)
	// Settle is the barrier: it waits for every pending deferred operation
	// and reports what settled since the last call.
	Settle(ctx context.Context) (DeferredReport, error)
	// SetOutput stores the full output of a step as outputs[step].
	SetOutput(step int, output string)
	// Globals lists the user-visible names, in definition order.
	Globals() []string
	// Lookup renders a global with str(), if defined.
	Lookup(name string) (string, bool)
	Close() error
}

// Origins of a step's error (ExecResult.ErrOrigin, the exec event's
// origin).
const (
	OriginRaise  = "raise"
	OriginEngine = "engine"
)

// ExecResult is the outcome of one code block.
type ExecResult struct {
	Output    string // full captured output
	Excerpt   string // head+tail excerpt for the model
	Truncated bool
	// Err is the error raised by the code (nil on success); ErrText is
	// its short traceback for the model.
	Err     error
	ErrText string
	// ErrOrigin says who chose Err's exception type and message:
	// [OriginRaise] (the code's raise or assert statement) or
	// [OriginEngine] (a limit, a builtin, the interpreter); "" when the
	// executor cannot tell. The trajectory's exec event records it.
	ErrOrigin string
	// Submitted is set when the code called SUBMIT (or FINAL/FINAL_VAR).
	Submitted bool
	Outputs   *rlmctx.Dict // outputs of the SUBMIT call
	// Alias is the finishing helper that was called: "SUBMIT", "FINAL" or
	// "FINAL_VAR" ("" is taken as SUBMIT).
	Alias string
	// Waited is the part of the block's time its code spent waiting for
	// deferred operations (a sub-call, a child run), by ExecSpec.Now: not
	// active time.
	Waited time.Duration
}

// DeferredReport describes the deferred operations settled at a barrier.
type DeferredReport struct {
	Started int `json:"started"` // operations started since the last barrier
	// Memoized counts the calls since the last barrier answered by an
	// identical operation started before (no new request).
	Memoized int          `json:"memoized,omitempty"`
	Failed   []DeferredOp `json:"failed,omitempty"`
	// Ops are the operations settled at the barrier, in the order they
	// were started (only with ExecSpec.TraceOps); each is written as a
	// sub_call event.
	Ops []builtins.Op `json:"-"`
}

// DeferredOp describes one deferred operation for the trajectory.
type DeferredOp struct {
	Key   string `json:"key"`
	Kind  string `json:"kind,omitempty"`
	Error string `json:"error,omitempty"`
}
