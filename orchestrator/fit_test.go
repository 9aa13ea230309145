package orchestrator

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/sandbox"
)

// historyTokens measures the dynamic section of a request as the model
// received it (every message after the system and query messages).
func historyTokens(tok *llm.Tokenizer, req llm.Request) int {
	n := 0
	for _, m := range req.Messages[2:] {
		n += countMessage(tok, m)
	}
	return n
}

// The history budget is a hard limit: replies with several blocks, each
// printing a full excerpt, are cut to fit instead of being sent over it.
func TestHistoryBudgetIsHardLimit(t *testing.T) {
	const budget = 1000
	many := code("PRINT 5000") + "\n" + code("PRINT 5000") + "\n" + code("PRINT 5000")
	steps := []llmtest.Step{llmtest.Say(many), llmtest.Say(many), llmtest.Say(many), llmtest.Say(submitReply("x"))}
	h := newHarness(t, Config{DynamicBudget: budget, Limits: sandbox.Limits{ObservationTokens: 400}}, steps...)
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	tok := llm.DefaultTokenizer()
	reqs := h.model.Requests()
	require.Len(t, reqs, 4)
	for i, req := range reqs {
		assert.LessOrEqual(t, historyTokens(tok, req), budget, "request %d", i+1)
	}
	last := reqs[3].Messages[len(reqs[3].Messages)-1].Content
	assert.Contains(t, last, "cut to fit the history budget; the full output is in outputs[3]")
	assert.True(t, strings.HasSuffix(last, "iterations left."), "the engine's last line is kept: %q", last[max(0, len(last)-80):])
	assert.Zero(t, res.Metrics.OverBudgetRequests)
	assert.Len(t, h.exec.outputs[3], 3*5000, "the full output is kept")
}

func TestObservationLargerThanHistoryRefused(t *testing.T) {
	h := newHarness(t, Config{DynamicBudget: 1000, Limits: sandbox.Limits{ObservationTokens: 6000}}, llmtest.Say(submitReply("x")))
	_, err := h.eng.Run(context.Background(), testContext(t, "text"))
	require.ErrorIs(t, err, ErrObservationBudget)
	assert.Contains(t, err.Error(), "the excerpt is 6000 tokens and the history budget 1000")
	assert.Zero(t, h.model.Calls(), "nothing sent")
}
