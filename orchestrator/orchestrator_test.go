package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

func TestExtractCode(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  []string
	}{
		{"python", "x\n```python\nprint(1)\n```\n", []string{"print(1)"}},
		{"py and repl in order", "```py\na = 1\n```\ntext\n```repl\nprint(a)\n```", []string{"a = 1", "print(a)"}},
		{"starlark", "```starlark\nx = 2\n```", []string{"x = 2"}},
		{"unlabeled", "```\nprint(2)\n```", []string{"print(2)"}},
		{"json is not code", "```json\n{\"a\": 1}\n```\n```python\nprint(3)\n```", []string{"print(3)"}},
		{"no fences", "The answer is 42.", nil},
		{"unterminated", "```python\nprint(4)", []string{"print(4)"}},
		{"indented fence", "1. do:\n   ```python\n   for x in y:\n       print(x)\n   ```", []string{"for x in y:\n    print(x)"}},
		{"empty block skipped", "```python\n\n```", nil},
		{"four backticks", "````python\nprint('```')\n````", []string{"print('```')"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ExtractCode(tt.reply))
		})
	}
}

func TestParseSchema(t *testing.T) {
	s, err := ParseSchema("answer:str, confidence:float")
	require.NoError(t, err)
	assert.Equal(t, Schema{{"answer", Type{Kind: TypeStr}}, {"confidence", Type{Kind: TypeFloat}}}, s)
	assert.Equal(t, "answer:str, confidence:float", s.String())

	s, err = ParseSchema("")
	require.NoError(t, err)
	assert.Equal(t, DefaultSchema, s)

	for _, bad := range []string{"answer:strr", "1x:int", "a:str, a:int", "a:str,,b:int"} {
		_, err := ParseSchema(bad)
		assert.ErrorIs(t, err, ErrBadSchema, bad)
	}
}

func TestSchemaValidate(t *testing.T) {
	s, _ := ParseSchema("answer:str, confidence:float, n:int")
	d := rlmctx.NewDict(3)
	d.Set("answer", "x")
	d.Set("confidence", int64(1)) // an int is a valid float
	d.Set("n", int64(3))
	assert.NoError(t, s.Validate(d))

	d2 := rlmctx.NewDict(2)
	d2.Set("answer", int64(5))
	d2.Set("n", 2.5)
	err := s.Validate(d2)
	require.ErrorIs(t, err, ErrInvalidSubmit)
	assert.Contains(t, err.Error(), `field "answer" must be str, got int`)
	assert.Contains(t, err.Error(), `missing field "confidence" (float)`)
	assert.Contains(t, err.Error(), `field "n" must be int, got float`)
}

type harness struct {
	model *llmtest.Scripted
	exec  *fakeExec
	traj  bytes.Buffer
	eng   *Engine
}

func newHarness(t *testing.T, cfg Config, steps ...llmtest.Step) *harness {
	t.Helper()
	h := &harness{model: llmtest.NewScripted(steps...).WithModel("root-model")}
	if cfg.Ledger == nil {
		cfg.Ledger = llm.NewLedger(llm.LedgerConfig{})
	}
	cfg.Model = llm.Metered(h.model, cfg.Ledger)
	cfg.Executors = fakeFactory(&h.exec)
	if cfg.HelperDocs == "" {
		cfg.HelperDocs = testHelpers
	}
	cfg.Trajectory = &h.traj
	h.eng = New(cfg)
	return h
}

func testContext(t *testing.T, text string) *rlmctx.ExternalizedContext {
	t.Helper()
	c := rlmctx.NewContext("What is the magic number?")
	_, err := c.Add("context", text)
	require.NoError(t, err)
	return c
}

func (h *harness) run(t *testing.T) *Result {
	t.Helper()
	res, err := h.eng.Run(context.Background(), testContext(t, "some text\nwith lines\n"))
	require.NoError(t, err)
	return res
}

func (h *harness) events(t *testing.T) []Event {
	t.Helper()
	var evs []Event
	dec := json.NewDecoder(bytes.NewReader(h.traj.Bytes()))
	for dec.More() {
		var ev Event
		require.NoError(t, dec.Decode(&ev))
		assert.Equal(t, TrajectoryVersion, ev.V)
		evs = append(evs, ev)
	}
	return evs
}

func countIn(req llm.Request, s string) int {
	n := 0
	for _, m := range req.Messages {
		n += strings.Count(m.Content, s)
	}
	return n
}

func TestSubmitEndsRun(t *testing.T) {
	h := newHarness(t, Config{}, llmtest.Say(code("print(1)")), llmtest.Say(submitReply("42")))
	res := h.run(t)
	assert.Equal(t, StopSubmit, res.StopReason)
	assert.NoError(t, res.Err)
	assert.Equal(t, "42", res.Answer)
	assert.False(t, res.Partial)
	assert.Equal(t, 2, res.Iterations)
	assert.Equal(t, "ran: print(1)\n", h.exec.outputs[1], "full output of step 1 is outputs[1]")
	reqs := h.model.Requests()
	require.Len(t, reqs, 2)
	assert.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Content, "[engine] Step 1 output:\nran: print(1)")
	assert.Equal(t, 2, res.Usage.Calls)
}

func TestSeveralBlocksRunInOrderAndStopAtError(t *testing.T) {
	reply := "```python\nDEF a\n```\n```py\nERR boom\n```\n```python\nprint(never)\n```"
	h := newHarness(t, Config{}, llmtest.Say(reply), llmtest.Say(submitReply("x")))
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	last := lastObservation(h.model, 1)
	assert.Contains(t, last, "ValueError: boom")
	assert.Contains(t, last, "blocks 3-3 not run")
	assert.NotContains(t, last, "ran: print(never)")
}

// Several blocks in one reply: each block's part of the step output is
// marked, so the model knows which block printed what; one block is not.
func TestSeveralBlocksAreMarked(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  string
	}{
		{"two blocks", code("print(1)") + "\nthen\n" + code("DEF x"),
			"[engine] Step 1 output:\n[block 1 of 2]\nran: print(1)\n[block 2 of 2]\n(no output)\n"},
		{"error stops", code("print(1)") + "\n" + code("ERR boom") + "\n" + code("print(2)"),
			"[engine] Step 1 output:\n[block 1 of 3]\nran: print(1)\n[block 2 of 3]\nTraceback (most recent call last):\n  line 1\nValueError: boom\n[engine] blocks 3-3 not run.\n"},
		{"one block", code("print(1)"), "[engine] Step 1 output:\nran: print(1)\n[engine]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{}, llmtest.Say(tt.reply), llmtest.Say(submitReply("x")))
			res := h.run(t)
			require.Equal(t, StopSubmit, res.StopReason)
			assert.Contains(t, lastObservation(h.model, 1), tt.want)
		})
	}
}

func TestNudgeOnceNeverStacks(t *testing.T) {
	h := newHarness(t, Config{},
		llmtest.Say("I think the answer is in the text."),
		llmtest.Say("Still thinking, no code."),
		llmtest.Say(code("print(1)")),
		llmtest.Say(submitReply("done")))
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	reqs := h.model.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, 0, countIn(reqs[0], "no code block"))
	assert.Equal(t, 1, countIn(reqs[1], "no code block"), "one nudge after a reply without code")
	assert.Equal(t, 1, countIn(reqs[2], "no code block"), "nudges never stack")
	assert.Equal(t, 0, countIn(reqs[3], "no code block"), "the nudge goes once code runs")
	for _, req := range reqs[1:] {
		last := req.Messages[len(req.Messages)-1]
		assert.Equal(t, llm.RoleUser, last.Role)
	}
	assert.Equal(t, 2, res.Metrics.Nudges)
}

func TestInvalidSubmitGoesBackToModel(t *testing.T) {
	s, _ := ParseSchema("answer:str, confidence:float")
	h := newHarness(t, Config{Outputs: s},
		llmtest.Say(submitReply("42")),
		llmtest.Say(code(`SUBMIT({"answer": "42", "confidence": "high"})`)),
		llmtest.Say(code(`SUBMIT({"answer": "42", "confidence": 0.9})`)))
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	reqs := h.model.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Content, `missing field "confidence" (float)`)
	assert.Contains(t, reqs[2].Messages[len(reqs[2].Messages)-1].Content, `field "confidence" must be float, got str`)
	c, _ := res.Outputs.Get("confidence")
	assert.Equal(t, 0.9, c)
	var submits int
	for _, ev := range h.events(t) {
		if ev.Type == EventSubmit {
			submits++
		}
	}
	assert.Equal(t, 3, submits)
}

func TestMaxIterationsFinalExtraction(t *testing.T) {
	h := newHarness(t, Config{MaxIterations: 2},
		llmtest.Say(code("print(1)")),
		llmtest.Say(code("print(2)")),
		llmtest.Say(submitReply("best guess")))
	res := h.run(t)
	assert.Equal(t, StopMaxIterations, res.StopReason)
	assert.ErrorIs(t, res.Err, ErrMaxIterations)
	assert.True(t, res.Extracted)
	assert.Equal(t, "best guess", res.Answer)
	reqs := h.model.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, reqs[2].Messages[len(reqs[2].Messages)-1].Content, "iteration limit is reached")
	assert.Equal(t, 0, countIn(reqs[1], "iteration limit is reached"))
}

func TestMaxIterationsWithoutSubmitIsPartial(t *testing.T) {
	h := newHarness(t, Config{MaxIterations: 1},
		llmtest.Say(code("print(1)")),
		llmtest.Say("The answer is probably 7."))
	res := h.run(t)
	assert.Equal(t, StopMaxIterations, res.StopReason)
	assert.True(t, res.Partial)
	assert.False(t, res.Extracted)
	assert.Equal(t, "The answer is probably 7.", res.Answer)
}

func TestConsecutiveErrorsStop(t *testing.T) {
	h := newHarness(t, Config{MaxConsecutiveErrors: 3},
		llmtest.Say(code("ERR a")), llmtest.Say(code("print(ok)")),
		llmtest.Say(code("ERR b")), llmtest.Say(code("ERR c")), llmtest.Say(code("ERR d")))
	res := h.run(t)
	assert.Equal(t, StopErrors, res.StopReason)
	assert.ErrorIs(t, res.Err, ErrTooManyErrors)
	assert.Equal(t, 5, res.Iterations, "a successful step resets the count")
}

func TestCancellationStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := newHarness(t, Config{}, func(req llm.Request) (*llm.Response, error) {
		cancel()
		return &llm.Response{Content: code("print(1)")}, nil
	})
	res, err := h.eng.Run(ctx, testContext(t, "x"))
	require.NoError(t, err)
	assert.Equal(t, StopCanceled, res.StopReason)
	assert.ErrorIs(t, res.Err, context.Canceled)
}

func TestBudgetStopsRunWithPartialAnswer(t *testing.T) {
	ledger := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCalls: 3}})
	h := newHarness(t, Config{Ledger: ledger},
		llmtest.Say(code("print(1)")), llmtest.Say(code(`SUBMIT({"nope": 1})`)), llmtest.Say(code("print(3)")),
		llmtest.Say(code("print(4)")))
	res := h.run(t)
	assert.Equal(t, StopBudget, res.StopReason)
	assert.ErrorIs(t, res.Err, llm.ErrBudgetExceeded)
	assert.True(t, res.Partial)
	assert.Equal(t, 3, h.model.Calls(), "the fourth call is refused before it is sent")
	assert.Equal(t, 3, res.Usage.Calls)
	v, ok := res.Outputs.Get("nope")
	assert.True(t, ok, "the rejected SUBMIT is the best partial answer")
	assert.Equal(t, int64(1), v)
}

func TestPrefixStableAcrossIterations(t *testing.T) {
	h := newHarness(
		t,
		Config{},
		llmtest.Say(code("print(1)")),
		llmtest.Say("no code"),
		llmtest.Say(code("PRINT 5000")),
		llmtest.Say(submitReply("a")),
	)
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason)
	reqs := h.model.Requests()
	for _, r := range reqs[1:] {
		assert.Equal(t, reqs[0].Messages[0], r.Messages[0])
		assert.Equal(t, reqs[0].Messages[1], r.Messages[1])
	}
	hashes := map[string]bool{}
	for _, ev := range h.events(t) {
		if ev.Type == EventRequest {
			hashes[ev.Data.(map[string]any)["prefix_hash"].(string)] = true
		}
	}
	assert.Len(t, hashes, 1)
	assert.Equal(t, 0, res.Metrics.PrefixChanges)
	assert.Equal(t, 4, res.Metrics.Requests)
}

func TestTruncatedObservationPointsToOutputs(t *testing.T) {
	h := newHarness(t, Config{}, llmtest.Say(code("PRINT 50000")), llmtest.Say(submitReply("a")))
	h.run(t)
	last := lastObservation(h.model, 1)
	assert.Contains(t, last, "full output is in outputs[1]")
	assert.Less(t, len(last), 3000)
	assert.Len(t, h.exec.outputs[1], 50000)
}

func TestTimeoutStopsRun(t *testing.T) {
	h := newHarness(t, Config{Timeout: 50 * time.Millisecond}, func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: code("print(1)")}, nil
	})
	h.model.Default(func(req llm.Request) (*llm.Response, error) {
		time.Sleep(20 * time.Millisecond)
		return &llm.Response{Content: code("print(1)")}, nil
	})
	res := h.run(t)
	assert.Equal(t, StopTimeout, res.StopReason)
	assert.ErrorIs(t, res.Err, ErrTimeout)
	assert.True(t, res.Partial)
}

func TestTotalIterationBudget(t *testing.T) {
	h := newHarness(t, Config{MaxTotalIterations: 3})
	h.model.Default(llmtest.Say(code("print(1)")))
	res := h.run(t)
	assert.Equal(t, StopBudget, res.StopReason)
	assert.ErrorIs(t, res.Err, ErrIterationBudget)
	assert.Equal(t, 3, res.Iterations)
	assert.Equal(t, 3, h.model.Calls())
}

func TestContextLengthErrorForcesCompression(t *testing.T) {
	calls := 0
	h := newHarness(t, Config{}, llmtest.Say(code("print(1)")), llmtest.Say(code("print(2)")))
	h.model.Default(func(req llm.Request) (*llm.Response, error) {
		calls++
		if calls == 1 {
			return nil, &llm.Error{Kind: llm.KindContextLength, StatusCode: 400, Message: "too long"}
		}
		return &llm.Response{Content: submitReply("ok")}, nil
	})
	res := h.run(t)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	reqs := h.model.Requests()
	require.Len(t, reqs, 4)
	assert.Contains(t, reqs[3].Messages[2].Content, "[engine] Summary of earlier steps")
	assert.Equal(t, 1, res.Metrics.Compressions)
}

func TestStatusCallbackAndRootMetrics(t *testing.T) {
	var sts []Status
	h := newHarness(
		t,
		Config{OnStatus: func(s Status) { sts = append(sts, s) }},
		llmtest.Say(code("print(1)")),
		llmtest.Say(submitReply("a")),
	)
	res := h.run(t)
	require.NotEmpty(t, sts)
	last := sts[len(sts)-1]
	assert.Equal(t, "done", last.Phase)
	assert.Equal(t, StopSubmit, last.StopReason)
	assert.Equal(t, 2, last.Iteration)
	assert.Greater(t, last.Tokens, 0)
	assert.Equal(t, 2, res.Metrics.RootCalls)
	assert.Equal(t, res.Usage.PromptTokens, res.Metrics.RootPromptTokens)
}

func TestBareFinishLineRuns(t *testing.T) {
	h := newHarness(t, Config{}, llmtest.Say("I found it.\nSUBMIT({\"answer\": \"7\"})\n"))
	res := h.run(t)
	assert.Equal(t, StopSubmit, res.StopReason)
	assert.Equal(t, "7", res.Answer)
	assert.Equal(t, `SUBMIT({"answer": "7"})`, bareFinish("text\n  SUBMIT({\"answer\": \"7\"})  \nmore"))
	assert.Equal(t, `FINAL("x")`, bareFinish("FINAL(y)\nFINAL(x)"))
	assert.Empty(t, bareFinish("call SUBMIT() when done"))
}

func TestDeferredFailuresReachTheModel(t *testing.T) {
	h := newHarness(t, Config{}, llmtest.Say(code("DEFERFAIL")), llmtest.Say(submitReply("a")))
	h.run(t)
	last := lastObservation(h.model, 1)
	assert.Contains(t, last, "1 deferred operation(s) failed")
	assert.Contains(t, last, "llm_query: `llm: budget: budget exceeded`")
	var rep map[string]any
	for _, ev := range h.events(t) {
		if ev.Type == EventDeferred {
			rep = ev.Data.(map[string]any)
		}
	}
	require.NotNil(t, rep)
	assert.Equal(t, float64(2), rep["started"])
}
