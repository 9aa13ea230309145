package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rlmhq/rlm/cluster"
	"github.com/rlmhq/rlm/runs"
)

// The cluster mode (Config.Cluster): the run API reads and writes the
// cluster's database, so that any replica answers for any run, and the
// runs this process claims are executed by the same jobs as a single
// server's, their durable writes copied to the database through a
// runs.Mirror guarded by the lease's fencing epoch.

// clusterWriteTimeout bounds one write of a run's copy to the database.
const clusterWriteTimeout = 30 * time.Second

// Work makes the server execute cluster runs: it claims queued runs (and
// runs whose owner died) until ctx ends or [Server.Drain]; with
// Config.Blobs it also collects the unreferenced blobs every
// Config.BlobGCEvery. A server without Config.Cluster returns
// ErrNoCluster.
func (s *Server) Work(ctx context.Context) error {
	if s.cfg.Cluster == nil {
		return ErrNoCluster
	}
	if err := s.cfg.Cluster.Start(ctx, cluster.ExecutorFunc(s.executeClaimed)); err != nil {
		return err
	}
	if s.cfg.Blobs != nil && s.cfg.BlobGCEvery > 0 {
		go s.blobGCLoop(ctx)
	}
	return nil
}

// executeClaimed runs a claimed cluster run to its end: a run with events
// already in the database (its owner died, or drained and released it)
// is first copied into the runs directory and resumed from its recording,
// as rlm run --resume does.
func (s *Server) executeClaimed(ctx context.Context, l *cluster.Lease) error {
	row := l.Run()
	db := s.cfg.Cluster
	vars, err := db.Vars(ctx, row.ID)
	if err != nil {
		return err
	}
	files, err := s.fetchPinned(ctx, vars)
	switch {
	case errors.Is(err, cluster.ErrRetry), ctx.Err() != nil:
		return err
	case err != nil:
		return l.Finish(
			ctx,
			cluster.Outcome{Status: runs.StatusFailed, Error: "the run's variables cannot be fetched: " + s.clientText(err.Error())},
		)
	}
	spec, err := s.parseRequest(ctx, bytes.Clone(row.Spec), files)
	if err != nil {
		return l.Finish(
			ctx,
			cluster.Outcome{Status: runs.StatusFailed, Error: "the run's request does not parse here: " + s.clientText(err.Error())},
		)
	}
	spec.stream = false
	evs, err := db.Events(ctx, row.ID, 0, 0)
	if err != nil {
		return err
	}
	resumed := len(evs) > 0
	if resumed {
		rec, err := db.Recording(ctx, row.ID)
		if err != nil {
			return err
		}
		lines := make([][]byte, len(evs))
		for i, e := range evs {
			lines[i] = e.Line
		}
		var rc runs.Config
		if len(row.Config) > 0 {
			if err := json.Unmarshal(row.Config, &rc); err != nil {
				return l.Finish(
					ctx,
					cluster.Outcome{Status: runs.StatusFailed, Error: "the run's configuration does not parse here: " + err.Error()},
				)
			}
		}
		m := runs.Meta{ID: row.ID, Started: row.Created.UTC(), Query: row.Query, Config: &rc, ConfigDigest: runs.Digest(rc),
			VarHashes: runs.HashVars(spec.ctx), Version: s.cfg.Version}
		if err := s.runsRoot.Import(m, lines, rec); err != nil {
			return err
		}
	}
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		return l.Release(context.WithoutCancel(ctx))
	}
	j := &job{s: s, id: row.ID, spec: spec, created: row.Created, state: StateRunning, started: time.Now(), resumed: resumed,
		lease: l, done: make(chan struct{}), wake: make(chan struct{})}
	j.ctx, j.cancel = context.WithCancelCause(ctx)
	s.active++
	s.jobs[j.id] = j
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		// The lease lost or a cancel requested on any replica stops the run.
		select {
		case <-l.Done():
			j.cancel(l.Cause())
		case <-j.done:
		}
	}()
	defer func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
		s.retire(j)
		s.wg.Done()
	}()
	s.metrics.inFlight.Inc()
	s.metrics.runsStarted.Inc()
	res, err := j.execute()
	s.metrics.inFlight.Dec()
	j.finish(res, err)
	return nil
}

// eventBatch is how long a cluster run's trajectory events wait to be
// written together (the answers of its recording never wait).
const eventBatch = 10 * time.Millisecond

// leaseMirror copies a cluster run's durable writes to the database,
// guarded by its lease: a write refused (the lease was lost) stops the
// run. Each model answer is written before it is used; trajectory events
// are written in batches, in order, at most eventBatch after they
// happened (and before any answer and at the run's end): an event lost
// with its process is written again by the run's next owner, which
// re-executes the steps its journal does not have.
type leaseMirror struct {
	l   *cluster.Lease
	ctx context.Context // not canceled with the run: its last events are written too

	mu      sync.Mutex
	pending [][]byte
	timer   *time.Timer
	err     error      // the first failed write, returned from then on
	writing sync.Mutex // one batch at a time, in order
}

func newLeaseMirror(ctx context.Context, l *cluster.Lease) *leaseMirror {
	return &leaseMirror{l: l, ctx: ctx}
}

func (m *leaseMirror) Event(line []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.pending = append(m.pending, bytes.Clone(line))
	if m.timer == nil {
		m.timer = time.AfterFunc(eventBatch, func() { _ = m.flush() })
	}
	return nil
}

func (m *leaseMirror) Answer(line []byte) error {
	if err := m.flush(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(m.ctx, clusterWriteTimeout)
	defer cancel()
	err := m.l.AppendRecording(ctx, [][]byte{bytes.Clone(line)})
	if err != nil {
		m.fail(err)
	}
	return err
}

// flush writes the pending events.
func (m *leaseMirror) flush() error {
	m.writing.Lock()
	defer m.writing.Unlock()
	m.mu.Lock()
	batch, err := m.pending, m.err
	m.pending = nil
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	m.mu.Unlock()
	if err != nil || len(batch) == 0 {
		return err
	}
	ctx, cancel := context.WithTimeout(m.ctx, clusterWriteTimeout)
	defer cancel()
	if _, err := m.l.AppendEvents(ctx, batch); err != nil {
		m.fail(err)
		return err
	}
	return nil
}

func (m *leaseMirror) fail(err error) {
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
}

// mirrors hands each write to every mirror in turn, stopping at the
// first error.
type mirrors []runs.Mirror

func (ms mirrors) Event(line []byte) error {
	for _, m := range ms {
		if err := m.Event(line); err != nil {
			return err
		}
	}
	return nil
}

func (ms mirrors) Answer(line []byte) error {
	for _, m := range ms {
		if err := m.Answer(line); err != nil {
			return err
		}
	}
	return nil
}

// endClaimed records a cluster run's outcome in the database: a run the
// drain stopped is released for another process to take over; a run
// whose lease was lost records nothing (its new owner carries on).
func (j *job) endClaimed(o runs.Outcome, handedOn bool) {
	l := j.lease
	ctx, cancel := context.WithTimeout(context.WithoutCancel(j.ctx), clusterWriteTimeout)
	defer cancel()
	var err error
	var ferr error
	if j.journal != nil {
		if ferr = j.journal.flush(); ferr != nil {
			handedOn = true // the last events are missing: the next owner writes them
		}
	}
	cause := l.Cause()
	if cause == nil && j.kept != nil {
		for _, werr := range []error{j.kept.Err(), ferr} {
			if errors.Is(werr, cluster.ErrFenced) {
				cause = werr // a write was refused before the heartbeat noticed
			}
		}
	}
	switch {
	case cause != nil && !errors.Is(cause, cluster.ErrCancelRequested):
		j.s.log.Warn("cluster: lost the run's lease; its new owner carries on", "run_id", j.id, "cause", j.s.redact(cause.Error()))
		return
	case handedOn:
		err = l.Release(ctx)
	default:
		err = l.Finish(ctx, cluster.OutcomeFrom(o))
	}
	if err != nil {
		j.s.log.Warn("cluster: record the run's end", "run_id", j.id, "error", j.s.redact(err.Error()))
	}
}

// clusterSubmit stores a new run in the cluster's database, queued for
// any worker, and answers 202 with its state.
func (s *Server) clusterSubmit(w http.ResponseWriter, r *http.Request, spec *runSpec, key string) {
	row, repeat, err := s.submitRun(r.Context(), spec, "runs", key)
	if err != nil {
		s.writeError(w, err)
		return
	}
	noteRun(r.Context(), row.ID, 0, nil)
	w.Header().Set("Location", "/v1/runs/"+row.ID)
	if repeat {
		w.Header().Set("Idempotent-Replayed", "true")
		writeJSON(w, http.StatusAccepted, resultOfRow(row))
		return
	}
	writeJSON(
		w,
		http.StatusAccepted,
		&RunResult{ID: row.ID, Object: "rlm.run", Status: StateQueued, Model: spec.model, Query: spec.query, Created: row.Created.Unix()},
	)
}

// submitRun stores the admitted run of spec in the cluster's database
// (its request is what a worker executes) and gives the admission back:
// the run waits in the database, not in this process. With an
// Idempotency-Key (key not ""), a repeat of a request of route made
// within IdempotencyTTL on any replica stores nothing and returns the
// first request's run (repeat true); the key with another body is a 409.
func (s *Server) submitRun(ctx context.Context, spec *runSpec, route, key string) (row cluster.Run, repeat bool, err error) {
	defer s.release()
	now := time.Now()
	cfg := spec.engine
	cfg.RootModel = firstNonEmpty(spec.root, s.cfg.LLM.Model)
	cfg.SubModel = s.subModel()
	rc, err := json.Marshal(s.runConfig(spec, cfg))
	if err != nil {
		return row, false, err
	}
	row = cluster.Run{
		ID:      runs.NewID(now),
		Status:  runs.StatusQueued,
		Query:   spec.query,
		Model:   spec.model,
		Spec:    spec.body,
		Config:  rc,
		Created: now,
	}
	spec.body = nil
	if key == "" {
		if err := s.cfg.Cluster.Submit(ctx, row, spec.pinned); err != nil {
			return row, false, s.clusterError(err)
		}
		return row, false, nil
	}
	id, repeat, err := s.cfg.Cluster.SubmitOnce(ctx, row, spec.pinned,
		cluster.Idempotency{Route: route, Key: key, BodyHash: spec.bodyHash[:], TTL: IdempotencyTTL})
	if errors.Is(err, cluster.ErrIdempotencyConflict) {
		return row, false, errIdempotencyReused
	}
	if err != nil {
		return row, false, s.clusterError(err)
	}
	if repeat {
		if row, err = s.clusterRun(ctx, id); err != nil {
			return row, false, err
		}
	}
	return row, repeat, nil
}

// clusterFollow answers a request that runs an RLM (route and shape as
// serveRun's) through the cluster: the run is submitted for any worker,
// its progress followed in the database (a streamed request sends it),
// and a client that goes away cancels it, wherever it runs.
func (s *Server) clusterFollow(w http.ResponseWriter, r *http.Request, spec *runSpec, route, key string, shape apiShape) {
	row, repeat, err := s.submitRun(r.Context(), spec, route, key)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if repeat {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	db := s.cfg.Cluster
	if key == "" {
		// Without a key nobody can come back for the run.
		stop := context.AfterFunc(r.Context(), func() {
			ctx, cancel := context.WithTimeout(context.Background(), clusterWriteTimeout)
			defer cancel()
			_, _ = db.Cancel(ctx, row.ID)
		})
		defer stop()
	}
	var st runStream
	if spec.stream {
		st = shape.stream(s.newSSE(w), row.ID, row.Created, spec)
		if !st.begin() {
			return
		}
	}
	for e := range db.Follow(r.Context(), row.ID, 0) {
		if st == nil {
			continue
		}
		if p := progressOf(e.Line); p != nil && !st.progress(p) {
			return // the client went away: the run is canceled
		}
	}
	if r.Context().Err() != nil {
		return
	}
	row, err = db.Get(r.Context(), row.ID)
	if err == nil && !row.Finished() {
		err = fmt.Errorf("%w: run %s has not finished", cluster.ErrUnavailable, row.ID)
	}
	if err != nil {
		if st != nil {
			st.broken(
				"server_error",
				"cluster_unavailable",
				"the cluster's database failed while the run ran; GET /v1/runs/"+row.ID+" has its result",
			)
			return
		}
		s.writeError(w, s.clusterError(err))
		return
	}
	if st != nil {
		st.end(r, resultOfRow(row))
		return
	}
	shape.answer(w, r, row.ID, row.Created, spec, resultOfRow(row))
}

// clusterError maps a database failure to a 503 (retryable) or 500.
func (s *Server) clusterError(err error) error {
	if errors.Is(err, cluster.ErrNotFound) {
		return err
	}
	if errors.Is(err, cluster.ErrUnavailable) {
		return &apiError{
			status:     503,
			typ:        "server_error",
			code:       "cluster_unavailable",
			msg:        "the cluster's database cannot be reached; retry later",
			err:        err,
			retryAfter: DefaultRetryAfter,
		}
	}
	return err
}

// resultOfRow is a cluster run's state: its result once finished, else
// what its row says.
func resultOfRow(row cluster.Run) *RunResult {
	if len(row.Result) > 0 {
		var res RunResult
		if json.Unmarshal(row.Result, &res) == nil && res.ID == row.ID {
			res.Status = string(row.Status)
			return &res
		}
	}
	res := &RunResult{
		ID:         row.ID,
		Object:     "rlm.run",
		Status:     string(row.Status),
		Model:      row.Model,
		Query:      row.Query,
		Created:    row.Created.Unix(),
		StopReason: row.StopReason,
		Error:      row.Error,
		Iterations: row.Iterations,
		CostUSD:    row.CostUSD,
		Partial:    row.Status != runs.StatusDone,
	}
	if !row.Started.IsZero() {
		res.Started = row.Started.Unix()
	}
	if !row.Ended.IsZero() {
		res.Ended = row.Ended.Unix()
	}
	return res
}

// clusterRun reads run id from the database (404 if there is none).
func (s *Server) clusterRun(ctx context.Context, id string) (cluster.Run, error) {
	if runs.CheckID(id) != nil {
		return cluster.Run{}, notFound(id)
	}
	row, err := s.cfg.Cluster.Get(ctx, id)
	if errors.Is(err, cluster.ErrNotFound) {
		return row, notFound(id)
	}
	if err != nil {
		return row, s.clusterError(err)
	}
	return row, nil
}

func (s *Server) clusterGet(w http.ResponseWriter, r *http.Request) {
	row, err := s.clusterRun(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, err)
		return
	}
	writeJSON(w, 200, resultOfRow(row))
}

// clusterCancel asks the run to stop, on whichever process owns it, and
// answers when it has stopped (or when the client gives up).
func (s *Server) clusterCancel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.clusterRun(r.Context(), id); err != nil {
		s.writeError(w, err)
		return
	}
	row, err := s.cfg.Cluster.Cancel(r.Context(), id)
	for err == nil && !row.Finished() {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
		row, err = s.cfg.Cluster.Get(r.Context(), id)
	}
	if err != nil {
		s.writeError(w, s.clusterError(err))
		return
	}
	writeJSON(w, 200, resultOfRow(row))
}

// clusterDelete deletes a finished cluster run (409 while it runs).
func (s *Server) clusterDelete(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if runs.CheckID(id) != nil {
		s.writeError(w, notFound(id))
		return
	}
	err := s.cfg.Cluster.Delete(r.Context(), id)
	switch {
	case errors.Is(err, cluster.ErrNotFound):
		s.writeError(w, notFound(id))
	case errors.Is(err, cluster.ErrNotFinished):
		s.writeError(w, errRunNotFinished(id))
	case err != nil:
		s.writeError(w, s.clusterError(err))
	default:
		writeJSON(w, http.StatusOK, runDeleted{ID: id, Object: "rlm.run.deleted", Deleted: true})
	}
}

// clusterList lists the cluster's runs, newest first (?status=, ?limit=,
// ?after=).
func (s *Server) clusterList(w http.ResponseWriter, r *http.Request, status runs.Status, after string, limit int) {
	rows, err := s.cfg.Cluster.List(r.Context(), cluster.ListOptions{Status: status, Before: after, Limit: limit + 1})
	if err != nil {
		s.writeError(w, s.clusterError(err))
		return
	}
	out := runList{Object: "list", Data: []*RunResult{}}
	for i, row := range rows {
		if i == limit {
			out.HasMore = true
			break
		}
		out.Data = append(out.Data, resultOfRow(row))
	}
	if n := len(out.Data); n > 0 {
		out.FirstID, out.LastID = out.Data[0].ID, out.Data[n-1].ID
	}
	writeJSON(w, http.StatusOK, out)
}

// clusterEvents streams a cluster run's trajectory from the database
// after Last-Event-ID (event ids are the events' sequence numbers, the
// same on every replica), live until the run ends, then its result.
func (s *Server) clusterEvents(w http.ResponseWriter, r *http.Request, after int) {
	id := r.PathValue("id")
	if _, err := s.clusterRun(r.Context(), id); err != nil {
		s.writeError(w, err)
		return
	}
	sse := s.newSSE(w)
	last := int64(after)
	for e := range s.cfg.Cluster.Follow(r.Context(), id, last) {
		if sse.event("trajectory", strconv.FormatInt(e.Seq, 10), trimNL(e.Line)) != nil {
			return
		}
		last = e.Seq
	}
	if r.Context().Err() != nil {
		return
	}
	row, err := s.cfg.Cluster.Get(r.Context(), id)
	if err != nil || !row.Finished() {
		return // the database failed: the client reconnects with Last-Event-ID
	}
	out, _ := json.Marshal(resultOfRow(row))
	_ = sse.event("end", strconv.FormatInt(last+1, 10), out)
}

// clusterTrajectory answers a cluster run's JSONL trajectory so far.
func (s *Server) clusterTrajectory(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.clusterRun(r.Context(), id); err != nil {
		s.writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/jsonl")
	w.WriteHeader(200)
	var after int64
	for {
		evs, err := s.cfg.Cluster.Events(r.Context(), id, after, 1000)
		if err != nil || len(evs) == 0 {
			return
		}
		for _, e := range evs {
			if _, err := w.Write(e.Line); err != nil {
				return
			}
			after = e.Seq
		}
	}
}

// clusterReady is the readiness check of the cluster's database.
func (s *Server) clusterReady(ctx context.Context) error {
	if s.cfg.Cluster == nil {
		return nil
	}
	if err := s.cfg.Cluster.Ping(ctx); err != nil {
		return fmt.Errorf("cluster database: %w", err)
	}
	return nil
}
