package llmtest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/llm"
)

// Step is one scripted answer: a function of the request. Use [Say],
// [Respond], [Fail] or [CallTools] for fixed steps, or pass any func literal.
type Step func(req llm.Request) (*llm.Response, error)

// Say answers with content.
func Say(content string) Step {
	return func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Model: req.Model, Content: content, FinishReason: "stop", Usage: usageFor(req, content)}, nil
	}
}

// Respond answers with a copy of resp (usage filled in if zero).
func Respond(resp llm.Response) Step {
	return func(req llm.Request) (*llm.Response, error) {
		r := resp
		if r.Model == "" {
			r.Model = req.Model
		}
		if r.Usage == (llm.Usage{}) {
			r.Usage = usageFor(req, r.Content)
		}
		return &r, nil
	}
}

// CallTools answers with tool calls.
func CallTools(calls ...llm.ToolCall) Step {
	return Respond(llm.Response{ToolCalls: calls, FinishReason: "tool_calls"})
}

// Fail answers with err.
func Fail(err error) Step {
	return func(llm.Request) (*llm.Response, error) { return nil, err }
}

func usageFor(req llm.Request, content string) llm.Usage {
	return llm.Usage{PromptTokens: llm.CountRequestTokens(req), CompletionTokens: llm.CountTokens(content)}
}

// Scripted is an in-memory [llm.ChatModel] that answers from a script and
// records every request. Steps queued for a specific model (via OnModel)
// answer requests for that model first; otherwise the shared script is
// consumed in order; when it runs out, the default step answers, or the
// call fails naming the request. Safe for concurrent use.
type Scripted struct {
	mu       sync.Mutex
	steps    []Step
	byModel  map[string][]Step
	def      Step
	requests []llm.Request
	model    string
}

var _ llm.ChatModel = (*Scripted)(nil)

// NewScripted returns a model answering with steps in order.
func NewScripted(steps ...Step) *Scripted {
	return &Scripted{steps: steps, byModel: map[string][]Step{}}
}

// Then appends steps to the shared script.
func (s *Scripted) Then(steps ...Step) *Scripted {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
	return s
}

// OnModel queues steps for requests whose Model is model.
func (s *Scripted) OnModel(model string, steps ...Step) *Scripted {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byModel[model] = append(s.byModel[model], steps...)
	return s
}

// Default sets the step used once the script is exhausted.
func (s *Scripted) Default(step Step) *Scripted {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = step
	return s
}

// WithModel sets the name reported by Model() (the default model), which
// requests with an empty Model are recorded under.
func (s *Scripted) WithModel(model string) *Scripted {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.model = model
	return s
}

// Model is the default model name (see WithModel).
func (s *Scripted) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Chat answers req from the script.
func (s *Scripted) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if req.Model == "" {
		req.Model = s.model
	}
	s.requests = append(s.requests, cloneRequest(req))
	n := len(s.requests)
	var step Step
	if q := s.byModel[req.Model]; len(q) > 0 {
		step, s.byModel[req.Model] = q[0], q[1:]
	} else if len(s.steps) > 0 {
		step, s.steps = s.steps[0], s.steps[1:]
	} else {
		step = s.def
	}
	s.mu.Unlock()
	if step == nil {
		last := ""
		if len(req.Messages) > 0 {
			last = req.Messages[len(req.Messages)-1].Content
		}
		if len(last) > 80 {
			last = last[:80] + "…"
		}
		return nil, fmt.Errorf("llmtest: script exhausted at call %d (model %q, last message %q)", n, req.Model, strings.TrimSpace(last))
	}
	return step(req)
}

// Requests returns copies of all requests received, in arrival order.
func (s *Scripted) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]llm.Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = cloneRequest(r)
	}
	return out
}

// Calls returns the number of requests received.
func (s *Scripted) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Remaining returns the number of unconsumed shared and per-model steps.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.steps)
	for _, q := range s.byModel {
		n += len(q)
	}
	return n
}

func cloneRequest(r llm.Request) llm.Request {
	c := r
	c.Messages = make([]llm.Message, len(r.Messages))
	for i, m := range r.Messages {
		m.ToolCalls = append([]llm.ToolCall(nil), m.ToolCalls...)
		c.Messages[i] = m
	}
	c.Tools = append([]llm.Tool(nil), r.Tools...)
	if r.Temperature != nil {
		t := *r.Temperature
		c.Temperature = &t
	}
	if r.TopP != nil {
		p := *r.TopP
		c.TopP = &p
	}
	if r.Seed != nil {
		n := *r.Seed
		c.Seed = &n
	}
	c.Stop = append([]string(nil), r.Stop...)
	return c
}
