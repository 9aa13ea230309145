package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/rlmhq/rlm/orchestrator"
)

// chatUsage is OpenAI's usage object: the whole run tree's usage.
type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type chatChoice struct {
	Index        int       `json:"index"`
	Message      chatOut   `json:"message"`
	FinishReason string    `json:"finish_reason"`
	Logprobs     *struct{} `json:"logprobs"`
}

type chatOut struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatResponse is an OpenAI chat completion with the run in "rlm".
type chatResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   chatUsage    `json:"usage"`
	RLM     *rlmSummary  `json:"rlm"`
}

// rlmSummary is the "rlm" field of a completion: the run behind it.
type rlmSummary struct {
	RunID      string   `json:"run_id"`
	StopReason string   `json:"stop_reason"`
	Iterations int      `json:"iterations"`
	CostUSD    *float64 `json:"cost_usd"`
	Partial    bool     `json:"partial"`
	Error      string   `json:"error,omitempty"`
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	key, err := idempotencyKey(r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	spec, err := s.admitBody(w, r, r.Header.Get("Idempotency-Key") != "" || s.cfg.Cluster != nil)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if s.cfg.Cluster != nil {
		s.clusterChat(w, r, spec, key)
		return
	}
	j, err := s.startIdempotent(w, r, "chat", key, spec, false)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if spec.stream {
		s.streamChat(w, r, j)
		return
	}
	<-j.done
	s.answerChat(w, r, j.id, j.created, j.spec, j.snapshot())
}

// answerChat answers a chat completion with the finished run's result.
func (s *Server) answerChat(w http.ResponseWriter, r *http.Request, id string, created time.Time, spec *runSpec, res *RunResult) {
	noteRun(r.Context(), id, usageTotal(res), res.CostUSD)
	if res.Status == StateFailed && res.Answer == "" {
		s.writeError(w, &apiError{status: http.StatusBadGateway, typ: "upstream_error", code: "run_failed",
			msg: fmt.Sprintf("run %s failed: %s", id, res.Error)})
		return
	}
	writeJSON(w, 200, chatResponse{
		ID: "chatcmpl-" + id, Object: "chat.completion", Created: created.Unix(), Model: spec.model,
		Choices: []chatChoice{{Message: chatOut{Role: "assistant", Content: content(spec, res)}, FinishReason: finishReason(res)}},
		Usage:   chatUsageOf(res), RLM: summaryOf(res),
	})
}

// startIdempotent starts the admitted run of spec, or, for a repeat of a
// request with the same Idempotency-Key and body, gives the admission back
// and returns the run the first one started (marked Idempotent-Replayed).
// A chat completion's run belongs to its request (a client that goes
// away cancels it) unless it has a key, which its retry will bring back.
func (s *Server) startIdempotent(w http.ResponseWriter, r *http.Request, route, key string, spec *runSpec, detached bool) (*job, error) {
	if key != "" {
		runID, err := s.idem.claim(route, key, spec.bodyHash, time.Now())
		if err != nil {
			s.release()
			return nil, err
		}
		if runID != "" {
			s.release()
			j, err := s.idempotentRun(runID)
			if err == nil {
				w.Header().Set("Idempotent-Replayed", "true")
			}
			return j, err
		}
		detached = true
	}
	parent := r.Context()
	if detached {
		parent = context.WithoutCancel(parent)
	}
	j, err := s.start(parent, spec)
	if key != "" {
		if err != nil {
			s.idem.drop(route, key)
		} else {
			s.idem.set(route, key, j.id)
		}
	}
	return j, err
}

func usageTotal(r *RunResult) int {
	if r.Usage == nil {
		return 0
	}
	return r.Usage.TotalTokens
}

// content is the message content of a finished run: the answer, or the
// SUBMIT object as JSON when more than answer is declared or
// response_format is json_schema.
func content(spec *runSpec, res *RunResult) string {
	if len(res.Outputs) > 0 && spec.format == formatJSONSchema {
		if spec.closedOutputs {
			return string(declaredOnly(res.Outputs, spec.schema))
		}
		return string(res.Outputs)
	}
	if len(spec.schema) == 1 && spec.schema[0].Name == "answer" || len(res.Outputs) == 0 {
		return res.Answer
	}
	return string(res.Outputs)
}

// finishReason is "stop" for a run that submitted, else "length": a
// limit cut the run short.
func finishReason(r *RunResult) string {
	if r.Status == StateDone {
		return "stop"
	}
	return "length"
}

func chatUsageOf(r *RunResult) chatUsage {
	var u chatUsage
	if r.Usage != nil {
		u.PromptTokens, u.CompletionTokens, u.TotalTokens = r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.TotalTokens
		u.PromptTokensDetails.CachedTokens = r.Usage.CachedTokens
	}
	return u
}

func summaryOf(r *RunResult) *rlmSummary {
	return &rlmSummary{RunID: r.ID, StopReason: r.StopReason, Iterations: r.Iterations, CostUSD: r.CostUSD, Partial: r.Partial, Error: r.Error}
}

// chunk is one chat.completion.chunk of a streamed completion.
// streamError is the last event of a streamed run that failed: an
// OpenAI-style error object, which the SDKs raise.
type streamError struct {
	Error streamErrorBody `json:"error"`
	RLM   any             `json:"rlm,omitempty"`
}

type streamErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    string  `json:"code"`
}

type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *chatUsage    `json:"usage,omitempty"`
	RLM     any           `json:"rlm,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
}

// contentPiece is the size of the content deltas of a streamed answer.
const contentPiece = 256

// streamChat streams a run as chat.completion.chunk events: the role,
// the run's progress in "rlm", the answer as content deltas, a last chunk
// with the finish reason and the run summary (and usage if asked), then
// [DONE].
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, j *job) {
	sse := s.newSSE(w)
	base := chunk{ID: "chatcmpl-" + j.id, Object: "chat.completion.chunk", Created: j.created.Unix(), Model: j.spec.model}
	send := func(c chunk) bool { return sse.data(c) == nil }
	first := base
	first.Choices = []chunkChoice{{Delta: chunkDelta{Role: "assistant"}}}
	first.RLM = map[string]any{"type": "run_created", "run_id": j.id}
	if !send(first) {
		return
	}
	next := 0
	for {
		lines, wake, ended, file := j.eventsFrom(next)
		if file != "" {
			// The run ended and its events left memory before this
			// stream read them all: the rest are in its file.
			if !fileProgress(file, next, func(p *progress) bool {
				c := base
				c.Choices = []chunkChoice{{Delta: chunkDelta{}}}
				c.RLM = p
				return send(c)
			}) {
				return
			}
			break
		}
		next += len(lines)
		for _, line := range lines {
			p := progressOf(line)
			if p == nil {
				continue
			}
			c := base
			c.Choices = []chunkChoice{{Delta: chunkDelta{}}}
			c.RLM = p
			if !send(c) {
				return // the client went away: the request's context cancels the run
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
	s.endStream(r, sse, base, j.spec, j.snapshot())
}

// endStream ends a streamed chat completion with the finished run's
// result: its answer as content deltas, a last chunk with the finish
// reason and the run summary (and usage if asked), then [DONE]; a failed
// run without an answer gets an error chunk instead.
func (s *Server) endStream(r *http.Request, sse *sse, base chunk, spec *runSpec, res *RunResult) {
	send := func(c chunk) bool { return sse.data(c) == nil }
	noteRun(r.Context(), res.ID, usageTotal(res), res.CostUSD)
	if res.Status == StateFailed && res.Answer == "" {
		// As the non-streamed answer's 502: the OpenAI SDKs raise an
		// error for a chunk with a top-level "error", where an empty
		// answer ending with a finish reason would look like success.
		// The run's summary rides along in "rlm".
		_ = sse.data(streamError{Error: streamErrorBody{
			Message: fmt.Sprintf("run %s failed: %s", res.ID, res.Error), Type: "upstream_error", Code: "run_failed",
		}, RLM: summaryOf(res)})
		_ = sse.raw("data: [DONE]\n\n")
		return
	}
	text := content(spec, res)
	for len(text) > 0 {
		n := min(len(text), contentPiece)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		c := base
		c.Choices = []chunkChoice{{Delta: chunkDelta{Content: text[:n]}}}
		if !send(c) {
			return
		}
		text = text[n:]
	}
	fr := finishReason(res)
	last := base
	last.Choices = []chunkChoice{{Delta: chunkDelta{}, FinishReason: &fr}}
	last.RLM = summaryOf(res)
	if !send(last) {
		return
	}
	if spec.includeUsage {
		u := chatUsageOf(res)
		c := base
		c.Choices = []chunkChoice{}
		c.Usage = &u
		if !send(c) {
			return
		}
	}
	_ = sse.raw("data: [DONE]\n\n")
}

// progress is the "rlm" field of a progress chunk: one trajectory event,
// cut to what a client shows while it waits.
type progress struct {
	Type      string `json:"type"`
	Run       string `json:"run"`
	Step      int    `json:"step,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	// Per type: exec has code (cut) and error; deferred the sub-calls
	// resolved; child_start/child_end the child; request the prompt size.
	Code       string `json:"code,omitempty"`
	Error      string `json:"error,omitempty"`
	Tokens     int    `json:"tokens,omitempty"`
	Started    int    `json:"sub_calls_resolved,omitempty"`
	Failed     int    `json:"sub_calls_failed,omitempty"`
	Child      string `json:"child,omitempty"`
	Mode       string `json:"mode,omitempty"`
	StopReason string `json:"stop_reason,omitempty"`
	Valid      *bool  `json:"valid,omitempty"`
}

// maxProgressLine bounds the trajectory line fileProgress reads whole: a
// longer one (a request event carrying a large prompt) is skipped.
const maxProgressLine = 4 << 20

// fileProgress sends the progress of the trajectory file's lines from
// index next on; it reports false when send did (the client went away).
func fileProgress(path string, next int, send func(*progress) bool) bool {
	lf, err := openLines(path, next)
	if err != nil {
		return true
	}
	defer lf.Close()
	var line []byte
	for {
		line = line[:0]
		more, err := lf.nextLine(func(b []byte) error {
			if len(line)+len(b) <= maxProgressLine {
				line = append(line, b...)
			} else {
				line = append(line[:0], '!') // too long: not parsed
			}
			return nil
		})
		if err != nil || !more {
			return true
		}
		if p := progressOf(line); p != nil && !send(p) {
			return false
		}
	}
}

// progressOf turns a trajectory line into a progress chunk payload (nil
// for events a client need not see).
func progressOf(line []byte) *progress {
	var e struct {
		Type      string `json:"type"`
		Run       string `json:"run"`
		Step      int    `json:"step"`
		ElapsedMS int64  `json:"elapsed_ms"`
		Data      struct {
			Code   string `json:"code"`
			Error  string `json:"error"`
			Total  int    `json:"total_tokens"`
			Start  int    `json:"started"`
			Failed []any  `json:"failed"`
			Child  string `json:"child"`
			Mode   string `json:"mode"`
			Stop   string `json:"stop_reason"`
			Valid  *bool  `json:"valid"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil {
		return nil
	}
	p := &progress{Type: e.Type, Run: e.Run, Step: e.Step, ElapsedMS: e.ElapsedMS}
	switch e.Type {
	case orchestrator.EventRunStart, orchestrator.EventRunEnd:
		p.StopReason = e.Data.Stop
	case orchestrator.EventRequest:
		p.Tokens = e.Data.Total
	case orchestrator.EventExec:
		p.Code, p.Error = cut(e.Data.Code, 2000), cut(e.Data.Error, 500)
	case orchestrator.EventDeferred:
		p.Started, p.Failed = e.Data.Start, len(e.Data.Failed)
	case orchestrator.EventChildStart, orchestrator.EventChildEnd:
		p.Child, p.Mode, p.StopReason = e.Data.Child, e.Data.Mode, e.Data.Stop
	case orchestrator.EventSubmit:
		p.Valid = e.Data.Valid
	case orchestrator.EventCompression:
	case orchestrator.EventReply:
		p.Error = cut(e.Data.Error, 500)
	default:
		return nil
	}
	return p
}

// cut shortens s to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	now := time.Now().Unix()
	list := []model{{ID: ModelName, Object: "model", Created: now, OwnedBy: "rlm"}}
	seen := map[string]bool{}
	for _, m := range []string{s.cfg.LLM.Model, s.cfg.LLM.SubModel} {
		if m != "" && !seen[m] {
			seen[m] = true
			list = append(list, model{ID: ModelName + ":" + m, Object: "model", Created: now, OwnedBy: "rlm"})
		}
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": list})
}

func (s *Server) handleModel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("model")
	if id != ModelName && (len(id) <= len(ModelName)+1 || id[:len(ModelName)+1] != ModelName+":") {
		s.writeError(w, &apiError{status: 404, typ: "invalid_request_error", param: "model", code: "model_not_found",
			msg: fmt.Sprintf("model %q does not exist", id), err: ErrNotFound})
		return
	}
	writeJSON(w, 200, map[string]any{"id": id, "object": "model", "created": time.Now().Unix(), "owned_by": "rlm"})
}
