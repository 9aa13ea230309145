package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
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

var fillerWords = strings.Fields(
	"alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu river stone cloud paper window garden silver orange market bridge lantern harbor meadow",
)

// fillerBlock is 1 MB of non-repeating filler lines, made once.
var fillerBlock = sync.OnceValue(func() string {
	rng := rand.New(rand.NewSource(7))
	b := make([]byte, 0, 1<<20+200)
	for line := 1; len(b) < 1<<20; line++ {
		b = strconv.AppendInt(b, int64(line), 10)
		b = append(b, ':')
		for w := 0; w < 10; w++ {
			b = append(b, ' ')
			b = append(b, fillerWords[rng.Intn(len(fillerWords))]...)
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(rng.Intn(1000000)), 10)
		b = append(b, '\n')
	}
	return string(b[:1<<20])
})

// needleText is size bytes of filler lines (the 1 MB block repeated) with
// the needle line at depth (0..1).
func needleText(size int, depth float64) string {
	block := fillerBlock()
	at := int(float64(size) * depth)
	var b strings.Builder
	b.Grow(size + len(needle) + 2)
	for b.Len() < size {
		n := min(len(block), size-b.Len())
		if b.Len() <= at && at < b.Len()+n {
			cut := at - b.Len()
			if i := strings.LastIndexByte(block[:cut], '\n'); i >= 0 {
				cut = i + 1
			} else {
				cut = 0
			}
			b.WriteString(block[:cut])
			b.WriteString(needle + "\n")
			b.WriteString(block[cut:n])
			continue
		}
		b.WriteString(block[:n])
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

// scriptServer answers the sub-model with sub(its last message) and the
// root with turns[n], n being the assistant turns so far (the last turn
// repeats).
func scriptServer(t testing.TB, sub string, subReply func(prompt string) llmtest.Reply, turns ...llmtest.Reply) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if c.Model == sub {
			return subReply(c.Messages[len(c.Messages)-1].Content)
		}
		return turns[min(assistants(c.Messages), len(turns)-1)]
	})
	return srv
}

// textReply is a sub-model that always says text.
func textReply(text string) func(string) llmtest.Reply {
	return func(string) llmtest.Reply { return llmtest.Text(text) }
}

var magicRE = regexp.MustCompile(`magic number is (\d+)`)

// needleServer scripts the root model (search -> llm_query on the
// neighbourhood -> SUBMIT) and a sub-model that reads the number.
func needleServer(t testing.TB) *llmtest.Server {
	readNumber := func(prompt string) llmtest.Reply {
		if m := magicRE.FindStringSubmatch(prompt); m != nil {
			return llmtest.Text(m[1])
		}
		return llmtest.Text("not found")
	}
	return scriptServer(
		t,
		subModel,
		readNumber,
		llmtest.Text("I'll search first.\n```python\nhits = search(context, \"magic number\")\nprint(len(hits), hits[0][\"line\"])\n```"),
		llmtest.Text(
			"```python\nh = hits[0]\nstart = max(0, h[\"offset\"] - 300)\nnear = context[start:start + 600]\nans = llm_query(\"What is the magic number in this text? Reply with digits only.\\n\" + near)\nprint(ans)\n```",
		),
		llmtest.Text("```python\nSUBMIT({\"answer\": ans.value})\n```"),
	)
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
	text := needleText(2<<20, 0.5)
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
	srv := scriptServer(t, subModel, textReply("ok"),
		llmtest.Text("```python\nrs = llm_query_batched([\"question %d\" % i for i in range(50)])\nprint(len(rs))\n```"))
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
				return llmtest.Text(
					"```python\nhits = search(part, \"magic number is\")\nprint(hits[0][\"match\"] if hits else \"none\")\n```",
				)
			default:
				return llmtest.Text(
					"```python\nimport re\nm = re.search(r\"magic number is (\\d+)\", part)\nSUBMIT(answer=m.group(1))\n```",
				)
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
			delete(d, "latency_ms")
			delete(d, "first_byte_ms") // measured: a replayed answer has none
			for _, k := range []string{"usage", "tree_usage"} {
				if u, ok := d[k].(map[string]any); ok {
					delete(u, "wall_ms")
					delete(u, "active_ms")
				}
			}
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
	// The run's clock goes into the recording, and the replay passes it
	// back (run_start records it: the trajectories must agree).
	clock := time.Now().UTC().Truncate(time.Microsecond)
	rec, err := llm.NewRecorder(client, path, llm.RecordClock(clock))
	require.NoError(t, err)

	run := func(m llm.ChatModel, clock time.Time) (*Result, []byte) {
		l := llm.NewLedger(llm.LedgerConfig{})
		var traj bytes.Buffer
		res, err := New(
			Config{Model: llm.Metered(m, l), RootModel: rootModel, SubModel: subModel, Ledger: l, Trajectory: &traj, Clock: clock},
		).
			Run(context.Background(), bigContext(t, text))
		require.NoError(t, err)
		return res, traj.Bytes()
	}
	res1, traj1 := run(rec, clock)
	require.NoError(t, rec.Close())
	require.Equal(t, StopSubmit, res1.StopReason, "err: %v", res1.Err)
	calls := srv.Count()

	rp, err := llm.OpenReplay(path)
	require.NoError(t, err)
	res2, traj2 := run(rp, rp.Meta().Clock)
	assert.Equal(t, calls, srv.Count(), "replay is offline")
	assert.Equal(t, res1.Answer, res2.Answer)
	assert.Equal(t, res1.StopReason, res2.StopReason)
	assert.Equal(t, normalizeTrajectory(t, traj1), normalizeTrajectory(t, traj2))
}

func TestLeakCheckerFindsPlantedWindow(t *testing.T) {
	text := needleText(2<<20, 0.5)
	idx := newWindowIndex(text)
	planted := "prefix text " + text[777777:777777+250] + " suffix"
	runs := idx.sharedRuns(planted, 200)
	require.Len(t, runs, 1)
	assert.Equal(t, text[777777:777777+250], runs[0])
	assert.Empty(t, idx.sharedRuns("nothing from the context here "+text[5000:5150], 200), "150 chars are below the window")
}

func TestToolsProtocolEndToEnd(t *testing.T) {
	srv := scriptServer(t, subModel, textReply("482913"),
		llmtest.ToolCallReply(
			llm.ToolCall{
				ID:        "call_a",
				Name:      "execute_code",
				Arguments: `{"code": "hits = search(context, \"magic number\")\nprint(len(hits))"}`,
			},
			llm.ToolCall{
				ID:        "call_b",
				Name:      "execute_code",
				Arguments: `{"code": "ans = llm_query(\"digits: \" + hits[0][\"preview\"])\nprint(ans)"}`,
			},
		),
		llmtest.ToolCallReply(llm.ToolCall{ID: "call_c", Name: "submit", Arguments: `{"answer": "482913"}`}))
	e := newE2E(t, srv, llm.Limits{})
	cfg := e.config()
	cfg.Protocol = ProtocolTools
	res, err := New(cfg).Run(context.Background(), bigContext(t, needleText(1<<20, 0.2)))
	require.NoError(t, err)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "482913", res.Answer)
	calls := rootCalls(srv)
	require.Len(t, calls, 2)
	for i, c := range calls {
		require.Len(t, c.Tools, 2)
		checkToolOrdering(t, i+1, c.Messages)
	}
	m := calls[1].Messages
	require.GreaterOrEqual(t, len(m), 6)
	assert.Equal(t, "1", strings.TrimSpace(m[len(m)-3].Content))
	assert.Equal(t, "482913", strings.TrimSpace(m[len(m)-2].Content))
	assert.Contains(t, m[len(m)-1].Content, "[engine] Step 1 done.")
}

func TestNudgeEndToEnd(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(rootModel,
		llmtest.Text("The magic number is probably in the text."),
		llmtest.Text("```python\nprint(len(context))\n```"),
		llmtest.Text("```python\nSUBMIT(answer=\"x\")\n```"))
	e := newE2E(t, srv, llm.Limits{})
	res, err := New(e.config()).Run(context.Background(), bigContext(t, "tiny context"))
	require.NoError(t, err)
	require.Equal(t, StopSubmit, res.StopReason)
	calls := rootCalls(srv)
	require.Len(t, calls, 3)
	nudges := func(c llmtest.Call) int {
		n := 0
		for _, m := range c.Messages {
			n += strings.Count(m.Content, "no code block")
		}
		return n
	}
	assert.Equal(t, []int{0, 1, 0}, []int{nudges(calls[0]), nudges(calls[1]), nudges(calls[2])})
	assert.Equal(t, llm.RoleUser, calls[1].Messages[len(calls[1].Messages)-1].Role)
}

func TestLongRunEndToEnd(t *testing.T) {
	const iters = 60
	srv := llmtest.NewServer(t)
	reply := func(i int) string {
		return fmt.Sprintf("Step %d.\n```python\nprint(\"lorem ipsum %d \" * 400)\n```", i, i)
	}
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		// Count the steps done from the last observation's header.
		last := c.Messages[len(c.Messages)-1].Content
		var step int
		fmt.Sscanf(last, "[engine] Step %d output:", &step)
		if step >= iters {
			return llmtest.Text("```python\nSUBMIT(answer=str(len(outputs)))\n```")
		}
		return llmtest.Text(reply(step + 1))
	})
	e := newE2E(t, srv, llm.Limits{})
	cfg := e.config()
	cfg.MaxIterations = iters + 5
	cfg.DynamicBudget = 6000
	res, err := New(cfg).Run(context.Background(), bigContext(t, needleText(1<<20, 0.5)))
	require.NoError(t, err)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, fmt.Sprint(iters), res.Answer, "every step's full output is in outputs")
	tok := llm.DefaultTokenizer()
	calls := rootCalls(srv)
	require.Len(t, calls, iters+1)
	bound := res.Metrics.FirstPrefixTokens + 20 + cfg.DynamicBudget
	for i, c := range calls {
		n := 0
		for _, m := range c.Messages {
			n += tok.Count(m.Content) + msgOverhead
		}
		assert.LessOrEqual(t, n, bound, "request %d", i+1)
		if i > 0 {
			msgs := c.Messages
			assert.Equal(t, reply(i), msgs[len(msgs)-2].Content, "the last raw turn is verbatim in request %d", i+1)
		}
	}
	assert.Greater(t, res.Metrics.Compressions, 5)
	var arts int
	for _, ev := range decodeEvents(t, e.traj.Bytes()) {
		if ev.Type == EventCompression {
			arts++
		}
	}
	assert.Equal(t, res.Metrics.Compressions, arts)
}

func TestRLMQueryAtDepthLimitIsPlainSubCall(t *testing.T) {
	const sub = "gpt-4o-mini" // a known 128K window
	srv := scriptServer(t, sub, textReply("sub says hi"),
		llmtest.Text("```python\nr = rlm_query(\"Summarize this\", part=context[:120])\nprint(r)\n```"),
		llmtest.Text("```python\nbig = rlm_query(\"Summarize all\", part=context)\nprint(big)\n```"),
		llmtest.Text("```python\nSUBMIT(answer=r.value)\n```"))
	e := newE2E(t, srv, llm.Limits{})
	cfg := e.config()
	cfg.SubModel = sub
	text := needleText(1<<20, 0.9)
	res, err := New(cfg).Run(context.Background(), bigContext(t, text))
	require.NoError(t, err)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "sub says hi", res.Answer)
	var subCalls []llmtest.Call
	for _, c := range srv.Calls() {
		if c.Model == sub {
			subCalls = append(subCalls, c)
		}
	}
	require.Len(t, subCalls, 1, "the over-window call is refused before sending")
	assert.Equal(t, "Summarize this\n\n--- part ---\n"+text[:120], subCalls[0].Messages[0].Content)
	calls := rootCalls(srv)
	obs := calls[2].Messages[len(calls[2].Messages)-1].Content
	assert.Contains(t, obs, "exceeds gpt-4o-mini's context window")
	assert.Equal(t, 2, res.Metrics.RLMQueries)
	assert.Equal(t, 1, res.Metrics.SubCalls, "the refused call never reached the model")
	assert.Equal(t, 0, res.Metrics.ChildRuns)
}

func TestOutputsAreSearchable(t *testing.T) {
	model := llmtest.NewScripted(
		llmtest.Say("```python\nfor i in range(50):\n    print(\"row\", i, \"needle\" if i == 37 else \"hay\")\n```"),
		llmtest.Say("```python\nprint(search(outputs, \"needle\"))\nprint(outputs[1].splitlines()[37])\n```"),
		llmtest.Say("```python\nSUBMIT(answer=outputs[2].splitlines()[-1])\n```"),
	)
	l := llm.NewLedger(llm.LedgerConfig{})
	res, err := New(Config{Model: llm.Metered(model, l), Ledger: l}).Run(context.Background(), bigContext(t, "x"))
	require.NoError(t, err)
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "row 37 needle", res.Answer)
	last := lastObservation(model, 2)
	assert.Contains(t, last, "'key': 1")
	assert.Contains(t, last, "row 37 needle")
}

func TestChildrenShareTheBudget(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if strings.HasPrefix(queryOf(c.Messages), "Dig") { // children loop forever
			return llmtest.Text("```python\nanswer = 'partial from child'\nprint(len(part))\n```")
		}
		return llmtest.Text("```python\nrs = [rlm_query(\"Dig %d\" % i, part=context) for i in range(3)]\nprint(rs)\n```")
	})
	e := newE2E(t, srv, llm.Limits{MaxCalls: 8})
	cfg := e.config()
	cfg.MaxDepth = 2
	res, err := New(cfg).Run(context.Background(), bigContext(t, "some text"))
	require.NoError(t, err)
	assert.Equal(t, StopBudget, res.StopReason)
	assert.LessOrEqual(t, srv.Count(), 8, "no child overspends the shared ledger")
	assert.Equal(t, srv.Count(), res.Usage.Calls)
	// How the 7 calls left after the root's are shared among the three
	// concurrent children depends on scheduling: a child whose first
	// call was already refused has no partial answer to return.
	calls := map[string]int{}
	for _, c := range srv.Calls() {
		calls[queryOf(c.Messages)]++
	}
	queries := map[string]string{}
	var ends []map[string]any
	for _, ev := range decodeEvents(t, e.traj.Bytes()) {
		d, _ := ev.Data.(map[string]any)
		switch ev.Type {
		case EventChildStart:
			queries[d["child"].(string)] = d["query"].(string)
		case EventChildEnd:
			ends = append(ends, d)
		}
	}
	require.Len(t, ends, 3)
	answered := 0
	for _, d := range ends {
		assert.Equal(t, "budget", d["stop_reason"])
		q := queries[d["child"].(string)]
		require.NotEmpty(t, q, "child_end of a child that never started: %v", d)
		if calls[q] == 0 {
			assert.Empty(t, d["answer"], "%s made no call", q)
			continue
		}
		answered++
		assert.Equal(
			t,
			"partial from child",
			d["answer"],
			"%s made %d calls: a child stopped by the budget returns its best partial answer",
			q,
			calls[q],
		)
	}
	assert.Positive(t, answered)
}
