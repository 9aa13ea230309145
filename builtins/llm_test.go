package builtins_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

func echo(prefix string) llmtest.Step {
	return func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: prefix + req.Messages[len(req.Messages)-1].Content}, nil
	}
}

func TestLLMQuery(t *testing.T) {
	m := llmtest.NewScripted().Default(echo("re: "))
	e := newEnv(t, &builtins.Host{Model: m, SubModel: "small"}, nil)
	out := e.run(`
f = llm_query("hello")
print(f)
print(f.value.upper(), f.done, f.error)
print(llm_query("hi", model="big"))
`)
	assert.Equal(t, "re: hello\nRE: HELLO True None\nre: hi\n", out)
	reqs := m.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "small", reqs[0].Model)
	assert.Equal(t, "big", reqs[1].Model)
	assert.Equal(t, llm.RoleUser, reqs[0].Messages[0].Role)
}

func TestLLMQueryIsMemoized(t *testing.T) {
	m := llmtest.NewScripted().Default(echo(""))
	e := newEnv(t, &builtins.Host{Model: m}, nil)
	out := e.run(`
a = [llm_query("same") for _ in range(3)]
b = llm_query("other")
print(a[0], a[2], b)`)
	assert.Equal(t, "same same other\n", out)
	assert.Equal(t, 2, m.Calls())
	// Also across steps (one group per run).
	e.run(`c = llm_query("same").value`)
	assert.Equal(t, 2, m.Calls())
}

func TestLLMQueryBatched(t *testing.T) {
	m := llmtest.NewScripted().Default(echo("> "))
	e := newEnv(t, &builtins.Host{Model: m}, nil)
	out := e.run(`
rs = llm_query_batched(["a", "b", "c"])
print(len(rs), [r.value for r in rs])
print(rs)`)
	assert.Equal(t, "3 ['> a', '> b', '> c']\n['> a', '> b', '> c']\n", out)

	_, err := e.exec(`llm_query_batched("abc")`)
	assert.Contains(t, scriptErr(t, err, "TypeError"), "llm_query_batched: prompts must be a list of str, got str")
	_, err = e.exec(`llm_query_batched(["a", 2])`)
	assert.Contains(t, scriptErr(t, err, "TypeError"), "llm_query_batched: prompts[1] must be a str, got int")
}

func TestLLMQueryErrors(t *testing.T) {
	e := newEnv(t, &builtins.Host{}, nil)
	_, err := e.exec(`llm_query("hi")`)
	msg := scriptErr(t, err, "")
	assert.Contains(t, msg, "llm_query: no model configured")
	assert.ErrorIs(t, err, llm.ErrNoModel)

	e = newEnv(t, &builtins.Host{Model: llmtest.NewScripted()}, nil)
	_, err = e.exec(`llm_query(42)`)
	assert.Contains(t, scriptErr(t, err, "TypeError"), "llm_query: prompt must be a str, got int")
	_, err = e.exec(`llm_query("x", model=3)`)
	assert.Contains(t, scriptErr(t, err, "TypeError"), "llm_query: model must be a str, got int")
}

func TestFailedQueryIsAnObservation(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Fail(errors.New("upstream exploded")))
	e := newEnv(t, &builtins.Host{Model: m}, nil)
	out := e.run(`
f = llm_query("x")
print(f)
print(f.error)`)
	assert.Equal(t, "<llm_query failed: llm_query: upstream exploded>\nllm_query: upstream exploded\n", out)
	_, err := e.exec(`y = f.value`)
	assert.Contains(t, scriptErr(t, err, ""), "upstream exploded")
}

func TestContextWindow(t *testing.T) {
	m := llmtest.NewScripted().Default(echo(""))
	h := &builtins.Host{Model: m, ContextWindow: 300, MaxOutputTokens: 100}
	e := newEnv(t, h, map[string]any{"big": strings.Repeat("word ", 1000)})
	_, err := e.exec(`llm_query("Summarize: " + big)`)
	msg := scriptErr(t, err, "")
	assert.Contains(t, msg, "llm_query: builtins: prompt exceeds the model's context window: the prompt is about 10")
	assert.Contains(t, msg, "pass truncate=True")
	assert.ErrorIs(t, err, builtins.ErrContextWindow)
	assert.Equal(t, 0, m.Calls(), "nothing is sent")

	out := e.run(`r = llm_query("Summarize: " + big + " END", truncate=True).value
print(r.startswith("Summarize: word"), r.endswith("word  END"), "[... truncated: about" in r)`)
	assert.Equal(t, "True True True\n", out)
	sent := m.Requests()[0].Messages[0].Content
	assert.LessOrEqual(t, llm.CountTokens(sent), 300-100)
}

func TestBudgetRefusesBeforeSending(t *testing.T) {
	m := llmtest.NewScripted().Default(echo(""))
	ledger := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCalls: 2}})
	h := &builtins.Host{Model: llm.Metered(m, ledger), Ledger: ledger}
	e := newEnv(t, h, nil)
	_, err := e.exec(`fs = [llm_query("q%d" % i) for i in range(3)]`)
	msg := scriptErr(t, err, "")
	assert.Contains(t, msg, "llm_query: ")
	assert.Contains(t, msg, "call limit 2 reached")
	assert.Contains(t, msg, "nothing was sent")
	assert.ErrorIs(t, err, llm.ErrBudgetExceeded)
	require.NoError(t, h.Group.Wait(context.Background()))
	assert.Equal(t, 2, m.Calls())
	assert.Equal(t, 2, ledger.Totals().Calls)
}

// The fan-out of 100 calls runs through the client's limiter: at most 16
// in flight and all of them concurrently up to that bound (wall time is
// measured by BenchmarkFanOut, not asserted).
func TestFanOutIsBoundedByTheClientLimiter(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Content: "ok " + c.Messages[0].Content, Delay: 100 * time.Millisecond}
	})
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", MaxConcurrency: 16})
	require.NoError(t, err)
	e := newEnv(t, &builtins.Host{Model: client}, nil)
	out := e.run(`
fs = [llm_query("item %d" % i) for i in range(100)]
print(len([f for f in fs if f.value.startswith("ok item")]))`)
	assert.Equal(t, "100\n", out)
	assert.Equal(t, 100, srv.Count())
	assert.LessOrEqual(t, srv.MaxInFlight(), 16)
	assert.GreaterOrEqual(t, srv.MaxInFlight(), 8)
}

func BenchmarkFanOut(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Content: "ok", Delay: 100 * time.Millisecond} })
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", MaxConcurrency: 16})
	require.NoError(b, err)
	predeclared := builtins.Predeclared(nil)
	for i := 0; b.Loop(); i++ {
		h := &builtins.Host{Model: client}
		thread := &starlark.Thread{}
		builtins.Attach(thread, h)
		start := time.Now()
		_, err := starlark.ExecFileOptions(
			&syntax.FileOptions{},
			thread,
			"bench.star",
			fmt.Sprintf(`fs = [llm_query("run %d item %%d" %% i) for i in range(100)]`, i),
			predeclared,
		)
		require.NoError(b, err)
		require.NoError(b, h.Group.Wait(context.Background()))
		b.ReportMetric(float64(time.Since(start))/float64(100*time.Millisecond), "latencies")
	}
}

func TestSummarize(t *testing.T) {
	m := llmtest.NewScripted().Default(func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: fmt.Sprintf("summary(%d tokens max)", req.MaxTokens)}, nil
	})
	e := newEnv(t, &builtins.Host{Model: m}, map[string]any{"doc": "The cat sat on the mat.\nIt was 42 degrees."})
	assert.Equal(t, "summary(150 tokens max)\n", e.run(`print(summarize(doc, max_tokens=100))`))
	prompt := m.Requests()[0].Messages[0].Content
	assert.Contains(t, prompt, "at most 100 tokens")
	assert.Contains(t, prompt, "It was 42 degrees.")

	_, err := e.exec(`summarize(doc, max_tokens=0)`)
	assert.Contains(t, scriptErr(t, err, "ValueError"), "summarize: max_tokens must be positive, got 0")
}

func TestSummarizeMapReduce(t *testing.T) {
	var mu sync.Mutex
	var prompts []string
	m := llmtest.NewScripted().Default(func(req llm.Request) (*llm.Response, error) {
		mu.Lock()
		prompts = append(prompts, req.Messages[0].Content)
		mu.Unlock()
		return &llm.Response{Content: "partial"}, nil
	})
	big := strings.Repeat("some words on a line\n", 400) // ~2,400 tokens
	e := newEnv(t, &builtins.Host{Model: m, ContextWindow: 1500, MaxOutputTokens: 200}, map[string]any{"doc": big})
	assert.Equal(t, "partial\n", e.run(`print(summarize(doc))`))
	assert.GreaterOrEqual(t, len(prompts), 3, "parts plus the combining call")
	assert.Contains(t, prompts[len(prompts)-1], "summaries of consecutive parts")

	e = newEnv(t, &builtins.Host{Model: m, ContextWindow: 1500, MaxOutputTokens: 200}, map[string]any{"doc": strings.Repeat(big, 20)})
	_, err := e.exec(`summarize(doc)`)
	assert.Contains(t, scriptErr(t, err, ""), "chunk it (chunk(var, size))")
}

func TestSummarizeOffline(t *testing.T) {
	lines := make([]string, 200)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d says something", i)
	}
	e := newEnv(t, nil, map[string]any{"doc": strings.Join(lines, "\n"), "items": []any{"a", "b"}})
	out := e.run(`s = summarize(doc, max_tokens=60)
print(s)`)
	assert.True(t, strings.HasPrefix(out, "[extractive summary: no model configured] str of "), out)
	assert.Contains(t, out, "line 0 says something\n")
	assert.Contains(t, out, "line 199 says something\n")
	assert.Contains(t, out, "lines omitted ...]")
	assert.Contains(t, e.notes.String(), "summarize: no model configured; returning an extractive summary")
	assert.Contains(t, e.run(`print(summarize(items))`), "list of 2 items.\n[0] a\n[1] b")
}

func TestFindRelevantEmbeddings(t *testing.T) {
	emb := &llmtest.HashEmbedder{}
	docs := []any{
		"the weather is sunny today",
		"quarterly revenue grew by ten percent",
		"the cat chased a mouse",
		"revenue and profit forecasts",
	}
	e := newEnv(t, &builtins.Host{Embedder: emb, EmbeddingModel: "e"}, map[string]any{"docs": docs})
	out := e.run(`
r = find_relevant(docs, "revenue growth", top_k=2)
print(sorted([x["index"] for x in r]), r[0]["method"], r[0]["score"] >= r[1]["score"])
print("revenue" in r[0]["item"])`)
	assert.Equal(t, "[1, 3] embedding True\nTrue\n", out)
	texts := emb.Texts()
	assert.Equal(t, 5, texts)
	// Items are cached by content hash: a new query embeds only itself.
	e.run(`r = find_relevant(docs, "cat").value`)
	assert.Equal(t, texts+1, emb.Texts())
	assert.Empty(t, e.notes.String())
}

func TestFindRelevantBM25(t *testing.T) {
	text := strings.Repeat(
		"filler text about nothing in particular\n",
		100,
	) + "the secret launch code is 7731\n" + strings.Repeat(
		"more filler lines here\n",
		100,
	)
	e := newEnv(t, nil, map[string]any{
		"text":  text,
		"files": dict("a.md", "notes about cooking", "b.md", "launch checklist and launch code"),
	})
	out := e.run(`
r = find_relevant(text, "launch code", top_k=1)[0]
print(r["method"], "7731" in r["item"], r["line"] > 1)
print([x["key"] for x in find_relevant(files, "launch code")])`)
	assert.Equal(t, "bm25 True True\n['b.md', 'a.md']\n", out)
	assert.Contains(t, e.notes.String(), "find_relevant: no embedding model configured; ranking with BM25")

	for code, want := range map[string]string{
		`find_relevant(text, 5)`:            "find_relevant: query must be a str, got int",
		`find_relevant(text, "x", top_k=0)`: "find_relevant: top_k must be positive, got 0",
		`find_relevant(1.5, "x")`:           "find_relevant: var must be a str, list, tuple or dict, got float",
	} {
		_, err := e.exec(code)
		assert.Contains(t, scriptErr(t, err, ""), want, code)
	}
}

type fakeChild struct {
	mu    sync.Mutex
	query string
	vars  map[string]starlark.Value
}

func (c *fakeChild) StartChild(req builtins.ChildRequest) (builtins.ChildRun, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.query, c.vars = req.Query, req.Vars
	return answerRun(fmt.Sprintf("child saw %d vars", len(req.Vars))), nil
}

// answerRun is a child run that answers with its text at once.
type answerRun string

func (a answerRun) ID() string { return "0.1.abcdef" }
func (a answerRun) Run(ctx context.Context) (builtins.ChildResult, error) {
	return builtins.ChildResult{Answer: string(a), StopReason: "submit"}, nil
}
func (a answerRun) Usage() builtins.ChildUsage { return builtins.ChildUsage{} }

func TestRLMQuery(t *testing.T) {
	child := &fakeChild{}
	e := newEnv(t, &builtins.Host{Child: child}, nil)
	out := e.run(`
part = ["a", "b"]
f = rlm_query("count the items", items=part, n=2)
print(f)
part.append("c")`)
	assert.Equal(t, "child saw 2 vars\n", out)
	assert.Equal(t, "count the items", child.query)
	assert.Same(t, e.global("part").(*starlark.List), child.vars["items"].(*starlark.List), "the child gets the caller's list, not a copy")
	assert.Equal(t, `["a", "b", "c"]`, child.vars["items"].String())
	assert.Equal(t, "2", child.vars["n"].String())

	e = newEnv(t, &builtins.Host{}, nil)
	_, err := e.exec(`rlm_query("q", x=1)`)
	msg := scriptErr(t, err, "")
	assert.Contains(t, msg, "rlm_query: builtins: recursion depth limit reached")
	assert.Contains(t, msg, "use llm_query(prompt) instead")
	assert.ErrorIs(t, err, builtins.ErrDepthLimit)
}

func TestMemoizedPendingCallReleasesItsReservation(t *testing.T) {
	release := make(chan struct{})
	m := llmtest.NewScripted().Default(func(req llm.Request) (*llm.Response, error) {
		<-release
		return &llm.Response{Content: "ok"}, nil
	})
	ledger := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCalls: 2}})
	h := &builtins.Host{Model: llm.Metered(m, ledger), Ledger: ledger}
	e := newEnv(t, h, nil)
	// The same prompt three times while the first call is in flight: one
	// call, and the budget still has room for a second distinct call.
	e.run(`fs = [llm_query("same") for _ in range(3)]
g = llm_query("other")`)
	close(release)
	require.NoError(t, h.Group.Wait(context.Background()))
	assert.Equal(t, 2, m.Calls())
	assert.Equal(t, 0, ledger.InFlight())
}

func TestSummarizeOfflineLargeText(t *testing.T) {
	var b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&b, "row %d\n", i)
	}
	e := newEnv(t, nil, map[string]any{"doc": b.String()})
	out := e.run(`print(summarize(doc, max_tokens=40))`)
	assert.Contains(t, out, "row 0\nrow 1\n")
	assert.Contains(t, out, "\nrow 199999\n")
	assert.Regexp(t, `\[\.\.\. 199,9\d\d lines omitted \.\.\.\]`, out)
}

func TestRLMQueryPassesValuesWithoutCopying(t *testing.T) {
	big := strings.Repeat("0123456789", 5<<20) // 50 MB
	child := &fakeChild{}
	e := newEnv(t, &builtins.Host{Child: child}, map[string]any{"big": big})
	e.run(`
d = {"k": [1]}
f = rlm_query("q", text=big, data=d, slice=big[:10])
f.value`)
	text, ok := child.vars["text"].(starlark.String)
	require.True(t, ok)
	assert.Equal(t, unsafe.StringData(big), unsafe.StringData(string(text)), "the 50 MB string is not duplicated")
	assert.Same(t, e.global("d").(*starlark.Dict), child.vars["data"].(*starlark.Dict))
	assert.Equal(t, `"0123456789"`, child.vars["slice"].String())
}

// A deferred result compares with == and != as its value (Starlark's ==
// alone would say False for a future and a str).
func TestFutureEquality(t *testing.T) {
	m := llmtest.NewScripted().Default(func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: "yes"}, nil
	})
	e := newEnv(t, &builtins.Host{Model: m}, nil)
	out := e.run(`
a = llm_query("is it?")
print(a == "yes", "yes" == a, a != "yes", a == "no", llm_query("again?") == "yes")
votes = [llm_query("q%d" % i) for i in range(3)]
print(sum(v == "yes" for v in votes), [v for v in votes if v != "no"])
`)
	assert.Equal(t, "True True False False True\n3 ['yes', 'yes', 'yes']\n", out)
}

// Sub-call results come back without the model's surrounding whitespace
// (a trailing newline would end up in SUBMIT or json.loads).
func TestSubCallResultsAreStripped(t *testing.T) {
	m := llmtest.NewScripted().Default(func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: "\n  {\"n\": 1}\n\n"}, nil
	})
	tests := []struct {
		name string
		host *builtins.Host
		code string
	}{
		{"llm_query", &builtins.Host{Model: m}, `r = llm_query("q").value`},
		{"llm_query_batched", &builtins.Host{Model: m}, `r = llm_query_batched(["a", "b"])[1].value`},
		{"summarize", &builtins.Host{Model: m}, `r = summarize("some text").value`},
		{
			"summarize map-reduce",
			&builtins.Host{Model: m, ContextWindow: 1500, MaxOutputTokens: 200},
			`r = summarize("some words on a line\n" * 400).value`,
		},
		{"rlm_query", &builtins.Host{Child: spacedChild{}}, `r = rlm_query("q", x=1).value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.host, nil)
			assert.Equal(t, "'{\"n\": 1}' 1\n", e.run(tt.code+"\nimport json\nprint(repr(r), json.loads(r)[\"n\"])"))
		})
	}
}

type spacedChild struct{}

func (spacedChild) StartChild(req builtins.ChildRequest) (builtins.ChildRun, error) {
	return answerRun("\n  {\"n\": 1}\n\n"), nil
}
