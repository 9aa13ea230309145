package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
)

func TestChatCompletionThroughOpenAIClient(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name     string
		messages []openai.ChatCompletionMessage
		rlm      any
		want     string
	}{
		{"text variable", []openai.ChatCompletionMessage{{Role: "user", Content: "len doc"}},
			map[string]any{"variables": map[string]any{"doc": "hello world"}}, "11"},
		{"earlier messages are the conversation", []openai.ChatCompletionMessage{
			{Role: "system", Content: "be brief"}, {Role: "user", Content: "first question"},
			{Role: "assistant", Content: "first answer"}, {Role: "user", Content: "conv"}},
			nil, "be brief|first question"},
		{"typed variable and declared outputs", []openai.ChatCompletionMessage{{Role: "user", Content: "typed"}},
			map[string]any{"variables": map[string]any{"data": map[string]any{"n": 41}}, "output": "answer:str, confidence:float"},
			`{"answer": "42", "confidence": 0.5}`},
		{"model rlm:MODEL and a sub-call", []openai.ChatCompletionMessage{{Role: "user", Content: "sub"}}, nil, "sub:hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := "rlm"
			if strings.HasPrefix(tt.name, "model rlm:") {
				model = "rlm:" + rootModel
			}
			resp, err := ts.client(tt.rlm).
				CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: model, Messages: tt.messages})
			require.NoError(t, err)
			require.Len(t, resp.Choices, 1)
			assert.Equal(t, tt.want, resp.Choices[0].Message.Content)
			assert.Equal(t, "assistant", resp.Choices[0].Message.Role)
			assert.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)
			assert.Equal(t, model, resp.Model)
			assert.Positive(t, resp.Usage.PromptTokens)
			assert.Equal(t, resp.Usage.PromptTokens+resp.Usage.CompletionTokens, resp.Usage.TotalTokens)
		})
	}
	// The "rlm" field of the response carries the run.
	code, _, body := ts.do(t, "POST", "/v1/chat/completions", chatBody("echo hi", nil))
	require.Equal(t, 200, code, string(body))
	var out struct {
		Choices []struct {
			Message struct{ Content string }
		}
		RLM rlmSummary
	}
	require.NoError(t, json.Unmarshal(body, &out))
	assert.Equal(t, "hi", out.Choices[0].Message.Content)
	assert.Equal(t, "submit", out.RLM.StopReason)
	assert.Equal(t, 1, out.RLM.Iterations)
	assert.NotEmpty(t, out.RLM.RunID)
	assert.False(t, out.RLM.Partial)
}

func TestChatCompletionStreaming(t *testing.T) {
	ts := newTestServer(t, nil)
	long := strings.Repeat("é", 400) // content in several deltas, cut on rune boundaries
	stream, err := ts.client(nil).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "rlm", Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "echo " + long}},
	})
	require.NoError(t, err)
	defer stream.Close()
	var content strings.Builder
	var finish openai.FinishReason
	var usage *openai.Usage
	chunks := 0
	for {
		c, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		chunks++
		if c.Usage != nil {
			usage = c.Usage
		}
		for _, ch := range c.Choices {
			content.WriteString(ch.Delta.Content)
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	assert.Equal(t, long, content.String())
	assert.Equal(t, openai.FinishReasonStop, finish)
	require.NotNil(t, usage)
	assert.Positive(t, usage.TotalTokens)
	assert.Greater(t, chunks, 4, "role, progress, several content deltas, finish, usage")

	// On the wire: progress in "rlm" before the content, then [DONE].
	body := chatBody("echo streamed", nil)
	body["stream"] = true
	code, hdr, raw := ts.do(t, "POST", "/v1/chat/completions", body)
	require.Equal(t, 200, code)
	assert.Equal(t, "text/event-stream", hdr.Get("Content-Type"))
	var types []string
	sawContent, done := false, false
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			continue
		}
		require.False(t, done, "nothing after [DONE]")
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct{ Content string }
			}
			RLM map[string]any `json:"rlm"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &c), line)
		assert.Equal(t, "chat.completion.chunk", c.Object)
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
			sawContent = true
			assert.Equal(t, "streamed", c.Choices[0].Delta.Content)
		} else if typ, ok := c.RLM["type"].(string); ok {
			assert.False(t, sawContent, "progress comes before the answer")
			types = append(types, typ)
		}
	}
	assert.True(t, done)
	assert.True(t, sawContent)
	assert.Subset(t, types, []string{"run_created", "run_start", "request", "exec", "submit", "run_end"})
}

func TestAuth(t *testing.T) {
	ts := newTestServer(t, nil)
	bad := openai.DefaultConfig("wrong-token")
	bad.BaseURL = ts.http.URL + "/v1"
	_, err := openai.NewClientWithConfig(bad).ListModels(context.Background())
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 401, apiErr.HTTPStatusCode)
	assert.Equal(t, "invalid_request_error", apiErr.Type)
	assert.Contains(t, apiErr.Message, "bearer token")

	models, err := ts.client(nil).ListModels(context.Background())
	require.NoError(t, err)
	var ids []string
	for _, m := range models.Models {
		ids = append(ids, m.ID)
	}
	assert.Equal(t, []string{"rlm", "rlm:" + rootModel, "rlm:" + subModel}, ids)

	// The probes need no token.
	for _, p := range []string{"/healthz", "/readyz"} {
		resp, err := ts.http.Client().Get(ts.http.URL + p)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 200, resp.StatusCode, p)
	}
	resp, err := ts.http.Client().Get(ts.http.URL + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 401, resp.StatusCode, "metrics need the token")
}

func TestListenRefusesNonLoopbackWithoutToken(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Token = "" })
	_, err := ts.s.Listen("0.0.0.0:0")
	require.ErrorIs(t, err, ErrInsecure)
	ln, err := ts.s.Listen("127.0.0.1:0")
	require.NoError(t, err)
	ln.Close()
	withToken := newTestServer(t, nil)
	ln, err = withToken.s.Listen("0.0.0.0:0")
	require.NoError(t, err)
	ln.Close()
}

func TestBadRequests(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 4096; c.Engine.MaxActiveTime = time.Minute })
	tests := []struct {
		name   string
		body   any
		status int
		param  string
		msg    string
	}{
		{"bad JSON", `{"model": "rlm", "messages": [`, 400, "", "malformed JSON"},
		{
			"unknown rlm field",
			chatBody("echo x", map[string]any{"variables": map[string]any{}, "max_iteration": 3}),
			400,
			"rlm.max_iteration",
			"unknown field",
		},
		{"mistyped rlm field", chatBody("echo x", map[string]any{"max_iterations": "many"}), 400, "rlm.max_iterations", "want int"},
		{
			"bad variable name",
			chatBody("echo x", map[string]any{"variables": map[string]any{"2doc": "x"}}),
			400,
			"rlm.variables.2doc",
			"invalid variable name",
		},
		{
			"dunder variable name",
			chatBody("echo x", map[string]any{"variables": map[string]any{"__x__": "x"}}),
			400,
			"rlm.variables.__x__",
			"Python's special names",
		},
		{
			"variable hiding a helper",
			chatBody("echo x", map[string]any{"variables": map[string]any{"search": "x"}}),
			400,
			"rlm.variables.search",
			"helper",
		},
		{"bad output schema", chatBody("echo x", map[string]any{"output": "answer:complex"}), 400, "rlm.output", "complex"},
		{"budget over the cap", chatBody("echo x", map[string]any{"max_iterations": 50}), 400, "rlm.max_iterations", "cap 4"},
		{"zero budget", chatBody("echo x", map[string]any{"max_tokens": 0}), 400, "rlm.max_tokens", "must be >= 1"},
		{"negative budget", chatBody("echo x", map[string]any{"max_llm_calls": -1}), 400, "rlm.max_llm_calls", "must be >= 1"},
		{"tiny timeout", chatBody("echo x", map[string]any{"timeout_seconds": 1e-12}), 400, "rlm.timeout_seconds", "at least 0.001"},
		{"zero timeout", chatBody("echo x", map[string]any{"timeout_seconds": 0}), 400, "rlm.timeout_seconds", "at least 0.001"},
		{
			"timeout over the cap",
			chatBody("echo x", map[string]any{"timeout_seconds": 61}),
			400,
			"rlm.timeout_seconds",
			"over the server's run timeout 1m0s",
		},
		{"zero cost", chatBody("echo x", map[string]any{"max_cost_usd": 0}), 400, "rlm.max_cost_usd", "must be > 0"},
		{"zero active time", chatBody("echo x", map[string]any{"max_active_seconds": 0}), 400, "rlm.max_active_seconds", "at least 0.001"},
		{
			"active time over the cap",
			chatBody("echo x", map[string]any{"max_active_seconds": 61}),
			400,
			"rlm.max_active_seconds",
			"over the server's cap 1m0s",
		},
		{
			"missing store key",
			chatBody("echo x", map[string]any{"variables": map[string]any{"doc": "store:nope"}}),
			400,
			"rlm.variables.doc",
			"not found",
		},
		{
			"no user message",
			map[string]any{"model": "rlm", "messages": []map[string]any{{"role": "system", "content": "x"}}},
			400,
			"messages",
			"no user message",
		},
		{
			"unknown model",
			map[string]any{"model": "gpt-4o", "messages": []map[string]any{{"role": "user", "content": "x"}}},
			404,
			"model",
			"does not exist",
		},
		{"body too large", chatBody(strings.Repeat("x", 5000), nil), 413, "", "over 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := ts.do(t, "POST", "/v1/chat/completions", tt.body)
			require.Equal(t, tt.status, code, string(body))
			var eb errorBody
			require.NoError(t, json.Unmarshal(body, &eb), string(body))
			if tt.param != "" {
				require.NotNil(t, eb.Error.Param, string(body))
				assert.Equal(t, tt.param, *eb.Error.Param)
			}
			assert.Contains(t, eb.Error.Message, tt.msg)
		})
	}
	assert.Zero(t, ts.up.Count(), "no bad request reached the upstream")
}

func TestShortTokenRefused(t *testing.T) {
	_, err := New(Config{Token: "fifteen-chars-x"})
	require.ErrorIs(t, err, ErrWeakToken)
	s, err := New(Config{Token: "sixteen-chars-xy"})
	require.NoError(t, err)
	s.Close()
}

// TestOpenAIParameters: the sampling parameters a client sets reach the
// root model's calls; the ones rlm cannot honour are refused with a 400
// naming them, never silently dropped (issue 27).
func TestOpenAIParameters(t *testing.T) {
	ts := newTestServer(t, nil)
	body := chatBody("echo hi", nil)
	body["temperature"] = 0.25
	body["max_completion_tokens"] = 77
	body["user"] = "end-user-1"
	code, _, raw := ts.do(t, "POST", "/v1/chat/completions", body)
	require.Equal(t, 200, code, string(raw))
	var root []llmtest.Call
	for _, c := range ts.up.Calls() {
		if c.Model == rootModel {
			root = append(root, c)
		}
	}
	require.NotEmpty(t, root)
	for _, c := range root {
		require.NotNil(t, c.Temperature)
		assert.InDelta(t, 0.25, *c.Temperature, 1e-6)
		assert.Equal(t, 77, c.MaxTokens)
	}

	for _, tt := range []struct {
		param string
		value any
	}{
		{"tools", []any{map[string]any{"type": "function", "function": map[string]any{"name": "f"}}}},
		{"tool_choice", "auto"},
		{"response_format.json_schema.schema", map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x"}}},
		{"logprobs", true},
		{"temperature", 3},
		{"max_tokens", 0},
	} {
		b := chatBody("echo hi", nil)
		b[strings.Split(tt.param, ".")[0]] = tt.value
		code, _, raw := ts.do(t, "POST", "/v1/chat/completions", b)
		assert.Equal(t, 400, code, "%s: %s", tt.param, raw)
		var e struct {
			Error struct{ Param, Message string }
		}
		require.NoError(t, json.Unmarshal(raw, &e), string(raw))
		assert.Equal(t, tt.param, e.Error.Param, string(raw))
	}
	// Defaults and nulls are fine.
	b := chatBody("echo hi", nil)
	b["response_format"] = map[string]any{"type": "text"}
	b["tools"] = nil
	b["logprobs"] = false
	code, _, raw = ts.do(t, "POST", "/v1/chat/completions", b)
	assert.Equal(t, 200, code, string(raw))
}

// TestStreamedFailureIsAnError: a streamed run that fails (here the
// upstream refuses the key) ends with an OpenAI-style error object in a
// data chunk, which the SDKs raise, not with an empty answer and a finish
// reason (issue 27).
func TestStreamedFailureIsAnError(t *testing.T) {
	bad := newTestServer(t, func(c *Config) { c.LLM.APIKey = canaryKey + "-wrong" })
	body := chatBody("echo x", nil)
	body["stream"] = true
	code, _, raw := bad.do(t, "POST", "/v1/chat/completions", body)
	require.Equal(t, 200, code, "the stream had started")
	var errChunk struct {
		Error struct{ Message, Type, Code string }
		RLM   map[string]any `json:"rlm"`
	}
	sawError, sawFinish := false, false
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || line == "[DONE]" {
			continue
		}
		if strings.Contains(line, `"error":{`) {
			require.NoError(t, json.Unmarshal([]byte(line), &errChunk))
			sawError = true
		}
		if strings.Contains(line, `"finish_reason":"`) {
			sawFinish = true
		}
	}
	require.True(t, sawError, "the stream ends with an error object: %s", raw)
	assert.False(t, sawFinish, "no finish reason dressing the failure up as an answer")
	assert.Equal(t, "run_failed", errChunk.Error.Code)
	assert.Contains(t, errChunk.Error.Message, "failed")
	assert.NotContains(t, string(raw), canaryKey, "no secret in the stream")
	assert.Equal(t, "model_error", errChunk.RLM["stop_reason"])
}

// TestStreamKeepAlive: a stream waiting on a slow model sends ": keep-alive"
// comments, so that a proxy's idle timeout does not cut it (issue 27).
func TestStreamKeepAlive(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 150*time.Millisecond), func(c *Config) { c.StreamKeepAlive = 40 * time.Millisecond })
	body := chatBody("echo slow", nil)
	body["stream"] = true
	code, _, raw := ts.do(t, "POST", "/v1/chat/completions", body)
	require.Equal(t, 200, code)
	assert.Contains(t, string(raw), "\n: keep-alive\n\n")
	assert.Contains(t, string(raw), "data: [DONE]")
}

// A chat completion answered when its run ends (no stream, no
// Idempotency-Key) runs on its request's goroutine: while the model is
// called, the goroutine running the job is the one serving the request.
// One with a key runs detached, on a goroutine of its own.
func TestChatCompletionRunsOnRequestGoroutine(t *testing.T) {
	var mu sync.Mutex
	var stacks []string
	up := llmtest.NewServer(t).RequireKey(canaryKey)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		buf := make([]byte, 1<<20)
		mu.Lock()
		stacks = append(stacks, string(buf[:runtime.Stack(buf, true)]))
		mu.Unlock()
		return rootReply(c)
	})
	ts := newTestServerOn(t, up, nil)
	jobGoroutine := func() string {
		mu.Lock()
		defer mu.Unlock()
		require.NotEmpty(t, stacks)
		for _, g := range strings.Split(stacks[len(stacks)-1], "\n\n") {
			if strings.Contains(g, "server.(*job).run(") {
				return g
			}
		}
		t.Fatal("no goroutine runs a job while the model is called")
		return ""
	}
	code, _, body := ts.do(t, "POST", "/v1/chat/completions", chatBody("echo hi", nil))
	require.Equal(t, 200, code, string(body))
	assert.Contains(t, jobGoroutine(), "server.(*Server).serveRun(", "the request's goroutine runs its run")

	code, _, body = ts.do(t, "POST", "/v1/chat/completions", chatBody("echo again", nil), "Idempotency-Key", "k-1")
	require.Equal(t, 200, code, string(body))
	assert.NotContains(t, jobGoroutine(), "server.(*Server).serveRun(", "a detached run has its own goroutine")
}
