package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rlmhq/rlm/cluster"
	"github.com/rlmhq/rlm/internal/bench"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/sandbox"
)

// A sweep is rlm bench spread over a cluster (docs/cluster.md, "Sweeps"):
// rlm bench --cluster-db stores the sweep's configuration and one job per
// cell, the cluster's workers run the cells (cellExecutor) and rlm bench
// report merges their results into the report a single machine writes.

// sweepConfig is what a sweep's cells are run with, stored with the
// sweep: the benchmark's flags as the submitter resolved them. The
// workers' own model flags give the endpoint and its credentials (never
// stored); the model names here replace theirs.
type sweepConfig struct {
	Tasks []string `json:"tasks"`
	Sizes []int    `json:"sizes"`
	N     int      `json:"n"`
	Seed  uint64   `json:"seed"`
	Modes []string `json:"modes"`

	Model           string   `json:"model"`
	SubModel        string   `json:"sub_model,omitempty"`
	EmbeddingModel  string   `json:"embedding_model,omitempty"`
	Temperature     *float32 `json:"temperature,omitempty"`
	MaxOutputTokens int      `json:"max_output_tokens,omitempty"`
	ContextWindow   int      `json:"context_window,omitempty"`
	Protocol        string   `json:"protocol"`

	MaxIterations int           `json:"max_iterations"`
	MaxDepth      int           `json:"max_depth"`
	MaxCalls      int           `json:"max_llm_calls,omitempty"`
	MaxTokens     int           `json:"max_tokens,omitempty"`
	MaxCost       float64       `json:"max_cost,omitempty"`
	Timeout       time.Duration `json:"timeout,omitempty"`
	MaxActive     time.Duration `json:"max_active_time,omitempty"`

	Limits        sandbox.Limits         `json:"limits"`
	Meta          orchestrator.MetaNotes `json:"meta"`
	MetaText      string                 `json:"meta_text,omitempty"`
	HistoryTokens int                    `json:"history_tokens,omitempty"`
}

// newSweepConfig resolves rlm bench's flags into a sweep's configuration.
func newSweepConfig(f *benchFlags, llmCfg llm.Config, kinds []string, sizes []int, modes []string, sbx sandbox.Limits) sweepConfig {
	return sweepConfig{
		Tasks: kinds, Sizes: sizes, N: f.n, Seed: f.seed, Modes: modes,
		Model: llmCfg.Model, SubModel: llmCfg.SubModel, EmbeddingModel: llmCfg.EmbeddingModel,
		Temperature: llmCfg.Temperature, MaxOutputTokens: llmCfg.MaxOutputTokens,
		ContextWindow: f.contextWindow, Protocol: f.protocol,
		MaxIterations: f.budgets.maxIterations, MaxDepth: f.budgets.maxDepth, MaxCalls: f.budgets.maxCalls,
		MaxTokens: f.budgets.maxTokens, MaxCost: f.budgets.maxCost, Timeout: f.budgets.timeout, MaxActive: f.budgets.maxActive,
		Limits: sbx, Meta: f.notes, MetaText: f.notes.Text, HistoryTokens: f.historyTokens,
	}
}

// budgets are the budget flags of the sweep's cells, as rlm bench was given them.
func (c *sweepConfig) budgets() budgetFlags {
	return budgetFlags{maxIterations: c.MaxIterations, maxDepth: c.MaxDepth, maxCalls: c.MaxCalls,
		maxTokens: c.MaxTokens, maxCost: c.MaxCost, timeout: c.Timeout, maxActive: c.MaxActive}
}

// benchConfig is the bench.Config of the sweep's cells, without runners.
func (c *sweepConfig) benchConfig() bench.Config {
	return bench.Config{Tasks: c.Tasks, Sizes: c.Sizes, N: c.N, Seed: c.Seed, Modes: c.Modes, Model: c.Model}
}

// providerOf names the provider an endpoint is: its host (OpenAI's API
// when no base URL is set).
func providerOf(baseURL string) string {
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return "api.openai.com"
}

// submitSweep is rlm bench --cluster-db: it stores the sweep and its
// cells and prints the sweep's id.
func submitSweep(ctx context.Context, env *cliEnv, f *benchFlags, kinds []string, sizes []int, modes []string, sbx sandbox.Limits) error {
	llmCfg, err := f.models.config(env)
	if err != nil && !(errors.Is(err, llm.ErrNoModel) && llmCfg.Model != "") {
		return err
	}
	if llmCfg.Model == "" {
		return fmt.Errorf(
			"%w: a sweep needs its model: pass --model or set RLM_MODEL (the workers' own flags give the endpoint and key)",
			errUsage,
		)
	}
	if f.sweepLimit < 0 {
		return fmt.Errorf("%w: --sweep-concurrency must be >= 0", errUsage)
	}
	sc := newSweepConfig(f, llmCfg, kinds, sizes, modes, sbx)
	config, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	id := f.sweepID
	if id == "" {
		sum := sha256.Sum256(config)
		id = "sw-" + hex.EncodeToString(sum[:6])
	}
	keys, err := bench.Cells(sc.benchConfig())
	if err != nil {
		return err
	}
	cells := make([]cluster.SweepCell, len(keys))
	for i, k := range keys {
		spec, _ := json.Marshal(k)
		cells[i] = cluster.SweepCell{Key: k.String(), Spec: spec}
	}
	db, err := cluster.Open(ctx, cluster.Config{URL: f.clusterDB})
	if err != nil {
		return fmt.Errorf("--cluster-db: %w", err)
	}
	defer db.Close()
	n, err := db.SubmitSweep(
		ctx,
		cluster.Sweep{ID: id, Config: config, Provider: providerOf(llmCfg.BaseURL), MaxRunning: f.sweepLimit},
		cells,
	)
	if errors.Is(err, cluster.ErrSweepExists) {
		return fmt.Errorf("%w; name this one with another --sweep", err)
	}
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(env.stdout, "sweep %s was already submitted (%d cells); nothing inserted\n", id, len(cells))
	} else {
		fmt.Fprintf(env.stdout, "submitted sweep %s: %d cells of %s\n", id, n, sc.Model)
	}
	fmt.Fprintf(env.stdout, "%s\nfollow it with:  rlm bench status %s\nmerge it with:   rlm bench report %s --out DIR\n", id, id, id)
	return nil
}

// sweepFlags parses the flags of rlm bench status and report, which may
// come before or after the sweep's id.
func sweepFlags(env *cliEnv, fs *flag.FlagSet, args []string) (id string, err error) {
	for {
		if err := parseFlags(fs, args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		if id != "" {
			return "", fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
		}
		id, args = fs.Arg(0), fs.Args()[1:]
	}
	if id == "" {
		return "", fmt.Errorf(
			"%w: name the sweep, e.g. rlm bench %s sw-1a2b3c4d5e6f",
			errUsage,
			strings.TrimPrefix(fs.Name(), "rlm bench "),
		)
	}
	return id, nil
}

// openSweepDB opens the cluster database of rlm bench status and report.
func openSweepDB(ctx context.Context, env *cliEnv, u string) (*cluster.DB, error) {
	if u == "" {
		u = env.getenv("RLM_CLUSTER_DB")
	}
	if u == "" {
		return nil, fmt.Errorf("%w: pass --cluster-db URL or set RLM_CLUSTER_DB", errUsage)
	}
	db, err := cluster.Open(ctx, cluster.Config{URL: u})
	if err != nil {
		return nil, fmt.Errorf("--cluster-db: %w", err)
	}
	return db, nil
}

// runBenchStatus prints how many cells of a sweep are done, running,
// queued and failed.
func runBenchStatus(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "bench status", "[--cluster-db URL] SWEEP")
	u := fs.String("cluster-db", "", "the cluster's PostgreSQL database `URL` (default $RLM_CLUSTER_DB)")
	id, err := sweepFlags(env, fs, args)
	if err != nil {
		return err
	}
	db, err := openSweepDB(ctx, env, *u)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := db.SweepStatus(ctx, id)
	if err != nil {
		return err
	}
	var sc sweepConfig
	_ = json.Unmarshal(st.Config, &sc)
	fmt.Fprintf(env.stdout, "sweep %s: %s, seed %d, submitted %s\n", st.ID, sc.Model, sc.Seed, st.Created.UTC().Format(time.RFC3339))
	fmt.Fprintf(
		env.stdout,
		"cells: %d done, %d running, %d queued, %d failed (of %d)\n",
		st.Done,
		st.Running,
		st.Queued,
		st.Failed,
		st.Cells,
	)
	return nil
}

// runBenchReport merges a sweep's results into a report folder, as rlm
// bench writes it on one machine.
func runBenchReport(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "bench report", "[--cluster-db URL] --out DIR SWEEP")
	u := fs.String("cluster-db", "", "the cluster's PostgreSQL database `URL` (default $RLM_CLUSTER_DB)")
	out := fs.String("out", "", "output `DIR` for results.jsonl, report.md and the charts (required)")
	id, err := sweepFlags(env, fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: --out is required, e.g. rlm bench report %s --out bench-out", errUsage, id)
	}
	db, err := openSweepDB(ctx, env, *u)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := db.SweepStatus(ctx, id)
	if err != nil {
		return err
	}
	var sc sweepConfig
	if err := json.Unmarshal(st.Config, &sc); err != nil {
		return fmt.Errorf("sweep %s: its configuration does not parse: %w", id, err)
	}
	cells, err := db.SweepResults(ctx, id)
	if err != nil {
		return err
	}
	results := make([]bench.Result, 0, len(cells))
	for _, c := range cells {
		if c.Status != cluster.CellDone {
			continue
		}
		var r bench.Result
		if err := json.Unmarshal(c.Result, &r); err != nil {
			return fmt.Errorf("sweep %s: cell %s: its result does not parse: %w", id, c.Key, err)
		}
		results = append(results, r)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	resultsPath := filepath.Join(*out, bench.ResultsFile)
	if err := writeResults(resultsPath, results); err != nil {
		return err
	}
	if err := printBenchReport(env, *out, results, sc.Model, sc.Seed, resultsPath); err != nil {
		return err
	}
	if missing := st.Cells - len(results); missing > 0 {
		fmt.Fprintf(env.stderr, "sweep %s: %d of %d cells are not in the report (%d running, %d queued, %d failed)\n",
			id, missing, st.Cells, st.Running, st.Queued, st.Failed)
	}
	return nil
}

// writeResults writes results as results.jsonl, one line each, as rlm
// bench appends them.
func writeResults(path string, results []bench.Result) error {
	var b strings.Builder
	for _, r := range results {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// cellExecutor runs the sweep cells a worker claims, with the worker's
// endpoint and the sweep's configuration.
type cellExecutor struct {
	env    *cliEnv
	models modelFlags

	mu     sync.Mutex
	sweeps map[string]*sweepRunners
}

// sweepRunners are the runners of one sweep's cells on this worker.
type sweepRunners struct {
	cfg bench.Config
	err error
}

func newCellExecutor(env *cliEnv, models modelFlags) *cellExecutor {
	return &cellExecutor{env: env, models: models, sweeps: map[string]*sweepRunners{}}
}

// ExecuteCell runs one cell and returns its bench.Result as JSON.
func (x *cellExecutor) ExecuteCell(ctx context.Context, c *cluster.Cell) ([]byte, error) {
	sr := x.runners(c.Sweep, c.Config)
	if sr.err != nil {
		return nil, sr.err
	}
	var k bench.Key
	if err := json.Unmarshal(c.Spec, &k); err != nil {
		return nil, fmt.Errorf("the cell %s does not parse: %w", c.Key, err)
	}
	r, err := bench.RunCell(ctx, sr.cfg, k)
	if err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

// runners builds (once per sweep) the runners of a sweep's cells: one
// model client per sweep, so its limiter and retries span the sweep's
// cells on this worker.
func (x *cellExecutor) runners(id string, raw json.RawMessage) *sweepRunners {
	x.mu.Lock()
	defer x.mu.Unlock()
	if sr := x.sweeps[id]; sr != nil {
		return sr
	}
	sr := &sweepRunners{}
	x.sweeps[id] = sr
	var sc sweepConfig
	if err := json.Unmarshal(raw, &sc); err != nil {
		sr.err = fmt.Errorf("the sweep's configuration does not parse: %w", err)
		return sr
	}
	llmCfg, err := x.models.config(x.env)
	if err != nil && !errors.Is(err, llm.ErrNoModel) {
		sr.err = err
		return sr
	}
	llmCfg.Model, llmCfg.SubModel, llmCfg.EmbeddingModel = sc.Model, sc.SubModel, sc.EmbeddingModel
	llmCfg.Temperature, llmCfg.MaxOutputTokens = sc.Temperature, sc.MaxOutputTokens
	prices, err := x.models.priceTable()
	if err != nil {
		sr.err = err
		return sr
	}
	client, err := llm.New(llmCfg)
	if err != nil {
		sr.err = err
		return sr
	}
	var emb llm.Embedder
	if llmCfg.EmbeddingModel != "" {
		emb = client
	}
	f := &benchFlags{contextWindow: sc.ContextWindow, historyTokens: sc.HistoryTokens, budgets: sc.budgets()}
	f.notes = sc.Meta
	f.notes.Text = sc.MetaText
	direct, rlm := f.runners(llmCfg, client, emb, prices, sc.Limits, orchestrator.Protocol(sc.Protocol))
	sr.cfg = sc.benchConfig()
	sr.cfg.Runners = map[string]bench.Runner{bench.ModeDirect: direct, bench.ModeRLM: rlm}
	return sr
}
