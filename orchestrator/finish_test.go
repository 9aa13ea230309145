package orchestrator

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// runSandboxed runs a scripted root model against the real sandbox.
func runSandboxed(t *testing.T, cfg Config, steps ...llmtest.Step) (*Result, *llmtest.Scripted) {
	t.Helper()
	model := llmtest.NewScripted(steps...).WithModel("root")
	cfg.Ledger = llm.NewLedger(llm.LedgerConfig{})
	cfg.Model = llm.Metered(model, cfg.Ledger)
	res, err := New(cfg).Run(context.Background(), testContext(t, "alpha\nbeta\n"))
	require.NoError(t, err)
	return res, model
}

func TestPaperStyleFinishes(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		reply  string
		answer string
	}{
		{"bare FINAL with prose", "", "I found it.\nFINAL(the magic number is 42)", "the magic number is 42"},
		{"bare FINAL quoted", "", "FINAL(\"42\")", "42"},
		{"bare FINAL with quotes inside", "", `FINAL(he said "hi")`, `he said "hi"`},
		{"bare FINAL_VAR unquoted", "", "```python\nres = 'from var'\n```", "from var"},
		{"FINAL of an int", "", code("FINAL(42)"), "42"},
		{"FINAL_VAR of a dict", "", code("res = {'a': 1}\nFINAL_VAR('res')"), `{"a": 1}`},
		{"FINAL of a list", "", code("FINAL([1, 2])"), "[1, 2]"},
		{"FINAL with answer:any keeps the value", "answer:any", code("FINAL(42)"), "42"},
		{"FINAL fills the one declared field", "count:int", code("FINAL(7)"), "7"},
		{"FINAL_VAR fills the one declared field", "items:list", code("xs = [1, 2]\nFINAL_VAR('xs')"), "[1, 2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSchema(tt.schema)
			require.NoError(t, err)
			steps := []llmtest.Step{llmtest.Say(tt.reply)}
			if tt.name == "bare FINAL_VAR unquoted" {
				steps = append(steps, llmtest.Say("Done.\nFINAL_VAR(res)"))
			}
			res, _ := runSandboxed(t, Config{Outputs: s}, steps...)
			require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
			assert.Equal(t, tt.answer, res.Answer)
			assert.False(t, res.Partial)
		})
	}
}

func TestFinalDoesNotCoerceOtherFields(t *testing.T) {
	s, err := ParseSchema("answer:str, n:int")
	require.NoError(t, err)
	// SUBMIT stays strict: a mistyped answer is sent back to the model.
	res, model := runSandboxed(
		t,
		Config{Outputs: s},
		llmtest.Say(code("SUBMIT(answer=5, n=1)")),
		llmtest.Say(code("SUBMIT(answer='5', n=1)")),
	)
	require.Equal(t, StopSubmit, res.StopReason)
	reqs := model.Requests()
	require.Len(t, reqs, 2)
	assert.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Content, `field "answer" must be str, got int`)
}

func TestRunRejectsReservedVariableNames(t *testing.T) {
	for _, name := range []string{"outputs", "SUBMIT", "llm_query", "len", "print", "sorted", "ValueError", "json", "collections", "__builtins__", "__x__"} {
		c := rlmctx.NewContext("q")
		_, err := c.Add(name, "x")
		require.NoError(t, err)
		model := llmtest.NewScripted(llmtest.Say(code("FINAL('a')")))
		_, err = New(Config{Model: model}).Run(context.Background(), c)
		require.ErrorIs(t, err, ErrReservedName, name)
		assert.Contains(t, err.Error(), "rename the variable")
		assert.Zero(t, model.Calls(), "nothing is sent")
	}
	assert.NoError(t, CheckVarName("context"))
}

func TestToolsSubmitRejectionNamesTheTool(t *testing.T) {
	res, model := runSandboxed(t, Config{Protocol: ProtocolTools},
		llmtest.CallTools(llm.ToolCall{ID: "c1", Name: toolSubmit, Arguments: `{"answer": 5}`}),
		llmtest.CallTools(llm.ToolCall{ID: "c2", Name: toolSubmit, Arguments: `{"answer": "5"}`}))
	require.Equal(t, StopSubmit, res.StopReason)
	reqs := model.Requests()
	require.Len(t, reqs, 2)
	var result string
	for _, m := range reqs[1].Messages {
		if m.ToolCallID == "c1" {
			result = m.Content
		}
	}
	assert.Contains(t, result, `field "answer" must be str, got int`)
	assert.Contains(t, result, "call the submit tool again")
	assert.NotContains(t, result, "call SUBMIT(", "tools mode names the tool")
}

func TestStripReasoning(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"none", "text\n```python\nx\n```", "text\n```python\nx\n```"},
		{"think block", "<think>\n```python\nFINAL('draft')\n```\n</think>\nreal", "\nreal"},
		{"two blocks and tags", "<Thinking>a</Thinking>b<reasoning>c</reasoning>d", "bd"},
		{"close only (opened by the template)", "draft ```python\nFINAL(1)\n```</think>\nreal", "\nreal"},
		{"unterminated", "real <think>cut off", "real "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, StripReasoning(tt.in))
		})
	}
}

func TestCodeInThinkingDoesNotRun(t *testing.T) {
	res, _ := runSandboxed(
		t,
		Config{},
		llmtest.Say(
			"<think>\nI could just guess:\n```python\nFINAL('guess')\n```\n</think>\nLet me look first.\n```python\nprint(len(context))\n```",
		),
		llmtest.Say("<think>no code here, SUBMIT(answer='x') would be wrong</think>\nFINAL(checked)"),
	)
	require.Equal(t, StopSubmit, res.StopReason)
	assert.Equal(t, "checked", res.Answer)
	assert.Equal(t, 2, res.Iterations)
}

func TestToolsFencedCodeRuns(t *testing.T) {
	res, model := runSandboxed(
		t,
		Config{Protocol: ProtocolTools},
		llmtest.CallTools(
			llm.ToolCall{ID: "c1", Name: toolExecute, Arguments: `{"code": "` + "```python\\nprint('fenced ok')\\n```" + `"}`},
		),
		llmtest.CallTools(llm.ToolCall{ID: "c2", Name: toolSubmit, Arguments: `{"answer": "a"}`}),
	)
	require.Equal(t, StopSubmit, res.StopReason)
	var result string
	for _, m := range model.Requests()[1].Messages {
		if m.ToolCallID == "c1" {
			result = m.Content
		}
	}
	assert.Equal(t, "fenced ok", result)
}

func TestEmptyReplyKeepsAValidHistory(t *testing.T) {
	res, model := runSandboxed(t, Config{}, llmtest.Say(""), llmtest.Say("FINAL(ok)"))
	require.Equal(t, StopSubmit, res.StopReason)
	req := model.Requests()[1]
	for i, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			assert.True(t, m.Content != "" || len(m.ToolCalls) > 0, "message %d: an assistant message needs content or tool calls", i)
		}
	}
	assert.Contains(t, req.Messages[len(req.Messages)-1].Content, "no code block")
}

func TestCutOffReplyIsExplained(t *testing.T) {
	res, model := runSandboxed(t, Config{},
		llmtest.Respond(llm.Response{Content: "```python\nfor line in context.splitlines():\n    if 'x' in", FinishReason: "length"}),
		llmtest.Say("FINAL(ok)"))
	require.Equal(t, StopSubmit, res.StopReason)
	obs := lastObservation(model, 1)
	assert.Contains(t, obs, "SyntaxError")
	assert.Contains(t, obs, "cut off at the output token limit")
}

func TestToolCallsWithoutIDsGetUniqueOnes(t *testing.T) {
	res, model := runSandboxed(
		t,
		Config{Protocol: ProtocolTools},
		llmtest.CallTools(
			llm.ToolCall{Name: toolExecute, Arguments: `{"code": "print(1)"}`},
			llm.ToolCall{Name: toolExecute, Arguments: `{"code": "print(2)"}`},
		),
		llmtest.CallTools(
			llm.ToolCall{ID: "same", Name: toolExecute, Arguments: `{"code": "print(3)"}`},
			llm.ToolCall{ID: "same", Name: toolSubmit, Arguments: `{"answer": "a"}`},
		),
	)
	require.Equal(t, StopSubmit, res.StopReason)
	req := model.Requests()[1]
	checkToolOrdering(t, 1, req.Messages)
	var ids []string
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			ids = append(ids, tc.ID)
		}
	}
	require.Len(t, ids, 2)
	assert.NotEmpty(t, ids[0])
	assert.NotEqual(t, ids[0], ids[1])
	assert.Equal(t, "same", withCallIDs([]llm.ToolCall{{ID: "same"}, {ID: "same"}}, 2)[0].ID)
	assert.Equal(t, "call_2_2", withCallIDs([]llm.ToolCall{{ID: "same"}, {ID: "same"}}, 2)[1].ID)
}

func TestBareFinishAfterCodeBlocks(t *testing.T) {
	// The paper's protocol: code, then a FINAL_VAR line outside the fence.
	res, _ := runSandboxed(t, Config{},
		llmtest.Say("Counting.\n```python\nresult = str(len(context.splitlines()))\n```\nFINAL_VAR(result)"))
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "2", res.Answer)
	assert.Equal(t, 1, res.Iterations)

	// A FINAL inside a conditional in the code is not a bare line.
	res, _ = runSandboxed(t, Config{},
		llmtest.Say("```python\nfound = False\nif found:\n    FINAL(x)\nprint('not yet')\n```"),
		llmtest.Say("FINAL(done)"))
	require.Equal(t, StopSubmit, res.StopReason)
	assert.Equal(t, "done", res.Answer)
	assert.Equal(t, 2, res.Iterations)
}

func TestTotalIterationBudgetHoldsForConcurrentChildren(t *testing.T) {
	var step llmtest.Step = func(req llm.Request) (*llm.Response, error) {
		q := req.Messages[1].Content
		n := len(req.Messages)
		var content string
		switch {
		case strings.Contains(q, "Query: child"):
			content = code("print(len(part))")
			if n > 2 {
				content = code("FINAL(str(len(part)))")
			}
		case n == 2:
			content = code("rs = [rlm_query('child %d' % i, part=context[i:i+3]) for i in range(4)]", "print(rs)")
		default:
			content = code("SUBMIT(answer=str(rs))")
		}
		return llmtest.Say(content)(req)
	}
	model := llmtest.NewScripted().Default(step).WithModel("root")
	ledger := llm.NewLedger(llm.LedgerConfig{})
	cfg := Config{Model: llm.Metered(model, ledger), Ledger: ledger, MaxDepth: 2, MaxTotalIterations: 3}
	res, err := New(cfg).Run(context.Background(), testContext(t, "alpha\nbeta\n"))
	require.NoError(t, err)
	assert.Equal(t, StopBudget, res.StopReason)
	assert.ErrorIs(t, res.Err, ErrIterationBudget)
	assert.LessOrEqual(t, res.Metrics.Iterations, 3, "children started together may not overshoot the tree's budget")
	assert.LessOrEqual(t, model.Calls(), 3)
}

func TestChildVariableMayNotHideHelpers(t *testing.T) {
	tests := []struct {
		code string
		want []string
	}{
		{"r = rlm_query('q', search=context)", []string{"ValueError", `"search" would hide the REPL helper search(`, "rename the variable"}},
		// outputs= declares the child's outputs: a text that is no schema
		// says so, and how to pass a variable instead.
		{"r = rlm_query('q', outputs=context)", []string{"ValueError", "outputs= declares the child's outputs", "to pass a variable, pass it under another name"}},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			res, model := runSandboxed(t, Config{MaxDepth: 2},
				llmtest.Say(code(tt.code, "print(r)")),
				llmtest.Say("FINAL(done)"))
			require.Equal(t, StopSubmit, res.StopReason)
			obs := lastObservation(model, 1)
			for _, w := range tt.want {
				assert.Contains(t, obs, w)
			}
			assert.Zero(t, res.Metrics.ChildRuns)
		})
	}
}
