package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
)

func init() {
	register(&command{name: "run", summary: "answer a query over externalized context with a root model", run: runRun})
}

const runSynopsis = "--query TEXT [--var NAME=SOURCE]... [--session FILE] [model flags] [limits] [size limits] [--output SCHEMA] [--protocol text|tools] [--json] [--trajectory FILE] [--record FILE | --replay FILE] [--quiet]"

// runFlags are the flags of rlm run.
type runFlags struct {
	sessionFlags
	query         string
	maxIterations int
	childIter     int
	maxTotalIter  int
	maxErrors     int
	historyTokens int
	maxDepth      int
	maxCalls      int
	maxTokens     int
	maxCost       float64
	timeout       time.Duration
	output        string
	protocol      string
	jsonOut       bool
	trajectory    string
	quiet         bool
	summarizer    string
}

func runRun(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "run", runSynopsis)
	var f runFlags
	fs.StringVar(&f.query, "query", "", "the question to answer (required)")
	f.sessionFlags.register(fs, env, orchestrator.DefaultObservationTokens)
	fs.IntVar(&f.maxIterations, "max-iterations", orchestrator.DefaultMaxIterations, "root iterations before the final extraction turn")
	fs.IntVar(&f.childIter, "child-iterations", orchestrator.DefaultChildMaxIterations, "iterations of each child RLM started by rlm_query (with --max-depth 2+)")
	fs.IntVar(&f.maxTotalIter, "max-total-iterations", 0, "budget: iterations of the whole run tree, root and children together (0 = unlimited)")
	fs.IntVar(&f.maxErrors, "max-errors", orchestrator.DefaultMaxConsecutiveErrors, "stop after this many failed steps in a row (code errors, rejected SUBMITs, replies without code)")
	fs.IntVar(&f.historyTokens, "history-tokens", orchestrator.DefaultDynamicBudget, "token budget of the iteration history in each request of an RLM (root or child); older steps are compressed into a summary past 80%")
	fs.IntVar(&f.maxDepth, "max-depth", orchestrator.DefaultMaxDepth, "RLM levels: 1 makes rlm_query a plain sub-model call, 2+ lets it start child RLMs")
	fs.IntVar(&f.maxCalls, "max-llm-calls", 0, "budget: model calls in the whole run tree (0 = unlimited)")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "budget: prompt+completion tokens in the whole run tree (0 = unlimited)")
	fs.Float64Var(&f.maxCost, "max-cost", 0, "budget: cost in `USD` for the whole run tree (0 = unlimited)")
	fs.DurationVar(&f.timeout, "timeout", 0, "wall-time limit of the whole run, e.g. 10m (0 = none)")
	fs.StringVar(&f.output, "output", "answer:str", "declared outputs `SCHEMA`, e.g. \"answer:str, confidence:float\" (types: str int float bool list dict any)")
	fs.StringVar(&f.protocol, "protocol", string(orchestrator.ProtocolText), "how the root model acts: text (fenced code) or tools (execute_code/submit tool calls)")
	fs.BoolVar(&f.jsonOut, "json", false, "print the SUBMIT object with usage, cost, iterations and stop reason as JSON")
	fs.StringVar(&f.trajectory, "trajectory", "", "write the run's JSONL trajectory to `FILE` (schema: orchestrator/TRAJECTORY.md)")
	fs.StringVar(&f.summarizer, "summarizer", "deterministic", "how old iterations are compressed into the rolling summary: deterministic, or llm (written by the sub-model)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live status line and no warnings on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (quote the query and pass it with --query)", errUsage, fs.Arg(0))
	}
	if strings.TrimSpace(f.query) == "" {
		return fmt.Errorf("%w: --query is required, e.g. rlm run --query \"What is the magic number?\" --var context=notes.txt", errUsage)
	}
	schema, err := orchestrator.ParseSchema(f.output)
	if err != nil {
		return fmt.Errorf("%w: --output: %v", errUsage, err)
	}
	if err := checkVarNames(f.vars, true); err != nil {
		return err
	}
	proto := orchestrator.Protocol(f.protocol)
	if proto != orchestrator.ProtocolText && proto != orchestrator.ProtocolTools {
		return fmt.Errorf("%w: --protocol must be text or tools, not %q", errUsage, f.protocol)
	}
	sbx, err := f.limits.config()
	if err != nil {
		return err
	}
	if f.summarizer != "deterministic" && f.summarizer != "llm" {
		return fmt.Errorf("%w: --summarizer must be deterministic or llm, not %q", errUsage, f.summarizer)
	}
	switch {
	case f.maxIterations < 1 || f.childIter < 1:
		return fmt.Errorf("%w: --max-iterations and --child-iterations must be >= 1", errUsage)
	case f.maxErrors < 1:
		return fmt.Errorf("%w: --max-errors must be >= 1", errUsage)
	case f.historyTokens < 1000:
		return fmt.Errorf("%w: --history-tokens must be >= 1000 (the last step is always kept verbatim)", errUsage)
	case f.maxDepth < 1:
		return fmt.Errorf("%w: --max-depth must be >= 1", errUsage)
	case f.maxCalls < 0 || f.maxTokens < 0 || f.maxCost < 0 || f.timeout < 0 || f.maxTotalIter < 0:
		return fmt.Errorf("%w: budgets (--max-llm-calls, --max-tokens, --max-cost, --timeout, --max-total-iterations) must be >= 0", errUsage)
	}

	// The endpoint first: a missing model is reported before loading data.
	llmCfg, prices, err := f.models.endpoint(env, f.maxCost)
	if err != nil {
		return err
	}
	ledger := llm.NewLedger(llm.LedgerConfig{Prices: prices, Limits: llm.Limits{MaxCalls: f.maxCalls, MaxTokens: f.maxTokens, MaxCostUSD: f.maxCost}})
	c, warns, err := loadContextSized(env, f.query, f.vars, f.session, *f.storeDir, *f.sizes)
	if err != nil {
		return err
	}
	if !f.quiet {
		for _, w := range warns {
			fmt.Fprintln(env.stderr, "rlm run: warning:", w)
		}
	}

	var traj io.Writer
	if f.trajectory != "" {
		tf, err := os.Create(f.trajectory)
		if err != nil {
			return fmt.Errorf("--trajectory: %w", err)
		}
		defer tf.Close()
		traj = tf
	}
	// The model (and a --record recorder) last: a bad --var or
	// --trajectory must not replace an earlier recording with an empty one.
	model, emb, closeModel, err := f.models.chatModel(env, ledger)
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
	if f.summarizer == "llm" {
		summarizer = &orchestrator.LLMSummarizer{Model: model, ModelName: subModel}
	}
	eng := orchestrator.New(orchestrator.Config{
		Summarizer: summarizer,
		Model:      model, RootModel: llmCfg.Model, SubModel: subModel, Embedder: emb, Ledger: ledger,
		Protocol: proto, Outputs: schema,
		MaxIterations: f.maxIterations, ChildMaxIterations: f.childIter, MaxTotalIterations: f.maxTotalIter,
		MaxConsecutiveErrors: f.maxErrors, DynamicBudget: f.historyTokens, MaxDepth: f.maxDepth, Timeout: f.timeout,
		Temperature: llmCfg.Temperature, MaxOutputTokens: llmCfg.MaxOutputTokens,
		ObservationTokens: sbx.MaxOutputTokens, StepTimeout: sbx.Timeout, MaxSteps: sbx.MaxSteps,
		MaxMemory: sbx.MaxMemory, MaxRecursion: sbx.MaxRecursion, MaxOutputBytes: sbx.MaxOutputBytes,
		Trajectory: traj,
		RunConfig:  runConfigRecord(llmCfg, &f),
	})
	var status *statusLine
	if !f.quiet && isTerminal(env.stderr) {
		status = &statusLine{w: env.stderr}
	}
	var opts []orchestrator.Option
	if status != nil {
		opts = append(opts, orchestrator.WithStatus(status.update))
	}
	res, err := eng.Run(ctx, c, opts...)
	if status != nil {
		status.clear()
	}
	if err != nil {
		return err
	}
	finished := res.StopReason != orchestrator.StopCanceled && res.StopReason != orchestrator.StopModelError
	if keepRecording, err = f.models.finishRecording(env, "run", finished, closeModel); err != nil {
		return err
	}
	if f.jsonOut {
		out, err := resultJSON(res)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, string(out))
	} else if res.Answer != "" || !res.Partial {
		fmt.Fprintln(env.stdout, res.Answer)
	}
	if res.StopReason != orchestrator.StopSubmit && (!f.quiet || res.Answer == "") {
		fmt.Fprintln(env.stderr, "rlm run:", stopNote(res, llmCfg, proto))
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
	case kind == llm.KindTransient && res.Iterations == 0:
		note += fmt.Sprintf(" (is the endpoint %s up? check --base-url or OPENAI_BASE_URL)", llm.RedactURL(base))
	}
	return note
}

// runConfigRecord is the run configuration recorded in the trajectory; it
// never holds the API key.
func runConfigRecord(c llm.Config, f *runFlags) map[string]any {
	base := c.BaseURL
	if base == "" {
		base = llm.DefaultBaseURL
	}
	m := map[string]any{
		"base_url": llm.RedactURL(base), "model": c.Model, "sub_model": c.SubModel, "embedding_model": c.EmbeddingModel,
		"api_key_set": c.APIKey != "", "vars": []string(f.vars), "session": f.session,
		"max_iterations": f.maxIterations, "child_iterations": f.childIter, "max_total_iterations": f.maxTotalIter,
		"max_errors": f.maxErrors, "history_tokens": f.historyTokens, "max_depth": f.maxDepth, "max_llm_calls": f.maxCalls,
		"max_tokens": f.maxTokens, "max_cost_usd": f.maxCost, "timeout": f.timeout.String(),
		"output": f.output, "protocol": f.protocol, "summarizer": f.summarizer, "record": f.models.record, "replay": f.models.replay,
		"max_steps": f.limits.maxSteps, "step_timeout": f.limits.stepTimeout.String(), "max_memory": int64(f.limits.maxMemory),
		"max_recursion": f.limits.maxRecursion, "max_output_bytes": int64(f.limits.maxOutputBytes), "observation_tokens": f.limits.observationTokens,
		"warn_size": f.sizes.WarnThreshold, "chunk_threshold": f.sizes.ChunkThreshold, "chunk_size": f.sizes.ChunkSize, "max_context_size": f.sizes.MaxTotalSize,
	}
	return m
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
		Metrics    orchestrator.Metrics `json:"metrics"`
	}{
		Answer: res.Answer, Outputs: outputs, StopReason: string(res.StopReason), Partial: res.Partial, Extracted: res.Extracted,
		Iterations: res.Iterations, Usage: total, ByModel: byModel, CostUSD: total.CostUSD,
		DurationMS: res.Duration.Milliseconds(), Metrics: res.Metrics,
	}
	if res.Err != nil {
		v.Error = res.Err.Error()
	}
	return json.MarshalIndent(v, "", "  ")
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// statusLine is the live one-line status on a terminal's stderr.
type statusLine struct {
	w    io.Writer
	used bool
}

func (s *statusLine) update(st orchestrator.Status) {
	cost := "cost ?"
	if st.CostKnown {
		cost = fmt.Sprintf("$%.4f", st.CostUSD)
	}
	line := fmt.Sprintf("rlm: iter %d/%d · %s · %d tokens · %s · %d pending · %s",
		st.Iteration, st.MaxIter, st.Phase, st.Tokens, cost, st.Pending, st.Elapsed.Round(time.Second))
	fmt.Fprint(s.w, "\r\x1b[K"+line)
	s.used = true
}

func (s *statusLine) clear() {
	if s.used {
		fmt.Fprint(s.w, "\r\x1b[K")
	}
}
