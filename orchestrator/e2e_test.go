package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

const (
	rootModel = "root-model"
	subModel  = "sub-model"
	needle    = "The magic number is 482913."
)

var fillerWords = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu river stone cloud paper window garden silver orange market bridge lantern harbor meadow")

// needleText is size bytes of non-repeating filler lines with the needle
// at depth (0..1).
func needleText(size int, depth float64) string {
	rng := rand.New(rand.NewSource(7))
	var b strings.Builder
	b.Grow(size + 200)
	at := int(float64(size) * depth)
	placed := false
	for line := 1; b.Len() < size; line++ {
		if !placed && b.Len() >= at {
			b.WriteString(needle)
			b.WriteByte('\n')
			placed = true
			continue
		}
		fmt.Fprintf(&b, "%d:", line)
		for w := 0; w < 10; w++ {
			b.WriteByte(' ')
			b.WriteString(fillerWords[rng.Intn(len(fillerWords))])
		}
		fmt.Fprintf(&b, " %d\n", rng.Intn(1000000))
	}
	return b.String()
}

// queryOf returns the query of a root-style request (the text after
// "Query: " in the second message), or "".
func queryOf(msgs []llm.Message) string {
	if len(msgs) < 2 {
		return ""
	}
	_, q, ok := strings.Cut(msgs[1].Content, "\n\nQuery: ")
	if !ok {
		return ""
	}
	return q
}

func assistants(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}

var magicRE = regexp.MustCompile(`magic number is (\d+)`)

// needleServer scripts the root model (search -> llm_query on the
// neighbourhood -> SUBMIT) and a sub-model that reads the number.
func needleServer(t testing.TB) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if c.Model == subModel {
			last := c.Messages[len(c.Messages)-1].Content
			if m := magicRE.FindStringSubmatch(last); m != nil {
				return llmtest.Text(m[1])
			}
			return llmtest.Text("not found")
		}
		switch assistants(c.Messages) {
		case 0:
			return llmtest.Text("I'll search first.\n```python\nhits = search(context, \"magic number\")\nprint(len(hits), hits[0][\"line\"])\n```")
		case 1:
			return llmtest.Text("```python\nh = hits[0]\nstart = max(0, h[\"offset\"] - 300)\nnear = context[start:start + 600]\nans = llm_query(\"What is the magic number in this text? Reply with digits only.\\n\" + near)\nprint(ans)\n```")
		default:
			return llmtest.Text("```python\nSUBMIT({\"answer\": ans.value})\n```")
		}
	})
	return srv
}

type e2e struct {
	srv    *llmtest.Server
	ledger *llm.Ledger
	model  llm.ChatModel
	traj   bytes.Buffer
}

func newE2E(t testing.TB, srv *llmtest.Server, limits llm.Limits) *e2e {
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "sk-test-secret", Model: rootModel, SubModel: subModel,
		RetryBaseDelay: time.Millisecond, RetryMaxDelay: 5 * time.Millisecond})
	require.NoError(t, err)
	l := llm.NewLedger(llm.LedgerConfig{Limits: limits})
	return &e2e{srv: srv, ledger: l, model: llm.Metered(client, l)}
}

func (e *e2e) config() Config {
	return Config{Model: e.model, RootModel: rootModel, SubModel: subModel, Ledger: e.ledger, Trajectory: &e.traj,
		RunConfig: map[string]any{"base_url": e.srv.URL()}}
}

func bigContext(t testing.TB, text string) *rlmctx.ExternalizedContext {
	c := rlmctx.NewContext("What is the magic number?")
	_, err := c.Add("context", text)
	require.NoError(t, err)
	return c
}

func rootCalls(srv *llmtest.Server) []llmtest.Call {
	var out []llmtest.Call
	for _, c := range srv.Calls() {
		if c.Model == rootModel {
			out = append(out, c)
		}
	}
	return out
}

func TestNeedleEndToEnd(t *testing.T) {
	text := needleText(10<<20, 0.63)
	srv := needleServer(t)
	// Faults on the first root call: a 500, then a 429; retries get through.
	srv.Enqueue(rootModel, llmtest.ServerError(), llmtest.RateLimited("0"))
	e := newE2E(t, srv, llm.Limits{})
	eng := New(e.config())
	res, err := eng.Run(context.Background(), bigContext(t, text))
	require.NoError(t, err)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v\n%s", res.Err, execErrors(t, e.traj.Bytes()))
	assert.Equal(t, "482913", res.Answer)
	assert.Equal(t, 3, res.Iterations)
	assert.Less(t, res.Metrics.FirstPrefixTokens, 1500, "first root request under 1,500 tokens before the query")

	calls := rootCalls(srv)
	require.Len(t, calls, 5, "3 root requests plus 2 retried failures")
	// The first root request, counted exactly: system + meta under 1,500.
	tok := llm.DefaultTokenizer()
	first := calls[0].Messages
	prefix := tok.Count(first[0].Content) + tok.Count(strings.SplitN(first[1].Content, "\n\nQuery: ", 2)[0])
	assert.Less(t, prefix, 1500)

	// No root request holds a 200-char window of the context that the model
	// did not print.
	printed := printedOutputs(t, e.traj.Bytes())
	idx := newWindowIndex(text)
	for i, c := range calls {
		var all strings.Builder
		for _, m := range c.Messages {
			all.WriteString(m.Content)
			all.WriteByte('\n')
		}
		for _, leak := range idx.sharedRuns(all.String(), 200) {
			assert.True(t, strings.Contains(printed, leak), "root request %d holds %d unprinted context chars: %.80q", i+1, len(leak), leak)
		}
	}
	// The sub-model saw the neighbourhood.
	var sub int
	for _, c := range srv.Calls() {
		if c.Model == subModel {
			sub++
			assert.Contains(t, c.Messages[0].Content, needle)
		}
	}
	assert.Equal(t, 1, sub)
	assert.NotContains(t, e.traj.String(), "sk-test-secret")
}

// execErrors lists the code errors of a trajectory, for failure messages.
func execErrors(t testing.TB, traj []byte) string {
	var b strings.Builder
	for _, ev := range decodeEvents(t, traj) {
		if ev.Type == EventExec {
			if e, ok := ev.Data.(map[string]any)["error"]; ok {
				fmt.Fprintf(&b, "run %s step %d: %v\n", ev.Run, ev.Step, e)
			}
		}
	}
	return b.String()
}

func printedOutputs(t testing.TB, traj []byte) string {
	var b strings.Builder
	dec := json.NewDecoder(bytes.NewReader(traj))
	for dec.More() {
		var ev struct {
			Type string
			Data struct{ Output string }
		}
		require.NoError(t, dec.Decode(&ev))
		if ev.Type == EventExec {
			b.WriteString(ev.Data.Output)
			b.WriteByte('\x00')
		}
	}
	return b.String()
}

// windowIndex finds long common substrings between a text and a big
// context: every 200-char window of the context contains a 32-byte k-gram
// starting at a multiple of 64, which the index holds.
type windowIndex struct {
	ctx   string
	grams map[string]int
}

func newWindowIndex(ctx string) *windowIndex {
	w := &windowIndex{ctx: ctx, grams: make(map[string]int, len(ctx)/64+1)}
	for p := 0; p+32 <= len(ctx); p += 64 {
		if _, dup := w.grams[ctx[p:p+32]]; !dup {
			w.grams[ctx[p:p+32]] = p
		}
	}
	return w
}

// sharedRuns returns the maximal substrings of s of at least n bytes that
// also occur in the context.
func (w *windowIndex) sharedRuns(s string, n int) []string {
	var out []string
	for i := 0; i+32 <= len(s); i++ {
		p, ok := w.grams[s[i:i+32]]
		if !ok {
			continue
		}
		a, b := i, p
		for a > 0 && b > 0 && s[a-1] == w.ctx[b-1] {
			a--
			b--
		}
		e, f := i+32, p+32
		for e < len(s) && f < len(w.ctx) && s[e] == w.ctx[f] {
			e++
			f++
		}
		if e-a >= n {
			out = append(out, s[a:e])
			i = e - 1
		}
	}
	return out
}

func TestPrintContextIsBoundedAndKeptInOutputs(t *testing.T) {
	text := needleText(10<<20, 0.5)
	srv := llmtest.NewServer(t)
	srv.Enqueue(rootModel,
		llmtest.Text("```python\nprint(context)\n```"),
		llmtest.Text("```python\nprint(outputs[1] == context + \"\\n\", len(outputs[1]))\n```"),
		llmtest.Text("```python\nSUBMIT(answer=\"done\")\n```"))
	e := newE2E(t, srv, llm.Limits{})
	res, err := New(e.config()).Run(context.Background(), bigContext(t, text))
	require.NoError(t, err)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	calls := rootCalls(srv)
	require.Len(t, calls, 3)
	tok := llm.DefaultTokenizer()
	obs := calls[1].Messages[len(calls[1].Messages)-1].Content
	assert.Less(t, tok.Count(obs), DefaultObservationTokens+200, "the observation of print(context) is bounded")
	assert.Contains(t, obs, "full output is in outputs[1]")
	obs2 := calls[2].Messages[len(calls[2].Messages)-1].Content
	assert.Contains(t, obs2, fmt.Sprintf("True %d", len(text)+1))
}

func TestBudgetStopsFanOut(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if c.Model == subModel {
			return llmtest.Text("ok")
		}
		return llmtest.Text("```python\nrs = llm_query_batched([\"question %d\" % i for i in range(50)])\nprint(len(rs))\n```")
	})
	e := newE2E(t, srv, llm.Limits{MaxCalls: 6})
	res, err := New(e.config()).Run(context.Background(), bigContext(t, "small context"))
	require.NoError(t, err)
	assert.Equal(t, StopBudget, res.StopReason)
	assert.ErrorIs(t, res.Err, llm.ErrBudgetExceeded)
	assert.LessOrEqual(t, res.Usage.Calls, 6)
	assert.LessOrEqual(t, srv.Count(), 6, "nothing is sent past the budget")
}

func TestDepthTwoNestsTrajectories(t *testing.T) {
	text := needleText(1<<20, 0.3)
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if c.Model == subModel {
			return llmtest.Text("sub")
		}
		q := queryOf(c.Messages)
		if strings.HasPrefix(q, "Find the magic number") { // the child RLM
			switch assistants(c.Messages) {
			case 0:
				return llmtest.Text("```python\nhits = search(part, \"magic number is\")\nprint(hits[0][\"match\"] if hits else \"none\")\n```")
			default:
				return llmtest.Text("```python\nimport re\nm = re.search(r\"magic number is (\\d+)\", part)\nSUBMIT(answer=m.group(1))\n```")
			}
		}
		switch assistants(c.Messages) {
		case 0:
			return llmtest.Text("```python\nr = rlm_query(\"Find the magic number\", part=context[:len(context)//2])\nprint(r)\n```")
		default:
			return llmtest.Text("```python\nSUBMIT(answer=str(r))\n```")
		}
	})
	e := newE2E(t, srv, llm.Limits{})
	cfg := e.config()
	cfg.MaxDepth = 2
	res, err := New(cfg).Run(context.Background(), bigContext(t, text))
	require.NoError(t, err)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "482913", res.Answer, execErrors(t, e.traj.Bytes()))
	assert.Equal(t, 1, res.Metrics.ChildRuns)

	evs := decodeEvents(t, e.traj.Bytes())
	var childID string
	runs := map[string]bool{}
	for _, ev := range evs {
		runs[ev.Run] = true
		if ev.Type == EventChildStart {
			d := ev.Data.(map[string]any)
			childID = d["child"].(string)
			assert.Equal(t, "rlm", d["mode"])
			assert.Equal(t, "0", ev.Run)
			assert.Equal(t, 1, ev.Step)
		}
	}
	require.NotEmpty(t, childID)
	assert.True(t, strings.HasPrefix(childID, "0.1."))
	assert.True(t, runs[childID], "the child's events are in the trajectory under its run id")
	var childStart, childEnd bool
	for _, ev := range evs {
		if ev.Run == childID && ev.Type == EventRunStart {
			childStart = true
			assert.Equal(t, "0", ev.Data.(map[string]any)["parent"])
		}
		if ev.Type == EventChildEnd {
			childEnd = true
			assert.Equal(t, "482913", ev.Data.(map[string]any)["answer"])
		}
	}
	assert.True(t, childStart)
	assert.True(t, childEnd)
}

func decodeEvents(t testing.TB, b []byte) []Event {
	var evs []Event
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var ev Event
		require.NoError(t, dec.Decode(&ev))
		evs = append(evs, ev)
	}
	return evs
}

// normalizeTrajectory drops the timing fields so two runs compare equal.
func normalizeTrajectory(t testing.TB, b []byte) []string {
	var out []string
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var m map[string]any
		require.NoError(t, dec.Decode(&m))
		delete(m, "elapsed_ms")
		if d, ok := m["data"].(map[string]any); ok {
			delete(d, "duration_ms")
		}
		s, _ := json.Marshal(m)
		out = append(out, string(s))
	}
	return out
}

func TestRecordReplay(t *testing.T) {
	text := needleText(1<<20, 0.4)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	srv := needleServer(t)
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "sk-test-secret", Model: rootModel, SubModel: subModel})
	require.NoError(t, err)
	rec, err := llm.NewRecorder(client, path)
	require.NoError(t, err)

	run := func(m llm.ChatModel) (*Result, []byte) {
		l := llm.NewLedger(llm.LedgerConfig{})
		var traj bytes.Buffer
		res, err := New(Config{Model: llm.Metered(m, l), RootModel: rootModel, SubModel: subModel, Ledger: l, Trajectory: &traj}).
			Run(context.Background(), bigContext(t, text))
		require.NoError(t, err)
		return res, traj.Bytes()
	}
	res1, traj1 := run(rec)
	require.NoError(t, rec.Close())
	require.Equal(t, StopSubmit, res1.StopReason, "err: %v", res1.Err)
	calls := srv.Count()

	rp, err := llm.OpenReplay(path)
	require.NoError(t, err)
	res2, traj2 := run(rp)
	assert.Equal(t, calls, srv.Count(), "replay is offline")
	assert.Equal(t, res1.Answer, res2.Answer)
	assert.Equal(t, res1.StopReason, res2.StopReason)
	assert.Equal(t, normalizeTrajectory(t, traj1), normalizeTrajectory(t, traj2))
}
