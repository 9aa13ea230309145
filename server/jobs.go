package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rlmhq/rlm/cluster"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/runs"
	"github.com/rlmhq/rlm/telemetry"
)

// Run states reported by the run API: runs' one outcome vocabulary
// (see [runs.Status]).
const (
	StateQueued      = string(runs.StatusQueued)
	StateRunning     = string(runs.StatusRunning)
	StateDone        = string(runs.StatusDone)        // a valid SUBMIT (or final extraction)
	StateStopped     = string(runs.StatusStopped)     // a limit or budget stopped it: partial answer
	StateCanceled    = string(runs.StatusCanceled)    // a cancel request, a client that went away, or the drain
	StateFailed      = string(runs.StatusFailed)      // the model failed, or the run could not start
	StateInterrupted = string(runs.StatusInterrupted) // a kept run whose server died while it ran
)

// job is one run served by the server.
type job struct {
	s       *Server
	id      string
	spec    *runSpec
	created time.Time
	ctx     context.Context
	cancel  context.CancelCauseFunc
	kept    *runs.Run // nil without a runs directory
	resumed bool      // the job continues kept run id (Server.ResumeRuns)
	// lease, for a cluster run, is this process's claim on it: the run's
	// durable writes are copied to the database under it.
	lease   *cluster.Lease
	journal *leaseMirror // the lease's copy of the run (set by keep)
	// resumable: the job's run directory holds its request, so a later
	// server can resume it (set by keep).
	resumable bool
	done      chan struct{}

	mu      sync.Mutex
	state   string
	started time.Time
	ended   time.Time
	events  [][]byte             // the trajectory's lines, redacted
	onDisk  bool                 // events dropped from memory: read the run directory
	wake    chan struct{}        // closed (and replaced) at each new event and at the end
	partial []byte               // a line being written
	res     *orchestrator.Result // the engine's result, until result is made from it
	result  *RunResult           // set when the run has finished
	// eventBytes is the size of the trajectory's lines; eventsGone marks
	// a finished in-memory run whose lines were dropped (retire).
	eventBytes  int64
	eventsGone  bool
	resultBytes []byte // the result as JSON, once asked (resultJSON)
}

// RunResult is the state and result of a run, as GET /v1/runs/{id}
// returns it and as the "rlm" field of a chat completion carries it.
type RunResult struct {
	ID         string                `json:"id"`
	Object     string                `json:"object"`
	Status     string                `json:"status"`
	Model      string                `json:"model"`
	Query      string                `json:"query,omitempty"`
	Created    int64                 `json:"created"`
	Started    int64                 `json:"started_at,omitempty"`
	Ended      int64                 `json:"ended_at,omitempty"`
	Answer     string                `json:"answer"`
	Outputs    json.RawMessage       `json:"outputs,omitempty"`
	StopReason string                `json:"stop_reason,omitempty"`
	Error      string                `json:"error,omitempty"`
	Partial    bool                  `json:"partial"`
	Extracted  bool                  `json:"final_extraction,omitempty"`
	Iterations int                   `json:"iterations"`
	Usage      *runUsage             `json:"usage,omitempty"`
	CostUSD    *float64              `json:"cost_usd"`
	DurationMS int64                 `json:"duration_ms,omitempty"`
	Metrics    *orchestrator.Metrics `json:"metrics,omitempty"`
}

type runUsage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// admit reserves a run's place (a slot or a queue place) before its
// request body is read and decoded: it fails with ErrDraining or ErrBusy
// (queue full). The caller starts the run with start, or gives the place
// back with release.
func (s *Server) admit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return &apiError{
			status:     503,
			typ:        "server_error",
			code:       "shutting_down",
			msg:        "the server is shutting down and takes no new runs",
			err:        ErrDraining,
			retryAfter: DefaultRetryAfter,
		}
	}
	if s.active >= s.cfg.MaxRuns+s.cfg.Queue {
		s.metrics.rejected.Inc()
		return &apiError{status: 429, typ: "rate_limit_error", code: "too_many_runs",
			msg: fmt.Sprintf(
				"all %d run slots and %d queue places are taken; retry later",
				s.cfg.MaxRuns,
				s.cfg.Queue,
			), err: ErrBusy, retryAfter: DefaultRetryAfter}
	}
	s.active++
	return nil
}

// release gives back a place admit reserved for a request that starts no
// run.
func (s *Server) release() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
}

// parseFunc validates a request body into a run spec; it also returns
// the body in the chat completion form that parseChat reads, which a
// kept run stores (a resume, or a cluster worker, parses it again).
type parseFunc func(ctx context.Context, body []byte) (*runSpec, []byte, error)

// parseChatBody is parseChat as a parseFunc.
func (s *Server) parseChatBody(ctx context.Context, body []byte) (*runSpec, []byte, error) {
	spec, err := s.parseChat(ctx, body)
	return spec, body, err
}

// admitBody admits a run, then reads and validates its request body with
// parse: the place is taken before the body costs memory. On error the
// place is given back.
func (s *Server) admitBody(w http.ResponseWriter, r *http.Request, keep bool, parse parseFunc) (*runSpec, error) {
	if err := s.admit(); err != nil {
		return nil, err
	}
	body, done, err := s.readBody(w, r)
	if err != nil {
		s.release()
		return nil, err
	}
	spec, chatBody, err := parse(r.Context(), body)
	if err == nil && r.Header.Get("Idempotency-Key") != "" {
		spec.bodyHash = sha256.Sum256(body)
	}
	if err == nil && keep && s.runsRoot != nil {
		// A detached run is kept with its request, so that a server
		// started after this one stopped can resume it.
		spec.body = bytes.Clone(chatBody)
	}
	done()
	if err != nil {
		s.release()
		return nil, err
	}
	return spec, nil
}

// start starts an admitted run (or queues it for a slot) on its own
// goroutine (or, for a spec.inline run, leaves it to the caller to run
// with job.run) under parent's values; canceling parent cancels the run (a
// chat completion whose client went away), the run API passes a context
// that outlives its request. A server that began draining since the
// admission refuses it (ErrDraining) and gives the place back.
func (s *Server) start(parent context.Context, spec *runSpec) (*job, error) {
	s.mu.Lock()
	if s.draining {
		s.active--
		s.mu.Unlock()
		return nil, &apiError{
			status:     503,
			typ:        "server_error",
			code:       "shutting_down",
			msg:        "the server is shutting down and takes no new runs",
			err:        ErrDraining,
			retryAfter: DefaultRetryAfter,
		}
	}
	now := time.Now()
	j := &job{s: s, id: runs.NewID(now), spec: spec, created: now, state: StateQueued, done: make(chan struct{}), wake: make(chan struct{})}
	j.ctx, j.cancel = context.WithCancelCause(parent)
	s.jobs[j.id] = j
	s.wg.Add(1)
	s.mu.Unlock()
	s.metrics.queueDepth.Inc()
	if !spec.inline {
		go j.run()
	}
	return j, nil
}

// run waits for a slot, runs the engine and records the result.
func (j *job) run() {
	s := j.s
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
		s.retire(j)
	}()
	select {
	case s.slots <- struct{}{}:
	case <-j.ctx.Done():
		s.metrics.queueDepth.Dec()
		j.finish(&orchestrator.Result{StopReason: orchestrator.StopCanceled, Partial: true, Err: context.Cause(j.ctx)}, nil)
		return
	}
	s.metrics.queueDepth.Dec()
	s.metrics.inFlight.Inc()
	j.mu.Lock()
	j.state, j.started = StateRunning, time.Now()
	j.mu.Unlock()
	s.metrics.runsStarted.Inc()
	res, err := j.execute()
	s.metrics.inFlight.Dec()
	<-s.slots
	j.finish(res, err)
}

// execute runs the engine for the job: a kept run records its model
// answers, so that it can be resumed, and a resumed one replays them.
func (j *job) execute() (*orchestrator.Result, error) {
	s, spec := j.s, j.spec
	ledger := llm.NewLedger(llm.LedgerConfig{Prices: s.cfg.Prices, Limits: spec.budgets})
	cfg := spec.engine
	var chat llm.ChatModel = s.shared
	cfg.Embedder = s.embedder
	cfg.RootModel = firstNonEmpty(spec.root, s.cfg.LLM.Model)
	cfg.SubModel = s.subModel()
	cfg.Outputs = spec.schema
	cfg.Trajectory = j
	cfg.Executors = s.metrics.executors
	cfg.OnStatus, cfg.OnChildEnd = nil, nil
	cfg.Tracer = s.cfg.Tracing.Tracer()
	rc := s.runConfig(spec, cfg)
	cfg.RunConfig = rc
	ctx := j.ctx
	if s.cfg.Tracing.Enabled() {
		ctx = telemetry.WithRunID(ctx, j.id)
	}
	if s.runsRoot != nil {
		kept, err := j.keep(cfg, rc)
		if err != nil {
			return nil, err
		}
		clock := kept.Clock()
		if clock.IsZero() {
			clock = time.Now()
		}
		kept.SetClock(clock)
		cfg.Clock = clock
		// Only a run that can be resumed records its model answers: a
		// chat completion without an Idempotency-Key belongs to its
		// client, and is not resumed once that client is gone.
		if j.resumable {
			if chat, cfg.Embedder, err = kept.WrapModel(chat, cfg.Embedder); err != nil {
				return nil, err
			}
		}
		var cancel context.CancelFunc
		ctx, cancel = kept.Context(ctx)
		defer cancel()
		cfg.Resume = kept
		if s.cfg.Cluster == nil {
			// The run keeps its children's results in the server's
			// store, as rlm run does. (A cluster's store is its
			// database and blob store, which the helpers do not read.)
			saver := &runs.ChildSaver{RunID: j.id, Secrets: s.secrets, Store: s.store}
			runs.KeepChildren(&cfg, saver, func() (*rlmctx.Store, error) { return s.store, nil }, s.cfg.Sizes.MaxTotalSize)
			defer func() {
				if _, err := saver.Close(); err != nil {
					s.log.Warn("child results", "run_id", j.id, "error", s.redact(err.Error()))
				}
			}()
		}
	}
	model := &runModel{inner: llm.Metered(chat, ledger), m: s.metrics}
	cfg.Model, cfg.Ledger = model, ledger
	if s.cfg.LLMSummarizer {
		cfg.Summarizer = &orchestrator.LLMSummarizer{Model: model, ModelName: cfg.SubModel}
	}
	return orchestrator.New(cfg).Run(ctx, spec.ctx)
}

// keep creates the job's run directory (with the request of a detached
// run) or, for a resumed job, reopens it; the run's trajectory reaches
// the job's event streams through the directory (jobEvents), so that
// their event ids are the file's line numbers across restarts.
func (j *job) keep(cfg orchestrator.Config, rc runs.Config) (*runs.Run, error) {
	s, spec := j.s, j.spec
	var kept *runs.Run
	var err error
	var mirror runs.Mirror = jobEvents{j}
	if j.lease != nil {
		j.journal = newLeaseMirror(context.WithoutCancel(j.ctx), j.lease)
		mirror = mirrors{j.journal, mirror}
	}
	if j.resumed {
		opts := []runs.Option{runs.WithMirror(mirror)}
		if s.cfg.ResumeFromDivergence {
			opts = append(opts, runs.FromDivergence())
		}
		kept, err = s.runsRoot.Resume(j.id, opts...)
		if err == nil {
			if err = kept.CheckVars(spec.ctx); err != nil {
				return nil, errors.Join(err, kept.Finish(runs.Outcome{}))
			}
		}
	} else {
		notes := s.notesBudget()
		opts := []runs.Option{runs.WithMirror(mirror), runs.WithRequest(spec.body)}
		if j.lease == nil {
			// The directory is made while the run calls its model (not for
			// a run kept to be resumed: WithRequest writes its request
			// first).
			opts = append(opts, runs.InBackground())
		}
		kept, err = s.runsRoot.Create(runs.Meta{ID: j.id, Started: j.created.UTC(), Query: spec.query, Config: &rc, ConfigDigest: runs.Digest(rc),
			VarHashes: runs.HashVars(spec.ctx), Version: s.cfg.Version, MetaVersion: cfg.Meta.Version, MetaDigest: cfg.Meta.Digest,
			MetaPath: s.cfg.Meta.Path, MetaNotesTokens: &notes, MetaLessons: cfg.Meta.Lessons}, opts...)
	}
	resumable := j.resumed || spec.body != nil || j.lease != nil
	spec.body = nil
	if err != nil {
		return nil, err
	}
	j.mu.Lock()
	j.kept, j.resumable = kept, resumable
	j.mu.Unlock()
	return kept, nil
}

// jobEvents is a kept job's runs.Mirror: the lines its run directory's
// trajectory receives become the job's events.
type jobEvents struct{ j *job }

func (e jobEvents) Event(line []byte) error {
	e.j.addEvents([][]byte{bytes.Clone(line)})
	return nil
}

func (jobEvents) Answer([]byte) error { return nil }

// activeLimit is the active-time budget as run.json records it ("" for
// none).
func activeLimit(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

// runConfig is the run configuration recorded in the trajectory and the
// run directory: no secrets.
func (s *Server) runConfig(spec *runSpec, cfg orchestrator.Config) runs.Config {
	return runs.Config{
		Server: true, BaseURL: llm.RedactURL(firstNonEmpty(s.cfg.LLM.BaseURL, llm.DefaultBaseURL)), Model: cfg.RootModel,
		SubModel: cfg.SubModel, EmbeddingModel: s.cfg.LLM.EmbeddingModel, APIKeySet: s.cfg.LLM.APIKey != "", Vars: spec.vars,
		Output: spec.output, MaxIterations: cfg.MaxIterations, MaxDepth: cfg.MaxDepth,
		ChildIterations: cfg.ChildMaxIterations, MaxTotalIterations: cfg.MaxTotalIterations,
		MaxErrors: cfg.MaxConsecutiveErrors, MaxLLMCalls: spec.budgets.MaxCalls, MaxTokens: spec.budgets.MaxTokens,
		MaxCostUSD: spec.budgets.MaxCostUSD, Timeout: cfg.Timeout.String(), MaxActiveTime: activeLimit(cfg.MaxActiveTime),
		MaxSteps: cfg.Limits.MaxSteps, StepTimeout: cfg.Limits.Timeout.String(), MaxMemory: cfg.Limits.MaxMemory,
		MaxSessionMemory: cfg.Limits.MaxSessionMemory, HistoryTokens: cfg.DynamicBudget,
		ObservationTokens: cfg.Limits.ObservationTokens, Meta: s.cfg.Meta.Path, MetaNotesTokens: s.notesBudget(),
	}
}

// Write receives trajectory bytes as an io.Writer (the engine, whose
// Trajectory the job is, hands it whole events: WriteEvent): each
// complete line is read for its type, run, step and fields and goes the
// way of WriteEvent's.
func (j *job) Write(p []byte) (int, error) {
	j.mu.Lock()
	j.partial = append(j.partial, p...)
	var lines [][]byte
	for {
		i := bytes.IndexByte(j.partial, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, j.partial[:i+1])
		j.partial = j.partial[i+1:]
	}
	j.mu.Unlock()
	for _, line := range lines {
		ev, f, _ := orchestrator.ParseEvent(line) // zero where it is not an event
		j.event(line, ev, f)
	}
	return len(p), nil
}

// WriteEvent receives one event of the run's trajectory with its line
// (the engine's orchestrator.EventWriter).
func (j *job) WriteEvent(line []byte, ev *orchestrator.Event) error {
	j.event(line, ev, ev.Fields())
	return nil
}

// event takes one trajectory line with its event's type, run, step and
// fields: the line (and the fields' text) is redacted and written to the
// run directory, whose lines (jobEvents) or, without one, the line itself
// are kept for the event streams; the fields of an event kept feed the
// metrics (a resumed run does not write again, nor count, the events its
// interrupted run wrote).
func (j *job) event(line []byte, ev *orchestrator.Event, f orchestrator.EventFields) {
	red := []byte(j.s.redact(string(line)))
	j.mu.Lock()
	kept := j.kept
	j.mu.Unlock()
	if kept == nil {
		j.addEvents([][]byte{red})
	} else {
		f.Error, f.Output = j.s.redact(f.Error), j.s.redact(f.Output)
		if !kept.WriteEvent(red, ev, f) {
			return
		}
	}
	j.s.metrics.event(ev.Type, f)
}

// addEvents adds trajectory lines to the job's events and wakes the event
// streams.
func (j *job) addEvents(lines [][]byte) {
	if len(lines) == 0 {
		return
	}
	j.mu.Lock()
	j.events = append(j.events, lines...)
	for _, l := range lines {
		j.eventBytes += int64(len(l))
	}
	close(j.wake)
	j.wake = make(chan struct{})
	j.mu.Unlock()
}

// finish records the run's result and wakes its watchers.
func (j *job) finish(res *orchestrator.Result, err error) {
	if res == nil {
		msg := "the run could not start"
		if err != nil {
			msg = err.Error()
		}
		res = &orchestrator.Result{StopReason: orchestrator.StopModelError, Partial: true, Err: errors.New(msg)}
	}
	if res.StopReason == orchestrator.StopCanceled {
		if cause := context.Cause(j.ctx); cause != nil {
			res.Err = cause
		}
	}
	ended := time.Now()
	// The metrics count the run before anyone can see it ended.
	j.s.metrics.finished(j.spec, res, ended.Sub(j.created))
	j.mu.Lock()
	j.res, j.ended = res, ended
	j.state = stateOf(res, err)
	// A resumable run stopped by the drain is left for the next server;
	// a cluster run whose copy in the database failed (the database is
	// unreachable) is left for the cluster to resume.
	handedOn := (j.resumable || j.lease != nil) && j.state == StateCanceled && errors.Is(context.Cause(j.ctx), ErrDraining)
	why := errResumeLater
	if j.lease != nil && j.kept != nil {
		if kerr := j.kept.Err(); kerr != nil && !errors.Is(kerr, runs.ErrDiverged) {
			handedOn, why = true, fmt.Errorf("%w; the cluster resumes the run", kerr)
		}
	}
	if handedOn {
		j.state = StateInterrupted
		res.Err = why
	}
	j.result = j.resultLocked()
	// A finished run keeps only what its status and result need: not its
	// request's variables, nor the engine's result behind j.result.
	j.res, j.spec.ctx = nil, nil
	j.partial = nil
	kept := j.kept
	j.mu.Unlock()
	if kept != nil || j.lease != nil {
		b, _ := json.MarshalIndent(j.result, "", "  ")
		o := runs.OutcomeOf(res, append(b, '\n'))
		o.Error = j.s.clientText(o.Error)
		if handedOn {
			o.Status = runs.StatusInterrupted
		}
		if err != nil {
			o.Status = runs.StatusFailed
		}
		if j.lease != nil {
			j.endClaimed(o, handedOn)
		}
		if kept != nil {
			if ferr := kept.Finish(o); ferr != nil {
				j.s.log.Warn("run directory", "run_id", j.id, "error", j.s.redact(ferr.Error()))
			}
		}
	}
	j.mu.Lock()
	close(j.wake)
	j.wake = make(chan struct{})
	j.mu.Unlock()
	close(j.done)
}

// errResumeLater is the error of a run the drain handed on.
var errResumeLater = errors.New("the server shut down while the run ran; an rlm serve started on the same runs directory resumes it")

// stateOf maps a result to the run API's state.
func stateOf(res *orchestrator.Result, err error) string {
	switch {
	case err != nil:
		return StateFailed
	case res.StopReason == orchestrator.StopCanceled:
		return StateCanceled
	case res.StopReason == orchestrator.StopModelError:
		return StateFailed
	case !res.Partial:
		return StateDone
	}
	return StateStopped
}

// resultJSON returns a finished run's result as JSON (nil while it
// runs), encoded once and shared by every request that answers it: a
// client that does not read holds no copy of a large answer.
func (j *job) resultJSON() []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.result == nil {
		return nil
	}
	if j.resultBytes == nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(j.result)
		j.resultBytes = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	return j.resultBytes
}

// snapshot returns the run's current state and result.
func (j *job) snapshot() *RunResult {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.result != nil {
		return j.result
	}
	return j.resultLocked()
}

func (j *job) resultLocked() *RunResult {
	r := &RunResult{ID: j.id, Object: "rlm.run", Status: j.state, Model: j.spec.model, Query: j.spec.query, Created: j.created.Unix()}
	if !j.started.IsZero() {
		r.Started = j.started.Unix()
	}
	res := j.res
	if res == nil {
		return r
	}
	r.Ended = j.ended.Unix()
	// A copy: the answer may be a piece of a request variable (which may
	// point into the request body), which the finished run does not keep.
	r.Answer = strings.Clone(j.s.redact(res.Answer))
	if res.Outputs != nil {
		if b, err := orchestrator.MarshalValue(res.Outputs); err == nil {
			r.Outputs = json.RawMessage(j.s.redact(string(b)))
		}
	}
	r.StopReason, r.Partial, r.Extracted, r.Iterations = string(res.StopReason), res.Partial, res.Extracted, res.Iterations
	if res.Err != nil {
		r.Error = j.s.clientText(res.Err.Error())
	}
	u := res.Usage
	r.Usage = &runUsage{
		Calls:            u.Calls,
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		CachedTokens:     u.CachedTokens,
		TotalTokens:      u.Tokens(),
	}
	if u.CostKnown {
		c := u.CostUSD
		r.CostUSD = &c
	}
	r.DurationMS = res.Duration.Milliseconds()
	m := res.Metrics
	r.Metrics = &m
	return r
}

// eventsFrom returns the trajectory lines from index i on (shared, not
// copied), a channel closed at the next change, whether the run has ended,
// and the trajectory file to read instead when the run's lines are no
// longer in memory (then lines is nil and the run has ended).
func (j *job) eventsFrom(i int) (lines [][]byte, wake <-chan struct{}, ended bool, file string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.onDisk {
		return nil, j.wake, true, filepath.Join(j.kept.Dir(), runs.TrajectoryFile)
	}
	if i > len(j.events) {
		i = len(j.events)
	}
	return j.events[i:], j.wake, j.result != nil, ""
}

// retire keeps at most Retain finished runs in memory; a kept run's
// events are dropped from memory (its directory has them), and the
// trajectories of the finished runs of a server without a runs directory
// are kept within RetainTrajectoryBytes, the oldest dropped first.
func (s *Server) retire(j *job) {
	j.mu.Lock()
	if j.kept != nil {
		j.events, j.onDisk = nil, true
	}
	size := j.eventBytes
	inMemory := j.kept == nil
	j.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if inMemory {
		s.retainedBytes += size
	}
	s.finishedOrder = append(s.finishedOrder, j.id)
	for len(s.finishedOrder) > s.cfg.Retain {
		if old := s.jobs[s.finishedOrder[0]]; old != nil {
			s.retainedBytes -= old.dropEvents()
		}
		delete(s.jobs, s.finishedOrder[0])
		s.finishedOrder = s.finishedOrder[1:]
	}
	for _, id := range s.finishedOrder {
		if s.retainedBytes <= s.cfg.RetainTrajectoryBytes {
			break
		}
		if old := s.jobs[id]; old != nil {
			s.retainedBytes -= old.dropEvents()
		}
	}
}

// dropEvents drops a finished in-memory run's trajectory and returns its
// size (0 if it was already dropped or is on disk).
func (j *job) dropEvents() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.onDisk || j.eventsGone {
		return 0
	}
	j.events, j.eventsGone = nil, true
	return j.eventBytes
}

// trajectoryGone reports a finished run whose trajectory was dropped
// from memory (a server without a runs directory keeps only
// RetainTrajectoryBytes of them).
func (j *job) trajectoryGone() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.eventsGone
}

// gone answers 410 for a run whose trajectory is no longer kept.
func (s *Server) gone(w http.ResponseWriter, id string) {
	s.writeError(w, &apiError{status: http.StatusGone, typ: "invalid_request_error", code: "trajectory_dropped", err: ErrTrajectoryDropped,
		msg: fmt.Sprintf(
			"run %s finished and its trajectory is no longer kept (a server without a runs directory keeps the trajectories of finished runs in memory up to its trajectory memory limit, and drops the oldest beyond; one with a runs directory keeps them all)",
			id,
		)})
}

// runModel is a run's model: the shared client metered on the run's
// ledger; it counts budget refusals by budget.
type runModel struct {
	inner llm.ChatModel
	m     *metrics
}

// Chat sends req through the run's ledger.
func (r *runModel) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := r.inner.Chat(ctx, req)
	var le *llm.Error
	if err != nil && errors.As(err, &le) && le.Kind == llm.KindBudget {
		r.m.budgetRefusals.WithLabelValues(firstNonEmpty(le.Budget, "other")).Inc()
	}
	return resp, err
}

// Model is the default model name.
func (r *runModel) Model() string {
	if d, ok := r.inner.(interface{ Model() string }); ok {
		return d.Model()
	}
	return ""
}

// SubModel is the sub-call model name.
func (r *runModel) SubModel() string { return llm.SubModelOf(r.inner) }

// Unwrap returns the metered model.
func (r *runModel) Unwrap() llm.ChatModel { return r.inner }

// sharedModel is the one upstream client of the server; it adds every
// successful call's usage to the server-wide ledger the metrics read.
type sharedModel struct {
	inner  *llm.Client
	ledger *llm.Ledger
}

// Chat sends req upstream.
func (m *sharedModel) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := m.inner.Chat(ctx, req)
	if err == nil {
		model := firstNonEmpty(req.Model, m.inner.Model())
		m.ledger.Record(model, resp.Usage)
	}
	return resp, err
}

// Model is the default model name.
func (m *sharedModel) Model() string { return m.inner.Model() }

// SubModel is the sub-call model name.
func (m *sharedModel) SubModel() string { return m.inner.SubModel() }
