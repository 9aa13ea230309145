package orchestrator

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// echoSub answers a sub-call with "echo:" and its prompt's first 20
// bytes, or fails when the prompt starts with FAIL.
func echoSub(req llm.Request) (*llm.Response, error) {
	p := req.Messages[0].Content
	if strings.HasPrefix(p, "FAIL") {
		return nil, errors.New("scripted failure")
	}
	return llmtest.Say("echo:" + p[:min(20, len(p))])(req)
}

func TestSubCallsAreRecordedInTheTrajectory(t *testing.T) {
	long := strings.Repeat("0123456789", 500) // 5,000 chars
	step1 := code(
		`a = llm_query("`+long+`")`,
		`b = llm_query("short prompt")`,
		`c = llm_query("short prompt")`, // memoized: nothing is sent
		`d = llm_query("FAIL please")`,
		`r = find_relevant(["apple pie", "green tea", "apple cider"], "apple")`,
		`print(len(a.value), b, c)`,
	)
	tests := []struct {
		name       string
		full       bool
		wantPrompt string
		wantCut    bool
	}{
		{"excerpts by default", false, "", true},
		{"whole prompts with TrajectoryFull", true, long, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var traj bytes.Buffer
			model := llmtest.NewScripted(llmtest.Say(step1), llmtest.Say(submitReply("done")))
			for range 4 {
				model.OnModel(subModel, echoSub)
			}
			cfg := Config{SubModel: subModel, Trajectory: &traj, TrajectoryFull: tt.full}
			c := rlmctx.NewContext("q")
			res, _ := runScriptedModel(t, cfg, c, model)
			require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)

			var ops []map[string]any
			var deferredAt int
			for i, ev := range decodeEvents(t, traj.Bytes()) {
				switch ev.Type {
				case EventSubCall:
					assert.Equal(t, "0", ev.Run)
					assert.Equal(t, 1, ev.Step, "the step that started it")
					ops = append(ops, ev.Data.(map[string]any))
				case EventDeferred:
					deferredAt = i
					assert.Len(t, ops, 5, "sub_call events come before the step's deferred event")
				}
			}
			require.NotZero(t, deferredAt)
			require.Len(t, ops, 5)
			for i, op := range ops {
				assert.EqualValues(t, i+1, op["seq"], "in the order the code started them")
			}
			a, b, c2, d, r := ops[0], ops[1], ops[2], ops[3], ops[4]

			assert.Equal(t, "llm_query", a["kind"])
			assert.Equal(t, subModel, a["model"])
			assert.EqualValues(t, 5000, a["prompt_chars"])
			assert.Equal(t, tt.wantCut, a["prompt_cut"] == true)
			if tt.wantPrompt != "" {
				assert.Equal(t, tt.wantPrompt, a["prompt"])
			} else {
				p := a["prompt"].(string)
				assert.Less(t, len(p), builtins.OpExcerptChars+100)
				assert.Contains(t, p, "chars cut")
				assert.True(t, strings.HasPrefix(p, "0123456789"))
			}
			assert.Equal(t, "echo:01234567890123456789", a["response"])
			usage := a["usage"].(map[string]any)
			assert.Positive(t, usage["prompt_tokens"])
			assert.Positive(t, usage["completion_tokens"])
			assert.Contains(t, a, "latency_ms")

			assert.Equal(t, b["prompt_hash"], c2["prompt_hash"], "equal prompts, equal hashes")
			assert.NotEqual(t, a["prompt_hash"], b["prompt_hash"])
			assert.Nil(t, b["memoized"])
			assert.Equal(t, true, c2["memoized"])
			assert.Equal(t, "echo:short prompt", c2["response"], "a memoized call shows the answer it reused")
			assert.EqualValues(t, 0, c2["usage"].(map[string]any)["prompt_tokens"], "nothing was sent")

			assert.Contains(t, d["error"], "scripted failure")
			assert.Nil(t, d["response"])

			assert.Equal(t, "find_relevant", r["kind"])
			assert.Equal(t, "bm25", r["method"])
			assert.EqualValues(t, 3, r["items"])
			assert.Equal(t, "apple", r["prompt"])
			assert.Contains(t, r["response"], "apple")

			assert.Len(t, model.Requests(), 2+3, "two root requests and three sent sub-calls")
		})
	}
}

func TestNoSubCallEventsWithoutOperations(t *testing.T) {
	var traj bytes.Buffer
	model := llmtest.NewScripted(llmtest.Say(code("print(1)")), llmtest.Say(submitReply("done")))
	res, _ := runScriptedModel(t, Config{Trajectory: &traj}, rlmctx.NewContext("q"), model)
	require.Equal(t, StopSubmit, res.StopReason)
	for _, ev := range decodeEvents(t, traj.Bytes()) {
		assert.NotEqual(t, EventSubCall, ev.Type)
	}
}
