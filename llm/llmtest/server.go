package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlmhq/rlm/llm"
)

// Reply is one scripted server answer. With Status >= 400 it is an error
// in OpenAI's shape ({"error":{"message","type","code"}}); otherwise a chat
// completion (Content, ToolCalls) or, on /v1/embeddings, vectors from
// [HashVector].
type Reply struct {
	Content      string
	ToolCalls    []llm.ToolCall
	FinishReason string     // default "stop" ("tool_calls" with ToolCalls)
	Usage        *llm.Usage // nil = counted from the request and reply
	Status       int        // HTTP status; 0 = 200
	ErrorType    string     // error.type, e.g. "invalid_request_error"
	ErrorCode    string     // error.code, e.g. "context_length_exceeded"
	ErrorMessage string     // error.message
	RetryAfter   string     // Retry-After header value, e.g. "1"
	Delay        time.Duration
	RawBody      string // if set, sent verbatim with Status (or 200)
	// Handler, if set, handles the request itself (other fields ignored).
	Handler func(w http.ResponseWriter, r *http.Request, call Call)
}

// Text is a plain chat reply.
func Text(content string) Reply { return Reply{Content: content} }

// ToolCallReply is a chat reply carrying tool calls.
func ToolCallReply(calls ...llm.ToolCall) Reply { return Reply{ToolCalls: calls} }

// ErrorReply is an OpenAI-shaped error with status, code and message.
func ErrorReply(status int, code, message string) Reply {
	typ := "invalid_request_error"
	switch {
	case status == 429:
		typ = "rate_limit_error"
	case status >= 500:
		typ = "server_error"
	case status == 401:
		typ = "authentication_error"
	}
	return Reply{Status: status, ErrorType: typ, ErrorCode: code, ErrorMessage: message}
}

// RateLimited is a 429 with a Retry-After header (e.g. "1", in seconds).
func RateLimited(retryAfter string) Reply {
	r := ErrorReply(429, "rate_limit_exceeded", "Rate limit reached for requests")
	r.RetryAfter = retryAfter
	return r
}

// ServerError is a 500.
func ServerError() Reply {
	return ErrorReply(500, "server_error", "The server had an error while processing your request.")
}

// ContextLengthExceeded is OpenAI's 400 for an over-long prompt.
func ContextLengthExceeded() Reply {
	return ErrorReply(
		400,
		"context_length_exceeded",
		"This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens. Please reduce the length of the messages.",
	)
}

// Call is one request the server received.
type Call struct {
	Path     string // e.g. /v1/chat/completions
	Model    string
	Time     time.Time // arrival
	Header   http.Header
	Body     []byte
	Messages []llm.Message // chat
	Tools    []llm.Tool    // chat
	Inputs   []string      // embeddings
	// MaxTokens is max_tokens or max_completion_tokens; Temperature is nil
	// if absent.
	MaxTokens   int
	Temperature *float32
	// TopP and Seed are nil if absent; Stop is the stop sequences (a
	// single string becomes one element), nil if absent.
	TopP *float32
	Seed *int
	Stop []string
}

// Server is an httptest server speaking the OpenAI wire format:
// POST /v1/chat/completions and /v1/embeddings. Answers come from
// per-model queues (Enqueue), then the shared queue (model ""), then the
// default (SetDefault; initially an echo of the last message). It records
// every call and the peak number of concurrent requests.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu          sync.Mutex
	queues      map[string][]Reply
	def         func(Call) Reply
	calls       []Call
	inFlight    int
	maxInFlight int
	requireKey  string
	embedDim    int
}

// NewServer starts a server closed at the end of the test (t may be nil
// outside tests, e.g. in examples; then call Close).
func NewServer(t testing.TB) *Server {
	s := &Server{t: t, queues: map[string][]Reply{}, embedDim: 16}
	s.def = func(c Call) Reply {
		last := ""
		if n := len(c.Messages); n > 0 {
			last = c.Messages[n-1].Content
		}
		return Text("echo: " + last)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	if t != nil {
		t.Cleanup(s.srv.Close)
	}
	return s
}

// URL is the base URL for llm.Config.BaseURL (ends in /v1).
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close shuts the server down (also done at test cleanup).
func (s *Server) Close() { s.srv.Close() }

// Enqueue appends replies for requests with the given model. Model ""
// is a shared queue for chat requests of any model, used after the
// model's own queue. Embedding requests use only their model's queue.
func (s *Server) Enqueue(model string, replies ...Reply) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[model] = append(s.queues[model], replies...)
	return s
}

// SetDefault sets the chat reply used when the queues are empty (embedding
// requests then get HashVector vectors). f may call the Server's methods.
func (s *Server) SetDefault(f func(Call) Reply) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = f
	return s
}

// RequireKey makes the server answer 401 unless the request carries
// "Authorization: Bearer key". Like some real servers, the 401 message
// echoes the key it got, so tests can check that clients redact it.
func (s *Server) RequireKey(key string) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requireKey = key
	return s
}

// SetEmbedDim sets the size of embedding vectors (default 16).
func (s *Server) SetEmbedDim(d int) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedDim = d
	return s
}

// Calls returns the calls received, in arrival order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Count returns the number of requests received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// MaxInFlight returns the peak number of requests handled concurrently.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// wire types

type wireFunc struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Arguments   string          `json:"arguments,omitempty"`
}

type wireToolCall struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function wireFunc `json:"function"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []wireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type wireRequest struct {
	Model               string          `json:"model"`
	Messages            []wireMessage   `json:"messages"`
	Tools               []wireToolCall  `json:"tools"`
	Temperature         *float32        `json:"temperature"`
	TopP                *float32        `json:"top_p"`
	Seed                *int            `json:"seed"`
	Stop                json.RawMessage `json:"stop"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Input               json.RawMessage `json:"input"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	body, _ := io.ReadAll(r.Body)
	call := Call{Path: r.URL.Path, Time: time.Now(), Header: r.Header.Clone(), Body: body}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil && r.Method == http.MethodPost {
		s.record(call)
		writeError(w, ErrorReply(400, "invalid_json", "could not parse request body: "+err.Error()))
		return
	}
	call.Model = wr.Model
	call.Temperature = wr.Temperature
	call.TopP, call.Seed = wr.TopP, wr.Seed
	if len(wr.Stop) > 0 && string(wr.Stop) != "null" {
		var one string
		if json.Unmarshal(wr.Stop, &one) == nil {
			call.Stop = []string{one}
		} else {
			_ = json.Unmarshal(wr.Stop, &call.Stop)
		}
	}
	call.MaxTokens = max(wr.MaxTokens, wr.MaxCompletionTokens)
	for _, m := range wr.Messages {
		lm := llm.Message{Role: m.Role, Content: contentText(m.Content), Name: m.Name, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		call.Messages = append(call.Messages, lm)
	}
	for _, t := range wr.Tools {
		call.Tools = append(
			call.Tools,
			llm.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters},
		)
	}
	if len(wr.Input) > 0 {
		var many []string
		if json.Unmarshal(wr.Input, &many) != nil {
			var one string
			if json.Unmarshal(wr.Input, &one) == nil {
				many = []string{one}
			}
		}
		call.Inputs = many
	}
	s.record(call)

	s.mu.Lock()
	key := s.requireKey
	s.mu.Unlock()
	if key != "" {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if got != key {
			writeError(
				w,
				ErrorReply(
					401,
					"invalid_api_key",
					"Incorrect API key provided: "+got+". You can find your API key at https://platform.openai.com/account/api-keys.",
				),
			)
			return
		}
	}

	if r.Method != http.MethodPost {
		writeError(w, ErrorReply(405, "method_not_allowed", "use POST"))
		return
	}
	var kind string
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		kind = "chat"
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		kind = "embed"
	default:
		writeError(w, ErrorReply(404, "unknown_url", "Unknown request URL: POST "+r.URL.Path))
		return
	}

	reply := s.next(call, kind)
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if reply.Handler != nil {
		reply.Handler(w, r, call)
		return
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	if reply.RawBody != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(max(reply.Status, 200))
		io.WriteString(w, reply.RawBody)
		return
	}
	if reply.Status >= 400 {
		writeError(w, reply)
		return
	}
	if kind == "embed" {
		s.writeEmbeddings(w, call, reply)
		return
	}
	writeChat(w, call, reply)
}

func (s *Server) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func (s *Server) next(c Call, kind string) Reply {
	s.mu.Lock()
	keys := []string{c.Model, ""}
	if kind == "embed" {
		keys = keys[:1] // the shared queue is for chat only
	}
	for _, k := range keys {
		if q := s.queues[k]; len(q) > 0 {
			s.queues[k] = q[1:]
			s.mu.Unlock()
			return q[0]
		}
	}
	def := s.def
	s.mu.Unlock()
	if kind == "embed" {
		return Reply{} // vectors from HashVector
	}
	return def(c)
}

// contentText accepts a string or an array of {type:"text", text} parts.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, r Reply) {
	if r.RetryAfter != "" {
		w.Header().Set("Retry-After", r.RetryAfter)
	}
	e := map[string]any{"message": r.ErrorMessage, "type": r.ErrorType, "param": nil, "code": nil}
	if r.ErrorCode != "" {
		e["code"] = r.ErrorCode
	}
	writeJSON(w, r.Status, map[string]any{"error": e})
}

func writeChat(w http.ResponseWriter, c Call, r Reply) {
	msg := map[string]any{"role": "assistant", "content": r.Content}
	finish := r.FinishReason
	if len(r.ToolCalls) > 0 {
		var tcs []wireToolCall
		for i, tc := range r.ToolCalls {
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", i)
			}
			tcs = append(tcs, wireToolCall{ID: id, Type: "function", Function: wireFunc{Name: tc.Name, Arguments: tc.Arguments}})
		}
		msg["tool_calls"] = tcs
		if r.Content == "" {
			msg["content"] = nil
		}
		if finish == "" {
			finish = "tool_calls"
		}
	}
	if finish == "" {
		finish = "stop"
	}
	var u llm.Usage
	if r.Usage != nil {
		u = *r.Usage
	} else {
		u.PromptTokens = llm.CountRequestTokens(llm.Request{Model: c.Model, Messages: c.Messages, Tools: c.Tools})
		u.CompletionTokens = llm.CountTokens(r.Content)
		for _, tc := range r.ToolCalls {
			u.CompletionTokens += llm.CountTokens(tc.Name) + llm.CountTokens(tc.Arguments)
		}
	}
	writeJSON(w, 200, map[string]any{
		"id":      "chatcmpl-test",
		"object":  "chat.completion",
		"created": c.Time.Unix(),
		"model":   c.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{
			"prompt_tokens":         u.PromptTokens,
			"completion_tokens":     u.CompletionTokens,
			"total_tokens":          u.PromptTokens + u.CompletionTokens,
			"prompt_tokens_details": map[string]any{"cached_tokens": u.CachedTokens},
		},
	})
}

func (s *Server) writeEmbeddings(w http.ResponseWriter, c Call, r Reply) {
	s.mu.Lock()
	dim := s.embedDim
	s.mu.Unlock()
	data := make([]any, len(c.Inputs))
	tokens := 0
	for i, in := range c.Inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": HashVector(in, dim)}
		tokens += llm.CountTokens(in)
	}
	if r.Usage != nil {
		tokens = r.Usage.PromptTokens
	}
	writeJSON(w, 200, map[string]any{
		"object": "list",
		"data":   data,
		"model":  c.Model,
		"usage":  map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}
