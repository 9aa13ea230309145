package orchestrator

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// checkToolOrdering asserts seed 002's invariant on one request: every
// assistant message with tool calls is followed by exactly one tool result
// per call id, in order, and then by an engine (user) message.
func checkToolOrdering(t *testing.T, i int, msgs []llm.Message) {
	t.Helper()
	for j := 0; j < len(msgs); j++ {
		m := msgs[j]
		if m.Role == llm.RoleTool {
			t.Errorf("request %d: tool message %d not preceded by its assistant tool call", i, j)
		}
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		for k, tc := range m.ToolCalls {
			require.Less(t, j+1+k, len(msgs), "request %d: dangling tool call %s", i, tc.ID)
			res := msgs[j+1+k]
			assert.Equal(t, llm.RoleTool, res.Role, "request %d", i)
			assert.Equal(t, tc.ID, res.ToolCallID, "request %d", i)
		}
		next := j + 1 + len(m.ToolCalls)
		require.Less(t, next, len(msgs), "request %d: no engine directive after tool results", i)
		assert.Equal(t, llm.RoleUser, msgs[next].Role, "request %d", i)
		j = next
	}
}

func TestToolsProtocolOrdering(t *testing.T) {
	s, _ := ParseSchema("answer:str, confidence:float")
	h := newHarness(t, Config{Protocol: ProtocolTools, Outputs: s},
		llmtest.CallTools(
			llm.ToolCall{ID: "c1", Name: "execute_code", Arguments: `{"code": "print(1)"}`},
			llm.ToolCall{ID: "c2", Name: "execute_code", Arguments: `{"code": "PRINT 30000"}`}),
		llmtest.CallTools(llm.ToolCall{ID: "c3", Name: "browse", Arguments: `{}`}),
		llmtest.Say("thinking without tools"),
		llmtest.CallTools(
			llm.ToolCall{ID: "c4", Name: "execute_code", Arguments: `not json`},
			llm.ToolCall{ID: "c5", Name: "submit", Arguments: `{"answer": "x"}`}),
		llmtest.CallTools(
			llm.ToolCall{ID: "c6", Name: "submit", Arguments: `{"answer": "x", "confidence": 0.5}`},
			llm.ToolCall{ID: "c7", Name: "execute_code", Arguments: `{"code": "print(2)"}`}),
	)
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	assert.Equal(t, "x", res.Answer)
	reqs := h.model.Requests()
	require.Len(t, reqs, 5)
	for i, req := range reqs {
		require.Len(t, req.Tools, 2)
		assert.Equal(t, "execute_code", req.Tools[0].Name)
		assert.Equal(t, "submit", req.Tools[1].Name)
		assert.JSONEq(
			t,
			`{"type":"object","properties":{"answer":{"type":"string"},"confidence":{"type":"number"}},"required":["answer","confidence"]}`,
			string(req.Tools[1].Parameters),
		)
		checkToolOrdering(t, i+1, req.Messages)
	}
	m := reqs[1].Messages
	assert.Equal(t, "[engine] Step 1 output:\nran: print(1)", "[engine] Step 1 output:\n"+m[len(m)-3].Content)
	assert.Contains(t, m[len(m)-2].Content, "full output is in outputs[1]")
	m = reqs[2].Messages
	assert.Contains(t, m[len(m)-2].Content, `unknown tool "browse"`)
	m = reqs[3].Messages
	assert.Contains(t, m[len(m)-1].Content, "no tool call")
	m = reqs[4].Messages
	assert.Contains(t, m[len(m)-3].Content, "execute_code needs JSON arguments")
	assert.Contains(t, m[len(m)-2].Content, `missing field "confidence"`)
	assert.True(t, strings.HasPrefix(h.exec.outputs[1], "ran: print(1)\nlorem ipsum"))
	_, ran := h.exec.outputs[5]
	assert.True(t, ran)
	assert.NotContains(t, h.exec.outputs[5], "print(2)", "calls after a valid submit are not run")
}
