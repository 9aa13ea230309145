package orchestrator

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
)

// divergeAt is a ResumeHook that reports a divergence of run 0 at its
// asking number at (1-based; the engine asks before each request is
// built, and again after its event is emitted).
type divergeAt struct {
	mu    sync.Mutex
	at, n int
	d     Divergence
}

func (h *divergeAt) TakeDivergence(run string) (Divergence, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	return h.d, h.n == h.at && run == "0"
}

// A resumed run that diverged gets one resume-context message, appended
// after the last turn (earlier messages unchanged, so the prompt's prefix
// stays cacheable), with the reason, the rolling summary and the current
// step; wherever the engine learns of it: before the request is built
// (an exec that came out differently), after its event (the request
// itself differed), or before the first turn.
func TestResumeContextMessage(t *testing.T) {
	tests := []struct {
		name     string
		at       int // the hook's asking that reports it
		step     int // the request that carries it
		requests int // request events of that step
		after    string
	}{
		{"exec diverged before request 2", 3, 2, 1, "- step 1: ran `print(1)`"},
		{"request 2 diverged", 4, 2, 2, "- step 1: ran `print(1)`"},
		{"request 1 diverged", 2, 1, 2, "No step ran before it."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hook := &divergeAt{at: tt.at, d: Divergence{Run: "0", Step: tt.step, Reason: "exec event 1 of run 0 step 1 differs"}}
			h := newHarness(t, Config{Resume: hook},
				llmtest.Say(code("print(1)")), llmtest.Say(code("print(2)")), llmtest.Say(submitReply("42")))
			res := h.run(t)
			require.Equal(t, StopSubmit, res.StopReason)
			reqs := h.model.Requests()
			require.Len(t, reqs, 3)
			msgs := reqs[tt.step-1].Messages
			note := msgs[len(msgs)-1].Content
			assert.Contains(t, note, "[engine] Resume context: this run was interrupted and resumed.")
			assert.Contains(t, note, "exec event 1 of run 0 step 1 differs")
			assert.Contains(t, note, tt.after)
			for i := 1; i < len(reqs); i++ {
				prev, cur := reqs[i-1].Messages, reqs[i].Messages
				assert.Equal(t, prev, cur[:len(prev)], "request %d extends request %d", i+1, i)
			}
			n := 0
			for _, r := range reqs {
				n += countIn(r, "Resume context")
			}
			assert.Equal(t, 3-tt.step+1, n, "one message, kept in the later requests")
			var ctxEvents, stepRequests int
			for _, ev := range h.events(t) {
				if ev.Type == EventResumeContext {
					ctxEvents++
					d := ev.Data.(map[string]any)
					assert.Equal(t, note, d["message"])
				}
				if ev.Type == EventRequest && ev.Step == tt.step {
					stepRequests++
				}
			}
			assert.Equal(t, 1, ctxEvents)
			assert.Equal(t, tt.requests, stepRequests)
			assert.Equal(t, 3, res.Metrics.Requests, "a request built again is counted once")
		})
	}
}
