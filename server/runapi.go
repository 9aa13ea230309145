package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/rlmhq/rlm/runs"
)

// handleRunCreate starts a run that outlives the request: 202 with the
// run's id and links.
func (s *Server) handleRunCreate(w http.ResponseWriter, r *http.Request) {
	key, err := idempotencyKey(r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	spec, err := s.admitBody(w, r, true, s.parseChatBody)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if s.cfg.Cluster != nil {
		s.clusterSubmit(w, r, spec, key)
		return
	}
	spec.stream = false
	j, err := s.startIdempotent(w, r, "runs", key, spec, true)
	if err != nil {
		s.writeError(w, err)
		return
	}
	noteRun(r.Context(), j.id, 0, nil)
	w.Header().Set("Location", "/v1/runs/"+j.id)
	writeJSON(w, http.StatusAccepted, j.snapshot())
}

// lookup finds a run in memory.
func (s *Server) lookup(id string) *job {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[id]
}

func notFound(id string) error {
	return &apiError{status: 404, typ: "invalid_request_error", code: "run_not_found", msg: fmt.Sprintf("no run %q", id), err: ErrNotFound}
}

// Run list pagination: GET /v1/runs?limit= takes at most maxRunsPage.
const (
	defaultRunsPage = 20
	maxRunsPage     = 100
)

// runList is the answer of GET /v1/runs, paginated as OpenAI's lists are.
type runList struct {
	Object  string       `json:"object"`
	Data    []*RunResult `json:"data"`
	FirstID string       `json:"first_id,omitempty"`
	LastID  string       `json:"last_id,omitempty"`
	HasMore bool         `json:"has_more"`
}

// handleRunList lists the runs, newest first: those in memory and the
// kept ones, filtered by ?status=, ?limit= at a time, continuing after
// the run ?after= (the last_id of the page before).
func (s *Server) handleRunList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := defaultRunsPage
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxRunsPage {
			s.writeError(w, badRequest("limit", "want a number from 1 to %d", maxRunsPage))
			return
		}
		limit = n
	}
	status, after := q.Get("status"), q.Get("after")
	switch runs.Status(status) {
	case "",
		runs.StatusQueued,
		runs.StatusRunning,
		runs.StatusDone,
		runs.StatusStopped,
		runs.StatusFailed,
		runs.StatusCanceled,
		runs.StatusInterrupted:
	default:
		s.writeError(w, badRequest("status", "want queued, running, done, stopped, failed, canceled or interrupted"))
		return
	}
	if after != "" && runs.CheckID(after) != nil {
		s.writeError(w, badRequest("after", "not a run id"))
		return
	}
	if s.cfg.Cluster != nil {
		s.clusterList(w, r, runs.Status(status), after, limit)
		return
	}
	type entry struct {
		res     *RunResult
		started time.Time
	}
	byID := map[string]entry{}
	if s.runsRoot != nil {
		metas, _, err := s.runsRoot.List()
		if err != nil {
			s.writeError(w, err)
			return
		}
		for _, m := range metas {
			byID[m.ID] = entry{resultOfMeta(m), m.Started}
		}
	}
	s.mu.Lock()
	mem := make([]*job, 0, len(s.jobs))
	for _, j := range s.jobs {
		mem = append(mem, j)
	}
	s.mu.Unlock()
	for _, j := range mem {
		byID[j.id] = entry{j.snapshot(), j.created} // this server's view wins over run.json's
	}
	all := make([]string, 0, len(byID))
	for id := range byID {
		all = append(all, id)
	}
	sort.Slice(all, func(a, b int) bool { // newest first
		ta, tb := byID[all[a]].started, byID[all[b]].started
		if !ta.Equal(tb) {
			return ta.After(tb)
		}
		return all[a] > all[b]
	})
	if after != "" {
		i := slices.Index(all, after)
		if i < 0 {
			s.writeError(w, badRequest("after", "no run %q: pass the last_id of a page", after))
			return
		}
		all = all[i+1:]
	}
	out := runList{Object: "list", Data: []*RunResult{}}
	for _, id := range all {
		res := byID[id].res
		if status != "" && res.Status != status {
			continue
		}
		if len(out.Data) == limit {
			out.HasMore = true
			break
		}
		out.Data = append(out.Data, res)
	}
	if n := len(out.Data); n > 0 {
		out.FirstID, out.LastID = out.Data[0].ID, out.Data[n-1].ID
	}
	writeJSON(w, http.StatusOK, out)
}

// resultOfMeta is a kept run's state as its run.json records it.
func resultOfMeta(m runs.Meta) *RunResult {
	res := &RunResult{ID: m.ID, Object: "rlm.run", Status: string(m.Status), Query: m.Query, Created: m.Started.Unix(),
		StopReason: m.StopReason, Error: m.Error, Iterations: m.Iterations, CostUSD: m.CostUSD}
	if m.Status == runs.StatusRunning {
		res.Status = StateInterrupted // not one of this server's runs: its process is gone
	}
	return res
}

// keptResult reads a finished run from the runs directory (a run of an
// earlier server process, or one no longer retained in memory).
func (s *Server) keptResult(id string) (*RunResult, error) {
	if s.runsRoot == nil || runs.CheckID(id) != nil {
		return nil, notFound(id)
	}
	m, err := s.runsRoot.Get(id)
	if err != nil {
		return nil, notFound(id)
	}
	if b, err := os.ReadFile(filepath.Join(s.runsRoot.Path(id), runs.ResultFile)); err == nil {
		var res RunResult
		if json.Unmarshal(b, &res) == nil && res.ID == id {
			return &res, nil
		}
	}
	return resultOfMeta(m), nil
}

func (s *Server) handleRunGet(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Cluster != nil {
		s.clusterGet(w, r)
		return
	}
	id := r.PathValue("id")
	if j := s.lookup(id); j != nil {
		if b := j.resultJSON(); b != nil {
			writeRawJSON(w, 200, b)
			return
		}
		writeJSON(w, 200, j.snapshot())
		return
	}
	res, err := s.keptResult(id)
	if err != nil {
		s.writeError(w, err)
		return
	}
	writeJSON(w, 200, res)
}

// handleRunCancel cancels a run; it answers when the run has stopped,
// with its partial answer.
func (s *Server) handleRunCancel(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Cluster != nil {
		s.clusterCancel(w, r)
		return
	}
	id := r.PathValue("id")
	j := s.lookup(id)
	if j == nil {
		if res, err := s.keptResult(id); err == nil {
			writeJSON(w, 200, res) // already finished
			return
		}
		s.writeError(w, notFound(id))
		return
	}
	j.cancel(ErrCanceled)
	select {
	case <-j.done:
	case <-r.Context().Done():
		return
	}
	res := j.snapshot()
	noteRun(r.Context(), id, usageTotal(res), res.CostUSD)
	writeRawJSON(w, 200, j.resultJSON())
}

// runDeleted is the answer of DELETE /v1/runs/{id}.
type runDeleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// errRunNotFinished refuses to delete a run that has not finished.
func errRunNotFinished(id string) error {
	return &apiError{status: http.StatusConflict, typ: "invalid_request_error", code: "run_not_finished", err: ErrRunNotFinished,
		msg: fmt.Sprintf("run %s has not finished: cancel it first (POST /v1/runs/%s/cancel), then delete it", id, id)}
}

// handleRunDelete deletes a finished run: its record, trajectory and
// results (its run directory, or its rows in the cluster's database). A
// run that has not finished is a 409: cancel it first.
func (s *Server) handleRunDelete(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if s.cfg.Cluster != nil {
		s.clusterDelete(w, r)
		return
	}
	found := false
	if j := s.lookup(id); j != nil {
		select {
		case <-j.done:
		default:
			s.writeError(w, errRunNotFinished(id))
			return
		}
		s.mu.Lock()
		delete(s.jobs, id)
		s.mu.Unlock()
		found = true
	}
	if s.runsRoot != nil && runs.CheckID(id) == nil {
		err := s.runsRoot.Remove(id)
		switch {
		case errors.Is(err, runs.ErrRunning):
			s.writeError(w, errRunNotFinished(id))
			return
		case errors.Is(err, runs.ErrNotFound):
		case err != nil:
			s.writeError(w, err)
			return
		default:
			found = true
		}
	}
	if !found {
		s.writeError(w, notFound(id))
		return
	}
	writeJSON(w, http.StatusOK, runDeleted{ID: id, Object: "rlm.run.deleted", Deleted: true})
}

// handleRunEvents streams the run's trajectory as Server-Sent Events:
// the events so far, then live ones until the run ends, then an "end"
// event with the result. Each event's id is its line number, and a client
// reconnecting with Last-Event-ID continues after it. A finished run's
// events are read from its trajectory file through a bounded buffer; a
// live run's lines are shared by its clients, and a client that stops
// reading is dropped at the stream's write deadline.
func (s *Server) handleRunEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	next := 0
	if last, err := strconv.Atoi(r.Header.Get("Last-Event-ID")); err == nil && last > 0 {
		next = last
	}
	if s.cfg.Cluster != nil {
		s.clusterEvents(w, r, next)
		return
	}
	j := s.lookup(id)
	if j == nil {
		s.streamKept(w, id, next)
		return
	}
	if j.trajectoryGone() {
		s.gone(w, id)
		return
	}
	sse := s.newSSE(w)
	for {
		lines, wake, ended, file := j.eventsFrom(next)
		if file != "" {
			var err error
			if next, err = sse.fileEvents(file, next); err != nil {
				return
			}
			break
		}
		for _, line := range lines {
			next++
			if sse.event("trajectory", strconv.Itoa(next), line) != nil {
				return
			}
		}
		if ended {
			break
		}
		if !sse.wait(r.Context(), wake) {
			return
		}
	}
	<-j.done
	_ = sse.event("end", strconv.Itoa(next+1), j.resultJSON())
}

// streamKept streams, from line index next on, the trajectory of a run
// found only in the runs directory (finished).
func (s *Server) streamKept(w http.ResponseWriter, id string, next int) {
	res, err := s.keptResult(id)
	if err != nil {
		s.writeError(w, err)
		return
	}
	sse := s.newSSE(w)
	if next, err = sse.fileEvents(filepath.Join(s.runsRoot.Path(id), runs.TrajectoryFile), next); err != nil {
		return
	}
	out, _ := json.Marshal(res)
	_ = sse.event("end", strconv.Itoa(next+1), out)
}

// handleRunTrajectory answers the run's JSONL trajectory so far: a live
// run's lines from memory, a finished run's file through a bounded
// buffer.
func (s *Server) handleRunTrajectory(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Cluster != nil {
		s.clusterTrajectory(w, r)
		return
	}
	id := r.PathValue("id")
	var lines [][]byte
	var file string
	if j := s.lookup(id); j != nil {
		if j.trajectoryGone() {
			s.gone(w, id)
			return
		}
		lines, _, _, file = j.eventsFrom(0)
	} else {
		if _, err := s.keptResult(id); err != nil {
			s.writeError(w, err)
			return
		}
		file = filepath.Join(s.runsRoot.Path(id), runs.TrajectoryFile)
	}
	if file != "" {
		lf, err := openLines(file, 0)
		if err != nil {
			s.writeError(w, err)
			return
		}
		defer lf.Close()
		w.Header().Set("Content-Type", "application/jsonl")
		w.WriteHeader(200)
		_, _ = io.Copy(w, lf)
		return
	}
	w.Header().Set("Content-Type", "application/jsonl")
	w.WriteHeader(200)
	for _, l := range lines {
		if _, err := w.Write(l); err != nil {
			return
		}
	}
}
