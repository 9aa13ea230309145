package llm_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// TestAppendRecorderResume: an append recording survives a torn last line;
// a Resumer answers each request from it as many times as it was recorded
// (identical requests in recorded order), then sends the rest live, and
// the live answers are appended to the same recording.
func TestAppendRecorderResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	first := llmtest.NewScripted(llmtest.Say("a1"), llmtest.Say("a2"), llmtest.Say("b1"))
	rec, err := llm.NewAppendRecorder(first, path)
	require.NoError(t, err)
	ctx := context.Background()
	for _, q := range []string{"a", "a", "b"} {
		_, err := rec.Chat(ctx, userReq(q))
		require.NoError(t, err)
	}
	// No Close: the process was killed, mid-way through another line.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"chat","key":"torn`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	rs, err := llm.OpenResume(path)
	require.NoError(t, err)
	assert.Equal(t, 3, rs.Recorded())
	live := llmtest.NewScripted(llmtest.Say("a3"), llmtest.Say("c1"))
	rec2, err := llm.NewAppendRecorder(live, path)
	require.NoError(t, err)
	chat, _ := rs.Continue(rec2, nil)
	var got []string
	for _, q := range []string{"b", "a", "a", "a", "c"} {
		resp, err := chat.Chat(ctx, userReq(q))
		require.NoError(t, err)
		got = append(got, resp.Content)
	}
	require.NoError(t, rec2.Close())
	assert.Equal(t, []string{"b1", "a1", "a2", "a3", "c1"}, got)
	assert.Equal(t, 2, live.Calls(), "only the unrecorded requests went live")
	replayed, sent := rs.Counts()
	assert.Equal(t, 3, replayed)
	assert.Equal(t, 2, sent)

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "torn")
	assert.Equal(t, 1, strings.Count(string(b), `"type":"meta"`), "one meta line")
	rp, err := llm.OpenReplay(path)
	require.NoError(t, err, "the recording stays a valid one")
	resp, err := rp.Chat(ctx, userReq("c"))
	require.NoError(t, err)
	assert.Equal(t, "c1", resp.Content)
}

// TestResumeRetriesTrailingFailure: a transient failure that stopped the
// run is sent again on resume; a gate error stops live requests.
func TestResumeRetriesTrailingFailure(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue("", llmtest.Text("ok"), llmtest.ServerError())
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", MaxRetries: -1})
	require.NoError(t, err)
	rec, err := llm.NewAppendRecorder(c, path)
	require.NoError(t, err)
	ctx := context.Background()
	_, err = rec.Chat(ctx, userReq("x"))
	require.NoError(t, err)
	_, err = rec.Chat(ctx, userReq("y"))
	require.Error(t, err)
	require.NoError(t, rec.Close())

	rs, err := llm.OpenResume(path)
	require.NoError(t, err)
	srv.Enqueue("", llmtest.Text("y-ok"))
	chat, _ := rs.Continue(c, nil)
	resp, err := chat.Chat(ctx, userReq("x"))
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Content)
	resp, err = chat.Chat(ctx, userReq("y"))
	require.NoError(t, err)
	assert.Equal(t, "y-ok", resp.Content)
	assert.Equal(t, 3, srv.Count())

	rs.SetGate(func(llm.Request) error { return assert.AnError })
	_, err = chat.Chat(ctx, userReq("z"))
	assert.ErrorIs(t, err, assert.AnError)
	assert.Equal(t, 3, srv.Count())
}

// TestResumeChargesReplayedEmbeddings: the embedding requests a Resumer
// answers from the recording are charged to the live client's ledger as
// they were when recorded (each request once, whatever the batching), and
// a ledger over budget refuses them as it refuses a live request.
func TestResumeChargesReplayedEmbeddings(t *testing.T) {
	srv := llmtest.NewServer(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	ctx := context.Background()
	texts := []string{"alpha beta", "gamma", "delta epsilon zeta", "alpha beta"}

	l1 := llm.NewLedger(llm.LedgerConfig{})
	c1 := newClient(t, srv, func(c *llm.Config) { c.EmbedLedger = l1; c.EmbedBatchSize = 2 })
	rec, err := llm.NewAppendRecorder(c1, path)
	require.NoError(t, err)
	emb := rec.Embedder(c1)
	want, err := emb.Embed(ctx, texts)
	require.NoError(t, err)
	_, err = emb.Embed(ctx, texts[1:2]) // cached: costs nothing
	require.NoError(t, err)
	require.NoError(t, rec.Close())
	require.Equal(t, 2, l1.Totals().Calls, "3 distinct texts in batches of 2")
	sent := len(srv.Calls())

	for _, tc := range []struct {
		name   string
		limits llm.Limits
		err    bool
	}{
		{"charged as recorded", llm.Limits{}, false},
		{"over budget", llm.Limits{MaxCalls: 1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := llm.OpenResume(path)
			require.NoError(t, err)
			l2 := llm.NewLedger(llm.LedgerConfig{Limits: tc.limits})
			c2 := newClient(t, srv, func(c *llm.Config) { c.EmbedLedger = l2 })
			_, emb2 := rs.Continue(c2, c2)
			got, err := emb2.Embed(ctx, texts)
			if tc.err {
				require.ErrorIs(t, err, llm.ErrBudgetExceeded)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, got)
			_, err = emb2.Embed(ctx, texts[1:2])
			require.NoError(t, err)
			assert.Equal(t, l1.Totals(), l2.Totals(), "the resume's ledger matches the recorded run's")
			assert.Len(t, srv.Calls(), sent, "nothing embedded again")
		})
	}
}

// TestRecorderTee: Tee receives the meta line at once and each answer's
// line before the answer is returned; when it fails, the call fails and
// its answer is not used.
func TestRecorderTee(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	rec, err := llm.NewAppendRecorder(llmtest.NewScripted(llmtest.Say("a1"), llmtest.Say("a2")), path)
	require.NoError(t, err)
	var got []string
	fail := false
	require.NoError(t, rec.Tee(func(line []byte) error {
		if fail {
			return assert.AnError
		}
		got = append(got, string(line))
		return nil
	}))
	resp, err := rec.Chat(context.Background(), userReq("a"))
	require.NoError(t, err)
	assert.Equal(t, "a1", resp.Content)
	fail = true
	resp, err = rec.Chat(context.Background(), userReq("b"))
	require.ErrorIs(t, err, assert.AnError)
	assert.Nil(t, resp)
	require.NoError(t, rec.Close())
	require.Len(t, got, 2)
	assert.Contains(t, got[0], `"type":"meta"`)
	assert.Contains(t, got[1], `"a1"`)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), got[0]+got[1]), "the copy holds the file's lines in order")
}
