package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/repl"
	"github.com/rlmhq/rlm/runs"
	"github.com/rlmhq/rlm/telemetry"
)

func init() {
	register(&command{name: "run", summary: "answer a query over externalized context with a root model", run: runRun})
}

const runSynopsis = "--query TEXT [--var NAME=SOURCE]... [--session FILE] [model flags] [limits] [size limits] [--output SCHEMA] [--protocol text|tools] [--json] [--trajectory FILE] [--record FILE | --replay FILE] [--save KEY] [--runs-dir DIR | --no-keep] [--quiet]\n       rlm run --resume ID [budget, endpoint and output flags]"

// budgetFlags are the run budgets shared by rlm run and rlm bench (in
// bench they apply to each item): iterations, RLM depth, model calls,
// tokens, cost and wall time.
type budgetFlags struct {
	maxIterations int
	maxDepth      int
	maxCalls      int
	maxTokens     int
	maxCost       float64
	timeout       time.Duration
	maxActive     time.Duration
}

// register adds the budget flags to fs; scope names what one budget covers,
// e.g. "the whole run tree".
func (b *budgetFlags) register(fs *flag.FlagSet, scope string) {
	fs.IntVar(&b.maxIterations, "max-iterations", orchestrator.DefaultMaxIterations, "root iterations before the final extraction turn")
	fs.IntVar(
		&b.maxDepth,
		"max-depth",
		orchestrator.DefaultMaxDepth,
		"RLM levels: 1 makes rlm_query a plain sub-model call, 2+ lets it start child RLMs",
	)
	fs.IntVar(&b.maxCalls, "max-llm-calls", 0, "budget: model calls in "+scope+" (0 = unlimited)")
	fs.IntVar(&b.maxTokens, "max-tokens", 0, "budget: prompt+completion tokens in "+scope+" (0 = unlimited)")
	fs.Float64Var(&b.maxCost, "max-cost", 0, "budget: cost in `USD` of "+scope+" (0 = unlimited)")
	fs.DurationVar(&b.timeout, "timeout", 0, "wall-time limit of "+scope+", e.g. 10m (0 = none)")
	fs.DurationVar(
		&b.maxActive,
		"max-active-time",
		0,
		"budget: active time of "+scope+": model calls plus code running, not the time code waits for sub-calls or children, e.g. 5m (0 = unlimited)",
	)
}

// validate reports a budget flag out of range.
func (b *budgetFlags) validate() error {
	switch {
	case b.maxIterations < 1:
		return fmt.Errorf("%w: --max-iterations must be >= 1", errUsage)
	case b.maxDepth < 1:
		return fmt.Errorf("%w: --max-depth must be >= 1", errUsage)
	case b.maxCalls < 0 || b.maxTokens < 0 || b.maxCost < 0 || b.timeout < 0 || b.maxActive < 0:
		return fmt.Errorf("%w: budgets (--max-llm-calls, --max-tokens, --max-cost, --timeout, --max-active-time) must be >= 0", errUsage)
	}
	return nil
}

// ledgerLimits are the ledger's limits the budget flags set.
func (b *budgetFlags) ledgerLimits() llm.Limits {
	return llm.Limits{MaxCalls: b.maxCalls, MaxTokens: b.maxTokens, MaxCostUSD: b.maxCost}
}

// runOptions are the parsed flags of rlm run.
type runOptions struct {
	sessionFlags
	budgetFlags
	keep          keepFlags
	meta          metaFlags
	notes         orchestrator.MetaNotes // set by run from the meta document
	query         string
	childIter     int
	maxTotalIter  int
	maxErrors     int
	historyTokens int
	output        string
	outputSchema  string
	outputSet     bool // --output was given
	protocol      string
	jsonOut       bool
	trajectory    string
	trajFull      bool
	quiet         bool
	verbose       bool
	summarizer    string
	metaTokens    int
	metaPerVar    int
	maxMetaTokens int

	schema orchestrator.Schema // parsed --output, set by validate
}

func runRun(ctx context.Context, env *cliEnv, args []string) error {
	o, err := parseRunFlags(env, args)
	if err != nil {
		return err
	}
	if o.keep.resume != "" && !env.resuming {
		// Again with the run's recorded arguments before these.
		kept, err := o.keep.resumeArgs(env, *o.storeDir)
		if err != nil {
			return err
		}
		e := *env
		e.resuming = true
		return runRun(ctx, &e, append(kept, args...))
	}
	if err := o.validate(); err != nil {
		return err
	}
	return o.run(ctx, env)
}

// parseRunFlags parses the command line of rlm run.
func parseRunFlags(env *cliEnv, args []string) (*runOptions, error) {
	fs := newFlagSet(env, "run", runSynopsis)
	o := &runOptions{}
	fs.StringVar(&o.query, "query", "", "the question to answer (required)")
	o.sessionFlags.register(fs, env, orchestrator.DefaultObservationTokens)
	o.budgetFlags.register(fs, "the whole run tree")
	fs.IntVar(
		&o.childIter,
		"child-iterations",
		orchestrator.DefaultChildMaxIterations,
		"iterations of each child RLM started by rlm_query (with --max-depth 2+)",
	)
	fs.IntVar(
		&o.maxTotalIter,
		"max-total-iterations",
		0,
		"budget: iterations of the whole run tree, root and children together (0 = unlimited)",
	)
	fs.IntVar(
		&o.maxErrors,
		"max-errors",
		orchestrator.DefaultMaxConsecutiveErrors,
		"stop after this many failed steps in a row (code errors, rejected SUBMITs, replies without code)",
	)
	fs.IntVar(
		&o.historyTokens,
		"history-tokens",
		orchestrator.DefaultDynamicBudget,
		"token budget of the iteration history in each request of an RLM (root or child); older steps are compressed into a summary past 80%",
	)
	fs.IntVar(
		&o.metaTokens,
		"meta-tokens",
		orchestrator.DefaultMetaBudget,
		"base token budget of the variable summaries, output schema and limits at the head of each request",
	)
	fs.IntVar(
		&o.metaPerVar,
		"meta-tokens-per-var",
		orchestrator.DefaultMetaTokensPerVar,
		"tokens added to --meta-tokens per variable, up to --max-meta-tokens; when summaries do not fit, each variable gets one compact line",
	)
	fs.IntVar(
		&o.maxMetaTokens,
		"max-meta-tokens",
		orchestrator.DefaultMaxMetaBudget,
		"cap of the variable-summary section's budget; past it the rest of the variables are left to show_vars()",
	)
	fs.StringVar(&o.output, "output", "answer:str", outputHelp)
	fs.StringVar(
		&o.outputSchema,
		"output-schema",
		"",
		"declare the outputs by a JSON Schema `FILE` instead of --output: an object whose properties are the outputs (type, properties, required, items, additionalProperties, enum)",
	)
	fs.StringVar(
		&o.protocol,
		"protocol",
		string(orchestrator.ProtocolText),
		"how the root model acts: text (fenced code) or tools (execute_code/submit tool calls)",
	)
	fs.BoolVar(&o.jsonOut, "json", false, "print the SUBMIT object with usage, cost, iterations and stop reason as JSON")
	fs.StringVar(&o.trajectory, "trajectory", "", "write the run's JSONL trajectory to `FILE` (schema: orchestrator/TRAJECTORY.md)")
	fs.BoolVar(
		&o.trajFull,
		"trajectory-full",
		false,
		"keep whole prompts and responses of sub-calls in the trajectory (default: the hash and an excerpt of 2,000 chars)",
	)
	fs.StringVar(
		&o.summarizer,
		"summarizer",
		"deterministic",
		"how old iterations are compressed into the rolling summary: deterministic, or llm (written by the sub-model)",
	)
	fs.BoolVar(&o.quiet, "quiet", false, "no live status line and no warnings on stderr")
	fs.BoolVar(
		&o.verbose,
		"v",
		false,
		"print each step as it happens on stderr: the model's code, its output, sub-calls and child runs (indented by depth)",
	)
	fs.BoolVar(&o.verbose, "verbose", false, "the same as -v")
	o.keep.register(fs)
	o.meta.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected argument %q (quote the query and pass it with --query)", errUsage, fs.Arg(0))
	}
	o.outputSet = flagGiven(fs, "output")
	return o, nil
}

// outputHelp is the usage of --output (rlm run and rlm serve).
const outputHelp = "declared outputs `SCHEMA`, e.g. \"answer:str, confidence:float\" or \"items: list[{name: str, file: str}], total: int, by_region: dict[str, int], note: str?\" " +
	"(types: str int float bool list dict any None; list[T], dict[str, T], {name: T, ...}, \"a\"|\"b\"; T? may be None or absent)"

// flagGiven reports whether the command line sets the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// resolveOutput returns the compact declaration of the outputs: --output,
// or the JSON Schema file of --output-schema (read here) in the compact
// syntax, which the run records.
func resolveOutput(output, schemaFile string, outputSet bool) (string, error) {
	if schemaFile == "" {
		return output, nil
	}
	if outputSet {
		return "", fmt.Errorf("%w: --output and --output-schema both declare the outputs: pass one of them", errUsage)
	}
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		return "", fmt.Errorf("%w: --output-schema: %v", errUsage, err)
	}
	s, err := orchestrator.ParseJSONSchema(data)
	if err != nil {
		return "", fmt.Errorf("%w: --output-schema %s: %v", errUsage, schemaFile, err)
	}
	return s.String(), nil
}

// validate checks the options without touching the network (it reads
// the file of --output-schema), and sets the values derived from them.
func (o *runOptions) validate() error {
	if strings.TrimSpace(o.query) == "" {
		return fmt.Errorf("%w: --query is required, e.g. rlm run --query \"What is the magic number?\" --var context=notes.txt", errUsage)
	}
	output, err := resolveOutput(o.output, o.outputSchema, o.outputSet)
	if err != nil {
		return err
	}
	o.output = output
	schema, err := orchestrator.ParseSchema(o.output)
	if err != nil {
		return fmt.Errorf("%w: --output: %v", errUsage, err)
	}
	o.schema = schema
	if err := checkVarNames(o.vars, true); err != nil {
		return err
	}
	if p := orchestrator.Protocol(o.protocol); p != orchestrator.ProtocolText && p != orchestrator.ProtocolTools {
		return fmt.Errorf("%w: --protocol must be text or tools, not %q", errUsage, o.protocol)
	}
	if _, err := o.limits.limits(); err != nil {
		return err
	}
	if o.summarizer != "deterministic" && o.summarizer != "llm" {
		return fmt.Errorf("%w: --summarizer must be deterministic or llm, not %q", errUsage, o.summarizer)
	}
	if err := o.budgetFlags.validate(); err != nil {
		return err
	}
	switch {
	case o.childIter < 1:
		return fmt.Errorf("%w: --child-iterations must be >= 1", errUsage)
	case o.maxErrors < 1:
		return fmt.Errorf("%w: --max-errors must be >= 1", errUsage)
	case o.historyTokens < 1000:
		return fmt.Errorf("%w: --history-tokens must be >= 1000 (the last step is always kept verbatim)", errUsage)
	case o.limits.ObservationTokens > o.historyTokens/2:
		return fmt.Errorf(
			"%w: --observation-tokens %d does not fit --history-tokens %d: the excerpt of one step can be at most half the history; lower --observation-tokens or raise --history-tokens",
			errUsage,
			o.limits.ObservationTokens,
			o.historyTokens,
		)
	case o.metaTokens < 100 || o.metaPerVar < 1 || o.maxMetaTokens < o.metaTokens:
		return fmt.Errorf("%w: --meta-tokens must be >= 100, --meta-tokens-per-var >= 1 and --max-meta-tokens >= --meta-tokens", errUsage)
	case o.maxTotalIter < 0:
		return fmt.Errorf("%w: --max-total-iterations must be >= 0", errUsage)
	}
	return nil
}

// run executes a validated rlm run: it resolves the endpoint, loads the
// variables, runs the engine and prints the answer.
func (o *runOptions) run(ctx context.Context, env *cliEnv) error {
	// The endpoint first: a missing model is reported before loading data.
	llmCfg, prices, err := o.models.endpoint(env, o.maxCost)
	if err != nil {
		return err
	}
	// The meta document before anything else is loaded: a run never
	// starts on an invalid one, and its recommended budgets are flags.
	if _, o.notes, err = o.meta.load(env, "run", *o.storeDir, llmCfg.Model, o.quiet); err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	clock, err := o.startClock()
	if err != nil {
		return err
	}
	softMemoryLimit(env, o.limits.Limits)
	warnTraces := func(err error) {
		if !o.quiet {
			fmt.Fprintln(env.stderr, "rlm run: warning: traces:", err)
		}
	}
	tracing, err := startTracing(ctx, env, llmCfg.BaseURL, warnTraces)
	if err != nil {
		return err
	}
	defer func() {
		if err := flushTracing(tracing); err != nil {
			warnTraces(err)
		}
	}()
	// A traced parent process passes its trace in TRACEPARENT.
	ctx = tracing.ExtractEnv(ctx, env.getenv)
	ledger := llm.NewLedger(llm.LedgerConfig{Prices: prices, Limits: o.ledgerLimits()})
	// A JSON document is parsed once, for its outline and the REPL's
	// values (its summary then decodes only its head).
	c, warns, err := loadContextSized(env, o.query, o.vars, o.session, *o.storeDir, *o.sizes, repl.JSONValues, true)
	if err != nil {
		return err
	}
	if !o.quiet {
		for _, w := range warns {
			fmt.Fprintln(env.stderr, "rlm run: warning:", w)
		}
	}

	var traj io.Writer
	if o.trajectory != "" {
		tf, err := os.Create(o.trajectory)
		if err != nil {
			return fmt.Errorf("--trajectory: %w", err)
		}
		defer tf.Close()
		traj = tf
	}
	var resume orchestrator.ResumeHook
	if kept, err := o.keep.start(env, o, c, llmCfg); err != nil {
		return err
	} else if kept != nil {
		resume = kept
		defer o.keep.finish(env, nil, true) // a run that could not start
		if c := kept.Clock(); !c.IsZero() {
			clock = c // a resumed run sees the times it saw before
		}
		kept.SetClock(clock)
		o.models.clock = clock
		traj = teeWriter(traj, kept.Trajectory())
		o.models.wrap = kept.WrapModel
		var cancel context.CancelFunc
		ctx, cancel = kept.Context(ctx)
		defer cancel()
	}
	if o.verbose && !o.quiet {
		traj = teeWriter(traj, newLiveView(env))
	}
	// Context and replies may quote the key: no trajectory holds it.
	if rw, ok := newRedactWriter(traj, llmCfg.Secrets()).(*redactWriter); ok {
		traj = rw
		defer rw.Flush()
	}
	// The model (and a --record recorder) last: a bad --var or
	// --trajectory must not replace an earlier recording with an empty one.
	model, emb, closeModel, err := o.models.chatModel(env, ledger)
	if err != nil {
		return err
	}
	keepRecording := false
	defer func() {
		if !keepRecording {
			closeModel()
		}
	}()
	subModel := firstNonEmpty(llmCfg.SubModel, llmCfg.Model)
	var summarizer orchestrator.Summarizer
	if o.summarizer == "llm" {
		summarizer = &orchestrator.LLMSummarizer{Model: model, ModelName: subModel}
	}
	proto := orchestrator.Protocol(o.protocol)
	var status *statusLine
	if !o.quiet && !o.verbose && isTerminal(env.stderr) && env.getenv("TERM") != "dumb" {
		status = &statusLine{w: env.stderr, width: terminalWidth(env.stderr)}
	}
	if o.keep.run != nil && tracing.Enabled() {
		ctx = telemetry.WithRunID(ctx, o.keep.run.ID())
	}
	cfg := orchestrator.Config{
		Store:      storeView(*o.storeDir, o.vars, o.reads, o.sizes.MaxTotalSize),
		Summarizer: summarizer, Meta: o.notes,
		Model: model, RootModel: llmCfg.Model, SubModel: subModel, Embedder: emb, Ledger: ledger,
		Protocol: proto, Outputs: o.schema,
		MaxIterations: o.maxIterations, ChildMaxIterations: o.childIter, MaxTotalIterations: o.maxTotalIter,
		MaxConsecutiveErrors: o.maxErrors, DynamicBudget: o.historyTokens, MaxDepth: o.maxDepth, Timeout: o.timeout,
		MaxActiveTime: o.maxActive,
		Temperature:   llmCfg.Temperature, MaxOutputTokens: llmCfg.MaxOutputTokens,
		MetaBudget: o.metaTokens, MetaTokensPerVar: o.metaPerVar, MaxMetaBudget: o.maxMetaTokens,
		Limits:     o.limits.Limits,
		Clock:      clock,
		Trajectory: traj, TrajectoryFull: o.trajFull,
		RunConfig: runConfigRecord(llmCfg, o),
		OnStatus:  status.updater(),
		Tracer:    tracing.Tracer(),
		Resume:    resume,
	}
	o.keep.keepChildren(&cfg, storeOpener(*o.storeDir), o.sizes.MaxTotalSize)
	if cfg.Store != nil {
		defer cfg.Store.Close()
	}
	eng := orchestrator.New(cfg)
	res, err := eng.Run(ctx, c)
	if status != nil {
		status.clear()
	}
	if err != nil {
		return err
	}
	if err := o.keep.finish(env, res, o.quiet); err != nil {
		return err
	}
	finished := res.StopReason != orchestrator.StopCanceled && res.StopReason != orchestrator.StopModelError
	if keepRecording, err = o.models.finishRecording(env, "run", finished, closeModel); err != nil {
		return err
	}
	return o.keep.late(o.report(env, res, llmCfg))
}

// report prints the answer (or the --json result) and, when the run did not
// end with a SUBMIT, why; a partial answer exits 1.
func (o *runOptions) report(env *cliEnv, res *orchestrator.Result, llmCfg llm.Config) error {
	secrets := llmCfg.Secrets()
	if o.jsonOut {
		out, err := resultJSON(res)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, llm.RedactSecrets(string(out), secrets...))
	} else if res.Answer != "" || !res.Partial {
		fmt.Fprintln(env.stdout, termSafe(env.stdout, llm.RedactSecrets(res.Answer, secrets...)))
	}
	if res.StopReason != orchestrator.StopSubmit && (!o.quiet || res.Answer == "") {
		note := llm.RedactSecrets(stopNote(res, llmCfg, orchestrator.Protocol(o.protocol)), secrets...)
		fmt.Fprintln(env.stderr, "rlm run:", termSafe(env.stderr, note))
	}
	if res.Partial {
		return &exitError{code: 1, err: errors.New("")}
	}
	return nil
}

// stopNote tells the user why a run ended without a valid SUBMIT, what the
// printed answer is, and for a failing endpoint what to check.
func stopNote(res *orchestrator.Result, c llm.Config, proto orchestrator.Protocol) string {
	note := "stopped: " + string(res.StopReason)
	if res.StopReason == orchestrator.StopCanceled {
		note = "stopped: interrupted"
	}
	switch {
	case res.Extracted:
		note += " (answer from the final extraction turn)"
	case res.Partial && res.Answer == "":
		note += " (no answer)"
	case res.Partial:
		note += " (best partial answer)"
	}
	if res.Err != nil && res.StopReason != orchestrator.StopCanceled {
		note += ": " + res.Err.Error()
	}
	base := c.BaseURL
	if base == "" {
		base = llm.DefaultBaseURL
	}
	switch kind := llm.KindOf(res.Err); {
	case res.StopReason != orchestrator.StopModelError:
	case kind == llm.KindBadRequest && proto == orchestrator.ProtocolTools && strings.Contains(strings.ToLower(res.Err.Error()), "tool"):
		note += " (the model may not support tool calls: try --protocol text)"
	case kind == llm.KindAuth:
		note += " (check the API key: --api-key or OPENAI_API_KEY)"
	case kind == llm.KindBadRequest && strings.Contains(strings.ToLower(res.Err.Error()), "model"):
		note += fmt.Sprintf(" (check the model name %q: --model or RLM_MODEL)", c.Model)
	case kind == llm.KindReplayMiss:
		note += " (re-record with --record)"
	case errors.Is(res.Err, llm.ErrRateLimitWait):
		note += " (raise --rpm/--tpm, or --request-timeout)"
	case errors.Is(res.Err, llm.ErrUnreachable) && res.Iterations == 0:
		note += fmt.Sprintf(" (nothing answers at %s: start the server there, or point rlm at a model with --base-url URL --model NAME "+
			"or OPENAI_BASE_URL and RLM_MODEL; for OpenAI's API set only OPENAI_API_KEY)", llm.RedactURL(base))
	case kind == llm.KindTransient && res.Iterations == 0:
		note += fmt.Sprintf(" (is the endpoint %s up? check --base-url or OPENAI_BASE_URL)", llm.RedactURL(base))
	}
	switch {
	case errors.Is(res.Err, llm.ErrUnknownPrice):
		note += " (--max-cost counts only models with a known price: give the model's price with --prices FILE, or use a priced model)"
	case errors.Is(res.Err, llm.ErrResponseTooLarge):
		note += " (raise --max-response-size only for a server you trust)"
	}
	return note
}

// durationOrNone is d as Go prints it, "" for 0 (no limit).
func durationOrNone(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// runConfigRecord is the run configuration recorded in the trajectory and
// run.json; it never holds the API key.
func runConfigRecord(c llm.Config, f *runOptions) runs.Config {
	return runs.Config{
		BaseURL: llm.RedactURL(firstNonEmpty(c.BaseURL, llm.DefaultBaseURL)), Model: c.Model, SubModel: c.SubModel,
		EmbeddingModel: c.EmbeddingModel, APIKeySet: c.APIKey != "", Vars: []string(f.vars), Session: f.session,
		Output: f.output, Protocol: f.protocol, Summarizer: f.summarizer, Record: f.models.record, Replay: f.models.replay,
		MaxIterations: f.maxIterations, ChildIterations: f.childIter, MaxTotalIterations: f.maxTotalIter,
		MaxErrors: f.maxErrors, HistoryTokens: f.historyTokens, MaxDepth: f.maxDepth, MaxLLMCalls: f.maxCalls,
		MaxTokens: f.maxTokens, MaxCostUSD: f.maxCost, Timeout: f.timeout.String(), MaxActiveTime: durationOrNone(f.maxActive),
		MaxSteps: f.limits.MaxSteps, StepTimeout: f.limits.Timeout.String(), MaxMemory: f.limits.MaxMemory,
		MaxRecursion: f.limits.MaxRecursion, MaxOutputBytes: int64(f.limits.MaxOutputBytes), ObservationTokens: f.limits.ObservationTokens,
		Meta: f.meta.resolved, MetaNotesTokens: f.meta.notesTokens,
		WarnSize: f.sizes.WarnThreshold, ChunkThreshold: f.sizes.ChunkThreshold, ChunkSize: f.sizes.ChunkSize, MaxContextSize: f.sizes.MaxTotalSize,
	}
}

// resultJSON renders the --json output.
func resultJSON(res *orchestrator.Result) ([]byte, error) {
	outputs := json.RawMessage("null")
	if res.Outputs != nil {
		b, err := orchestrator.MarshalValue(res.Outputs)
		if err != nil {
			return nil, err
		}
		outputs = b
	}
	type usage struct {
		Calls            int      `json:"calls"`
		PromptTokens     int      `json:"prompt_tokens"`
		CompletionTokens int      `json:"completion_tokens"`
		CachedTokens     int      `json:"cached_tokens"`
		CostUSD          *float64 `json:"cost_usd"` // null when a model's price is unknown
	}
	conv := func(t llm.Totals) usage {
		u := usage{Calls: t.Calls, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, CachedTokens: t.CachedTokens}
		if t.CostKnown {
			c := t.CostUSD
			u.CostUSD = &c
		}
		return u
	}
	byModel := map[string]usage{}
	for m, t := range res.ByModel {
		byModel[m] = conv(t)
	}
	total := conv(res.Usage)
	v := struct {
		Answer     string               `json:"answer"`
		Outputs    json.RawMessage      `json:"outputs"`
		StopReason string               `json:"stop_reason"`
		Error      string               `json:"error,omitempty"`
		Partial    bool                 `json:"partial"`
		Extracted  bool                 `json:"final_extraction"`
		Iterations int                  `json:"iterations"`
		Usage      usage                `json:"usage"`
		ByModel    map[string]usage     `json:"usage_by_model"`
		CostUSD    *float64             `json:"cost_usd"`
		DurationMS int64                `json:"duration_ms"`
		ActiveMS   int64                `json:"active_ms"`
		Metrics    orchestrator.Metrics `json:"metrics"`
	}{
		Answer: res.Answer, Outputs: outputs, StopReason: string(res.StopReason), Partial: res.Partial, Extracted: res.Extracted,
		Iterations: res.Iterations, Usage: total, ByModel: byModel, CostUSD: total.CostUSD,
		DurationMS: res.Duration.Milliseconds(), ActiveMS: res.ActiveTime.Milliseconds(), Metrics: res.Metrics,
	}
	if res.Err != nil {
		v.Error = res.Err.Error()
	}
	return json.MarshalIndent(v, "", "  ")
}

// statusLine is the live one-line status on a terminal's stderr.
type statusLine struct {
	w     io.Writer
	width int // the terminal's columns (0: unknown); the line is cut to fit
	used  bool
}

func (s *statusLine) update(st orchestrator.Status) {
	cost := "cost ?"
	if st.CostKnown {
		cost = fmt.Sprintf("$%.4f", st.CostUSD)
	}
	line := fmt.Sprintf("rlm: iter %d/%d · %s · %d tokens · %s · %d pending · %s",
		st.Iteration, st.MaxIter, st.Phase, st.Tokens, cost, st.Pending, st.Elapsed.Round(time.Second))
	if r := []rune(line); s.width > 1 && len(r) >= s.width {
		line = string(r[:s.width-1]) // a wrapped line would not be cleared by the next \r
	}
	fmt.Fprint(s.w, "\r\x1b[K"+line)
	s.used = true
}

// updater returns the status callback of the engine: nil without a status
// line.
func (s *statusLine) updater() func(orchestrator.Status) {
	if s == nil {
		return nil
	}
	return s.update
}

func (s *statusLine) clear() {
	if s.used {
		fmt.Fprint(s.w, "\r\x1b[K")
	}
}
