package llm_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// querySecret is a key passed the way some gateways take it: in the base
// URL's query string.
const querySecret = "QSECRET-0123456789"

// assertNoSecret checks every layer and formatting of err.
func assertNoSecret(t *testing.T, err error, secrets ...string) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		for _, s := range secrets {
			assert.NotContains(t, e.Error(), s)
		}
	}
	for _, s := range secrets {
		assert.NotContains(t, fmt.Sprintf("%v %+v %#v", err, err, err), s)
	}
}

func TestBaseURLQueryKeySentAndRedacted(t *testing.T) {
	srv := llmtest.NewServer(t)
	tests := []struct {
		name  string
		reply llmtest.Reply
		ok    bool
	}{
		{"success", llmtest.Text("fine"), true},
		{
			"error echoes the URL",
			llmtest.Reply{Status: 502, RawBody: "bad gateway for " + srv.URL() + "/chat/completions?api-key=" + querySecret},
			false,
		},
		{"error echoes the key", llmtest.ErrorReply(401, "invalid_api_key", "key "+querySecret+" is not valid"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			var query string
			srv.Enqueue("", llmtest.Reply{Handler: func(w http.ResponseWriter, r *http.Request, call llmtest.Call) {
				query = r.URL.RawQuery
				if tc.reply.RawBody != "" || tc.reply.Status >= 400 {
					status := max(tc.reply.Status, 200)
					body := tc.reply.RawBody
					if body == "" {
						body = fmt.Sprintf(`{"error":{"message":%q,"type":"x","code":%q}}`, tc.reply.ErrorMessage, tc.reply.ErrorCode)
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(status)
					fmt.Fprint(w, body)
					return
				}
				fmt.Fprintf(
					w,
					`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`,
					tc.reply.Content,
				)
			}})
			c := newClient(t, srv, func(c *llm.Config) {
				c.BaseURL = srv.URL() + "?api-key=" + querySecret
				c.MaxRetries = -1
			})
			resp, err := c.Chat(context.Background(), userReq("q"))
			calls := srv.Calls()
			require.Len(t, calls, 1)
			assert.Equal(t, "/v1/chat/completions", calls[0].Path, "the query must not swallow the path")
			assert.Equal(t, "api-key="+querySecret, query, "the base URL's query goes with every request")
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, "fine", resp.Content)
				return
			}
			require.Error(t, err)
			assertNoSecret(t, err, querySecret)
		})
	}

	// A connection error names the URL: its query is redacted.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/v1?api-key=" + querySecret
	dead.Close()
	c, err := llm.New(llm.Config{BaseURL: deadURL, Model: "m", MaxRetries: -1})
	require.NoError(t, err)
	_, err = c.Chat(context.Background(), userReq("q"))
	require.Error(t, err)
	assert.Equal(t, llm.KindTransient, llm.KindOf(err))
	assertNoSecret(t, err, querySecret)

	cfg := llm.Config{BaseURL: deadURL, APIKey: "plain-key-without-shape"}
	assert.ElementsMatch(t, []string{"plain-key-without-shape", querySecret}, cfg.Secrets())
	assert.NotContains(t, cfg.String(), querySecret)
}

func TestReplyEchoingKeyIsRedacted(t *testing.T) {
	const oddKey = "tok-CANARY-not-sk-shaped-42"
	srv := llmtest.NewServer(t)
	srv.Enqueue("", llmtest.Text("your key is "+oddKey+" and "+querySecret),
		llmtest.ToolCallReply(llm.ToolCall{Name: "f", Arguments: `{"k":"` + oddKey + `"}`}))
	c := newClient(t, srv, func(c *llm.Config) {
		c.APIKey = oddKey
		c.BaseURL = srv.URL() + "?token=" + querySecret
	})
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	rec, err := llm.NewRecorder(c, path)
	require.NoError(t, err)

	resp, err := rec.Chat(context.Background(), userReq("context holding "+oddKey))
	require.NoError(t, err)
	assert.Equal(t, "your key is [REDACTED] and [REDACTED]", resp.Content)
	resp, err = rec.Chat(context.Background(), userReq("again"))
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls, 1)
	assert.Equal(t, `{"k":"[REDACTED]"}`, resp.ToolCalls[0].Arguments)
	require.NoError(t, rec.Close())

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "CANARY", "neither the reply nor the request keeps the key")
	assert.NotContains(t, string(b), querySecret)
	// The recording still replays: keys hash the request as sent.
	rp, err := llm.OpenReplay(path)
	require.NoError(t, err)
	got, err := rp.Chat(context.Background(), userReq("context holding "+oddKey))
	require.NoError(t, err)
	assert.Equal(t, "your key is [REDACTED] and [REDACTED]", got.Content)
}

func TestErrorBodyRedactedBeforeCut(t *testing.T) {
	const oddKey = "tok-CANARY0123456789abcdef"
	tests := []struct {
		name   string
		secret string // what the body carries at the cut
		key    string // configured key
	}{
		{"configured key of any shape", oddKey, oddKey},
		{"bearer token not configured", "Bearer tok-CANARYzz0123456789", testKey},
		{"sk key not configured", "sk-CANARY0123456789abcdef", "other-key-1234"},
	}
	for _, tc := range tests {
		for _, at := range []int{480, 490, 495, 499} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, at), func(t *testing.T) {
				srv := llmtest.NewServer(t)
				body := strings.Repeat("x", at) + " " + tc.secret + " " + strings.Repeat("y", 100)
				srv.Enqueue("", llmtest.Reply{Status: 500, RawBody: body})
				c := newClient(t, srv, func(c *llm.Config) { c.APIKey = tc.key; c.MaxRetries = -1 })
				_, err := c.Chat(context.Background(), userReq("q"))
				require.Error(t, err)
				assertNoSecret(t, err, "CANARY")
				var le *llm.Error
				require.ErrorAs(t, err, &le)
				assert.LessOrEqual(t, len(le.Message), 503)
			})
		}
	}
}

// gzipJSON compresses a JSON body whose string field holds n bytes.
func gzipJSON(t *testing.T, prefix string, n int, suffix string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(prefix))
	require.NoError(t, err)
	chunk := bytes.Repeat([]byte("A"), 1<<16)
	for left := n; left > 0; left -= len(chunk) {
		_, err = zw.Write(chunk[:min(left, len(chunk))])
		require.NoError(t, err)
	}
	_, err = zw.Write([]byte(suffix))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func TestResponseBodyCapped(t *testing.T) {
	const limit = 1 << 20
	chat := gzipJSON(
		t,
		`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"`,
		8*limit,
		`"},"finish_reason":"stop"}]}`,
	)
	embed := gzipJSON(t, `{"object":"list","model":"e","data":[{"object":"embedding","index":0,"embedding":[0.1]}],"pad":"`, 8*limit, `"}`)
	plain := []byte(`{"error":{"message":"` + strings.Repeat("z", 2*limit) + `","type":"server_error"}}`)
	tests := []struct {
		name   string
		body   []byte
		gz     bool
		status int
		embed  bool
	}{
		{"chat gzip bomb", chat, true, 200, false},
		{"embeddings gzip bomb", embed, true, 200, true},
		{"error body with content length", plain, false, 500, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gz {
				assert.Less(t, len(tc.body), limit, "the wire size is under the limit")
			}
			srv := llmtest.NewServer(t)
			reply := llmtest.Reply{Handler: func(w http.ResponseWriter, r *http.Request, _ llmtest.Call) {
				w.Header().Set("Content-Type", "application/json")
				if tc.gz {
					w.Header().Set("Content-Encoding", "gzip")
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write(tc.body)
			}}
			srv.Enqueue("", reply, reply, reply).Enqueue("text-embedding-3-small", reply, reply, reply)
			c := newClient(t, srv, func(c *llm.Config) { c.MaxResponseBytes = limit })
			var err error
			if tc.embed {
				_, err = c.Embed(context.Background(), []string{"a"})
			} else {
				_, err = c.Chat(context.Background(), userReq("q"))
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, llm.ErrResponseTooLarge)
			assert.Contains(t, err.Error(), "limit")
			assert.Equal(t, 1, srv.Count(), "an oversized reply is not retried")
		})
	}
	// Under the limit, a compressed reply is read as before.
	srv := llmtest.NewServer(t)
	small := gzipJSON(
		t,
		`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"`,
		1000,
		`"},"finish_reason":"stop"}]}`,
	)
	srv.Enqueue("", llmtest.Reply{Handler: func(w http.ResponseWriter, r *http.Request, _ llmtest.Call) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(small)
	}})
	c := newClient(t, srv, func(c *llm.Config) { c.MaxResponseBytes = limit })
	resp, err := c.Chat(context.Background(), userReq("q"))
	require.NoError(t, err)
	assert.Len(t, resp.Content, 1000)
}

func TestCostLimitRefusesUnpricedModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, nil)
	ledger := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCostUSD: 1}})
	m := llm.Metered(c, ledger)
	tests := []struct {
		model string
		ok    bool
	}{
		{"o1-pro", false},
		{"my-local-model", false},
		{"gpt-4o", true},
		{"", true}, // the client's default, gpt-4o-mini
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			before := srv.Count()
			req := userReq("hi")
			req.Model = tc.model
			_, err := m.Chat(context.Background(), req)
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, before+1, srv.Count())
				return
			}
			require.Error(t, err)
			assert.Equal(t, llm.KindBudget, llm.KindOf(err))
			assert.ErrorIs(t, err, llm.ErrUnknownPrice)
			assert.ErrorIs(t, err, llm.ErrBudgetExceeded)
			assert.Contains(t, err.Error(), tc.model)
			assert.Contains(t, err.Error(), "no known price")
			assert.Equal(t, before, srv.Count(), "nothing was sent")
		})
	}
	assert.True(t, ledger.Totals().CostKnown)

	// Without a cost limit, an unpriced model is sent and its cost unknown.
	free := llm.NewLedger(llm.LedgerConfig{})
	req := userReq("hi")
	req.Model = "o1-pro"
	_, err := llm.Metered(c, free).Chat(context.Background(), req)
	require.NoError(t, err)
	assert.False(t, free.Totals().CostKnown)
}
