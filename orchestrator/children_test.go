package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// fakeClock is a clock that moves only when told (the fake upstream's
// latency): Config.Now for the usage figures and the active-time budget.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// treeServer is the fake OpenAI upstream of a run tree: each RLM's root
// requests get the replies of the script whose marker is in the request's
// first user message (its query), by step; sub-model requests go to sub.
// Each request advances clock (when set) by latency.
type treeServer struct {
	*llmtest.Server
	mu      sync.Mutex
	byRun   map[string]int // requests per marker
	clock   *fakeClock
	latency time.Duration
	// childLag, if set, holds each request of a child (a query with
	// "Q-CHILD") that long in real time before the clock advances, so
	// that its parent's code, running alongside, is blocked on the child
	// by then: time the parent's code runs while a child's call is in
	// flight counts twice (active time sums concurrent work), which would
	// make the figures depend on the scheduling.
	childLag time.Duration
}

func newTreeServer(t *testing.T, scripts map[string][]llmtest.Reply, sub func(prompt string) llmtest.Reply) *treeServer {
	ts := &treeServer{Server: llmtest.NewServer(t), byRun: map[string]int{}}
	ts.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if ts.clock != nil {
			if ts.childLag > 0 && len(c.Messages) > 1 && strings.Contains(c.Messages[1].Content, "Q-CHILD") {
				time.Sleep(ts.childLag)
			}
			ts.clock.advance(ts.latency)
		}
		if c.Model == subModel {
			ts.count("sub")
			return sub(c.Messages[len(c.Messages)-1].Content)
		}
		first := ""
		for _, m := range c.Messages {
			if m.Role == llm.RoleUser {
				first = m.Content
				break
			}
		}
		// The longest marker first: "Q-CHILD-1" is also "Q-CHILD".
		best := ""
		for marker := range scripts {
			if strings.Contains(first, marker) && len(marker) > len(best) {
				best = marker
			}
		}
		if best == "" {
			return llmtest.Text("no script for this request")
		}
		ts.count(best)
		replies := scripts[best]
		return replies[min(assistants(c.Messages), len(replies)-1)]
	})
	return ts
}

func (ts *treeServer) count(marker string) {
	ts.mu.Lock()
	ts.byRun[marker]++
	ts.mu.Unlock()
}

func (ts *treeServer) requests(marker string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.byRun[marker]
}

// runTree runs the query over the tree server with cfg (its model, ledger
// and trajectory set here) and returns the result and the trajectory.
func runTree(t *testing.T, ts *treeServer, cfg Config, query string) (*Result, []Event) {
	t.Helper()
	client, err := llm.New(llm.Config{BaseURL: ts.URL(), APIKey: "sk-test", Model: rootModel, SubModel: subModel, MaxRetries: -1})
	require.NoError(t, err)
	cfg.Ledger = llm.NewLedger(llm.LedgerConfig{})
	cfg.Model = llm.Metered(client, cfg.Ledger)
	cfg.RootModel, cfg.SubModel = rootModel, subModel
	var traj bytes.Buffer
	cfg.Trajectory = &traj
	c := rlmctx.NewContext(query)
	_, err = c.Add("context", "alpha beta gamma\n")
	require.NoError(t, err)
	res, err := New(cfg).Run(context.Background(), c)
	require.NoError(t, err)
	return res, decodeEvents(t, traj.Bytes())
}

func text(lines ...string) llmtest.Reply { return llmtest.Text(code(lines...)) }

// TestChildResultsAreTyped: a child's .result is its SUBMIT outputs as
// interpreter values, typed by the outputs= it was given (nested lists
// and objects, closed objects, optional fields), or the answer str by
// default; .value stays the answer text. At the depth limit the plain
// sub-call is asked for JSON and its reply checked against the outputs.
func TestChildResultsAreTyped(t *testing.T) {
	tests := []struct {
		name    string
		depth   int
		outputs string
		child   string // the child's SUBMIT (or, at the depth limit, the sub-model's reply)
		want    string // repr(h.result()), then h.value
	}{
		{"default schema", 2, "", `SUBMIT(answer="forty")`, "'forty' | forty"},
		{"flat", 2, "n: int, ok: bool", `SUBMIT(n=3, ok=True)`, "{'n': 3, 'ok': True} | 3"},
		{"answer field", 2, "answer: str, confidence: float", `SUBMIT(answer="yes", confidence=0.5)`,
			"{'answer': 'yes', 'confidence': 0.5} | yes"},
		{"nested", 2, "items: list[{name: str, tags: list[str]}], total: int",
			`SUBMIT(items=[{"name": "a", "tags": ["x", "y"]}], total=1)`,
			`{'items': [{'name': 'a', 'tags': ['x', 'y']}], 'total': 1} | [{"name": "a", "tags": ["x", "y"]}]`},
		{"closed with an optional field", 2, "info: closed{a: int, b: str?}", `SUBMIT(info={"a": 1})`, `{'info': {'a': 1}} | {"a": 1}`},
		{"plain sub-call, default", 1, "", "forty", "'forty' | forty"},
		{"plain sub-call, JSON outputs", 1, "n: int, names: list[str]", "```json\n{\"n\": 2, \"names\": [\"a\", \"b\"]}\n```",
			"{'n': 2, 'names': ['a', 'b']} | 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTreeServer(t, map[string][]llmtest.Reply{
				"Q-ROOT": {
					text(`h = rlm_query("Q-CHILD answer it", outputs="`+tt.outputs+`", data=context)`,
						`print(repr(h.result()) + " | " + h.value)`),
					text(`SUBMIT(answer=repr(h.result()) + " | " + h.value)`),
				},
				"Q-CHILD": {text(tt.child)},
			}, func(string) llmtest.Reply { return llmtest.Text(tt.child) })
			res, _ := runTree(t, ts, Config{MaxDepth: tt.depth}, "Q-ROOT")
			require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
			assert.Equal(t, tt.want, res.Answer)
		})
	}
}

// TestChildResultErrors: outputs= that do not parse raise in the calling
// step; a child without a valid SUBMIT, or a plain sub-call whose reply is
// not the declared JSON, raise when .result is read.
func TestChildResultErrors(t *testing.T) {
	tests := []struct {
		name, outputs, child string
		depth                int
		want                 string
	}{
		{"bad schema", "n: nosuchtype", `SUBMIT(n=1)`, 2, "ValueError: rlm_query: builtins: bad rlm_query request: outputs= declares the child's outputs"},
		{"child never submits", "n: int", `answer = "partial"`, 2, "stopped (max_iterations) before a valid SUBMIT, so it has no declared outputs"},
		{"plain reply not the outputs", "n: int", `{"n": "two"}`, 1, `the sub-model's reply is not the declared outputs: field "n" must be int, got str`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTreeServer(t, map[string][]llmtest.Reply{
				"Q-ROOT":  {text(`h = rlm_query("Q-CHILD answer it", outputs="`+tt.outputs+`")`, `r = h.result()`), text(`SUBMIT(answer="x")`)},
				"Q-CHILD": {text(tt.child)},
			}, func(string) llmtest.Reply { return llmtest.Text(tt.child) })
			res, evs := runTree(t, ts, Config{MaxDepth: tt.depth, ChildMaxIterations: 1}, "Q-ROOT")
			require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
			var exec map[string]any
			for _, ev := range evs {
				if ev.Type == EventExec && ev.Run == "0" && ev.Step == 1 {
					exec = ev.Data.(map[string]any)
				}
			}
			require.NotNil(t, exec)
			assert.Contains(t, exec["error"], tt.want)
		})
	}
}

// TestChildUsageRollsUp: each child's usage (its handle's .usage, its
// child_end event) is the sum of its own requests, root and sub-calls, as
// the trajectory records them; the parent's tree_usage adds its own and
// its children's and equals the ledger's totals; children() lists them.
func TestChildUsageRollsUp(t *testing.T) {
	ts := newTreeServer(t, map[string][]llmtest.Reply{
		"Q-ROOT": {
			text(`hs = rlm_query_batched(["Q-CHILD-1 first", "Q-CHILD-2 second"], data=context)`,
				`print([h.value for h in hs])`),
			text(`SUBMIT(answer=str([(c["state"], c["usage"]["calls"], c["usage"]["prompt_tokens"]) for c in children()]))`),
		},
		"Q-CHILD-1": {text(`a = llm_query("sub one")`, `print(a)`), text(`SUBMIT(answer="one")`)},
		"Q-CHILD-2": {text(`SUBMIT(answer="two")`)},
	}, func(p string) llmtest.Reply { return llmtest.Text("sub says " + p) })
	res, evs := runTree(t, ts, Config{MaxDepth: 2}, "Q-ROOT")
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)

	// What each run's own requests used, from its reply and sub_call events.
	own := map[string]*usageData{}
	add := func(run string, u map[string]any) {
		if own[run] == nil {
			own[run] = &usageData{}
		}
		own[run].Calls++
		own[run].PromptTokens += int(u["prompt_tokens"].(float64))
		own[run].CompletionTokens += int(u["completion_tokens"].(float64))
	}
	ends := map[string]map[string]any{}
	byQuery := map[string]string{} // child id by query
	var rootEnd map[string]any
	for _, ev := range evs {
		d, _ := ev.Data.(map[string]any)
		switch {
		case ev.Type == EventReply, ev.Type == EventSubCall:
			add(ev.Run, d["usage"].(map[string]any))
		case ev.Type == EventChildStart:
			byQuery[d["query"].(string)] = d["child"].(string)
		case ev.Type == EventChildEnd:
			ends[d["child"].(string)] = d["usage"].(map[string]any)
		case ev.Type == EventRunEnd && ev.Run == "0":
			rootEnd = d["tree_usage"].(map[string]any)
		}
	}
	require.Len(t, ends, 2)
	order := []string{byQuery["Q-CHILD-1 first"], byQuery["Q-CHILD-2 second"]} // start order
	var sum usageData
	var rows []string
	for _, id := range order {
		u, o := ends[id], own[id]
		require.NotNil(t, o, id)
		assert.Equal(t, float64(o.Calls), u["calls"], "child %s: calls", id)
		assert.Equal(t, float64(o.PromptTokens), u["prompt_tokens"], "child %s: prompt tokens", id)
		assert.Equal(t, float64(o.CompletionTokens), u["completion_tokens"], "child %s: completion tokens", id)
		sum.Calls += o.Calls
		sum.PromptTokens += o.PromptTokens
		rows = append(rows, fmt.Sprintf("('done', %d, %d)", o.Calls, o.PromptTokens))
	}
	assert.Equal(t, 4, sum.Calls, "child 1: two requests and a sub-call; child 2: one request")
	assert.Equal(t, 4, ts.requests("Q-CHILD-1")+ts.requests("Q-CHILD-2")+ts.requests("sub"), "as the upstream counted them")
	assert.Equal(t, float64(sum.Calls+own["0"].Calls), rootEnd["calls"], "the root's tree usage adds its children's")
	assert.Equal(t, float64(sum.PromptTokens+own["0"].PromptTokens), rootEnd["prompt_tokens"])
	assert.Equal(t, float64(res.Usage.Calls), rootEnd["calls"], "and equals the ledger's totals")
	assert.Equal(t, float64(res.Usage.PromptTokens), rootEnd["prompt_tokens"])
	assert.Equal(t, "["+strings.Join(rows, ", ")+"]", res.Answer, "children() in the root's code saw the same figures, in start order")
}

// TestChildCancel: cancel() stops the child while its request is in
// flight: the request is abandoned, no further request is made for it,
// its state is cancelled and reading its result raises a clear error.
func TestChildCancel(t *testing.T) {
	inFlight := make(chan struct{})
	var once sync.Once
	blocked := llmtest.Reply{Handler: func(w http.ResponseWriter, r *http.Request, _ llmtest.Call) {
		once.Do(func() { close(inFlight) })
		<-r.Context().Done() // answered only if the client waits
	}}
	ts := newTreeServer(t, map[string][]llmtest.Reply{
		"Q-ROOT": {
			text(`h = rlm_query("Q-CHILD slow")`,
				`gate = llm_query("GATE")`, // answered once the child's second request is in flight
				`print(gate)`,
				`h.cancel()`,
				`print(h.state)`),
			text(`try:`,
				`    h.result()`,
				`    msg = "no error"`,
				`except Exception as e:`,
				`    msg = str(e)`,
				`SUBMIT(answer=h.state + " " + str(h.done) + " " + str([c["state"] for c in children()]) + " " + msg)`),
		},
		"Q-CHILD": {text(`x = 1`), blocked, text(`SUBMIT(answer="too late")`)},
	}, func(p string) llmtest.Reply {
		<-inFlight
		return llmtest.Text("go")
	})
	res, evs := runTree(t, ts, Config{MaxDepth: 2}, "Q-ROOT")
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, 2, ts.requests("Q-CHILD"), "no request after the cancelled one")
	assert.True(t, strings.HasPrefix(res.Answer, "cancelled True ['cancelled'] "), res.Answer)
	assert.Contains(t, res.Answer, "the child run was cancelled")
	for _, ev := range evs {
		if ev.Type == EventChildEnd {
			assert.Equal(t, string(StopCanceled), ev.Data.(map[string]any)["stop_reason"])
		}
	}
}

// TestActiveTime: the tree's active time counts every model call's time
// and the code's running time, not the time the root's code or barrier
// waits for its child (the child's own calls are counted once); the
// active-time budget stops the run as a budget, by that count. The fake
// upstream takes 10 s of a fake clock per request.
func TestActiveTime(t *testing.T) {
	tests := []struct {
		name      string
		wait      string // how the root waits for its child
		limit     time.Duration
		stop      StopReason
		active    time.Duration
		childUsed time.Duration
	}{
		{"waits in its code", `print(h)`, 0, StopSubmit, 40 * time.Second, 20 * time.Second},
		{"waits at the barrier", `pass`, 0, StopSubmit, 40 * time.Second, 20 * time.Second},
		// Counting the 20 s the root waited would put it at 50 s before
		// its second request, over the limit.
		{"a limit the waiting would break", `print(h)`, 35 * time.Second, StopSubmit, 40 * time.Second, 20 * time.Second},
		// Root 10 s, the child's first request 10 s: its second request
		// is refused, and so is the root's next one.
		{"a limit reached in the child", `print(h)`, 15 * time.Second, StopBudget, 20 * time.Second, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTreeServer(t, map[string][]llmtest.Reply{
				"Q-ROOT":  {text(`h = rlm_query("Q-CHILD work")`, tt.wait), text(`SUBMIT(answer=h.value)`)},
				"Q-CHILD": {text(`x = 1`), text(`SUBMIT(answer="done")`)},
			}, nil)
			clock := newFakeClock()
			ts.clock, ts.latency, ts.childLag = clock, 10*time.Second, 200*time.Millisecond
			res, evs := runTree(t, ts, Config{MaxDepth: 2, MaxActiveTime: tt.limit, Now: clock.Now}, "Q-ROOT")
			require.Equal(t, tt.stop, res.StopReason, "err: %v", res.Err)
			assert.Equal(t, tt.active, res.ActiveTime)
			var childActive, rootActive float64
			for _, ev := range evs {
				d, _ := ev.Data.(map[string]any)
				if ev.Type == EventChildEnd {
					childActive = d["usage"].(map[string]any)["active_ms"].(float64)
				}
				if ev.Type == EventRunEnd && ev.Run == "0" {
					rootActive = d["tree_usage"].(map[string]any)["active_ms"].(float64)
				}
			}
			assert.Equal(t, float64(tt.childUsed.Milliseconds()), childActive)
			assert.Equal(t, float64(tt.active.Milliseconds()), rootActive)
			if tt.stop == StopBudget {
				assert.ErrorIs(t, res.Err, ErrActiveTimeBudget)
				assert.ErrorIs(t, res.Err, llm.ErrBudgetExceeded)
				assert.Equal(t, llm.KindBudget, llm.KindOf(res.Err))
				assert.Contains(t, res.Err.Error(), "llm: budget: active time 20s reached the limit 15s")
			}
		})
	}
}

// The handle's usage type is the builtins' (one definition).
var _ = builtins.ChildUsage{}
