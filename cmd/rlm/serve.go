package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rlmhq/rlm/blobs"
	"github.com/rlmhq/rlm/cluster"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/server"
	"github.com/rlmhq/rlm/steward"
)

func init() {
	register(
		&command{
			name:    "serve",
			summary: "serve RLM runs over an OpenAI-compatible HTTP API, with a run API, the store and metrics",
			run:     runServe,
		},
	)
}

const serveSynopsis = "[--addr HOST:PORT] [--token-file FILE] [model flags] [budgets] [limits] [--max-runs N] [--queue N] [--max-body SIZE] [--max-body-memory SIZE] [--max-json-values N] [--max-json-depth N] [--max-conns N] [--read-timeout D] [--write-timeout D] [--stream-write-timeout D] [--idle-timeout D] [--drain-timeout D] [--store DIR] [--runs-dir DIR [--resume-runs=false] [--resume-from-divergence] | --no-keep [--retain-trajectory-bytes SIZE]] [--meta FILE] [--meta-notes-tokens N] [--cluster-db URL [--blobs URL [--max-var-size SIZE] [--blobs-cache SIZE]]]"

// defaultServeTimeout is rlm serve's default run timeout (--timeout).
const defaultServeTimeout = 30 * time.Minute

// serveOptions are the flags of rlm serve: rlm run's model flags, budgets
// and sandbox limits as server-wide defaults and caps, and the server's own.
type serveOptions struct {
	logLevel slog.Level
	models   modelFlags
	budgetFlags
	limits        limitFlags
	meta          metaFlags
	sizes         *rlmctx.SizeConfig
	storeDir      *string
	runsDir       string
	noKeep        bool
	resumeRuns    bool
	fromDiverged  bool
	clusterDB     string
	blobsURL      string
	maxVarSize    int64
	blobsCache    int64
	leaseTTL      time.Duration
	work          bool
	maxCells      int
	worker        bool // rlm worker: no HTTP
	addr          string
	tokenFile     string
	childIter     int
	maxTotalIter  int
	maxErrors     int
	historyTokens int
	output        string
	outputSchema  string
	protocol      string
	summarizer    string
	maxRuns       int
	queue         int
	maxBody       int64
	maxBodyMemory int64
	retainTraj    int64
	maxJSONValues int
	maxJSONDepth  int
	drainTimeout  time.Duration
	http          httpFlags
}

// httpFlags are rlm serve's connection limits (server.Config's).
type httpFlags struct {
	maxConns           int
	readHeaderTimeout  time.Duration
	readTimeout        time.Duration
	writeTimeout       time.Duration
	streamWriteTimeout time.Duration
	idleTimeout        time.Duration
	streamKeepAlive    time.Duration
	corsOrigins        originFlags
}

// originFlags collects repeated --cors-origin values: * or a browser
// origin, scheme://host[:port] without a path.
type originFlags []string

func (o *originFlags) String() string { return strings.Join(*o, " ") }

func (o *originFlags) Set(v string) error {
	if v != "*" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
			u.RawQuery != "" {
			return fmt.Errorf("want * or an origin such as https://app.example.com (scheme and host, no path), not %q", v)
		}
		v = u.Scheme + "://" + u.Host
	}
	*o = append(*o, v)
	return nil
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.IntVar(
		&h.maxConns,
		"max-conns",
		0,
		"connections open at once; beyond, new ones wait (0: "+fmt.Sprint(server.DefaultMaxConns)+", at most half the open-file limit)",
	)
	fs.DurationVar(
		&h.readHeaderTimeout,
		"read-header-timeout",
		server.DefaultReadHeaderTimeout,
		"time a client has to send a request's headers",
	)
	fs.DurationVar(&h.readTimeout, "read-timeout", server.DefaultReadTimeout, "time a client has to send a whole request, body included")
	fs.DurationVar(
		&h.writeTimeout,
		"write-timeout",
		server.DefaultWriteTimeout,
		"time each write of a response may take before the client is dropped",
	)
	fs.DurationVar(
		&h.streamWriteTimeout,
		"stream-write-timeout",
		server.DefaultStreamWriteTimeout,
		"time each event of an event stream may take before the client is dropped",
	)
	fs.DurationVar(&h.idleTimeout, "idle-timeout", server.DefaultIdleTimeout, "close a keep-alive connection idle this long")
	fs.Var(
		&h.corsOrigins,
		"cors-origin",
		"let pages from `ORIGIN` (e.g. https://app.example.com, or * for any) call the API from a browser (repeatable; default none)",
	)
	fs.DurationVar(
		&h.streamKeepAlive,
		"stream-keepalive",
		server.DefaultStreamKeepAlive,
		"send a \": keep-alive\" comment on an event stream silent this long (a proxy's idle timeout would cut it)",
	)
}

// validate refuses a negative count and a timeout under a millisecond.
func (h *httpFlags) validate() error {
	if h.maxConns < 0 {
		return fmt.Errorf("%w: --max-conns must be >= 0", errUsage)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-header-timeout", h.readHeaderTimeout}, {"read-timeout", h.readTimeout}, {"write-timeout", h.writeTimeout},
		{"stream-write-timeout", h.streamWriteTimeout}, {"idle-timeout", h.idleTimeout}, {"stream-keepalive", h.streamKeepAlive}} {
		if d.v < time.Millisecond {
			return fmt.Errorf("%w: --%s must be at least 1ms, not %s", errUsage, d.name, d.v)
		}
	}
	return nil
}

func runServe(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "serve", serveSynopsis)
	o := &serveOptions{}
	return runServeFlags(ctx, env, fs, o, args)
}

// runServeFlags parses the flags of rlm serve (and rlm worker, which
// shares them but for the HTTP ones) and runs the server.
func runServeFlags(ctx context.Context, env *cliEnv, fs *flag.FlagSet, o *serveOptions, args []string) error {
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8088", "listen on `HOST:PORT`; without a token only loopback addresses are allowed")
	fs.TextVar(
		&o.logLevel,
		"log-level",
		slog.LevelInfo,
		"the least `LEVEL` logged: debug, info, warn or error (probes and metrics scrapes are debug)",
	)
	fs.StringVar(&o.tokenFile, "token-file", "", "read the bearer token clients must send from `FILE` (default $RLM_SERVE_TOKEN)")
	o.models.register(fs)
	o.budgetFlags.register(fs, "each run tree (a cap: requests can only lower it)")
	if f := fs.Lookup("timeout"); f != nil {
		_ = f.Value.Set(defaultServeTimeout.String())
		f.DefValue = defaultServeTimeout.String()
	}
	// Upstream requests in flight for all runs together: one per run slot
	// by default (a server's runs mostly wait on the model).
	if f := fs.Lookup("max-concurrency"); f != nil {
		_ = f.Value.Set(strconv.Itoa(server.DefaultMaxConcurrency))
		f.DefValue = strconv.Itoa(server.DefaultMaxConcurrency)
	}
	o.limits.register(fs, orchestrator.DefaultObservationTokens)
	o.sizes = registerSizeFlags(fs)
	o.storeDir = storeDirFlag(fs, env)
	o.meta.register(fs)
	fs.StringVar(
		&o.runsDir,
		"runs-dir",
		"",
		"keep each run in a directory under `DIR` (default $RLM_RUNS_DIR, else runs/ next to the store)",
	)
	fs.BoolVar(&o.noKeep, "no-keep", false, "keep runs in memory only (no run directories)")
	fs.BoolVar(
		&o.resumeRuns,
		"resume-runs",
		true,
		"at start, resume the run API's runs that a server on the same runs directory was running when it stopped (=false leaves them interrupted)",
	)
	fs.BoolVar(
		&o.fromDiverged,
		"resume-from-divergence",
		false,
		"a run this server resumes (--resume-runs, or a cluster takeover) whose re-executed step comes out differently goes on live from there "+
			"with a resume-context message to the model, instead of stopping (see rlm run --from-divergence)",
	)
	o.retainTraj = server.DefaultRetainTrajectoryBytes
	fs.Var(
		byteSize[int64]{&o.retainTraj},
		"retain-trajectory-bytes",
		"with --no-keep, the trajectories of finished runs kept in memory, a `SIZE` (the oldest are dropped beyond: 410)",
	)
	fs.IntVar(&o.childIter, "child-iterations", orchestrator.DefaultChildMaxIterations, "iterations of each child RLM (a cap)")
	fs.IntVar(&o.maxTotalIter, "max-total-iterations", 0, "budget: iterations of each run tree (0 = unlimited; a cap)")
	fs.IntVar(&o.maxErrors, "max-errors", orchestrator.DefaultMaxConsecutiveErrors, "stop a run after this many failed steps in a row")
	fs.IntVar(
		&o.historyTokens,
		"history-tokens",
		orchestrator.DefaultDynamicBudget,
		"token budget of the iteration history in each request",
	)
	fs.StringVar(
		&o.output,
		"output",
		"answer:str",
		"default declared outputs `SCHEMA`, in the syntax of rlm run --output (a request's rlm.output or response_format replaces it)",
	)
	fs.StringVar(&o.outputSchema, "output-schema", "", "the default declared outputs by a JSON Schema `FILE`, instead of --output")
	fs.StringVar(&o.protocol, "protocol", string(orchestrator.ProtocolText), "how the root model acts: text or tools")
	fs.StringVar(&o.summarizer, "summarizer", "deterministic", "how old iterations are compressed: deterministic, or llm")
	fs.IntVar(
		&o.maxRuns,
		"max-runs",
		server.DefaultMaxRuns,
		"runs executing at once (each mostly waits on the model: size it for the throughput wanted, runs/s = N / run time)",
	)
	fs.IntVar(&o.queue, "queue", server.DefaultQueue, "runs waiting for a slot; beyond, requests get 429 with Retry-After")
	o.maxBody = server.DefaultMaxBodyBytes
	fs.Var(
		byteSize[int64]{&o.maxBody},
		"max-body",
		"largest request body, a `SIZE` such as 32M (413 beyond; put large variables in the store)",
	)
	fs.Var(
		byteSize[int64]{&o.maxBodyMemory},
		"max-body-memory",
		"bytes of the request bodies read and decoded at once, a `SIZE` (503 with Retry-After beyond; default 8 x --max-body)",
	)
	fs.IntVar(
		&o.maxJSONValues,
		"max-json-values",
		server.DefaultMaxJSONValues,
		"most JSON values in a request body, counted before decoding (413 beyond)",
	)
	fs.IntVar(&o.maxJSONDepth, "max-json-depth", server.DefaultMaxJSONDepth, "deepest nesting of a request body's JSON (400 beyond)")
	o.http.register(fs)
	fs.DurationVar(
		&o.drainTimeout,
		"drain-timeout",
		30*time.Second,
		"on SIGTERM, how long running runs get to finish before they are canceled (partial answers kept)",
	)
	fs.StringVar(
		&o.clusterDB,
		"cluster-db",
		"",
		"be one replica of a cluster whose runs are kept in the PostgreSQL database at `URL` (default $RLM_CLUSTER_DB; see docs/cluster.md)",
	)
	fs.DurationVar(
		&o.leaseTTL,
		"lease-ttl",
		cluster.DefaultLeaseTTL,
		"in a cluster, how long a process that stopped answering keeps its runs before another takes them over",
	)
	fs.StringVar(
		&o.blobsURL,
		"blobs",
		"",
		"in a cluster, keep the variable store's values in the S3-compatible bucket at `URL`, s3://BUCKET[/PREFIX]?endpoint=...&region=... (default $RLM_BLOBS; credentials from the AWS variables; see docs/cluster.md)",
	)
	o.maxVarSize = server.DefaultMaxVarBytes
	fs.Var(
		byteSize[int64]{&o.maxVarSize},
		"max-var-size",
		"in a cluster with --blobs, largest text value PUT to /v1/vars, a `SIZE` (streamed to the bucket; 413 beyond)",
	)
	fs.Var(
		byteSize[int64]{&o.blobsCache},
		"blobs-cache",
		"with --blobs, bound the local cache of blobs (STORE/blobs) to a `SIZE`, removing the least recently used (0: no bound)",
	)
	fs.BoolVar(
		&o.work,
		"work",
		true,
		"in a cluster, execute runs in this process too (=false: only answer the API; rlm worker processes execute)",
	)
	fs.IntVar(
		&o.maxCells,
		"max-cells",
		0,
		"in a cluster, benchmark sweep cells executed at once, besides the runs (0: as many as --max-runs)",
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.clusterDB == "" {
		o.clusterDB = env.getenv("RLM_CLUSTER_DB")
	}
	if o.blobsURL == "" {
		o.blobsURL = env.getenv("RLM_BLOBS")
	}
	if o.worker {
		if err := workerFlagsOnly(fs); err != nil {
			return err
		}
		if o.clusterDB == "" {
			return fmt.Errorf("%w: rlm worker needs the cluster's database: pass --cluster-db URL or set RLM_CLUSTER_DB", errUsage)
		}
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if o.clusterDB != "" {
		if o.noKeep {
			return fmt.Errorf("%w: --no-keep: a cluster replica keeps the runs it executes in a runs directory", errUsage)
		}
		if o.leaseTTL < time.Second {
			return fmt.Errorf("%w: --lease-ttl must be at least 1s", errUsage)
		}
		if o.maxCells < 0 {
			return fmt.Errorf("%w: --max-cells must be >= 0", errUsage)
		}
	} else if o.blobsURL != "" {
		return fmt.Errorf("%w: --blobs (or RLM_BLOBS) is for a cluster: its keys are kept in the cluster's database, so pass --cluster-db URL too (or set RLM_CLUSTER_DB)", errUsage)
	}
	if o.maxVarSize < 1 || o.blobsCache < 0 {
		return fmt.Errorf("%w: --max-var-size must be >= 1, --blobs-cache >= 0", errUsage)
	}
	cfg, err := o.config(env, fs)
	if err != nil {
		return err
	}
	return serve(ctx, env, cfg, o)
}

// config validates the flags into the server's configuration.
func (o *serveOptions) config(env *cliEnv, fs *flag.FlagSet) (server.Config, error) {
	var cfg server.Config
	if o.models.record != "" || o.models.replay != "" {
		return cfg, fmt.Errorf(
			"%w: --record and --replay are for rlm run; rlm serve keeps each run's trajectory in its run directory",
			errUsage,
		)
	}
	if err := o.budgetFlags.validate(); err != nil {
		return cfg, err
	}
	lim, err := o.limits.limits()
	if err != nil {
		return cfg, err
	}
	output, err := resolveOutput(o.output, o.outputSchema, flagGiven(fs, "output"))
	if err != nil {
		return cfg, err
	}
	o.output = output
	if _, err := orchestrator.ParseSchema(o.output); err != nil {
		return cfg, fmt.Errorf("%w: --output: %v", errUsage, err)
	}
	if p := orchestrator.Protocol(o.protocol); p != orchestrator.ProtocolText && p != orchestrator.ProtocolTools {
		return cfg, fmt.Errorf("%w: --protocol must be text or tools, not %q", errUsage, o.protocol)
	}
	switch {
	case o.summarizer != "deterministic" && o.summarizer != "llm":
		return cfg, fmt.Errorf("%w: --summarizer must be deterministic or llm, not %q", errUsage, o.summarizer)
	case o.childIter < 1 || o.maxErrors < 1 || o.maxTotalIter < 0:
		return cfg, fmt.Errorf("%w: --child-iterations and --max-errors must be >= 1, --max-total-iterations >= 0", errUsage)
	case o.historyTokens < 1000:
		return cfg, fmt.Errorf("%w: --history-tokens must be >= 1000", errUsage)
	case lim.ObservationTokens > o.historyTokens/2:
		return cfg, fmt.Errorf(
			"%w: --observation-tokens %d does not fit --history-tokens %d (at most half)",
			errUsage,
			lim.ObservationTokens,
			o.historyTokens,
		)
	case o.maxRuns < 1 || o.queue < 0 || o.maxBody < 1 || o.drainTimeout < 0:
		return cfg, fmt.Errorf("%w: --max-runs and --max-body must be >= 1, --queue and --drain-timeout >= 0", errUsage)
	case o.maxBodyMemory < 0 || o.retainTraj < 1:
		return cfg, fmt.Errorf("%w: --max-body-memory must be >= 0, --retain-trajectory-bytes >= 1", errUsage)
	case o.maxJSONValues < 1 || o.maxJSONDepth < 1:
		return cfg, fmt.Errorf("%w: --max-json-values and --max-json-depth must be >= 1", errUsage)
	}
	if err := o.http.validate(); err != nil {
		return cfg, err
	}
	token := strings.TrimSpace(env.getenv("RLM_SERVE_TOKEN"))
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return cfg, fmt.Errorf("--token-file: %w", err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return cfg, fmt.Errorf("%w: --token-file %s is empty", errUsage, o.tokenFile)
		}
	}
	llmCfg, prices, err := o.models.endpoint(env, o.maxCost)
	if err != nil {
		return cfg, err
	}
	// The meta document before anything listens: the server never serves
	// a run on an invalid one.
	doc, metaFile, err := o.meta.read(env, *o.storeDir)
	if err != nil {
		return cfg, err
	}
	notesTokens := o.meta.notesTokens
	if notesTokens == 0 {
		notesTokens = -1 // Meta's 0 means the default; the flag's 0 means none
	}
	fixed := map[string]bool{}
	for _, f := range []struct{ flag, name string }{{"max-iterations", "max_iterations"}, {"history-tokens", "history_tokens"}, {"observation-tokens", "observation_tokens"}} {
		fixed[f.name] = isSet(fs, f.flag)
	}
	runsDir := ""
	if !o.noKeep {
		runsDir = runsRootDir(env, o.runsDir, *o.storeDir)
	}
	queue := o.queue
	if queue == 0 {
		queue = -1 // the flag's 0 means none; Config's 0 means the default
	}
	cfg = server.Config{
		LLM: llmCfg, Prices: prices, LLMSummarizer: o.summarizer == "llm",
		Engine: orchestrator.Config{
			Protocol: orchestrator.Protocol(o.protocol), MaxIterations: o.maxIterations, ChildMaxIterations: o.childIter,
			MaxTotalIterations: o.maxTotalIter, MaxDepth: o.maxDepth, MaxConsecutiveErrors: o.maxErrors,
			DynamicBudget: o.historyTokens, Timeout: o.timeout, MaxActiveTime: o.maxActive, Limits: lim,
			Temperature: llmCfg.Temperature, MaxOutputTokens: llmCfg.MaxOutputTokens,
		},
		Budgets: o.ledgerLimits(), Output: o.output, Sizes: *o.sizes,
		Meta:  server.Meta{Doc: doc, Path: metaFile, NotesTokens: notesTokens, Fixed: fixed},
		Token: token, StoreDir: *o.storeDir, RunsDir: runsDir, ResumeFromDivergence: o.fromDiverged, Version: buildVersion(),
		MaxRuns: o.maxRuns, Queue: queue, MaxBodyBytes: o.maxBody, MaxBodyMemory: o.maxBodyMemory, RetainTrajectoryBytes: o.retainTraj, MaxJSONValues: o.maxJSONValues, MaxJSONDepth: o.maxJSONDepth,
		MaxConns: o.http.maxConns, ReadHeaderTimeout: o.http.readHeaderTimeout, ReadTimeout: o.http.readTimeout,
		WriteTimeout: o.http.writeTimeout, StreamWriteTimeout: o.http.streamWriteTimeout, IdleTimeout: o.http.idleTimeout,
		StreamKeepAlive: o.http.streamKeepAlive, CORSOrigins: o.http.corsOrigins,
	}
	return cfg, nil
}

// serve runs the server until ctx ends (SIGINT, SIGTERM), then drains:
// no new runs, running ones get --drain-timeout, then are canceled with
// their partial answers recorded.
func serve(ctx context.Context, env *cliEnv, cfg server.Config, o *serveOptions) error {
	log := slog.New(slog.NewJSONHandler(env.stderr, &slog.HandlerOptions{Level: o.logLevel}))
	cfg.Logger = log
	softMemoryLimit(env, cfg.Engine.Limits)
	serveGC(env)
	warnTraces := func(err error) { log.Warn("traces", "error", err.Error()) }
	tracing, err := startTracing(ctx, env, cfg.LLM.BaseURL, warnTraces)
	if err != nil {
		return err
	}
	// Last, after the drain: the spans of the runs it ended are exported.
	defer func() {
		if err := flushTracing(tracing); err != nil {
			warnTraces(err)
		}
	}()
	cfg.Tracing = tracing
	if o.clusterDB != "" {
		ccfg := cluster.Config{URL: o.clusterDB, LeaseTTL: o.leaseTTL, Workers: cfg.MaxRuns, Logger: log}
		if o.work || o.worker {
			// The cells of benchmark sweeps (rlm bench --cluster-db).
			ccfg.CellWorkers = cmp.Or(o.maxCells, cfg.MaxRuns)
		}
		db, err := cluster.Open(ctx, ccfg)
		if err != nil {
			return fmt.Errorf("--cluster-db: %w", err)
		}
		defer db.Close()
		if ccfg.CellWorkers > 0 {
			db.SetCellExecutor(newCellExecutor(env, o.models))
		}
		cfg.Cluster = db
	}
	if o.blobsURL != "" {
		bs, err := blobs.Open(
			ctx,
			blobs.Config{URL: o.blobsURL, CacheDir: filepath.Join(*o.storeDir, "blobs"), CacheMaxBytes: o.blobsCache},
		)
		if err != nil {
			return fmt.Errorf("--blobs: %w", err)
		}
		cfg.Blobs = bs
		cfg.MaxVarBytes = o.maxVarSize
	}
	s, err := server.New(cfg)
	if errors.Is(err, server.ErrWeakToken) {
		return fmt.Errorf(
			"%w: %v: use a random token of %d characters or more (e.g. openssl rand -hex 24)",
			errUsage,
			err,
			server.MinTokenLen,
		)
	}
	if errors.Is(err, server.ErrMeta) {
		return fmt.Errorf(
			"%w (fix the file or the flags --history-tokens and --observation-tokens, or restore a good version with rlm steward rollback VERSION)",
			err,
		)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	// The steward's proposals and drift over the kept runs (issue 13).
	// rlm_meta_version is the version the server's runs use (read at start).
	inForce := cfg.Meta.Doc.Version
	s.Registry().
		MustRegister(&steward.Collector{Steward: &steward.Steward{MetaPath: metaPathEnv(env, o.meta.path, *o.storeDir)}, RunsDir: cfg.RunsDir,
			Version: func() int { return inForce }})
	if o.worker {
		// No HTTP: several workers share a machine (it listened on
		// --addr's default, and the second worker there failed to start).
		if err := s.Work(ctx); err != nil {
			return fmt.Errorf("--cluster-db: %w", err)
		}
		log.Info("working", "cluster", true, "max_runs", cfg.MaxRuns)
		<-ctx.Done()
		log.Info("draining", "drain_timeout", o.drainTimeout.String())
		dctx, cancel := context.WithTimeout(context.Background(), o.drainTimeout+30*time.Second)
		defer cancel()
		n := s.Drain(dctx, o.drainTimeout)
		log.Info("stopped", "released_runs", n)
		return nil
	}
	ln, err := s.Listen(o.addr)
	if errors.Is(err, server.ErrInsecure) {
		return fmt.Errorf("%w: %v: set RLM_SERVE_TOKEN or --token-file to listen on %s", errUsage, err, o.addr)
	}
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if cfg.Cluster != nil && o.work {
		if err := s.Work(ctx); err != nil {
			return fmt.Errorf("--cluster-db: %w", err)
		}
	}
	if o.resumeRuns && cfg.Cluster == nil {
		ids, err := s.ResumeRuns(ctx)
		if err != nil {
			return fmt.Errorf("--runs-dir: %w", err)
		}
		if len(ids) > 0 {
			log.Info("resumed runs", "count", len(ids), "run_ids", ids)
		}
	}
	hs := s.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info(
		"listening",
		"addr",
		ln.Addr().String(),
		"auth",
		cfg.Token != "",
		"max_runs",
		cfg.MaxRuns,
		"max_conns",
		s.MaxConns(),
		"meta_version",
		cfg.Meta.Doc.Version,
	)
	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	log.Info("draining", "drain_timeout", o.drainTimeout.String())
	dctx, cancel := context.WithTimeout(context.Background(), o.drainTimeout+30*time.Second)
	defer cancel()
	n := s.Drain(dctx, o.drainTimeout)
	sctx, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("shutdown", "error", err.Error())
	}
	log.Info("stopped", "canceled_runs", n)
	return nil
}
