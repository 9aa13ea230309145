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
	s.serveRun(w, r, "chat", s.parseChatBody, chatShape{s})
}

// apiShape is one OpenAI API's wire format of a run answered in the
// request: chat completions (chatShape) or responses (respShape). Both
// share one run lifecycle (serveRun, clusterFollow); only the rendering
// differs.
type apiShape interface {
	// answer answers a non-streamed request with the finished run.
	answer(w http.ResponseWriter, r *http.Request, id string, created time.Time, spec *runSpec, res *RunResult)
	// stream starts rendering the run's event stream on sse.
	stream(sse *sse, id string, created time.Time, spec *runSpec) runStream
}

// runStream renders one streamed run: begin once, progress for each
// trajectory event a client sees, then end with the result or broken
// when the result cannot be read. Each reports false (where it returns
// a bool) when the client went away.
type runStream interface {
	begin() bool
	progress(p *progress) bool
	end(r *http.Request, res *RunResult)
	broken(typ, code, msg string)
}

// serveRun answers a request that runs an RLM and answers with its result
// (POST /v1/chat/completions, POST /v1/responses): parse turns the body
// into the run, shape renders it; route names the request's
// Idempotency-Keys.
func (s *Server) serveRun(w http.ResponseWriter, r *http.Request, route string, parse parseFunc, shape apiShape) {
	key, err := idempotencyKey(r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	spec, err := s.admitBody(w, r, r.Header.Get("Idempotency-Key") != "" || s.cfg.Cluster != nil, parse)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if s.cfg.Cluster != nil {
		s.clusterFollow(w, r, spec, route, key, shape)
		return
	}
	// A run answered when it ends, which its client's departure cancels,
	// runs on the request's goroutine: no goroutine to start, and no
	// hand-off back to the request when it ends.
	spec.inline = key == "" && !spec.stream
	j, err := s.startIdempotent(w, r, route, key, spec, false)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if spec.stream {
		s.streamRun(w, r, j, shape)
		return
	}
	if spec.inline {
		j.run()
	}
	<-j.done
	shape.answer(w, r, j.id, j.created, j.spec, j.snapshot())
}

// chatShape renders runs as chat completions.
type chatShape struct{ s *Server }

// answer answers a chat completion with the finished run's result.
func (c chatShape) answer(w http.ResponseWriter, r *http.Request, id string, created time.Time, spec *runSpec, res *RunResult) {
	noteRun(r.Context(), id, usageTotal(res), res.CostUSD)
	if res.Status == StateFailed && res.Answer == "" {
		c.s.writeError(w, runFailed(id, res))
		return
	}
	writeJSON(w, 200, chatResponse{
		ID: "chatcmpl-" + id, Object: "chat.completion", Created: created.Unix(), Model: spec.model,
		Choices: []chatChoice{{Message: chatOut{Role: "assistant", Content: content(spec, res)}, FinishReason: finishReason(res)}},
		Usage:   chatUsageOf(res), RLM: summaryOf(res),
	})
}

// runFailed is the error of a run that failed without an answer: a 502,
// as a gateway whose upstream failed answers.
func runFailed(id string, res *RunResult) *apiError {
	return &apiError{status: http.StatusBadGateway, typ: "upstream_error", code: "run_failed",
		msg: fmt.Sprintf("run %s failed: %s", id, res.Error)}
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
	return &rlmSummary{
		RunID:      r.ID,
		StopReason: r.StopReason,
		Iterations: r.Iterations,
		CostUSD:    r.CostUSD,
		Partial:    r.Partial,
		Error:      r.Error,
	}
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

// pieces splits text into pieces of about contentPiece bytes, on rune
// boundaries, and calls send with each until it reports false.
func pieces(text string, send func(string) bool) bool {
	for len(text) > 0 {
		n := min(len(text), contentPiece)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		if !send(text[:n]) {
			return false
		}
		text = text[n:]
	}
	return true
}

// streamRun streams a run of this server in shape: its beginning, its
// progress from its events (from the first: a repeated request replays
// them), keep-alive comments while nothing happens, then its result.
func (s *Server) streamRun(w http.ResponseWriter, r *http.Request, j *job, shape apiShape) {
	out := s.newSSE(w)
	st := shape.stream(out, j.id, j.created, j.spec)
	if !st.begin() {
		return
	}
	next := 0
	for {
		lines, wake, ended, file := j.eventsFrom(next)
		if file != "" {
			// The run ended and its events left memory before this
			// stream read them all: the rest are in its file.
			if !fileProgress(file, next, st.progress) {
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
			if !st.progress(p) {
				return // the client went away: the request's context cancels the run
			}
		}
		if ended {
			break
		}
		if !out.wait(r.Context(), wake) {
			return
		}
	}
	<-j.done
	st.end(r, j.snapshot())
}

// stream starts a streamed chat completion.
func (c chatShape) stream(sse *sse, id string, created time.Time, spec *runSpec) runStream {
	return &chatStream{out: sse, id: id, spec: spec,
		base: chunk{ID: "chatcmpl-" + id, Object: "chat.completion.chunk", Created: created.Unix(), Model: spec.model}}
}

// chatStream renders a run as chat.completion.chunk events: the role,
// the run's progress in "rlm", the answer as content deltas, a last chunk
// with the finish reason and the run summary (and usage if asked), then
// [DONE].
type chatStream struct {
	out  *sse
	id   string
	spec *runSpec
	base chunk
}

func (c *chatStream) send(ch chunk) bool { return c.out.data(ch) == nil }

func (c *chatStream) begin() bool {
	first := c.base
	first.Choices = []chunkChoice{{Delta: chunkDelta{Role: "assistant"}}}
	first.RLM = map[string]any{"type": "run_created", "run_id": c.id}
	return c.send(first)
}

func (c *chatStream) progress(p *progress) bool {
	ch := c.base
	ch.Choices = []chunkChoice{{Delta: chunkDelta{}}}
	ch.RLM = p
	return c.send(ch)
}

// end ends a streamed chat completion with the finished run's result:
// its answer as content deltas, a last chunk with the finish reason and
// the run summary (and usage if asked), then [DONE]; a failed run without
// an answer gets an error chunk instead.
func (c *chatStream) end(r *http.Request, res *RunResult) {
	noteRun(r.Context(), res.ID, usageTotal(res), res.CostUSD)
	if res.Status == StateFailed && res.Answer == "" {
		// As the non-streamed answer's 502: the OpenAI SDKs raise an
		// error for a chunk with a top-level "error", where an empty
		// answer ending with a finish reason would look like success.
		// The run's summary rides along in "rlm".
		e := runFailed(res.ID, res)
		_ = c.out.data(streamError{Error: streamErrorBody{Message: e.msg, Type: e.typ, Code: e.code}, RLM: summaryOf(res)})
		_ = c.out.raw("data: [DONE]\n\n")
		return
	}
	if !pieces(content(c.spec, res), func(text string) bool {
		ch := c.base
		ch.Choices = []chunkChoice{{Delta: chunkDelta{Content: text}}}
		return c.send(ch)
	}) {
		return
	}
	fr := finishReason(res)
	last := c.base
	last.Choices = []chunkChoice{{Delta: chunkDelta{}, FinishReason: &fr}}
	last.RLM = summaryOf(res)
	if !c.send(last) {
		return
	}
	if c.spec.includeUsage {
		u := chatUsageOf(res)
		ch := c.base
		ch.Choices = []chunkChoice{}
		ch.Usage = &u
		if !c.send(ch) {
			return
		}
	}
	_ = c.out.raw("data: [DONE]\n\n")
}

// broken ends a stream whose run's result cannot be read with an error
// chunk.
func (c *chatStream) broken(typ, code, msg string) {
	_ = c.out.data(streamError{Error: streamErrorBody{Message: msg, Type: typ, Code: code}})
	_ = c.out.raw("data: [DONE]\n\n")
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
