package builtins_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
)

// ctlChild starts child runs the test controls: each waits for release
// (or its context) and answers with its script's result.
type ctlChild struct {
	mu      sync.Mutex
	runs    []*ctlRun
	release chan struct{}
	// result gives each child's result by query (default: answer "A:" + query).
	result func(req builtins.ChildRequest) (builtins.ChildResult, error)
}

func newCtlChild() *ctlChild { return &ctlChild{release: make(chan struct{})} }

func (c *ctlChild) StartChild(req builtins.ChildRequest) (builtins.ChildRun, error) {
	if strings.Contains(req.Outputs, "bad") {
		return nil, fmt.Errorf("%w: outputs %q: unknown type", builtins.ErrChildRequest, req.Outputs)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &ctlRun{c: c, req: req, id: fmt.Sprintf("0.1.%06d", len(c.runs)), stopped: make(chan error, 1), started: make(chan struct{})}
	r.usage = builtins.ChildUsage{Calls: 1, PromptTokens: 10, CompletionTokens: 2, Wall: 1500 * time.Millisecond, Active: time.Second}
	c.runs = append(c.runs, r)
	return r, nil
}

type ctlRun struct {
	c       *ctlChild
	req     builtins.ChildRequest
	id      string
	stopped chan error // the cause when the run's context ended first
	started chan struct{}
	mu      sync.Mutex
	usage   builtins.ChildUsage
}

func (r *ctlRun) ID() string { return r.id }

func (r *ctlRun) Run(ctx context.Context) (builtins.ChildResult, error) {
	close(r.started)
	select {
	case <-r.c.release:
	case <-ctx.Done():
		r.stopped <- context.Cause(ctx)
		return builtins.ChildResult{StopReason: "canceled", Partial: true}, nil
	}
	r.mu.Lock()
	r.usage.Calls, r.usage.CompletionTokens = 2, 5
	r.mu.Unlock()
	if r.c.result != nil {
		return r.c.result(r.req)
	}
	return builtins.ChildResult{Answer: " A:" + r.req.Query + "\n", StopReason: "submit"}, nil
}

func (r *ctlRun) Usage() builtins.ChildUsage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.usage
}

// TestChildHandle: rlm_query's handle reports the child while it runs
// (done, state, usage, children()) without waiting, and afterwards reads
// as the answer str does (print, ==, +, len, methods) and as .result.
func TestChildHandle(t *testing.T) {
	child := newCtlChild()
	e := newEnv(t, &builtins.Host{Child: child}, nil)
	e.run(`h = rlm_query("q1", x=[1])`)
	running := []struct{ code, want string }{
		{`print(h.done, h.state, h.id)`, "False running 0.1.000000"},
		{
			`u = h.usage; print(u["calls"], u["prompt_tokens"], u["active_seconds"], u["wall_seconds"], u["cost_usd"])`,
			"1 10 1.0 1.5 None",
		},
		{`print([(c["id"], c["query"], c["state"], c["usage"]["calls"]) for c in children()])`, "[('0.1.000000', 'q1', 'running', 1)]"},
		{`print(type(h.cancel))`, "<class 'builtin_function_or_method'>"},
	}
	for _, tt := range running {
		assert.Equal(t, tt.want+"\n", e.run(tt.code), tt.code)
	}
	close(child.release)
	require.NoError(t, e.host.Group.Wait(context.Background()))
	done := []struct{ code, want string }{
		{`print(h.done, h.state)`, "True done"},
		{`print(h)`, "A:q1"},
		{`print(str(h), h == "A:q1", "A:q1" == h, h != "x")`, "A:q1 True True True"},
		{`print(h + "!", "<" + h, len(h), h.lower(), h.split(":"), "q1" in h)`, "A:q1! <A:q1 4 a:q1 ['A', 'q1'] True"},
		{`print(repr(h.value), repr(h.result()), h.error)`, "'A:q1' 'A:q1' None"},
		{`print(h.usage["calls"], h.usage["completion_tokens"])`, "2 5"},
		{`print([c["state"] for c in children()])`, "['done']"},
		{`h.cancel(); print(h.state, h.result())`, "done A:q1"},
		{`print(sorted([rlm_query("b"), rlm_query("a")]))`, "['A:a', 'A:b']"},
	}
	for _, tt := range done {
		assert.Equal(t, tt.want+"\n", e.run(tt.code), tt.code)
	}
}

// TestChildResultTyped: .result is the child's declared outputs as a dict
// (with nested values), the answer str for the default schema; a child
// without a valid SUBMIT or a failed child raises when it is read.
func TestChildResultTyped(t *testing.T) {
	nested := starlark.NewDict(2)
	items := starlark.NewDict(1)
	require.NoError(t, items.SetKey(starlark.String("name"), starlark.String("x")))
	require.NoError(t, nested.SetKey(starlark.String("items"), starlark.NewList([]starlark.Value{items})))
	require.NoError(t, nested.SetKey(starlark.String("total"), starlark.MakeInt(3)))
	flat := starlark.NewDict(2)
	require.NoError(t, flat.SetKey(starlark.String("n"), starlark.MakeInt(2)))
	require.NoError(t, flat.SetKey(starlark.String("ok"), starlark.True))
	tests := []struct {
		name    string
		outputs string
		res     builtins.ChildResult
		err     error
		code    string
		want    string // output, or the error's message part
		wantErr string
	}{
		{"default schema", "", builtins.ChildResult{Answer: "forty-two\n"}, nil,
			`r = h.result(); print(type(r).__name__, r)`, "str forty-two", ""},
		{"flat outputs", "n: int, ok: bool", builtins.ChildResult{Answer: "2", Outputs: flat}, nil,
			`r = h.result(); print(r["n"] + 1, r["ok"], sorted(r.keys()), h)`, "3 True ['n', 'ok'] 2", ""},
		{"nested outputs", "items: list[{name: str}], total: int", builtins.ChildResult{Answer: "3", Outputs: nested}, nil,
			`print(h.result()["items"][0]["name"], h.result()["total"])`, "x 3", ""},
		{"partial", "n: int", builtins.ChildResult{Answer: "maybe 2", Partial: true, StopReason: "budget"}, nil,
			`print(h.value); h.result()`, "maybe 2", "stopped (budget) before a valid SUBMIT, so it has no declared outputs"},
		{"failed", "", builtins.ChildResult{}, errors.New("child broke"), `h.result()`, "", "child broke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			child := newCtlChild()
			close(child.release)
			child.result = func(builtins.ChildRequest) (builtins.ChildResult, error) { return tt.res, tt.err }
			e := newEnv(t, &builtins.Host{Child: child}, nil)
			e.run(fmt.Sprintf(`h = rlm_query("q", outputs=%q)`, tt.outputs))
			assert.Equal(t, tt.outputs, child.runs[0].req.Outputs)
			out, err := e.exec(tt.code)
			if tt.want != "" {
				assert.Equal(t, tt.want+"\n", out)
			}
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			assert.Contains(t, scriptErr(t, err, "RuntimeError"), tt.wantErr)
		})
	}
}

// TestChildCancel: cancel() stops the child's run (its context ends with
// ErrChildCanceled), its state is cancelled at once, and reading its
// result raises a clear error.
func TestChildCancel(t *testing.T) {
	child := newCtlChild()
	e := newEnv(t, &builtins.Host{Child: child}, nil)
	e.run(`h = rlm_query("long task")
other = rlm_query("short")`)
	<-child.runs[0].started
	assert.Equal(t, "cancelled\n", e.run(`h.cancel()
print(h.state)`), "cancelled at once, while the run stops")
	select {
	case cause := <-child.runs[0].stopped:
		assert.ErrorIs(t, cause, builtins.ErrChildCanceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled child's run did not stop")
	}
	close(child.release)
	require.NoError(t, e.host.Group.Wait(context.Background()))
	assert.Equal(t, "cancelled True\n[('long task', 'cancelled'), ('short', 'done')]\n",
		e.run(`print(h.state, h.done)
print([(c["query"], c["state"]) for c in children()])`))
	for _, code := range []string{`h.result()`, `h.value`} {
		_, err := e.exec(code)
		msg := scriptErr(t, err, "")
		assert.Contains(t, msg, "cancelled", code)
		assert.ErrorIs(t, err, builtins.ErrChildCanceled, code)
	}
	assert.Contains(t, e.run(`print(h)`), "the child run was cancelled", "printing it says so instead of failing")
}

// TestRLMQueryBatched: one child per query with the same variables and
// outputs, started at once; a refused request raises a ValueError.
func TestRLMQueryBatched(t *testing.T) {
	child := newCtlChild()
	close(child.release)
	e := newEnv(t, &builtins.Host{Child: child}, nil)
	out := e.run(`docs = ["a", "b"]
hs = rlm_query_batched(["q1", "q2", "q3"], outputs="n: int", data=docs)
print(len(hs), [h.value for h in hs], [c["state"] for c in children()])`)
	assert.Equal(t, "3 ['A:q1', 'A:q2', 'A:q3'] ['done', 'done', 'done']\n", out)
	require.Len(t, child.runs, 3)
	for i, r := range child.runs {
		assert.Equal(t, fmt.Sprintf("q%d", i+1), r.req.Query)
		assert.Equal(t, "n: int", r.req.Outputs)
		assert.Same(t, e.global("docs").(*starlark.List), r.req.Vars["data"].(*starlark.List))
	}
	for code, want := range map[string]string{
		`rlm_query_batched("q")`:                  "rlm_query_batched: queries must be a list of str, got str",
		`rlm_query_batched(["q", 1])`:             "rlm_query_batched: queries[1] must be a str, got int",
		`rlm_query("q", outputs="bad")`:           `rlm_query: builtins: bad rlm_query request: outputs "bad": unknown type`,
		`rlm_query_batched(["q"], outputs="bad")`: "queries[0]: rlm_query_batched: builtins: bad rlm_query request",
	} {
		_, err := e.exec(code)
		kind := "TypeError"
		if strings.Contains(code, "bad") {
			kind = "ValueError"
		}
		assert.Contains(t, scriptErr(t, err, kind), want, code)
	}
}
