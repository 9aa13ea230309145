package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rlmhq/rlm/runs"
)

// ResumeRuns resumes the detached runs (the run API's, and chat
// completions with an Idempotency-Key) that a server on the same runs
// directory was running when it stopped: killed, or drained before they
// finished. Each continues under its id from its recording, as rlm run
// --resume does: the model answers it received are replayed, not asked
// again. They take run slots like new runs, beyond the queue bound. It
// returns the ids resumed; a run that cannot be resumed is logged and
// left as it is. Call it once, before serving.
func (s *Server) ResumeRuns(ctx context.Context) ([]string, error) {
	if s.runsRoot == nil {
		return nil, nil
	}
	metas, _, err := s.runsRoot.List()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range metas {
		if m.Status != runs.StatusInterrupted || m.Config == nil || !m.Config.Server {
			continue
		}
		body, err := s.runsRoot.Request(m.ID)
		if errors.Is(err, os.ErrNotExist) {
			continue // a chat completion's: its client is gone
		}
		if err == nil {
			err = s.resume(ctx, m, body)
		}
		if err != nil {
			s.log.Warn("run not resumed", "run_id", m.ID, "error", s.redact(err.Error()))
			continue
		}
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// resume starts a job continuing kept run m with its request body.
func (s *Server) resume(ctx context.Context, m runs.Meta, body []byte) error {
	spec, err := s.parseChat(ctx, bytes.Clone(body))
	if err != nil {
		return fmt.Errorf("its request no longer parses: %w", err)
	}
	spec.stream = false
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		return ErrDraining
	}
	if s.jobs[m.ID] != nil {
		s.mu.Unlock()
		return fmt.Errorf("run %s is already running here", m.ID)
	}
	j := &job{s: s, id: m.ID, spec: spec, created: m.Started, state: StateQueued, resumed: true,
		done: make(chan struct{}), wake: make(chan struct{})}
	j.ctx, j.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	// The events so far keep their ids: the stream goes on after them.
	j.events, j.eventBytes = keptLines(filepath.Join(s.runsRoot.Path(m.ID), runs.TrajectoryFile))
	s.active++
	s.jobs[j.id] = j
	s.wg.Add(1)
	s.mu.Unlock()
	s.metrics.queueDepth.Inc()
	if j.created.IsZero() {
		j.created = time.Now()
	}
	go j.run()
	return nil
}

// keptLines reads the complete lines of a run's trajectory file (a line
// torn by the process that died is left out, as the resume cuts it).
func keptLines(path string) ([][]byte, int64) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0
	}
	var lines [][]byte
	var n int64
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, b[:i+1:i+1])
		n += int64(i + 1)
		b = b[i+1:]
	}
	return lines, n
}
