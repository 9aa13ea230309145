package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlmhq/rlm/internal/bench"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/sandbox"
)

func init() {
	register(&command{name: "bench", summary: "benchmark externalized against direct prompting", run: runBench})
}

const benchSynopsis = "[--task niah,aggregate,pairs,files] [--sizes 8k,32k,128k,1m] [--n N] [--modes rlm,direct] [--parallel N] [--out DIR] [--resume] [--dry-run] [--seed N] [--context-window N] [--meta FILE] [--cluster-db URL [--sweep ID] [--sweep-concurrency N]] [model flags] [budgets] [sandbox limits]\n" +
	"       rlm bench gen --task T --size S [--seed N] [--index I] --out DIR\n" +
	"       rlm bench status [--cluster-db URL] SWEEP\n" +
	"       rlm bench report [--cluster-db URL] --out DIR SWEEP"

// benchFlags are the flags of rlm bench besides the model flags.
type benchFlags struct {
	tasks, sizes, modes string
	n, parallel         int
	out                 string
	outSet              bool // --out given explicitly
	resume, dryRun      bool
	seed                uint64
	contextWindow       int
	budgets             budgetFlags // per item
	protocol            string
	quiet               bool
	models              modelFlags
	limits              limitFlags // rlm mode: the sandbox's per-step limits
	meta                metaFlags
	notes               orchestrator.MetaNotes // rlm mode: the meta document's lessons
	historyTokens       int                    // rlm mode: the meta document's history budget (0: default)
	clusterDB           string                 // submit a sweep to this cluster instead of running here
	sweepID             string
	sweepLimit          int // cells of the sweep's provider running at once in the cluster (0: no bound)
}

func runBench(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "gen":
			return runBenchGen(env, args[1:])
		case "status":
			return runBenchStatus(ctx, env, args[1:])
		case "report":
			return runBenchReport(ctx, env, args[1:])
		}
	}
	fs := newFlagSet(env, "bench", benchSynopsis)
	var f benchFlags
	fs.StringVar(&f.tasks, "task", bench.KindNIAH, "comma-separated tasks: "+strings.Join(bench.Kinds(), ", "))
	fs.StringVar(&f.sizes, "sizes", "8k", "comma-separated context sizes in tokens, e.g. 8k,32k,128k,1m,10m")
	fs.IntVar(&f.n, "n", 1, "items per task and size")
	fs.StringVar(
		&f.modes,
		"modes",
		"rlm,direct",
		"comma-separated modes: rlm (externalized context), direct (context pasted into the prompt)",
	)
	fs.IntVar(&f.parallel, "parallel", 1, "items run at once")
	fs.StringVar(&f.out, "out", "bench-out", "output `DIR` for results.jsonl, report.md and the charts")
	fs.BoolVar(&f.resume, "resume", false, "continue the run in --out, skipping items already in its results.jsonl")
	fs.BoolVar(
		&f.dryRun,
		"dry-run",
		false,
		"call no model: print the exact prompt tokens of the direct request and of the first RLM root request per task and size",
	)
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the task generators (same seed, same tasks)")
	fs.IntVar(
		&f.contextWindow,
		"context-window",
		0,
		"direct mode: the model's context window in tokens (0 = from the model table; unknown models are sent and the server judges)",
	)
	f.budgets.register(fs, "each item")
	fs.StringVar(&f.protocol, "protocol", string(orchestrator.ProtocolText), "rlm mode: text (fenced code) or tools (tool calls)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	f.models.register(fs)
	f.limits.register(fs, orchestrator.DefaultObservationTokens)
	f.meta.register(fs)
	fs.StringVar(
		&f.clusterDB,
		"cluster-db",
		"",
		"submit the benchmark as a sweep to the cluster whose PostgreSQL database is at `URL` (default $RLM_CLUSTER_DB), for its workers to run; see docs/cluster.md",
	)
	fs.StringVar(
		&f.sweepID,
		"sweep",
		"",
		"with --cluster-db, the sweep's `ID` (default: derived from its configuration, so the same flags name the same sweep)",
	)
	fs.IntVar(
		&f.sweepLimit,
		"sweep-concurrency",
		0,
		"with --cluster-db, the most cells calling this sweep's provider that run at once across the cluster (0: no bound but each worker's)",
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	fs.Visit(func(fl *flag.Flag) { f.outSet = f.outSet || fl.Name == "out" })
	if f.clusterDB == "" && !f.dryRun {
		f.clusterDB = env.getenv("RLM_CLUSTER_DB")
	}
	if f.clusterDB == "" && (isSet(fs, "sweep") || isSet(fs, "sweep-concurrency")) {
		return fmt.Errorf("%w: --sweep and --sweep-concurrency name a cluster sweep: pass --cluster-db URL too", errUsage)
	}
	if f.clusterDB != "" && (f.outSet || f.resume) {
		return fmt.Errorf(
			"%w: a cluster sweep writes no report here: drop --out and --resume, and merge it with rlm bench report SWEEP --out DIR",
			errUsage,
		)
	}
	kinds, err := bench.ParseKinds(f.tasks)
	if err != nil {
		return fmt.Errorf("%w: --task: %v", errUsage, err)
	}
	sizes, err := bench.ParseSizes(f.sizes)
	if err != nil {
		return fmt.Errorf("%w: --sizes: %v", errUsage, err)
	}
	modes, err := parseModes(f.modes)
	if err != nil {
		return err
	}
	proto := orchestrator.Protocol(f.protocol)
	switch {
	case f.n < 1:
		return fmt.Errorf("%w: --n must be >= 1", errUsage)
	case f.parallel < 1:
		return fmt.Errorf("%w: --parallel must be >= 1", errUsage)
	case f.contextWindow < 0:
		return fmt.Errorf("%w: --context-window must be >= 0", errUsage)
	case proto != orchestrator.ProtocolText && proto != orchestrator.ProtocolTools:
		return fmt.Errorf("%w: --protocol must be text or tools, not %q", errUsage, f.protocol)
	}

	// The meta document before any model call, as rlm run loads it: its
	// recommended budgets apply to the flags not given.
	named, err := f.models.config(env)
	if err != nil && !errors.Is(err, llm.ErrNoModel) {
		return err
	}
	doc, notes, err := f.meta.load(env, "bench", benchStoreDir(env), named.Model, f.quiet)
	if err != nil {
		return err
	}
	f.notes = notes
	if b, ok := doc.BudgetFor(named.Model); ok && b.HistoryTokens > 0 {
		f.historyTokens = b.HistoryTokens
	}
	if err := f.budgets.validate(); err != nil {
		return err
	}
	sbx, err := f.limits.limits()
	if err != nil {
		return err
	}
	if h := f.historyTokens; h > 0 && sbx.ObservationTokens > h/2 {
		return fmt.Errorf(
			"%w: --observation-tokens %d does not fit the meta document's history budget of %d tokens for %s (at most half)",
			errUsage,
			sbx.ObservationTokens,
			h,
			named.Model,
		)
	}
	if f.dryRun {
		// No model is called: the configured model names only pick the
		// tokenizers and fill the prompts as a real run would.
		llmCfg, err := f.models.config(env)
		if err != nil && !errors.Is(err, llm.ErrNoModel) {
			return err
		}
		direct, rlm := f.runners(llmCfg, nil, nil, nil, sbx, proto)
		return benchDryRun(ctx, env, &f, kinds, sizes, modes, direct, rlm)
	}
	if f.clusterDB != "" {
		return submitSweep(ctx, env, &f, kinds, sizes, modes, sbx)
	}

	llmCfg, prices, err := f.models.endpoint(env, f.budgets.maxCost)
	if err != nil {
		return err
	}
	// One client (one limiter) for the whole run; each item meters it on
	// its own ledger so budgets and usage are per item.
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	model, emb, closeModel, err := f.models.chatModel(env, nil)
	if err != nil {
		return err
	}
	keepRecording := false
	defer func() {
		if !keepRecording {
			closeModel()
		}
	}()
	direct, rlm := f.runners(llmCfg, model, emb, prices, sbx, proto)
	runners := map[string]bench.Runner{bench.ModeDirect: direct, bench.ModeRLM: rlm}
	cfg := bench.Config{
		Tasks: kinds, Sizes: sizes, N: f.n, Seed: f.seed, Modes: modes, Runners: runners, Model: llmCfg.Model,
		Parallel: f.parallel, Results: filepath.Join(f.out, bench.ResultsFile), Resume: f.resume,
	}
	if !f.quiet && isTerminal(env.stderr) {
		cfg.Progress = env.stderr
	}
	results, runErr := bench.Run(ctx, cfg)
	switch {
	case errors.Is(runErr, bench.ErrResultsExist):
		return fmt.Errorf("%w; pass --resume to continue that run, or choose another --out", runErr)
	case errors.Is(runErr, bench.ErrOtherModel):
		return fmt.Errorf("%w; choose another --out", runErr)
	case runErr != nil && results == nil:
		return runErr
	}
	if keepRecording, err = f.models.finishRecording(env, "bench", runErr == nil, closeModel); err != nil {
		return err
	}
	if err := printBenchReport(env, f.out, results, llmCfg.Model, f.seed, cfg.Results); err != nil {
		return err
	}
	if runErr != nil {
		total := len(kinds) * len(sizes) * f.n * len(modes)
		if errors.Is(runErr, context.Canceled) {
			return fmt.Errorf("interrupted with %d of %d items done; continue with the same flags and --resume", len(results), total)
		}
		return runErr
	}
	return nil
}

// printBenchReport writes the report of results to dir and prints it,
// then the files written.
func printBenchReport(env *cliEnv, dir string, results []bench.Result, model string, seed uint64, resultsPath string) error {
	title := fmt.Sprintf("rlm bench: %s (seed %d)", model, seed)
	paths, err := bench.WriteReport(dir, results, title)
	if err != nil {
		return err
	}
	md, err := os.ReadFile(filepath.Join(dir, bench.ReportMarkdown))
	if err == nil {
		fmt.Fprint(env.stdout, string(md))
	}
	fmt.Fprintf(env.stdout, "\nwrote %s and %s\n", strings.Join(paths, ", "), resultsPath)
	return nil
}

// runners builds the two modes' runners from the flags; model, emb and
// prices are nil for --dry-run.
func (f *benchFlags) runners(
	llmCfg llm.Config,
	model llm.ChatModel,
	emb llm.Embedder,
	prices *llm.PriceTable,
	sbx sandbox.Limits,
	proto orchestrator.Protocol,
) (*bench.Direct, *bench.RLM) {
	limits := f.budgets.ledgerLimits()
	window := f.contextWindow
	if window == 0 {
		window, _ = llm.ContextWindow(llmCfg.Model)
	}
	direct := &bench.Direct{Model: model, ModelName: llmCfg.Model, Window: window,
		MaxOutputTokens: llmCfg.MaxOutputTokens, Temperature: llmCfg.Temperature, Prices: prices, Limits: limits}
	rlm := &bench.RLM{Model: model, EmbeddingModel: llmCfg.EmbeddingModel, Prices: prices, Limits: limits, Config: orchestrator.Config{
		RootModel: llmCfg.Model, SubModel: firstNonEmpty(llmCfg.SubModel, llmCfg.Model), Embedder: emb,
		Protocol: proto, MaxIterations: f.budgets.maxIterations, MaxDepth: f.budgets.maxDepth, Timeout: f.budgets.timeout,
		MaxActiveTime: f.budgets.maxActive,
		Meta:          f.notes, DynamicBudget: f.historyTokens,
		Temperature: llmCfg.Temperature, MaxOutputTokens: llmCfg.MaxOutputTokens, Limits: sbx,
	}}
	return direct, rlm
}

// benchStoreDir is the store directory rlm bench's meta document is found
// next to: $RLM_STORE, else the default (.rlm/store).
func benchStoreDir(env *cliEnv) string {
	if env.getenv != nil {
		if d := env.getenv("RLM_STORE"); d != "" {
			return d
		}
	}
	return defaultStoreDir
}

func parseModes(s string) ([]string, error) {
	var out []string
	for _, m := range strings.Split(s, ",") {
		m = strings.TrimSpace(strings.ToLower(m))
		switch m {
		case "":
			continue
		case bench.ModeRLM, bench.ModeDirect:
			out = append(out, m)
		default:
			return nil, fmt.Errorf("%w: --modes: unknown mode %q (choose rlm, direct)", errUsage, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: --modes is empty (choose rlm, direct)", errUsage)
	}
	return out, nil
}

// benchDryRun prints the exact prompt tokens of each requested mode's
// first request, as direct and rlm would send it.
func benchDryRun(
	ctx context.Context,
	env *cliEnv,
	f *benchFlags,
	kinds []string,
	sizes []int,
	modes []string,
	direct *bench.Direct,
	rlm *bench.RLM,
) error {
	cfg := bench.DryRunConfig{Tasks: kinds, Sizes: sizes, N: f.n, Seed: f.seed}
	for _, m := range modes {
		switch m {
		case bench.ModeDirect:
			cfg.Direct = direct
		case bench.ModeRLM:
			cfg.RLM = rlm
		}
	}
	if !f.quiet && isTerminal(env.stderr) {
		fmt.Fprintln(env.stderr, "generating tasks and counting prompt tokens...")
	}
	rows, err := bench.DryRun(ctx, cfg, func(r bench.DryRow) {
		if !f.quiet && isTerminal(env.stderr) {
			fmt.Fprintf(
				env.stderr,
				"  %s %s #%d: direct %d, rlm %d tokens\n",
				r.Task,
				bench.FormatSize(r.Size),
				r.Index,
				r.DirectTokens,
				r.RLMTokens,
			)
		}
	})
	table := bench.FormatDryRun(rows)
	fmt.Fprint(env.stdout, table)
	if err != nil {
		return err
	}
	if f.outSet {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if err := os.WriteFile(filepath.Join(f.out, "dry-run.md"), []byte(table), 0o644); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	return nil
}

// runBenchGen writes one generated task to a directory.
func runBenchGen(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "bench gen", "--task T --size S [--seed N] [--index I] --out DIR")
	task := fs.String("task", "", "task: "+strings.Join(bench.Kinds(), ", ")+" (required)")
	size := fs.String("size", "8k", "context size in tokens, e.g. 8k, 128k, 1m")
	seed := fs.Uint64("seed", 1, "generator seed")
	index := fs.Int("index", 0, "item number under the seed (rlm bench runs items 0..n-1)")
	out := fs.String("out", "", "output `DIR` (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *task == "" || *out == "" {
		return fmt.Errorf("%w: --task and --out are required, e.g. rlm bench gen --task niah --size 8k --out tasks/niah-8k", errUsage)
	}
	n, err := bench.ParseSize(*size)
	if err != nil {
		return fmt.Errorf("%w: --size: %v", errUsage, err)
	}
	if *index < 0 {
		return fmt.Errorf("%w: --index must be >= 0", errUsage)
	}
	t, err := bench.Generate(*task, n, *seed, *index)
	if err != nil {
		if errors.Is(err, bench.ErrUnknownTask) {
			return fmt.Errorf("%w: --task: %v", errUsage, err)
		}
		return err
	}
	tf, err := bench.WriteTask(*out, t)
	if err != nil {
		return err
	}
	var vars []string
	for _, v := range tf.Vars {
		vars = append(vars, "--var "+shellQuote(v.Name+"="+filepath.Join(*out, v.File)))
	}
	fmt.Fprintf(
		env.stdout,
		"wrote %s: %s task, %d context tokens, gold %q\n",
		filepath.Join(*out, "task.json"),
		t.Kind,
		tf.ContextTokens,
		shorten(t.Gold.Answer, 60),
	)
	fmt.Fprintf(
		env.stdout,
		"run it with:  rlm run --query \"$(cat %s)\" %s\n",
		shellQuote(filepath.Join(*out, "query.txt")),
		strings.Join(vars, " "),
	)
	fmt.Fprintf(env.stdout, "explore it:   rlm exec %s -c 'show_vars()'\n", strings.Join(vars, " "))
	return nil
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./=:,+@%.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
