package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

const testKey = "sk-test-SECRET-0123456789abcdef"

func newClient(t *testing.T, srv *llmtest.Server, mod func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{
		BaseURL:        srv.URL(),
		APIKey:         testKey,
		Model:          "gpt-4o-mini",
		EmbeddingModel: "text-embedding-3-small",
		RetryBaseDelay: time.Millisecond,
		RetryMaxDelay:  5 * time.Millisecond,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	require.NoError(t, err)
	return c
}

func userReq(s string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: s}}}
}

func TestChatBasics(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue("gpt-4o-mini", llmtest.Reply{Content: "hello", Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 3, CachedTokens: 8}})
	temp := float32(0)
	c := newClient(t, srv, func(c *llm.Config) { c.Temperature = &temp; c.MaxOutputTokens = 77 })

	resp, err := c.Chat(context.Background(), userReq("hi"))
	require.NoError(t, err)
	assert.Equal(t, "hello", resp.Content)
	assert.Equal(t, "gpt-4o-mini", resp.Model)
	assert.Equal(t, "stop", resp.FinishReason)
	assert.Equal(t, llm.Usage{PromptTokens: 12, CompletionTokens: 3, CachedTokens: 8}, resp.Usage)

	calls := srv.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "/v1/chat/completions", calls[0].Path)
	assert.Equal(t, "Bearer "+testKey, calls[0].Header.Get("Authorization"))
	assert.Equal(t, 77, calls[0].MaxTokens)
	require.NotNil(t, calls[0].Temperature, "temperature 0 must be sent, not omitted")
	assert.InDelta(t, 0, *calls[0].Temperature, 1e-6)
	assert.Equal(t, []llm.Message{{Role: "user", Content: "hi"}}, calls[0].Messages)
}

func TestChatToolCalls(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue("", llmtest.ToolCallReply(llm.ToolCall{ID: "c1", Name: "lookup", Arguments: `{"q":"x"}`}))
	c := newClient(t, srv, nil)
	req := llm.Request{
		Model: "gpt-4.1",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "sys"},
			{Role: llm.RoleUser, Content: "find x"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c0", Name: "lookup", Arguments: `{"q":"w"}`}}},
			{Role: llm.RoleTool, ToolCallID: "c0", Content: "w=1"},
		},
		Tools: []llm.Tool{
			{Name: "lookup", Description: "look up", Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		},
	}
	resp, err := c.Chat(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "tool_calls", resp.FinishReason)
	assert.Equal(t, []llm.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"q":"x"}`}}, resp.ToolCalls)
	call := srv.Calls()[0]
	assert.Equal(t, "gpt-4.1", call.Model)
	assert.Equal(t, req.Messages, call.Messages)
	require.Len(t, call.Tools, 1)
	assert.Equal(t, "lookup", call.Tools[0].Name)
	assert.JSONEq(t, string(req.Tools[0].Parameters), string(call.Tools[0].Parameters))
}

func TestReasoningModelUsesMaxCompletionTokens(t *testing.T) {
	srv := llmtest.NewServer(t)
	temp := float32(0.3)
	c := newClient(t, srv, func(c *llm.Config) { c.Temperature = &temp })
	_, err := c.Chat(
		context.Background(),
		llm.Request{Model: "o4-mini", MaxTokens: 50, Messages: []llm.Message{{Role: "user", Content: "x"}}},
	)
	require.NoError(t, err)
	call := srv.Calls()[0]
	assert.Contains(t, string(call.Body), `"max_completion_tokens":50`)
	assert.NotContains(t, string(call.Body), `"max_tokens"`)
	assert.Nil(t, call.Temperature, "reasoning models take only the default temperature")
}

// TestChatSamplingParams: top_p, seed and stop reach the upstream in the
// OpenAI wire format; top_p 0 and seed 0 are sent, not omitted; reasoning
// models get seed and stop but not top_p (they take only the default).
func TestChatSamplingParams(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, nil)
	top, seed := float32(0.5), 42
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}, TopP: &top, Seed: &seed, Stop: []string{"END", "\n\n"}}
	_, err := c.Chat(context.Background(), req)
	require.NoError(t, err)
	call := srv.Calls()[0]
	require.NotNil(t, call.TopP)
	assert.InDelta(t, 0.5, *call.TopP, 1e-6)
	require.NotNil(t, call.Seed)
	assert.Equal(t, 42, *call.Seed)
	assert.Equal(t, []string{"END", "\n\n"}, call.Stop)

	zero, zeroSeed := float32(0), 0
	_, err = c.Chat(context.Background(), llm.Request{Messages: req.Messages, TopP: &zero, Seed: &zeroSeed})
	require.NoError(t, err)
	call = srv.Calls()[1]
	require.NotNil(t, call.TopP, "top_p 0 must be sent, not omitted")
	assert.InDelta(t, 0, *call.TopP, 1e-6)
	require.NotNil(t, call.Seed, "seed 0 must be sent")
	assert.Equal(t, 0, *call.Seed)
	assert.Nil(t, call.Stop)

	req.Model = "o4-mini"
	_, err = c.Chat(context.Background(), req)
	require.NoError(t, err)
	call = srv.Calls()[2]
	assert.Nil(t, call.TopP, "reasoning models take only the default top_p")
	require.NotNil(t, call.Seed)
	assert.Equal(t, []string{"END", "\n\n"}, call.Stop)
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		replies   []llmtest.Reply
		wantCalls int
		wantErr   llm.Kind
	}{
		{"500 then ok", []llmtest.Reply{llmtest.ServerError(), llmtest.ServerError(), llmtest.Text("ok")}, 3, llm.KindUnknown},
		{
			"502 non-json then ok",
			[]llmtest.Reply{{Status: 502, RawBody: "<html>bad gateway</html>"}, llmtest.Text("ok")},
			2,
			llm.KindUnknown,
		},
		{"429 then ok", []llmtest.Reply{llmtest.RateLimited(""), llmtest.Text("ok")}, 2, llm.KindUnknown},
		{"500 forever", []llmtest.Reply{llmtest.ServerError(), llmtest.ServerError(), llmtest.ServerError()}, 3, llm.KindTransient},
		{
			"400 not retried",
			[]llmtest.Reply{llmtest.ErrorReply(400, "invalid_value", "bad param"), llmtest.Text("ok")},
			1,
			llm.KindBadRequest,
		},
		{"401 not retried", []llmtest.Reply{llmtest.ErrorReply(401, "invalid_api_key", "no"), llmtest.Text("ok")}, 1, llm.KindAuth},
		{"403 not retried", []llmtest.Reply{llmtest.ErrorReply(403, "", "forbidden"), llmtest.Text("ok")}, 1, llm.KindAuth},
		{
			"404 not retried",
			[]llmtest.Reply{llmtest.ErrorReply(404, "model_not_found", "no such model"), llmtest.Text("ok")},
			1,
			llm.KindBadRequest,
		},
		{
			"insufficient quota not retried",
			[]llmtest.Reply{llmtest.ErrorReply(429, "insufficient_quota", "You exceeded your current quota"), llmtest.Text("ok")},
			1,
			llm.KindAuth,
		},
		{"context length not retried", []llmtest.Reply{llmtest.ContextLengthExceeded(), llmtest.Text("ok")}, 1, llm.KindContextLength},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue("", tc.replies...)
			c := newClient(t, srv, func(c *llm.Config) { c.MaxRetries = 2 })
			resp, err := c.Chat(context.Background(), userReq("q"))
			assert.Equal(t, tc.wantCalls, srv.Count())
			if tc.wantErr == llm.KindUnknown {
				require.NoError(t, err)
				assert.Equal(t, "ok", resp.Content)
				return
			}
			require.Error(t, err)
			var le *llm.Error
			require.True(t, errors.As(err, &le), "want *llm.Error, got %T", err)
			assert.Equal(t, tc.wantErr, le.Kind, "error: %v", err)
			assert.NotContains(t, err.Error(), testKey)
		})
	}
}

func TestRetryAfterOnFinalError(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue("", llmtest.RateLimited("7"))
	c := newClient(t, srv, func(c *llm.Config) { c.MaxRetries = -1 })
	_, err := c.Chat(context.Background(), userReq("q"))
	var le *llm.Error
	require.ErrorAs(t, err, &le)
	assert.Equal(t, llm.KindRateLimit, le.Kind)
	assert.Equal(t, 429, le.StatusCode)
	assert.Equal(t, 7*time.Second, le.RetryAfter)
	assert.Equal(t, 1, srv.Count())
}

// attemptCounter counts the HTTP attempts the client makes (whether or not
// the server received them), so tests need not race a timer against the
// server's bookkeeping.
type attemptCounter struct {
	mu sync.Mutex
	n  int
}

func (a *attemptCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	a.n++
	a.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (a *attemptCounter) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// hold is a reply that never comes: the handler blocks until the client
// gives up on the request (its per-attempt timeout).
var hold = llmtest.Reply{Content: "never sent", Delay: time.Hour}

func TestTimeoutRetried(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue("", hold, llmtest.Text("fast"))
	var att attemptCounter
	// The timeout only has to end the held attempt; it is long enough that
	// the retry's local round trip finishes within it on a loaded machine.
	c := newClient(t, srv, func(c *llm.Config) {
		c.Timeout = time.Second
		c.HTTPClient = &http.Client{Transport: &att}
	})
	resp, err := c.Chat(context.Background(), userReq("q"))
	require.NoError(t, err)
	assert.Equal(t, "fast", resp.Content)
	assert.Equal(t, 2, att.count())
	assert.Equal(t, 2, srv.Count())
}

func TestTimeoutClassified(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(llmtest.Call) llmtest.Reply { return hold })
	var att attemptCounter
	// Every attempt is held until its timeout: how fast the timeout fires
	// does not matter, so it can be short.
	c := newClient(t, srv, func(c *llm.Config) {
		c.Timeout = 50 * time.Millisecond
		c.MaxRetries = 1
		c.HTTPClient = &http.Client{Transport: &att}
	})
	_, err := c.Chat(context.Background(), userReq("q"))
	assert.Equal(t, llm.KindTransient, llm.KindOf(err), "err: %v", err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 2, att.count(), "one retry after the timed-out attempt")
}

func TestConnectionErrorRetriedThenTransient(t *testing.T) {
	srv := llmtest.NewServer(t)
	url := srv.URL()
	srv.Close()
	c := newClient(t, srv, func(c *llm.Config) { c.BaseURL = url; c.MaxRetries = 2 })
	_, err := c.Chat(context.Background(), userReq("q"))
	assert.Equal(t, llm.KindTransient, llm.KindOf(err), "err: %v", err)
}

func TestCallerCancelNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(llmtest.Call) llmtest.Reply { return llmtest.Reply{Content: "slow", Delay: 5 * time.Second} })
	c := newClient(t, srv, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, userReq("q"))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 1, srv.Count())
}

func TestContextLengthClassified(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
	}{
		{"openai code", llmtest.ContextLengthExceeded()},
		{
			"vllm",
			llmtest.ErrorReply(
				400,
				"",
				"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion).",
			),
		},
		{
			"llama.cpp",
			llmtest.Reply{
				Status:  400,
				RawBody: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`,
			},
		},
		{
			"llama.cpp 500",
			llmtest.ErrorReply(500, "", "input is too large to process. increase the physical batch size; context window exceeded"),
		},
		{"ollama", llmtest.Reply{Status: 400, RawBody: `{"error":"prompt is too long: too many tokens"}`}},
		{"413", llmtest.Reply{Status: 413, RawBody: `request entity too large`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue("", tc.reply, llmtest.Text("should not be reached"))
			c := newClient(t, srv, nil)
			_, err := c.Chat(context.Background(), userReq("q"))
			var le *llm.Error
			require.ErrorAs(t, err, &le)
			assert.Equal(t, llm.KindContextLength, le.Kind, "err: %v", err)
			assert.Equal(t, 1, srv.Count())
		})
	}
}

// The key must not appear in any error string, whatever the failure.
func TestKeyAbsentFromErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		kind  llm.Kind
	}{
		{"auth echoes key", llmtest.Reply{}, llm.KindAuth}, // RequireKey with a different key
		{"rate limit", llmtest.ErrorReply(429, "rate_limit_exceeded", "slow down "+testKey), llm.KindRateLimit},
		{"transient", llmtest.ErrorReply(503, "", "overloaded, key="+testKey), llm.KindTransient},
		{"bad request", llmtest.ErrorReply(400, "", "bad Authorization: Bearer "+testKey), llm.KindBadRequest},
		{"context length", llmtest.ErrorReply(400, "context_length_exceeded", "too long for "+testKey), llm.KindContextLength},
		{"raw body", llmtest.Reply{Status: 500, RawBody: "proxy error for key " + testKey}, llm.KindTransient},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			if tc.name == "auth echoes key" {
				srv.RequireKey("sk-the-right-one")
			} else {
				srv.Enqueue("", tc.reply, tc.reply, tc.reply)
			}
			c := newClient(t, srv, func(c *llm.Config) { c.MaxRetries = -1 })
			_, err := c.Chat(context.Background(), userReq("q"))
			require.Error(t, err)
			assert.Equal(t, tc.kind, llm.KindOf(err))
			// Every layer of the chain, and every formatting of it.
			for e := err; e != nil; e = errors.Unwrap(e) {
				assert.NotContains(t, e.Error(), testKey)
				assert.NotContains(t, e.Error(), "SECRET-0123")
			}
			assert.NotContains(t, fmt.Sprintf("%v %+v %#v", err, err, err), "SECRET-0123")
		})
	}
	// Budget and replay-miss errors never see the key at all, and the
	// config's String redacts it.
	cfg := llm.Config{APIKey: testKey, BaseURL: "http://x/v1", Model: "m"}
	assert.NotContains(t, cfg.String(), testKey)
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, &cfg), "SECRET")
	_, err := llm.New(llm.Config{APIKey: testKey, BaseURL: "ftp://" + testKey})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "SECRET")
}

func TestConcurrencyLimit(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Content: "ok", Delay: 2 * time.Millisecond}
	})
	const limit = 5
	c := newClient(t, srv, func(c *llm.Config) { c.MaxConcurrency = limit })
	var wg sync.WaitGroup
	errs := make(chan error, 250)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 0 {
				_, err := c.Embed(context.Background(), []string{fmt.Sprint("text ", i)})
				errs <- err
				return
			}
			_, err := c.Chat(context.Background(), userReq(fmt.Sprint("q", i)))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 200, srv.Count())
	assert.LessOrEqual(t, srv.MaxInFlight(), limit)
	assert.Greater(t, srv.MaxInFlight(), 1, "calls should run in parallel")
}

func TestDefaultConcurrencyLimit(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Content: "ok", Delay: 5 * time.Millisecond} })
	c := newClient(t, srv, nil)
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Chat(context.Background(), userReq(fmt.Sprint("q", i)))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, srv.MaxInFlight(), llm.DefaultMaxConcurrency)
}

func TestEmbedBatchesInOrder(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, nil)
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = fmt.Sprintf("document number %d about topic %d", i, i%7)
	}
	vecs, err := c.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, 1000)
	for i, v := range vecs {
		require.Equal(t, llmtest.HashVector(texts[i], 16), v, "vector %d out of order", i)
	}
	calls := srv.Calls()
	require.Len(t, calls, 4)
	var sizes []int
	seen := map[string]bool{}
	for _, call := range calls {
		assert.Equal(t, "/v1/embeddings", call.Path)
		assert.Equal(t, "text-embedding-3-small", call.Model)
		sizes = append(sizes, len(call.Inputs))
		for _, in := range call.Inputs {
			seen[in] = true
		}
	}
	assert.ElementsMatch(t, []int{256, 256, 256, 232}, sizes)
	assert.Len(t, seen, 1000)

	// Cached: embedding the same texts again sends nothing.
	again, err := c.Embed(context.Background(), texts[:10])
	require.NoError(t, err)
	assert.Equal(t, vecs[:10], again)
	assert.Equal(t, 4, srv.Count())
}

func TestEmbedDedupAndErrors(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, func(c *llm.Config) { c.EmbedBatchSize = 2 })
	vecs, err := c.Embed(context.Background(), []string{"a", "b", "a", "a", "c"})
	require.NoError(t, err)
	assert.Equal(t, vecs[0], vecs[2])
	assert.Equal(t, vecs[0], vecs[3])
	assert.NotEqual(t, vecs[0], vecs[1])
	total := 0
	for _, call := range srv.Calls() {
		total += len(call.Inputs)
	}
	assert.Equal(t, 3, total, "duplicates are sent once")

	srv.Enqueue("text-embedding-3-small", llmtest.ErrorReply(400, "", "input too weird"))
	_, err = c.Embed(context.Background(), []string{"x"})
	assert.Equal(t, llm.KindBadRequest, llm.KindOf(err))

	noEmb := newClient(t, srv, func(c *llm.Config) { c.EmbeddingModel = "" })
	_, err = noEmb.Embed(context.Background(), []string{"x"})
	assert.ErrorIs(t, err, llm.ErrNoModel)
}

func TestEmbedDiskCache(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(t)
	c1 := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir })
	v1, err := c1.Embed(context.Background(), []string{"alpha", "beta"})
	require.NoError(t, err)
	assert.Equal(t, 1, srv.Count())

	// A new client (empty memory cache) finds the vectors on disk.
	c2 := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir })
	v2, err := c2.Embed(context.Background(), []string{"beta", "alpha"})
	require.NoError(t, err)
	assert.Equal(t, 1, srv.Count())
	assert.Equal(t, v1[0], v2[1])
	assert.Equal(t, v1[1], v2[0])

	// Another model is another cache entry.
	c3 := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir; c.EmbeddingModel = "other" })
	_, err = c3.Embed(context.Background(), []string{"alpha"})
	require.NoError(t, err)
	assert.Equal(t, 2, srv.Count())

	// No temp files left behind.
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		assert.False(t, strings.HasPrefix(info.Name(), ".tmp-"), p)
		return nil
	})
	require.NoError(t, err)
}

func TestEmbedLedger(t *testing.T) {
	srv := llmtest.NewServer(t)
	l := llm.NewLedger(llm.LedgerConfig{})
	c := newClient(t, srv, func(c *llm.Config) { c.EmbedLedger = l; c.EmbedBatchSize = 2 })
	_, err := c.Embed(context.Background(), []string{"one two", "three", "four five six"})
	require.NoError(t, err)
	tot := l.ByModel()["text-embedding-3-small"]
	assert.Equal(t, 2, tot.Calls)
	want := llm.CountTokens("one two") + llm.CountTokens("three") + llm.CountTokens("four five six")
	assert.Equal(t, want, tot.PromptTokens)
	assert.True(t, tot.CostKnown)
}

// fakeClock is a clock whose sleeps return at once, advancing it; it
// records every sleep.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
}

func newFakeClock(c *llm.Client) *fakeClock {
	fc := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	llm.SetClock(c, fc.now, fc.sleep)
	return fc
}

func (fc *fakeClock) now() time.Time {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.t
}

func (fc *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.sleeps = append(fc.sleeps, d)
	fc.t = fc.t.Add(d)
	return nil
}

func (fc *fakeClock) advance(d time.Duration) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.t = fc.t.Add(d)
}

func (fc *fakeClock) slept() []time.Duration {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]time.Duration(nil), fc.sleeps...)
}

func TestRequestsPerMinute(t *testing.T) {
	tests := []struct {
		name       string
		rpm, slots int
		calls      int
		advance    time.Duration // clock moved on before the last call
		wantSleeps []time.Duration
	}{
		// 600 rpm = one request per 100ms; one slot = a burst of 1.
		{
			"steady rate",
			600,
			1,
			5,
			0,
			[]time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond},
		},
		// A burst of one request per slot goes at once, then the rate.
		{"burst of slots", 60, 3, 5, 0, []time.Duration{time.Second, time.Second}},
		// Idle time refills the budget.
		{"idle refills", 60, 1, 2, time.Second, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			c := newClient(t, srv, func(c *llm.Config) { c.RequestsPerMinute = tc.rpm; c.MaxConcurrency = tc.slots })
			fc := newFakeClock(c)
			for i := range tc.calls {
				if i == tc.calls-1 {
					fc.advance(tc.advance)
				}
				_, err := c.Chat(context.Background(), userReq(fmt.Sprint(i)))
				require.NoError(t, err)
			}
			assert.Equal(t, tc.calls, srv.Count())
			assert.Equal(t, tc.wantSleeps, fc.slept())
		})
	}
}

func TestNoModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, func(c *llm.Config) { c.Model = "" })
	_, err := c.Chat(context.Background(), userReq("q"))
	assert.ErrorIs(t, err, llm.ErrNoModel)
	assert.Equal(t, 0, srv.Count())
}

func TestRetryAfterTooLongFails(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue("", llmtest.RateLimited("3600"), llmtest.Text("ok"))
	c := newClient(t, srv, nil)
	_, err := c.Chat(context.Background(), userReq("q"))
	var le *llm.Error
	require.ErrorAs(t, err, &le)
	assert.Equal(t, time.Hour, le.RetryAfter)
	assert.Equal(t, 1, srv.Count())
}

func TestTokensPerMinute(t *testing.T) {
	srv := llmtest.NewServer(t)
	// 6000 tpm = 100 tokens/s with a burst of 6000: a ~5000-token call
	// passes at once, the second waits for the tokens it lacks.
	c := newClient(t, srv, func(c *llm.Config) { c.TokensPerMinute = 6000; c.MaxOutputTokens = 100 })
	fc := newFakeClock(c)
	big := userReq(strings.Repeat("word ", 4900))
	n := llm.CountRequestTokens(big) + 100 // prompt + max output tokens
	require.Less(t, n, 6000)
	_, err := c.Chat(context.Background(), big)
	require.NoError(t, err)
	assert.Empty(t, fc.slept())

	// A wait past the caller's deadline fails at once, sends nothing and
	// takes no budget.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Chat(ctx, userReq(strings.Repeat("word ", 5900)))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, llm.ErrRateLimitWait)
	assert.Equal(t, llm.KindRateLimit, llm.KindOf(err))
	assert.ErrorContains(t, err, "tokens-per-minute")
	assert.Empty(t, fc.slept())
	assert.Equal(t, 1, srv.Count())

	_, err = c.Chat(context.Background(), big)
	require.NoError(t, err)
	want := time.Duration(float64(2*n-6000) / 100 * float64(time.Second))
	require.Len(t, fc.slept(), 1)
	assert.InDelta(t, want, fc.slept()[0], float64(time.Millisecond), "waits for the %d missing tokens at 100/s", 2*n-6000)
	assert.Equal(t, 2, srv.Count())

	// A call larger than the whole minute's budget waits for all of it
	// rather than never going.
	_, err = c.Chat(context.Background(), userReq(strings.Repeat("word ", 7000)))
	require.NoError(t, err)
	assert.Equal(t, 3, srv.Count())
}

// TestRetryWaits checks the waits between attempts: the server's
// Retry-After when given, else exponential backoff with jitter.
func TestRetryWaits(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue("", llmtest.RateLimited("3"), llmtest.ServerError(), llmtest.ServerError(), llmtest.Text("ok"))
	c := newClient(t, srv, func(c *llm.Config) {
		c.RetryBaseDelay = time.Second
		c.RetryMaxDelay = time.Minute
	})
	fc := newFakeClock(c)
	resp, err := c.Chat(context.Background(), userReq("q"))
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Content)
	assert.Equal(t, 4, srv.Count())
	sleeps := fc.slept()
	require.Len(t, sleeps, 3)
	assert.Equal(t, 3*time.Second, sleeps[0], "Retry-After: 3")
	// Attempt k (0-based) waits base*2^k with jitter in [1/2, 3/2).
	assert.GreaterOrEqual(t, sleeps[1], time.Second)
	assert.Less(t, sleeps[1], 3*time.Second)
	assert.GreaterOrEqual(t, sleeps[2], 2*time.Second)
	assert.Less(t, sleeps[2], 6*time.Second)
}

// TestUnreachableEndpoint: a client whose endpoint has never answered
// fails at once when nothing listens there (no backoff: a wrong --base-url
// is reported in milliseconds, not seconds); once the endpoint has
// answered, a refused connection is retried as a restart would need.
func TestUnreachableEndpoint(t *testing.T) {
	attempts := 0
	count := func(c *llm.Config) {
		c.MaxRetries = 3
		c.OnAttemptError = func(error, bool) { attempts++ }
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now

	cfg := llm.Config{
		BaseURL:        "http://" + addr + "/v1",
		APIKey:         testKey,
		Model:          "m",
		RetryBaseDelay: time.Millisecond,
		RetryMaxDelay:  time.Millisecond,
	}
	count(&cfg)
	c, err := llm.New(cfg)
	require.NoError(t, err)
	_, err = c.Chat(context.Background(), userReq("q"))
	require.Error(t, err)
	assert.ErrorIs(t, err, llm.ErrUnreachable)
	assert.Equal(t, llm.KindTransient, llm.KindOf(err))
	assert.Equal(t, 1, attempts, "a never-answered endpoint is not retried")

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(
			w,
			`{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`,
		)
	}))
	cfg.BaseURL = srv.URL + "/v1"
	c, err = llm.New(cfg)
	require.NoError(t, err)
	resp, err := c.Chat(context.Background(), userReq("q"))
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Content)
	srv.Close()
	attempts = 0
	_, err = c.Chat(context.Background(), userReq("q"))
	assert.ErrorIs(t, err, llm.ErrUnreachable)
	assert.Equal(t, 4, attempts, "an endpoint that answered before is retried (it may be restarting)")
}
