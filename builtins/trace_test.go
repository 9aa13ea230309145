package builtins_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/llm/llmtest"
)

func TestTraceOpsRecordsRankings(t *testing.T) {
	docs := []any{"the weather is sunny today", "quarterly revenue grew", "the cat chased a mouse", "revenue forecasts"}
	tests := []struct {
		name  string
		trace bool
		want  []builtins.Op // compared on the fields below
	}{
		{"not traced", false, nil},
		{"traced", true, []builtins.Op{
			{Seq: 1, Kind: "find_relevant", Model: "e", Prompt: "revenue", Method: "embedding", Items: 4, Embedded: 5},
			{Seq: 2, Kind: "find_relevant", Model: "e", Prompt: "revenue", Method: "embedding", Items: 4, Memoized: true},
			{Seq: 3, Kind: "find_relevant", Model: "e", Prompt: "cat", Method: "embedding", Items: 4, Embedded: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &builtins.Host{Embedder: &llmtest.HashEmbedder{}, EmbeddingModel: "e", TraceOps: tt.trace}
			e := newEnv(t, h, map[string]any{"docs": docs})
			e.run(`a = find_relevant(docs, "revenue").value
b = find_relevant(docs, "revenue")
c = find_relevant(docs, "cat")`)
			require.NoError(t, h.Group.Wait(context.Background()))
			ops := h.TakeOps()
			require.Len(t, ops, len(tt.want))
			for i, want := range tt.want {
				got := ops[i]
				assert.Equal(t, want.Seq, got.Seq)
				assert.Equal(t, want.Kind, got.Kind)
				assert.Equal(t, want.Model, got.Model)
				assert.Equal(t, want.Prompt, got.Prompt)
				assert.Equal(t, want.Method, got.Method)
				assert.Equal(t, want.Items, got.Items)
				assert.Equal(t, want.Embedded, got.Embedded, "op %d", i+1)
				assert.Equal(t, want.Memoized, got.Memoized)
				assert.Contains(t, got.Response, "'method': 'embedding'", "the ranking is the response")
				assert.Len(t, got.PromptHash, 16)
			}
			assert.Empty(t, h.TakeOps(), "taken once")
		})
	}
}
