package builtins_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/sandbox"
)

func outputsJSON(t *testing.T, err error) (string, string) {
	t.Helper()
	require.ErrorIs(t, err, builtins.ErrSubmit)
	var se *builtins.SubmitError
	require.True(t, errors.As(err, &se))
	b, jerr := json.Marshal(se.Outputs)
	require.NoError(t, jerr)
	return string(b), se.Alias
}

func TestSubmit(t *testing.T) {
	m := llmtest.NewScripted().Default(echo("llm:"))
	tests := []struct{ code, want, alias string }{
		{`SUBMIT({"answer": 42, "why": ["a", "b"]})`, `{"answer":42,"why":["a","b"]}`, "SUBMIT"},
		{`SUBMIT(answer="x", n=1.5)`, `{"answer":"x","n":1.5}`, "SUBMIT"},
		{`SUBMIT({"a": 1}, b=None)`, `{"a":1,"b":null}`, "SUBMIT"},
		{`SUBMIT("bare")`, `{"answer":"bare"}`, "SUBMIT"},
		{`SUBMIT(answer=llm_query("q"))`, `{"answer":"llm:q"}`, "SUBMIT"},
		{`SUBMIT(parts=[llm_query("a"), llm_query("b")])`, `{"parts":["llm:a","llm:b"]}`, "SUBMIT"},
		{`FINAL("done")`, `{"answer":"done"}`, "FINAL"},
		{`result = {"k": [1, 2]}
FINAL_VAR("result")`, `{"answer":{"k":[1,2]}}`, "FINAL_VAR"},
		{`FINAL_VAR("earlier")`, `{"answer":"from step 1"}`, "FINAL_VAR"},
		{`FINAL_VAR("not a name: the answer")`, `{"answer":"not a name: the answer"}`, "FINAL_VAR"},
		{`FINAL_VAR(7)`, `{"answer":7}`, "FINAL_VAR"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			e := newEnv(t, &builtins.Host{Model: m}, nil)
			e.run(`earlier = "from step 1"`)
			out, err := e.exec("print('before')\n" + tt.code + "\nprint('after')")
			assert.Equal(t, "before\n", out, "SUBMIT ends the step")
			got, alias := outputsJSON(t, err)
			assert.JSONEq(t, tt.want, got)
			assert.Equal(t, tt.alias, alias)
			outs, ok := builtins.Outputs(err)
			require.True(t, ok)
			assert.IsType(t, &rlmctx.Dict{}, outs)
		})
	}
}

func TestSubmitErrors(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Fail(errors.New("model down")))
	e := newEnv(t, &builtins.Host{Model: m}, nil)
	tests := []struct{ code, want string }{
		{`SUBMIT()`, "SUBMIT: no outputs given; call SUBMIT(answer=...)"},
		{`SUBMIT({1: "x"})`, "SUBMIT: output names must be str, got int key 1"},
		{`FINAL_VAR("missing")`, "FINAL_VAR: no variable named 'missing'"},
		{`SUBMIT(answer=llm_query("q"))`, "SUBMIT: output 'answer': llm_query failed: llm_query: model down"},
		{`FINAL()`, "FINAL() missing required argument 'answer'"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, err := e.exec(tt.code)
			assert.NotErrorIs(t, err, builtins.ErrSubmit)
			assert.Contains(t, scriptErr(t, err, ""), tt.want)
		})
	}
}

// A host holding the *sandbox.Session itself must not deadlock (Exec holds
// the session's lock while helpers run): it reads a snapshot taken at the
// barrier.
func TestHostWithSandboxSessionDoesNotDeadlock(t *testing.T) {
	h := &builtins.Host{Notes: &bytes.Buffer{}}
	s := sandbox.New(sandbox.Config{Predeclared: builtins.Predeclared(h)})
	h.Session = s
	s.SetGlobal("context", starlark.String("abc"))
	// A barrier before any helper was called still refreshes the snapshot.
	_, err := s.Exec(context.Background(), "y = 2")
	require.NoError(t, err)
	require.NoError(t, h.Group.Wait(context.Background()))
	res, err := s.Exec(context.Background(), "x = 1\nshow_vars()")
	require.NoError(t, err)
	assert.Contains(t, res.Output, "x ")
	assert.Contains(t, res.Output, "y ")
	assert.Contains(t, res.Output, "context ")
	require.NoError(t, h.Group.Wait(context.Background()))
	res, err = s.Exec(context.Background(), "show_vars()")
	require.NoError(t, err)
	assert.Contains(t, res.Output, "context")
	_, err = s.Exec(context.Background(), `FINAL_VAR("x")`)
	got, _ := outputsJSON(t, err)
	assert.JSONEq(t, `{"answer":1}`, got)
}

// Inside a sandbox step the helpers read the variables the step sees
// (sandbox.StepGlobals): earlier steps and chunks, without any barrier.
func TestHelpersSeeStepGlobalsWithoutBarrier(t *testing.T) {
	h := &builtins.Host{Notes: &bytes.Buffer{}}
	s := sandbox.New(sandbox.Config{Predeclared: builtins.Predeclared(h)})
	h.Session = s
	_, err := s.Exec(context.Background(), "y = 2")
	require.NoError(t, err)
	res, err := s.Exec(context.Background(), "w = 'before'\ntry:\n    q = 1\nexcept Exception:\n    pass\nshow_vars()")
	require.NoError(t, err)
	for _, name := range []string{"y ", "w ", "q "} {
		assert.Contains(t, res.Output, name)
	}
	assert.NotContains(t, res.Output, "re ", "predeclared modules are hidden")
	_, err = s.Exec(context.Background(), "z = 3\ntry:\n    pass\nexcept Exception:\n    pass\nFINAL_VAR(\"w\")")
	got, _ := outputsJSON(t, err)
	assert.JSONEq(t, `{"answer":"before"}`, got)
}

// SUBMIT ends the run even inside try/except: *SubmitError is
// sandbox.Uncatchable.
func TestSubmitIsNotCaughtByExcept(t *testing.T) {
	var u sandbox.Uncatchable = &builtins.SubmitError{}
	assert.True(t, u.Uncatchable())
	for _, code := range []string{
		"try:\n    SUBMIT(answer=1)\nexcept Exception:\n    print('swallowed')",
		"def f():\n    try:\n        SUBMIT(answer=1)\n    except:\n        print('swallowed')\nf()",
	} {
		e := newEnv(t, nil, nil)
		out, err := e.exec(code)
		got, _ := outputsJSON(t, err)
		assert.JSONEq(t, `{"answer":1}`, got, code)
		assert.NotContains(t, out, "swallowed", code)
	}
}
