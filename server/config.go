package server

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlmhq/rlm/blobs"
	"github.com/rlmhq/rlm/cluster"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/meta"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/telemetry"
)

// Defaults for zero Config fields.
const (
	// DefaultMaxRuns is sized for a service whose runs mostly wait on the
	// model: a run of two 20 ms model calls uses a few milliseconds of
	// server CPU (make loadtest), so with runs of seconds the runs in
	// flight, not the CPU, bound the throughput (runs/s = MaxRuns / run
	// time); a waiting run costs a goroutine and its sandbox sessions'
	// values, bounded by the memory limits.
	DefaultMaxRuns = 64
	// DefaultMaxConcurrency is the upstream requests in flight for all
	// runs together when LLM.MaxConcurrency is 0: one per run slot, so
	// that every running run can wait on the model at once.
	DefaultMaxConcurrency = DefaultMaxRuns
	DefaultQueue          = 64
	DefaultMaxBodyBytes   = 32 << 20
	// DefaultMaxVarBytes bounds a text value streamed to a cluster's
	// store API.
	DefaultMaxVarBytes = 64 << 30
	// DefaultBlobGCEvery and DefaultBlobGCGrace: a cluster's blob GC runs
	// hourly and spares the blobs used in the last day.
	DefaultBlobGCEvery = time.Hour
	DefaultBlobGCGrace = 24 * time.Hour
	DefaultRetain      = 1000
	// DefaultRetainTrajectoryBytes is the default RetainTrajectoryBytes.
	DefaultRetainTrajectoryBytes = 256 << 20
	// MinTokenLen is the shortest bearer token a server accepts (shorter
	// ones are guessable, and too short to redact safely from text).
	MinTokenLen = 16
	// DefaultMaxJSONValues bounds the values of a request's JSON (each
	// costs ~100–300 bytes decoded: ~90 MB at most).
	DefaultMaxJSONValues = 1 << 18
	// DefaultMaxJSONDepth bounds the nesting of a request's JSON.
	DefaultMaxJSONDepth = 100
	// DefaultRetryAfter is the Retry-After of a 429 when the queue is full.
	DefaultRetryAfter = 5 * time.Second
	// DefaultReadHeaderTimeout bounds the reading of a request's line and
	// headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds the reading of a whole request, body
	// included: a client trickling its body is cut off.
	DefaultReadTimeout = 60 * time.Second
	// DefaultWriteTimeout bounds each write of a response: a client that
	// stops reading is dropped.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultStreamWriteTimeout bounds each event of an event stream
	// (chat completion chunks, run events), refreshed per event.
	DefaultStreamWriteTimeout = 2 * time.Minute
	// DefaultStreamKeepAlive is how long an event stream stays silent
	// before a ": keep-alive" comment is sent, so that a proxy's idle
	// timeout (often 60 s) does not cut a stream waiting on the model.
	DefaultStreamKeepAlive = 15 * time.Second
	// DefaultIdleTimeout closes a keep-alive connection idle that long.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConns bounds the connections open at once; the default
	// is also kept to half the process's open-file limit, so that the
	// upstream, the store and the run directories keep descriptors.
	DefaultMaxConns = 1024
)

// Config configures a [Server]. Zero fields take the defaults above.
type Config struct {
	// LLM is the upstream endpoint. One client serves every run (one
	// scheduler: LLM.MaxConcurrency bounds the requests in flight to the
	// upstream for all runs together).
	LLM llm.Config
	// Prices is the price table (nil: llm.DefaultPrices()).
	Prices *llm.PriceTable
	// Engine is the template of each run's engine configuration: its
	// budgets and limits (MaxIterations, MaxDepth, ChildMaxIterations,
	// MaxTotalIterations, MaxConsecutiveErrors, Timeout, Limits, section
	// budgets, Protocol, Temperature, MaxOutputTokens) are the server's
	// defaults and caps: a request can only lower them. Model, Ledger,
	// Trajectory, Outputs and the hooks are set per run.
	Engine orchestrator.Config
	// LLMSummarizer makes the sub-model write the rolling summary of
	// compressed steps (orchestrator.LLMSummarizer).
	LLMSummarizer bool
	// Budgets are the per-run caps on model calls, tokens and cost.
	Budgets llm.Limits
	// Output is the default output schema (default "answer:str").
	Output string
	// Sizes are the context size limits applied to each run's variables.
	Sizes rlmctx.SizeConfig
	// Meta is the meta document applied to every run (none when Doc is
	// nil), as rlm run applies it.
	Meta Meta

	// Token is the bearer token clients must send, at least MinTokenLen
	// characters (ErrWeakToken); "" disables auth, which [Server.Listen]
	// allows on loopback addresses only.
	Token string
	// StoreDir is the variable store served by /v1/vars and read by
	// "store:KEY" variables ("" keeps a store in memory).
	StoreDir string
	// RunsDir, if set, keeps every run in a durable run directory (see
	// package runs); otherwise runs live in memory only.
	RunsDir string
	// ResumeFromDivergence lets a run this server resumes (after a
	// restart, see [Server.ResumeRuns], or a cluster takeover) go on past
	// a divergence from its recording, from the last step that re-ran
	// identically with a resume-context message to the model (see
	// runs.FromDivergence); without it such a run stops and stays as it
	// was, with the divergence in its error.
	ResumeFromDivergence bool
	// Cluster, if set, makes the server one replica of a cluster: runs are
	// submitted to and read from the cluster's database, so any replica
	// answers for any run, and [Server.Work] executes the runs this
	// process claims (RunsDir, required then, holds their local copies).
	Cluster *cluster.DB
	// Blobs, with Cluster, keeps the variable store's values in an
	// S3-compatible object store shared by the cluster: /v1/vars reads and
	// writes the cluster's database and the blobs, a "store:KEY" variable
	// is pinned to its blob when its run is submitted, and the worker that
	// claims the run fetches it into the store's local cache. [Server.Work]
	// also deletes the blobs that nothing references (BlobGCEvery).
	Blobs *blobs.Store
	// MaxVarBytes bounds a text value PUT to /v1/vars on a cluster replica
	// with Blobs, streamed into the blob store (413 beyond; 0:
	// DefaultMaxVarBytes). A JSON value is parsed, so MaxBodyBytes bounds
	// it as in a single server.
	MaxVarBytes int64
	// BlobGCEvery is how often the cluster deletes the blobs that no run
	// variable and no store key references and that were not used for
	// BlobGCGrace: once per period in the whole cluster, by whichever
	// working process finds it due first
	// (0: DefaultBlobGCEvery and DefaultBlobGCGrace; a negative
	// BlobGCEvery: never).
	BlobGCEvery, BlobGCGrace time.Duration
	// Version is recorded in the run directories.
	Version string

	// MaxRuns bounds the runs executing at once; up to Queue more wait
	// for a slot, and requests beyond get 429 with Retry-After.
	MaxRuns int
	Queue   int
	// MaxBodyBytes bounds request bodies (413 beyond).
	MaxBodyBytes int64
	// MaxBodyMemory bounds the bytes of the request bodies read and
	// decoded at once (a body of unknown length counts as MaxBodyBytes):
	// a body that does not fit is refused with 503 and Retry-After
	// (ErrBodiesBusy). 0: 8 x MaxBodyBytes.
	MaxBodyMemory int64
	// MaxJSONValues and MaxJSONDepth bound the JSON of a request body
	// (chat completions, runs, typed store values), counted by a scan
	// before anything is decoded: 413 (ErrJSONTooLarge) beyond
	// MaxJSONValues values, 400 (ErrJSONTooDeep) beyond MaxJSONDepth
	// levels of nesting.
	MaxJSONValues int
	MaxJSONDepth  int
	// Retain is how many finished runs are kept in memory for the run API.
	Retain int
	// RetainTrajectoryBytes bounds the trajectories of finished runs kept
	// in memory by a server without a runs directory (RunsDir ""): beyond,
	// the oldest are dropped and their trajectory and events answer 410.
	RetainTrajectoryBytes int64

	// ReadHeaderTimeout, ReadTimeout and IdleTimeout are the
	// http.Server's (see [Server.HTTPServer]); WriteTimeout bounds each
	// write of a response, StreamWriteTimeout each event of an event
	// stream.
	ReadHeaderTimeout  time.Duration
	ReadTimeout        time.Duration
	WriteTimeout       time.Duration
	StreamWriteTimeout time.Duration
	IdleTimeout        time.Duration
	// StreamKeepAlive is the silence after which an event stream sends a
	// ": keep-alive" comment.
	StreamKeepAlive time.Duration
	// CORSOrigins are the browser origins (e.g. https://app.example.com,
	// or * for any) allowed to call the API from a page; none by default.
	// Their preflight requests are answered without the token.
	CORSOrigins []string
	// MaxConns bounds the connections open at once (see [Server.Listen]):
	// beyond, new connections wait in the kernel's backlog, and the
	// connections that have waited over a second for a request (idle
	// keep-alive ones, or ones trickling their headers) are closed to
	// make room. 0: DefaultMaxConns or half the open-file limit,
	// whichever is lower.
	MaxConns int

	// Tracing, if set, traces every run (package telemetry): a request's
	// traceparent and tracestate headers make its run's spans part of the
	// caller's trace. Nil: no tracing, at no cost.
	Tracing *telemetry.Tracing

	// Logger receives the access log and server events (nil: discarded).
	Logger *slog.Logger
	// Registry receives the server's metrics (nil: a new registry, see
	// [Server.Registry]); other components may register theirs on it.
	Registry *prometheus.Registry
}

// Meta is the meta document a server applies to its runs (package meta):
// the lessons for a run's root model join the meta section of its prompt
// within NotesTokens, and the budgets the document recommends for that
// model apply to what neither the operator (Fixed) nor the request set.
// The run records the document's version and digest (run_start.meta,
// run.json).
type Meta struct {
	// Doc is the validated document (nil: none).
	Doc *meta.Document
	// Path is the file Doc was read from, recorded with each run.
	Path string
	// NotesTokens is the token budget of the lessons in the meta section
	// (0: meta.DefaultNotesBudget; negative: no lessons).
	NotesTokens int
	// Fixed names the settings the operator set explicitly, which a
	// recommendation never replaces: "max_iterations", "history_tokens",
	// "observation_tokens".
	Fixed map[string]bool
}

func (c Config) withDefaults() Config {
	if c.MaxRuns <= 0 {
		c.MaxRuns = DefaultMaxRuns
	}
	if c.LLM.MaxConcurrency <= 0 {
		c.LLM.MaxConcurrency = DefaultMaxConcurrency
	}
	if c.Queue < 0 {
		c.Queue = 0
	} else if c.Queue == 0 {
		c.Queue = DefaultQueue
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.Retain <= 0 {
		c.Retain = DefaultRetain
	}
	if c.RetainTrajectoryBytes <= 0 {
		c.RetainTrajectoryBytes = DefaultRetainTrajectoryBytes
	}
	if c.MaxVarBytes <= 0 {
		c.MaxVarBytes = DefaultMaxVarBytes
	}
	if c.BlobGCEvery == 0 {
		c.BlobGCEvery = DefaultBlobGCEvery
	}
	if c.BlobGCGrace <= 0 {
		c.BlobGCGrace = DefaultBlobGCGrace
	}
	if c.MaxBodyMemory <= 0 {
		c.MaxBodyMemory = 8 * c.MaxBodyBytes
	}
	if c.MaxJSONValues <= 0 {
		c.MaxJSONValues = DefaultMaxJSONValues
	}
	if c.MaxJSONDepth <= 0 {
		c.MaxJSONDepth = DefaultMaxJSONDepth
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&c.ReadHeaderTimeout, DefaultReadHeaderTimeout}, {&c.ReadTimeout, DefaultReadTimeout}, {&c.WriteTimeout, DefaultWriteTimeout},
		{&c.StreamWriteTimeout, DefaultStreamWriteTimeout}, {&c.IdleTimeout, DefaultIdleTimeout},
		{&c.StreamKeepAlive, DefaultStreamKeepAlive}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if c.MaxConns <= 0 {
		c.MaxConns = DefaultMaxConns
		if n := openFileLimit() / 2; n > 0 && n < c.MaxConns {
			c.MaxConns = max(n, 16)
		}
	}
	if c.Output == "" {
		c.Output = "answer:str"
	}
	if c.Prices == nil {
		c.Prices = llm.DefaultPrices()
	}
	if c.Sizes == (rlmctx.SizeConfig{}) {
		c.Sizes = rlmctx.DefaultSizeConfig()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Registry == nil {
		c.Registry = prometheus.NewRegistry()
	}
	return c
}
