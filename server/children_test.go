package server

import (
	"context"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/runs"
)

// TestKeptRunStoresChildResults: a run kept by the server stores its
// rlm_query children's results in the server's store, as rlm run does
// (runs.KeepChildren), and its code reads them back with store_keys and
// store_get; a server without a runs directory keeps none.
func TestKeptRunStoresChildResults(t *testing.T) {
	for _, kept := range []bool{true, false} {
		ts := newTestServer(t, func(c *Config) {
			c.Engine.MaxDepth = 2
			if !kept {
				c.RunsDir = ""
			}
		})
		resp, err := ts.client(map[string]any{"max_depth": 2}).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
			Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "storechild 42"}},
		})
		require.NoError(t, err)
		require.Len(t, resp.Choices, 1)
		var keys []string
		for _, m := range ts.s.Store().List(rlmctx.Filter{}) {
			keys = append(keys, m.Key)
		}
		if !kept {
			assert.Empty(t, keys)
			assert.NotEqual(t, "1 child 42", resp.Choices[0].Message.Content, "no store helpers without a kept run")
			continue
		}
		assert.Equal(t, "1 child 42", resp.Choices[0].Message.Content)
		require.Len(t, keys, 1)
		id, child, ok := strings.Cut(keys[0], "/")
		require.True(t, ok, keys[0])
		assert.True(t, strings.HasPrefix(child, "0.1."), keys[0])
		m, err := runs.NewRoot(ts.s.cfg.RunsDir).Get(id)
		require.NoError(t, err, "stored under the kept run's id")
		assert.Equal(t, runs.StatusDone, m.Status)
		ref, err := ts.s.Store().Ref(keys[0])
		require.NoError(t, err)
		assert.Equal(t, runs.ChildScope(id), ref.Scope)
	}
}
