package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

func user(s string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: s}}}
}

func TestScripted(t *testing.T) {
	boom := errors.New("boom")
	s := llmtest.NewScripted(
		llmtest.Say("first"),
		func(req llm.Request) (*llm.Response, error) {
			return &llm.Response{Content: "echo " + req.Messages[0].Content}, nil
		},
		llmtest.Fail(boom),
		llmtest.CallTools(llm.ToolCall{ID: "1", Name: "f", Arguments: "{}"}),
	).WithModel("root")
	s.OnModel("sub", llmtest.Say("from sub"))

	ctx := context.Background()
	r, err := s.Chat(ctx, user("a"))
	require.NoError(t, err)
	assert.Equal(t, "first", r.Content)
	assert.Equal(t, "root", r.Model)
	assert.Positive(t, r.Usage.PromptTokens)

	sub := user("s")
	sub.Model = "sub"
	r, err = s.Chat(ctx, sub)
	require.NoError(t, err)
	assert.Equal(t, "from sub", r.Content, "per-model steps first")

	r, err = s.Chat(ctx, user("b"))
	require.NoError(t, err)
	assert.Equal(t, "echo b", r.Content)

	_, err = s.Chat(ctx, user("c"))
	assert.ErrorIs(t, err, boom)

	r, err = s.Chat(ctx, user("d"))
	require.NoError(t, err)
	assert.Equal(t, "tool_calls", r.FinishReason)
	assert.Len(t, r.ToolCalls, 1)

	_, err = s.Chat(ctx, user("e, which overflows the script"))
	assert.ErrorContains(t, err, "script exhausted at call 6")
	assert.ErrorContains(t, err, "overflows the script")

	s.Default(llmtest.Say("default"))
	r, err = s.Chat(ctx, user("f"))
	require.NoError(t, err)
	assert.Equal(t, "default", r.Content)

	reqs := s.Requests()
	require.Len(t, reqs, 7)
	assert.Equal(t, "a", reqs[0].Messages[0].Content)
	assert.Equal(t, "root", reqs[0].Model, "empty model recorded as the default")
	assert.Equal(t, "sub", reqs[1].Model)
	assert.Equal(t, 7, s.Calls())
	assert.Equal(t, 0, s.Remaining())

	// Requests returns copies.
	reqs[0].Messages[0].Content = "mutated"
	assert.Equal(t, "a", s.Requests()[0].Messages[0].Content)
}

func TestScriptedConcurrent(t *testing.T) {
	s := llmtest.NewScripted().Default(llmtest.Say("ok"))
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Chat(context.Background(), user(fmt.Sprint(i)))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.Equal(t, 100, s.Calls())
}

func TestHashEmbedder(t *testing.T) {
	var e llmtest.HashEmbedder
	v, err := e.Embed(context.Background(), []string{
		"the cat sat on the mat",
		"The cat sat on a mat!",
		"quarterly revenue grew in europe",
		"the cat sat on the mat",
	})
	require.NoError(t, err)
	require.Len(t, v, 4)
	assert.Len(t, v[0], llmtest.DefaultDim)
	assert.Equal(t, v[0], v[3], "deterministic")
	similar := llmtest.Cosine(v[0], v[1])
	different := llmtest.Cosine(v[0], v[2])
	assert.Greater(t, similar, 0.6)
	assert.Greater(t, similar, different+0.3)
	assert.InDelta(t, 1.0, llmtest.Cosine(v[0], v[0]), 1e-6)
	assert.Equal(t, 1, e.Calls())
	assert.Equal(t, 4, e.Texts())

	e2 := llmtest.HashEmbedder{Dim: 8}
	v2, err := e2.Embed(context.Background(), []string{""})
	require.NoError(t, err)
	assert.Len(t, v2[0], 8)
}

func post(t *testing.T, url, body string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

func TestServerWireFormat(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		"m",
		llmtest.RateLimited("2"),
		llmtest.Reply{Content: "hi", Usage: &llm.Usage{PromptTokens: 5, CompletionTokens: 1, CachedTokens: 3}},
	)
	chat := srv.URL() + "/chat/completions"

	code, hdr, body := post(t, chat, `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	assert.Equal(t, 429, code)
	assert.Equal(t, "2", hdr.Get("Retry-After"))
	assert.JSONEq(
		t,
		`{"error":{"message":"Rate limit reached for requests","type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"}}`,
		body,
	)

	code, _, body = post(t, chat, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`)
	assert.Equal(t, 200, code)
	assert.Contains(t, body, `"prompt_tokens_details":{"cached_tokens":3}`)
	assert.Contains(t, body, `"content":"hi"`)
	assert.Equal(t, "x", srv.Calls()[1].Messages[0].Content, "content parts accepted")

	code, _, body = post(t, srv.URL()+"/embeddings", `{"model":"e","input":["a","b"]}`)
	assert.Equal(t, 200, code)
	assert.Contains(t, body, `"index":1`)

	code, _, _ = post(t, srv.URL()+"/nope", `{}`)
	assert.Equal(t, 404, code)
	code, _, _ = post(t, chat, `not json`)
	assert.Equal(t, 400, code)
	assert.Equal(t, 5, srv.Count())
}
