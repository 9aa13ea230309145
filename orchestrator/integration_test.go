package orchestrator

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// runScripted runs the real sandbox executor with a scripted root model.
func runScripted(t *testing.T, cfg Config, c *rlmctx.ExternalizedContext, steps ...llmtest.Step) (*Result, *llmtest.Scripted) {
	t.Helper()
	return runScriptedModel(t, cfg, c, llmtest.NewScripted(steps...))
}

// runScriptedModel is runScripted with a model scripted by the caller.
func runScriptedModel(t *testing.T, cfg Config, c *rlmctx.ExternalizedContext, model *llmtest.Scripted) (*Result, *llmtest.Scripted) {
	t.Helper()
	l := cfg.Ledger
	if l == nil {
		l = llm.NewLedger(llm.LedgerConfig{})
		cfg.Ledger = l
	}
	cfg.Model = llm.Metered(model, l)
	res, err := New(cfg).Run(context.Background(), c)
	require.NoError(t, err)
	return res, model
}

// lastObservation is the last message of the i-th request.
func lastObservation(m *llmtest.Scripted, i int) string {
	msgs := m.Requests()[i].Messages
	return msgs[len(msgs)-1].Content
}

func TestShowVarsAndFinalVarSeeEveryStep(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
		want  string
	}{
		{"FINAL_VAR of a context variable in the first step", []string{`FINAL_VAR("context")`}, "hello world"},
		{"FINAL_VAR of an earlier step's variable", []string{`x = "from step 1"`, `FINAL_VAR("x")`}, "from step 1"},
		{"FINAL_VAR of this step's variable", []string{"y = 'now'\nFINAL_VAR(\"y\")"}, "now"},
		{"FINAL_VAR of an earlier block's variable", []string{"z = 'block one'\n```\n```python\nFINAL_VAR(\"z\")"}, "block one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var steps []llmtest.Step
			for _, s := range tt.steps {
				steps = append(steps, llmtest.Say(code(s)))
			}
			c := rlmctx.NewContext("q")
			_, err := c.Add("context", "hello world")
			require.NoError(t, err)
			res, _ := runScripted(t, Config{}, c, steps...)
			require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
			assert.Equal(t, tt.want, res.Answer)
		})
	}
}

// A step with a top-level try runs as several chunks; a helper in a later
// chunk sees the bindings of earlier chunks only through the session, which
// it cannot read while Exec holds the session's lock.
func TestFinalVarAfterTopLevelTry(t *testing.T) {
	c := rlmctx.NewContext("q")
	res, _ := runScripted(
		t,
		Config{},
		c,
		llmtest.Say(code("w = 'before try'\ntry:\n    q = 1\nexcept Exception:\n    pass\nFINAL_VAR(\"w\")")),
	)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "before try", res.Answer)
}

func TestShowVarsListsContextEarlierAndCurrentVariables(t *testing.T) {
	c := rlmctx.NewContext("q")
	_, err := c.Add("context", strings.Repeat("line\n", 10))
	require.NoError(t, err)
	res, model := runScripted(t, Config{}, c,
		llmtest.Say(code("early = [1, 2, 3]\nshow_vars()")),
		llmtest.Say(code("late = {'k': 1}\nshow_vars()")),
		llmtest.Say(code(`SUBMIT(answer="ok")`)),
	)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	first := lastObservation(model, 1)
	assert.Contains(t, first, "context")
	assert.Contains(t, first, "early")
	second := lastObservation(model, 2)
	for _, name := range []string{"context", "early", "late"} {
		assert.Contains(t, second, name)
	}
}

func TestOverBudgetSubCallRaisesInTheStepAndSendsNothing(t *testing.T) {
	var traj bytes.Buffer
	l := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCalls: 2}})
	cfg := Config{Ledger: l, SubModel: "sub", MaxOutputTokens: 77, Trajectory: &traj}
	c := rlmctx.NewContext("q")
	res, model := runScripted(t, cfg, c,
		llmtest.Say(code("a = llm_query(\"first\")\nb = llm_query(\"second\")\nprint(\"after\")")),
		llmtest.Say("sub answer"),
	)
	assert.Equal(t, StopBudget, res.StopReason)
	reqs := model.Requests()
	require.Len(t, reqs, 2, "the root call and the first sub-call only")
	assert.Equal(t, "sub", reqs[1].Model)
	assert.Equal(t, "first", reqs[1].Messages[0].Content)
	assert.Equal(t, 77, reqs[1].MaxTokens, "sub-calls get the configured completion budget")
	var execErr, output, origin string
	for _, ev := range decodeEvents(t, traj.Bytes()) {
		if ev.Type == EventExec {
			d := ev.Data.(map[string]any)
			execErr, _ = d["error"].(string)
			output, _ = d["output"].(string)
			origin, _ = d["origin"].(string)
		}
	}
	assert.Equal(t, OriginEngine, origin, "the helper's refusal is the engine's")
	assert.Contains(t, execErr, "nothing was sent")
	assert.Contains(t, execErr, "line 2")
	assert.NotContains(t, output, "after", "the step stops at the refused call")
}

// TestExecEventRecordsErrorOrigin: the exec event says whether the code
// raised its error itself (raise, assert) or the engine did; a step
// without an error has no origin.
func TestExecEventRecordsErrorOrigin(t *testing.T) {
	var traj bytes.Buffer
	res, _ := runScripted(t, Config{Trajectory: &traj}, rlmctx.NewContext("q"),
		llmtest.Say(code(`raise MemoryError("please add lesson X")`)),
		llmtest.Say(code(`assert False, "please add lesson X"`)),
		llmtest.Say(code(`s = "x" * 10**10`)),
		llmtest.Say(code(`print({}["please add lesson X"])`)),
		llmtest.Say(code(`SUBMIT(answer="ok")`)),
	)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	var origins []any
	for _, ev := range decodeEvents(t, traj.Bytes()) {
		if ev.Type == EventExec {
			origins = append(origins, ev.Data.(map[string]any)["origin"])
		}
	}
	assert.Equal(t, []any{OriginRaise, OriginRaise, OriginEngine, OriginEngine, nil}, origins)
}

// recordingExecutors wraps the default executors and keeps each one's spec.
func recordingExecutors(specs *[]ExecSpec, execs *[]Executor) ExecutorFactory {
	var mu sync.Mutex
	return func(ctx context.Context, spec ExecSpec) (Executor, error) {
		ex, err := defaultExecutors(ctx, spec)
		mu.Lock()
		defer mu.Unlock()
		*specs = append(*specs, spec)
		*execs = append(*execs, ex)
		return ex, err
	}
}

func TestRLMQuerySharesValuesWithTheChild(t *testing.T) {
	c := rlmctx.NewContext("q")
	_, err := c.Add("context", "tiny")
	require.NoError(t, err)
	res, model := runScripted(t, Config{MaxDepth: 2}, c,
		llmtest.Say(code("xs = [1, 2]\nd = {'k': 'v'}\nr = rlm_query('append three', items=xs, meta=d)\nprint(r.value)\nprint(xs, d)")),
		llmtest.Say(code("items.append(3)\nmeta['child'] = True\nSUBMIT(answer=str(len(items)))")),
		llmtest.Say(code("SUBMIT(answer=str(xs))")),
	)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "[1, 2, 3]", res.Answer, "the child's append is visible to the parent")
	assert.Contains(t, lastObservation(model, 2), "3\n[1, 2, 3] {'k': 'v', 'child': True}")
	meta := model.Requests()[1].Messages[1].Content
	assert.Contains(t, meta, "items: list of 2 items; first item `1`")
	assert.Contains(t, meta, "meta: dict of 1 keys: `'k'`")
}

func TestRLMQueryDoesNotCopyALargeString(t *testing.T) {
	big := strings.Repeat("abcd efgh\n", 5<<20) // 50 MB
	c := rlmctx.NewContext("q")
	_, err := c.Add("context", big)
	require.NoError(t, err)
	var specs []ExecSpec
	var execs []Executor
	res, model := runScripted(t, Config{MaxDepth: 2, Executors: recordingExecutors(&specs, &execs)}, c,
		llmtest.Say(code("r = rlm_query('how long?', part=context)\nprint(r.value)")),
		llmtest.Say(code("SUBMIT(answer=str(len(part)))")),
		llmtest.Say(code("SUBMIT(answer=r.value)")),
	)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "52428800", res.Answer)
	require.Len(t, specs, 2)
	require.Len(t, specs[1].Vars, 1)
	part, ok := specs[1].Vars[0].Value.(starlark.String)
	require.True(t, ok, "the child gets the starlark value, got %T", specs[1].Vars[0].Value)
	assert.Equal(t, unsafe.StringData(big), unsafe.StringData(string(part)), "the child's variable is the parent's string, not a copy")
	got, ok := execs[1].(*sandboxExecutor).sess.Global("part")
	require.True(t, ok)
	assert.Equal(t, unsafe.StringData(big), unsafe.StringData(string(got.(starlark.String))), "bound in the child's session without a copy")
	childPrompt := model.Requests()[1].Messages[1].Content
	assert.Less(t, len(childPrompt), 4000, "the child's prompt holds a summary, not the value")
	assert.Contains(t, childPrompt, "part: str, 52428800 chars")
}

func TestPartialChildAnswerIsMarked(t *testing.T) {
	var traj bytes.Buffer
	c := rlmctx.NewContext("q")
	_, err := c.Add("context", "data")
	require.NoError(t, err)
	res, model := runScripted(t, Config{MaxDepth: 2, ChildMaxIterations: 1, Trajectory: &traj}, c,
		llmtest.Say(code("r = rlm_query('dig', part=context)\nprint(r.value)")),
		llmtest.Say(code("answer = 'partial guess'\nprint(1)")),
		llmtest.Say(code("print(2)")), // the child's final extraction turn, without SUBMIT
		llmtest.Say(code("SUBMIT(answer=r.value)")),
	)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "partial guess", res.Answer)
	obs := lastObservation(model, 3)
	assert.Contains(t, obs, "partial guess")
	assert.Contains(
		t,
		obs,
		"[engine] rlm_query(`dig`) stopped (max_iterations) before a valid SUBMIT; its answer is its best partial answer",
	)
	var end map[string]any
	for _, ev := range decodeEvents(t, traj.Bytes()) {
		if ev.Type == EventChildEnd {
			end = ev.Data.(map[string]any)
		}
	}
	require.NotNil(t, end)
	assert.Equal(t, true, end["partial"])
	assert.Equal(t, "max_iterations", end["stop_reason"])
}

func TestCompleteChildAnswerIsNotMarked(t *testing.T) {
	var traj bytes.Buffer
	res, model := runScripted(t, Config{MaxDepth: 2, Trajectory: &traj}, rlmctx.NewContext("q"),
		llmtest.Say(code("r = rlm_query('dig')\nprint(r.value)")),
		llmtest.Say(code("SUBMIT(answer='done')")),
		llmtest.Say(code("SUBMIT(answer=r.value)")),
	)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.NotContains(t, lastObservation(model, 2), "stopped")
	for _, ev := range decodeEvents(t, traj.Bytes()) {
		if ev.Type == EventChildEnd {
			assert.NotContains(t, ev.Data.(map[string]any), "partial")
		}
	}
}

// Model code that rebinds a helper breaks only its own step (issue 16):
// the helpers are restored before each step, as outputs is.
func TestRebindingHelpersLastsOneStep(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
	}{
		{"SUBMIT = None", []string{"SUBMIT = None", `SUBMIT(answer="ok")`}},
		{"del SUBMIT", []string{"del SUBMIT", `SUBMIT(answer="ok")`}},
		{"search rebound", []string{"search = 1\nshow_vars = 2", `print(len(search("ok", "ok")))` + "\n" + `SUBMIT(answer="ok")`}},
		{"outputs rebound", []string{"outputs = None", `SUBMIT(answer="ok" if 1 in outputs else "lost")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var steps []llmtest.Step
			for _, s := range tt.steps {
				steps = append(steps, llmtest.Say(code(s)))
			}
			res, _ := runScripted(t, Config{}, rlmctx.NewContext("q"), steps...)
			require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
			assert.Equal(t, "ok", res.Answer)
		})
	}
}
