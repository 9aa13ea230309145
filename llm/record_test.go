package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// run is a small "program" issuing concurrent chat and embedding calls,
// returning everything it observed, in a stable order.
func runProgram(t *testing.T, chat llm.ChatModel, emb llm.Embedder) []string {
	t.Helper()
	var (
		mu  sync.Mutex
		out []string
		wg  sync.WaitGroup
	)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := userReq(fmt.Sprintf("summarize chunk %d", i))
			if i%5 == 0 {
				req.Model = "gpt-4.1-mini"
			}
			resp, err := chat.Chat(context.Background(), req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out = append(out, fmt.Sprintf("%d error %v %v", i, llm.KindOf(err), err))
				return
			}
			out = append(out, fmt.Sprintf("%d %s %s %+v %v", i, resp.Model, resp.Content, resp.Usage, resp.ToolCalls))
		}()
	}
	wg.Wait()
	vecs, err := emb.Embed(context.Background(), []string{"alpha beta", "gamma", "alpha beta"})
	require.NoError(t, err)
	out = append(out, fmt.Sprint(vecs))
	sort.Strings(out)
	return out
}

func TestRecordReplay(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		last := c.Messages[len(c.Messages)-1].Content
		switch {
		case strings.HasSuffix(last, " 3"):
			return llmtest.ToolCallReply(llm.ToolCall{ID: "t", Name: "f", Arguments: "{}"})
		case strings.HasSuffix(last, " 7"):
			return llmtest.ContextLengthExceeded()
		}
		return llmtest.Text("answer to " + last)
	})
	c := newClient(t, srv, nil)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec, err := llm.NewRecorder(c, path)
	require.NoError(t, err)
	recorded := runProgram(t, rec, rec.Embedder(c))
	require.NoError(t, rec.Close())
	sent := srv.Count()

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), testKey)
	assert.NotContains(t, string(data), "SECRET")
	assert.Contains(t, string(data), `"context_length"`)

	rp, err := llm.OpenReplay(path)
	require.NoError(t, err)
	assert.Equal(t, "gpt-4o-mini", rp.Model())
	assert.True(t, rp.HasEmbeddings())
	replayed := runProgram(t, rp, rp)
	assert.Equal(t, recorded, replayed)
	assert.Equal(t, sent, srv.Count(), "replay is offline")

	// A client over the replay's embedding transport gives the same
	// vectors, and charges its ledger per batch like the recorded client.
	l := llm.NewLedger(llm.LedgerConfig{})
	rc, err := llm.New(llm.Config{BaseURL: "http://replay.invalid/v1", EmbeddingModel: "text-embedding-3-small", EmbedBatchSize: 1,
		MaxRetries: -1, EmbedLedger: l, HTTPClient: &http.Client{Transport: rp.EmbeddingTransport()}})
	require.NoError(t, err)
	vecs, err := rc.Embed(context.Background(), []string{"alpha beta", "gamma", "alpha beta"})
	require.NoError(t, err)
	assert.Equal(t, recorded[len(recorded)-1], fmt.Sprint(vecs))
	assert.Equal(t, 2, l.Totals().Calls)
	assert.Equal(t, llm.CountTokens("alpha beta")+llm.CountTokens("gamma"), l.Totals().PromptTokens)
	_, err = rc.Embed(context.Background(), []string{"not recorded"})
	assert.Equal(t, llm.KindReplayMiss, llm.KindOf(err), "err: %v", err)
	rc2, err := llm.New(llm.Config{BaseURL: "http://replay.invalid/v1", Model: "m", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: rp.EmbeddingTransport()}})
	require.NoError(t, err)
	_, err = rc2.Chat(context.Background(), userReq("q"))
	assert.Equal(t, llm.KindReplayMiss, llm.KindOf(err), "chat goes to the Replay itself, not its transport")
	assert.Equal(t, sent, srv.Count())

	meta, err := llm.ReadRecordingMeta(path)
	require.NoError(t, err)
	assert.Equal(t, llm.RecordingMeta{Model: "gpt-4o-mini", SubModel: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small"}, meta)
}

func TestReplayMiss(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	rec, err := llm.NewRecorder(llmtest.NewScripted(llmtest.Say("one")), path)
	require.NoError(t, err)
	_, err = rec.Chat(context.Background(), userReq("first question"))
	require.NoError(t, err)
	require.NoError(t, rec.Close())

	rp, err := llm.OpenReplay(path)
	require.NoError(t, err)
	resp, err := rp.Chat(context.Background(), userReq("first question"))
	require.NoError(t, err)
	assert.Equal(t, "one", resp.Content)

	req := userReq("a question nobody asked before, with many words after the twelfth word here")
	req.Model = "gpt-5"
	_, err = rp.Chat(context.Background(), req)
	require.Error(t, err)
	assert.Equal(t, llm.KindReplayMiss, llm.KindOf(err))
	msg := err.Error()
	assert.Contains(t, msg, "gpt-5")
	assert.Contains(t, msg, llm.RequestKey(req)[:12])
	assert.Contains(t, msg, "a question nobody asked before")
	assert.NotContains(t, msg, "twelfth word here")

	_, err = rp.Embed(context.Background(), []string{"never embedded"})
	assert.Equal(t, llm.KindReplayMiss, llm.KindOf(err))
	assert.ErrorContains(t, err, "never embedded")
}

func TestReplayRepeatedRequests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	rec, err := llm.NewRecorder(llmtest.NewScripted(llmtest.Say("a"), llmtest.Say("b")), path)
	require.NoError(t, err)
	for range 2 {
		_, err := rec.Chat(context.Background(), userReq("same"))
		require.NoError(t, err)
	}
	require.NoError(t, rec.Close())
	rp, err := llm.OpenReplay(path)
	require.NoError(t, err)
	var got []string
	for range 3 {
		resp, err := rp.Chat(context.Background(), userReq("same"))
		require.NoError(t, err)
		got = append(got, resp.Content)
	}
	assert.Equal(t, []string{"a", "b", "b"}, got, "recorded order, last answer repeats")
}

func TestRequestKey(t *testing.T) {
	temp := float32(0.5)
	base := llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "x"}}}
	variants := []llm.Request{
		{Model: "m2", Messages: base.Messages},
		{Model: "m", Messages: []llm.Message{{Role: "user", Content: "y"}}},
		{Model: "m", Messages: base.Messages, MaxTokens: 5},
		{Model: "m", Messages: base.Messages, Temperature: &temp},
		{Model: "m", Messages: base.Messages, Tools: []llm.Tool{{Name: "f"}}},
		{Model: "m", Messages: base.Messages, TopP: &temp},
		{Model: "m", Messages: base.Messages, Seed: new(int)},
		{Model: "m", Messages: base.Messages, Stop: []string{"x"}},
	}
	seen := map[string]bool{llm.RequestKey(base): true}
	for _, v := range variants {
		k := llm.RequestKey(v)
		assert.False(t, seen[k], "%+v collides", v)
		seen[k] = true
	}
	// Whitespace in a tool schema does not change the key.
	a := llm.Request{Model: "m", Tools: []llm.Tool{{Name: "f", Parameters: []byte(`{"type": "object"}`)}}}
	b := llm.Request{Model: "m", Tools: []llm.Tool{{Name: "f", Parameters: []byte(`{"type":"object"}`)}}}
	assert.Equal(t, llm.RequestKey(a), llm.RequestKey(b))
}

func TestOpenReplayErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := llm.OpenReplay(filepath.Join(dir, "missing"))
	assert.Error(t, err)
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{\"type\":\"chat\"}\nnot json\n"), 0o644))
	_, err = llm.OpenReplay(bad)
	assert.ErrorContains(t, err, "line 2")
}

func TestModelOf(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, func(c *llm.Config) { c.SubModel = "small" })
	path := filepath.Join(t.TempDir(), "r.jsonl")
	rec, err := llm.NewRecorder(c, path)
	require.NoError(t, err)
	require.NoError(t, rec.Close())
	rp, err := llm.OpenReplay(path)
	require.NoError(t, err)
	l := llm.NewLedger(llm.LedgerConfig{})
	for _, m := range []llm.ChatModel{c, rec, rp, llm.Metered(rec, l), llm.Metered(rp, l)} {
		assert.Equal(t, "gpt-4o-mini", llm.ModelOf(m))
		assert.Equal(t, "small", llm.SubModelOf(m))
	}
	s := llmtest.NewScripted().WithModel("x")
	assert.Equal(t, "x", llm.SubModelOf(s))
	assert.Equal(t, "", llm.ModelOf(llmtest.NewScripted()))
	assert.Equal(t, "a [REDACTED] b sk-abcd***", llm.Redact("a key-123456 b sk-abcdefghijkl", "key-123456"))
}

// TestRecorderCrash: re-recording over an existing recording replaces it
// only on Close; a run that dies before Close leaves the old recording
// intact and its own entries in FILE.partial, which replays (a torn last
// line is ignored).
func TestRecorderCrash(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl")
	ask := func(m llm.ChatModel, q string) (string, error) {
		resp, err := m.Chat(context.Background(), userReq(q))
		if err != nil {
			return "", err
		}
		return resp.Content, nil
	}

	rec, err := llm.NewRecorder(llmtest.NewScripted(llmtest.Say("old answer")), path)
	require.NoError(t, err)
	_, err = ask(rec, "q1")
	require.NoError(t, err)
	require.NoError(t, rec.Close())
	old, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NoFileExists(t, path+llm.PartialSuffix)

	// The second run records two answers, then "crashes" (no Close) while
	// writing a third entry.
	rec2, err := llm.NewRecorder(llmtest.NewScripted(llmtest.Say("new 1"), llmtest.Say("new 2")), path)
	require.NoError(t, err)
	_, err = ask(rec2, "q1")
	require.NoError(t, err)
	_, err = ask(rec2, "q2")
	require.NoError(t, err)
	f, err := os.OpenFile(path+llm.PartialSuffix, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"chat","key":"abc","resp`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	now, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, old, now, "the previous recording is intact")

	rp, err := llm.OpenReplay(path + llm.PartialSuffix)
	require.NoError(t, err)
	got, err := ask(rp, "q2")
	require.NoError(t, err)
	assert.Equal(t, "new 2", got)

	// A torn line that is not the last one is corruption, reported.
	require.NoError(t, os.WriteFile(path, append([]byte(`{"type":"chat","key":"abc","resp`+"\n"), old...), 0o644))
	_, err = llm.OpenReplay(path)
	assert.ErrorContains(t, err, "line 1")
}
