package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/sandbox"
)

// TestLongRunStaysUnderBudget runs 60 iterations that each print a large
// output: every request stays bounded, compressions are recorded as
// artifacts, and the last raw turn is always verbatim.
func TestLongRunStaysUnderBudget(t *testing.T) {
	const iters = 60
	cfg := Config{MaxIterations: iters + 5, DynamicBudget: 4000}
	var steps []llmtest.Step
	for i := 1; i <= iters; i++ {
		steps = append(steps, llmtest.Say(fmt.Sprintf("Step %d: looking further.\n```python\nPRINT %d\n```", i, 2500+i)))
	}
	steps = append(steps, llmtest.Say(submitReply("found")))
	h := newHarness(t, cfg, steps...)
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	require.Equal(t, iters+1, res.Iterations)

	tok := llm.DefaultTokenizer()
	reqs := h.model.Requests()
	first := 0
	for _, m := range reqs[0].Messages {
		first += tok.Count(m.Content)
	}
	bound := first + cfg.DynamicBudget + 200
	for i, req := range reqs {
		n := 0
		for _, m := range req.Messages {
			n += tok.Count(m.Content)
		}
		assert.LessOrEqual(t, n, bound, "request %d is %d tokens", i+1, n)
		if i > 0 {
			// The previous reply is present verbatim, followed by its observation.
			prev := fmt.Sprintf("Step %d: looking further.\n```python\nPRINT %d\n```", i, 2500+i)
			msgs := req.Messages
			assert.Equal(t, prev, msgs[len(msgs)-2].Content, "last raw turn verbatim in request %d", i+1)
		}
	}
	assert.Greater(t, res.Metrics.Compressions, 3)
	assert.LessOrEqual(t, res.Metrics.MaxRequestTokens, bound+200)

	var arts []map[string]any
	for _, ev := range h.events(t) {
		if ev.Type == EventCompression {
			arts = append(arts, ev.Data.(map[string]any))
		}
	}
	require.Len(t, arts, res.Metrics.Compressions)
	for _, a := range arts {
		assert.Equal(t, SectionDynamic, a["section"])
		assert.Greater(t, a["pre_tokens"].(float64), a["post_tokens"].(float64))
		assert.NotEmpty(t, a["losses"])
		refs := a["kept_refs"].([]any)
		require.NotEmpty(t, refs)
		assert.True(t, strings.HasPrefix(refs[0].(string), "outputs["))
	}
	// The rolling summary cites steps and the variables holding their output.
	last := reqs[len(reqs)-1]
	summary := last.Messages[2].Content
	assert.True(t, strings.HasPrefix(summary, "[engine] Summary of earlier steps"))
	assert.Contains(t, summary, "outputs[")
	assert.Contains(t, summary, "steps 1-")
	// Every step's full output is still stored.
	assert.Len(t, h.exec.outputs[1], 2501)
	assert.Len(t, h.exec.outputs[iters], 2500+iters)
}

type failingSummarizer struct{ calls int }

func (f *failingSummarizer) Summarize(ctx context.Context, prev string, steps []StepDigest) (string, error) {
	f.calls++
	return "", fmt.Errorf("summarizer down")
}

func TestLLMSummarizerIsUsedAndFallsBack(t *testing.T) {
	var steps []llmtest.Step
	for i := 1; i <= 12; i++ {
		steps = append(steps, llmtest.Say(code(fmt.Sprintf("PRINT %d", 3000+i))))
	}
	steps = append(steps, llmtest.Say(submitReply("x")))
	fs := &failingSummarizer{}
	h := newHarness(t, Config{DynamicBudget: 3000, Summarizer: fs}, steps...)
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	assert.Greater(t, fs.calls, 0)
	assert.Greater(t, res.Metrics.Compressions, 0)
	last := h.model.Requests()[len(h.model.Requests())-1]
	assert.Contains(t, last.Messages[2].Content, "- step 1: ran", "deterministic fallback summary")

	// A working LLM summarizer's text is used.
	sumModel := llmtest.NewScripted().Default(llmtest.Say("- found nothing yet (steps 1-3, outputs[1]..outputs[3])"))
	h2 := newHarness(t, Config{DynamicBudget: 3000, Summarizer: &LLMSummarizer{Model: sumModel}}, steps...)
	res = h2.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	last = h2.model.Requests()[len(h2.model.Requests())-1]
	assert.Contains(t, last.Messages[2].Content, "found nothing yet")
	assert.Greater(t, sumModel.Calls(), 0)
}

func TestSummaryCitesErrorsAndDefinedNames(t *testing.T) {
	steps := []llmtest.Step{
		llmtest.Say(code("ERR boom")),
		llmtest.Say(code("DEF hits")),
		llmtest.Say(code("PRINT 4000")),
		llmtest.Say(code("PRINT 4000")),
		llmtest.Say(code("PRINT 4000")),
		llmtest.Say(submitReply("x")),
	}
	h := newHarness(t, Config{DynamicBudget: 1500, Limits: sandbox.Limits{ObservationTokens: 500}}, steps...)
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	var summary string
	for _, req := range h.model.Requests() {
		if len(req.Messages) > 2 && strings.HasPrefix(req.Messages[2].Content, "[engine] Summary") {
			summary = req.Messages[2].Content
		}
	}
	require.NotEmpty(t, summary)
	assert.Contains(t, summary, "- step 1: ran `ERR boom`; error `ValueError: boom`")
	assert.Contains(t, summary, "- step 2: ran `DEF hits`; defined hits")
	assert.Contains(t, summary, "-> outputs[3]")
}

// The LLM summarizer is incremental (its previous summary plus the newly
// compressed steps), its prompt stays bounded over a long run, and its
// calls are counted in the metrics.
func TestLLMSummarizerIncrementalBoundedMetered(t *testing.T) {
	var steps []llmtest.Step
	for i := 1; i <= 40; i++ {
		steps = append(steps, llmtest.Say(code(fmt.Sprintf("PRINT %d", 3000+i))))
	}
	steps = append(steps, llmtest.Say(submitReply("x")))
	n := 0
	sumModel := llmtest.NewScripted().Default(func(req llm.Request) (*llm.Response, error) {
		n++
		return &llm.Response{Content: fmt.Sprintf("- summary version %d (outputs[1])", n)}, nil
	})
	h := newHarness(t, Config{MaxIterations: 45, DynamicBudget: 3000, Summarizer: &LLMSummarizer{Model: sumModel}}, steps...)
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	reqs := sumModel.Requests()
	require.Greater(t, len(reqs), 5)
	assert.Equal(t, len(reqs), res.Metrics.SummarizerCalls, "every summarizer call is metered")

	seen := map[string]bool{}
	first := len(reqs[0].Messages[0].Content)
	for i, req := range reqs {
		p := req.Messages[0].Content
		if i > 0 {
			assert.Contains(t, p, fmt.Sprintf("- summary version %d (outputs[1])", i), "call %d updates the previous summary", i+1)
		}
		// Each step is sent to the summarizer once.
		for _, line := range strings.Split(p, "\n") {
			if strings.HasPrefix(line, "- step ") {
				assert.False(t, seen[line], "step line sent again: %s", line)
				seen[line] = true
			}
		}
		assert.Less(t, len(p), 2*first+500, "prompt %d stays bounded", i+1)
	}
}

// TestCheckSummary: a summarizer's summary is accepted only when every
// line cites steps already compressed.
func TestCheckSummary(t *testing.T) {
	for _, tt := range []struct {
		summary string
		ok      bool
		why     string
	}{
		{"- found the key (step 2, outputs[2])\n- dead end in chapter 3 (steps 3-5)", true, ""},
		{"- all of it (steps 1–6)\n\n- more (outputs[4])", true, ""},
		{"- step 1: ran `x`", true, ""},
		{"- found the key (step 2)\n- nothing else matters", false, `line 2 cites no step`},
		{"The model explored the data.", false, `line 1 cites no step`},
		{"- found it (step 9)", false, `cites step 9, but steps 1-6 are the ones summarised`},
		{"- found it (steps 2-12)", false, `cites step 12`},
		{"- found it (outputs[0])", false, `cites step 0`},
	} {
		err := checkSummary(tt.summary, 6)
		if tt.ok {
			assert.NoError(t, err, tt.summary)
			continue
		}
		require.ErrorIs(t, err, ErrUncitedSummary, tt.summary)
		assert.Contains(t, err.Error(), tt.why, tt.summary)
	}
}

// TestUncitedLLMSummaryFallsBack: an LLM summary that does not cite its
// steps is not shown to the model: the deterministic summary is, and the
// compression event says why.
func TestUncitedLLMSummaryFallsBack(t *testing.T) {
	var steps []llmtest.Step
	for i := 1; i <= 12; i++ {
		steps = append(steps, llmtest.Say(code(fmt.Sprintf("PRINT %d", 3000+i))))
	}
	steps = append(steps, llmtest.Say(submitReply("x")))
	sumModel := llmtest.NewScripted().Default(llmtest.Say("The model looked around and found nothing."))
	h := newHarness(t, Config{DynamicBudget: 3000, Summarizer: &LLMSummarizer{Model: sumModel}}, steps...)
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	require.Greater(t, sumModel.Calls(), 0)
	last := h.model.Requests()[len(h.model.Requests())-1]
	assert.NotContains(t, last.Messages[2].Content, "looked around")
	assert.Contains(t, last.Messages[2].Content, "- step 1: ran", "the deterministic summary")
	assert.Contains(
		t,
		h.traj.String(),
		"its summary was rejected, deterministic summary used: orchestrator: the summary does not cite its steps: line 1 cites no step",
	)
}
