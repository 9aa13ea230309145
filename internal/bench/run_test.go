package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/orchestrator"
)

// oracle answers a request by finding which generated task's query it
// contains and replying with that task's gold answer (or wrong for the
// queries in wrong).
type oracle struct {
	mu    sync.Mutex
	golds map[string]string
}

func newOracle(t *testing.T, kinds []string, sizes []int, n int, seed uint64) *oracle {
	o := &oracle{golds: map[string]string{}}
	for _, k := range kinds {
		for _, s := range sizes {
			for i := 0; i < n; i++ {
				tk, err := Generate(k, s, seed, i)
				require.NoError(t, err)
				o.golds[tk.Query] = tk.Gold.Answer
			}
		}
	}
	return o
}

func (o *oracle) step(req llm.Request) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1].Content
	o.mu.Lock()
	defer o.mu.Unlock()
	for q, a := range o.golds {
		if strings.HasSuffix(last, q) {
			return llmtest.Say(a)(req)
		}
	}
	return nil, fmt.Errorf("oracle: unknown query in %q", last[max(0, len(last)-100):])
}

// fakeRLM stands in for the orchestrator: two small root calls that carry
// only the query, never the context.
type fakeRLM struct {
	model llm.ChatModel
}

func (f *fakeRLM) FirstRequest(t *Task) (llm.Request, error) {
	return llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "Explore the variables with code."},
		{Role: llm.RoleUser, Content: "Variables: " + t.Vars[0].Name + "\n\nQuery: " + t.Query},
	}}, nil
}

func (f *fakeRLM) Run(ctx context.Context, t *Task) (*Outcome, error) {
	req, _ := f.FirstRequest(t)
	ledger := llm.NewLedger(llm.LedgerConfig{})
	m := llm.Metered(f.model, ledger)
	var resp *llm.Response
	for i := 0; i < 2; i++ {
		var err error
		if resp, err = m.Chat(ctx, req); err != nil {
			return nil, err
		}
	}
	tot := ledger.Totals()
	return &Outcome{Answer: resp.Content, RootPromptTokens: tot.PromptTokens, CompletionTokens: tot.CompletionTokens,
		Calls: tot.Calls, Iterations: 2, StopReason: "submit"}, nil
}

func TestDirectAnswers(t *testing.T) {
	o := newOracle(t, []string{KindNIAH}, []int{8000}, 1, 1)
	m := llmtest.NewScripted().Default(o.step)
	d := &Direct{Model: m, ModelName: "gpt-4o-mini", Window: 128000}
	tk, err := Generate(KindNIAH, 8000, 1, 0)
	require.NoError(t, err)
	out, err := d.Run(context.Background(), tk)
	require.NoError(t, err)
	assert.Equal(t, tk.Gold.Answer, out.Answer)
	require.Equal(t, 1, m.Calls())
	req := m.Requests()[0]
	assert.Contains(t, req.Messages[1].Content, tk.Vars[0].Value.(string), "the whole context is pasted")
	assert.Equal(t, RequestTokens(req), out.RootPromptTokens)
	assert.Equal(t, 1, out.Calls)
	assert.True(t, out.CostKnown, "gpt-4o-mini is priced")
	assert.Greater(t, out.CostUSD, 0.0)
}

func TestDirectAnswerDropsReasoning(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Say("<think>maybe 12? or 13</think>\n 42 "))
	d := &Direct{Model: m, ModelName: "gpt-4o-mini", Window: 128000}
	tk, err := Generate(KindNIAH, 8000, 1, 0)
	require.NoError(t, err)
	out, err := d.Run(context.Background(), tk)
	require.NoError(t, err)
	assert.Equal(t, "42", out.Answer)
}

func TestDirectContextOverflow(t *testing.T) {
	tk, err := Generate(KindAggregate, 8000, 1, 0)
	require.NoError(t, err)
	t.Run("over the window: not sent", func(t *testing.T) {
		m := llmtest.NewScripted()
		d := &Direct{Model: m, Window: 4000}
		out, err := d.Run(context.Background(), tk)
		require.ErrorIs(t, err, ErrContextOverflow)
		assert.Equal(t, FailContextOverflow, FailureKind(err))
		assert.Equal(t, FailContextOverflow, out.Failure)
		assert.Zero(t, m.Calls(), "an overflowing prompt is never sent")
	})
	t.Run("reply reserve counts", func(t *testing.T) {
		req, _ := (&Direct{}).FirstRequest(tk)
		n := RequestTokens(req)
		m := llmtest.NewScripted()
		_, err := (&Direct{Model: m, Window: n + 10, MaxOutputTokens: 11}).Run(context.Background(), tk)
		require.ErrorIs(t, err, ErrContextOverflow)
		_, err = (&Direct{Model: m.Default(llmtest.Say("1")), Window: n + 10, MaxOutputTokens: 10}).Run(context.Background(), tk)
		require.NoError(t, err)
	})
	t.Run("server context-length error", func(t *testing.T) {
		m := llmtest.NewScripted(
			llmtest.Fail(&llm.Error{Kind: llm.KindContextLength, StatusCode: 400, Message: "maximum context length exceeded"}),
		)
		r, ok := runItem(context.Background(), &Direct{Model: m}, tk, ModeDirect, 8000)
		require.True(t, ok)
		assert.Equal(t, FailContextOverflow, r.Failure)
		assert.Zero(t, r.Score)
		assert.Contains(t, r.Error, "context_length")
		assert.Equal(t, 1, m.Calls())
	})
}

func TestRequestTokensExact(t *testing.T) {
	smallChunks(t, 4000)
	tk, err := Generate(KindNIAH, 8000, 2, 0)
	require.NoError(t, err)
	req, _ := (&Direct{ModelName: "gpt-4o"}).FirstRequest(tk)
	require.Greater(t, len(req.Messages[1].Content), 2*countChunk, "large enough to be counted in chunks")
	assert.Equal(t, llm.CountRequestTokens(req), RequestTokens(req))
	small := llm.Request{Model: "gpt-4", Messages: []llm.Message{{Role: "user", Content: "hello there", Name: "x"}}}
	assert.Equal(t, llm.CountRequestTokens(small), RequestTokens(small))
}

func TestFailureKind(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("x: %w", ErrContextOverflow), FailContextOverflow},
		{&llm.Error{Kind: llm.KindContextLength}, FailContextOverflow},
		{&llm.Error{Kind: llm.KindBudget}, "budget"},
		{&llm.Error{Kind: llm.KindRateLimit}, "rate_limit"},
		{fmt.Errorf("step: %w", context.DeadlineExceeded), FailTimeout},
		{errors.New("boom"), FailError},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FailureKind(tt.err), "%v", tt.err)
	}
}

// keyRecorder wraps a runner and records the items it ran.
type keyRecorder struct {
	inner Runner
	mode  string
	mu    *sync.Mutex
	ran   *[]Key
}

func (k keyRecorder) Run(ctx context.Context, t *Task) (*Outcome, error) {
	k.mu.Lock()
	*k.ran = append(*k.ran, Key{Task: t.Kind, Size: t.Size, Seed: t.Seed, Index: t.Index, Mode: k.mode})
	k.mu.Unlock()
	return k.inner.Run(ctx, t)
}

func runners(o *oracle, mu *sync.Mutex, ran *[]Key) map[string]Runner {
	m := llmtest.NewScripted().Default(o.step)
	return map[string]Runner{
		ModeRLM:    keyRecorder{&fakeRLM{model: m}, ModeRLM, mu, ran},
		ModeDirect: keyRecorder{&Direct{Model: m, Window: 1 << 20}, ModeDirect, mu, ran},
	}
}

func TestRunPipelineAndReport(t *testing.T) {
	kinds := Kinds()
	o := newOracle(t, kinds, []int{8000}, 2, 9)
	var mu sync.Mutex
	var ran []Key
	dir := t.TempDir()
	var progress bytes.Buffer
	results, err := Run(context.Background(), Config{
		Tasks: kinds, Sizes: []int{8000}, N: 2, Seed: 9, Modes: []string{ModeRLM, ModeDirect},
		Runners: runners(o, &mu, &ran), Parallel: 3, Results: filepath.Join(dir, ResultsFile), Progress: &progress,
	})
	require.NoError(t, err)
	require.Len(t, results, 16)
	assert.Len(t, ran, 16)
	for _, r := range results {
		assert.Equal(t, 1.0, r.Score, "%s answered %q, gold %q", r.Key, r.Answer, r.Gold)
		assert.Empty(t, r.Failure)
		assert.Greater(t, r.TotalTokens, 0)
		assert.InDelta(t, 8000, r.ContextTokens, 400)
		if r.Mode == ModeDirect {
			assert.Greater(t, r.RootPromptTokens, r.ContextTokens, "direct pastes the context")
			assert.Equal(t, 1, r.Calls)
		} else {
			assert.Less(t, r.RootPromptTokens, 2000, "rlm root prompts carry no context")
			assert.Equal(t, 2, r.Calls)
		}
	}
	onDisk, err := ReadResults(filepath.Join(dir, ResultsFile))
	require.NoError(t, err)
	assert.ElementsMatch(t, results, onDisk)
	assert.Contains(t, progress.String(), "16/16")

	paths, err := WriteReport(dir, results, "test run")
	require.NoError(t, err)
	assert.Len(t, paths, 5, "four charts and the report")
	md, err := os.ReadFile(filepath.Join(dir, ReportMarkdown))
	require.NoError(t, err)
	for _, k := range kinds {
		assert.Contains(t, string(md), "## "+k)
		assert.Contains(t, string(md), "chart-"+k+".svg")
	}
	assert.Contains(t, string(md), "| 8k | rlm | 2 | 1.000 [0.342, 1.000] |")
	assert.Contains(t, string(md), "| 8k | direct | 2 | 1.000 [0.342, 1.000] |")
	svg, err := os.ReadFile(filepath.Join(dir, "chart-niah.svg"))
	require.NoError(t, err)
	assertSVG(t, svg)
	assert.Contains(t, string(svg), "direct")
	assert.Contains(t, string(svg), "rlm")
}

func assertSVG(t *testing.T, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	assert.Equal(t, "svg", root, "chart is an SVG document")
}

func TestRunResume(t *testing.T) {
	kinds := []string{KindNIAH, KindAggregate}
	o := newOracle(t, kinds, []int{8000}, 3, 4)
	path := filepath.Join(t.TempDir(), ResultsFile)
	cfg := Config{Tasks: kinds, Sizes: []int{8000}, N: 3, Seed: 4, Modes: []string{ModeRLM, ModeDirect}, Results: path, Model: "m1"}

	// First run: interrupted after k items.
	const k = 5
	var mu sync.Mutex
	var first []Key
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c1 := cfg
	c1.Runners = runners(o, &mu, &first)
	c1.OnResult = func(r Result) {
		if got, _ := ReadResults(path); len(got) >= k {
			cancel()
		}
	}
	res1, err := Run(ctx, c1)
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, res1, k)
	require.Len(t, first, k)

	// Without Resume an existing results file is refused.
	c2 := cfg
	var none []Key
	c2.Runners = runners(o, &mu, &none)
	_, err = Run(context.Background(), c2)
	require.ErrorIs(t, err, ErrResultsExist)
	assert.NotContains(t, err.Error(), "--", "the library names no CLI flag")
	assert.Empty(t, none)

	// A torn last line (crash mid-write) is ignored and its item reruns.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"task":"niah","si`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	// Resume: only the missing items run.
	var second []Key
	c3 := cfg
	c3.Resume = true
	c3.Runners = runners(o, &mu, &second)
	res3, err := Run(context.Background(), c3)
	require.NoError(t, err)
	assert.Len(t, second, 12-k)
	for _, key := range second {
		assert.NotContains(t, first, key, "item %s ran twice", key)
	}
	onDisk, err := ReadResults(path)
	require.NoError(t, err)
	require.Len(t, onDisk, 12)
	assert.ElementsMatch(t, res3, onDisk)
	seen := map[Key]bool{}
	for _, r := range onDisk {
		assert.False(t, seen[r.Key], "duplicate %s", r.Key)
		seen[r.Key] = true
	}
	for _, kind := range kinds {
		for i := 0; i < 3; i++ {
			for _, m := range cfg.Modes {
				assert.True(t, seen[Key{Task: kind, Size: 8000, Seed: 4, Index: i, Mode: m}], "%s %d %s present", kind, i, m)
			}
		}
	}

	for _, r := range onDisk {
		assert.Equal(t, "m1", r.Model)
	}

	// Resuming with another model is refused.
	c4 := c3
	c4.Model = "m2"
	_, err = Run(context.Background(), c4)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "results of model m1, not m2")

	// Resuming a finished run runs nothing.
	var third []Key
	c3.Runners = runners(o, &mu, &third)
	_, err = Run(context.Background(), c3)
	require.NoError(t, err)
	assert.Empty(t, third)
}

func TestRunErrors(t *testing.T) {
	_, err := Run(context.Background(), Config{Modes: []string{ModeRLM}})
	require.ErrorIs(t, err, ErrNoRunner)
	_, err = Run(
		context.Background(),
		Config{Tasks: []string{"x"}, Modes: []string{ModeDirect}, Runners: map[string]Runner{ModeDirect: &Direct{}}},
	)
	require.ErrorIs(t, err, ErrUnknownTask)
}

func TestDryRunFlatRoot(t *testing.T) {
	rows, err := DryRun(context.Background(), DryRunConfig{
		Tasks: []string{KindNIAH, KindFiles}, Sizes: []int{8000, 64000}, Seed: 1,
		Direct: &Direct{}, RLM: &fakeRLM{},
	}, nil)
	require.NoError(t, err)
	require.Len(t, rows, 4)
	for i := 0; i < 4; i += 2 {
		small, big := rows[i], rows[i+1]
		assert.InDelta(t, 8.0, float64(big.DirectTokens)/float64(small.DirectTokens), 0.6, "direct grows with the context")
		assert.InDelta(t, small.RLMTokens, big.RLMTokens, 30, "rlm root prompt stays flat")
	}
	table := FormatDryRun(rows)
	assert.Contains(t, table, "| niah | 64k | 0 |")
}

func TestSummarize(t *testing.T) {
	rs := []Result{
		{Key: Key{Task: "niah", Size: 8000, Mode: ModeDirect}, Score: 1, TotalTokens: 100, Calls: 1, CostKnown: true, CostUSD: 0.5},
		{
			Key:         Key{Task: "niah", Size: 8000, Mode: ModeDirect},
			Score:       0,
			TotalTokens: 300,
			Calls:       1,
			CostKnown:   true,
			CostUSD:     0.25,
			Failure:     "context_overflow",
		},
		{Key: Key{Task: "niah", Size: 8000, Mode: ModeRLM}, Score: 1, Calls: 3},
	}
	s := Summarize(rs)
	require.Len(t, s, 2)
	assert.Equal(t, ModeRLM, s[0].Mode, "rlm sorts first")
	assert.False(t, s[0].CostKnown)
	d := s[1]
	assert.Equal(t, 0.5, d.MeanScore)
	assert.InDelta(t, 0.0945, d.CILow, 1e-4, "Wilson interval of 1 in 2")
	assert.InDelta(t, 0.9055, d.CIHigh, 1e-4)
	assert.Equal(t, 200.0, d.TotalTokens)
	assert.Equal(t, 0.75, d.CostUSD)
	assert.Equal(t, map[string]int{"context_overflow": 1}, d.Failures)

}

// TestMeanCI checks the intervals against values computed independently
// (Wilson: the closed form evaluated in Python, e.g. 7 of 10 gives the
// textbook [0.397, 0.892]; t: 3.182 is
// t(0.975, 3)).
func TestMeanCI(t *testing.T) {
	tests := []struct {
		name         string
		xs           []float64
		mean, lo, hi float64
	}{
		{"none", nil, 0, 0, 0},
		{"one right", []float64{1}, 1, 0.20654, 1},
		{"one wrong", []float64{0}, 0, 0, 0.79346},
		{"one fractional", []float64{0.4}, 0.4, 0, 1},
		{"ten of ten", []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1, 0.72246, 1},
		{"none of ten", make([]float64, 10), 0, 0, 0.27754},
		{"7 of 10", []float64{1, 1, 1, 0, 1, 1, 0, 1, 0, 1}, 0.7, 0.39677, 0.89221},
		{"fractional: t", []float64{0.5, 0.6, 0.7, 0.8}, 0.65, 0.65 - 3.182*0.12909944487358055/2, 0.65 + 3.182*0.12909944487358055/2},
		{"fractional, clipped", []float64{0.75, 0, 1}, 0.58333, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, lo, hi := meanCI(tt.xs)
			assert.InDelta(t, tt.mean, m, 1e-5)
			assert.InDelta(t, tt.lo, lo, 1e-5, "low")
			assert.InDelta(t, tt.hi, hi, 1e-5, "high")
			assert.LessOrEqual(t, lo, m)
			assert.GreaterOrEqual(t, hi, m)
		})
	}
}

// niahModel plays both modes on niah tasks: direct requests and sub-calls
// are answered by reading the needle; RLM root requests search, ask a
// sub-call about the hit, then SUBMIT.
func niahModel() *llmtest.Scripted {
	return niahModelWith(
		"hits = search(context, \"special magic number\")\nans = llm_query(\"What is the number in: \" + hits[0][\"preview\"])",
	)
}

// niahModelWith is niahModel with firstStep as the first root step's code.
func niahModelWith(firstStep string) *llmtest.Scripted {
	needle := regexp.MustCompile(`special magic number for [a-z]+-[a-z]+ is (\d+)`)
	return llmtest.NewScripted().WithModel("gpt-4o-mini").Default(func(req llm.Request) (*llm.Response, error) {
		root := req.Messages[0].Role == llm.RoleSystem && strings.Contains(req.Messages[0].Content, "SUBMIT")
		if !root {
			for _, m := range req.Messages {
				if g := needle.FindStringSubmatch(m.Content); g != nil {
					return llmtest.Say(g[1])(req)
				}
			}
			return llmtest.Say("unknown")(req)
		}
		for _, m := range req.Messages {
			if m.Role == llm.RoleAssistant {
				return llmtest.Say("```python\nSUBMIT({\"answer\": ans.value})\n```")(req)
			}
		}
		return llmtest.Say("```python\n" + firstStep + "\n```")(req)
	})
}

func TestRunRLMAndDirect(t *testing.T) {
	m := niahModel()
	runners := map[string]Runner{
		ModeRLM:    &RLM{Model: m, Config: orchestrator.Config{RootModel: "gpt-4o-mini", SubModel: "gpt-4o-mini"}},
		ModeDirect: &Direct{Model: m, ModelName: "gpt-4o-mini", Window: 128000},
	}
	dir := t.TempDir()
	results, err := Run(context.Background(), Config{Tasks: []string{KindNIAH}, Sizes: []int{8000}, N: 2, Seed: 5,
		Runners: runners, Results: filepath.Join(dir, ResultsFile)})
	require.NoError(t, err)
	require.Len(t, results, 4)
	for _, r := range results {
		assert.Equal(t, 1.0, r.Score, "%s: %q vs %q (%s)", r.Key, r.Answer, r.Gold, r.Error)
		assert.True(t, r.CostKnown)
		if r.Mode == ModeRLM {
			assert.Equal(t, 3, r.Calls, "two root steps and one sub-call")
			assert.Equal(t, "submit", r.StopReason)
			assert.Equal(t, 2, r.Iterations)
			assert.Greater(t, r.SubPromptTokens, 0)
			assert.Less(t, r.RootPromptTokens, 2*1500, "two root requests without the context")
		}
	}
	// The RLM's first root request is what --dry-run counts.
	tk, err := Generate(KindNIAH, 8000, 5, 0)
	require.NoError(t, err)
	first, err := runners[ModeRLM].(*RLM).FirstRequest(tk)
	require.NoError(t, err)
	var sent []llm.Request
	for _, r := range m.Requests() {
		if r.Messages[0].Content == first.Messages[0].Content && len(r.Messages) == len(first.Messages) &&
			strings.HasSuffix(r.Messages[1].Content, tk.Query) {
			sent = append(sent, r)
		}
	}
	require.Len(t, sent, 1, "the first root request of item 0 was sent once")
	assert.Equal(t, first.Messages, sent[0].Messages)
	_, err = WriteReport(dir, results, "")
	require.NoError(t, err)
}

// TestRLMChargesEmbeddings: find_relevant's embedding requests are charged
// to the item's ledger (tokens, calls, cost) and reported as embed tokens,
// not as sub-call prompt tokens.
func TestRLMChargesEmbeddings(t *testing.T) {
	m := niahModelWith(
		"hits = find_relevant(context, \"special magic number\", top_k=1)\nans = llm_query(\"What is the number in: \" + hits[0][\"item\"])",
	)
	emb := &llmtest.HashEmbedder{}
	r := &RLM{Model: m, EmbeddingModel: "text-embedding-3-small",
		Config: orchestrator.Config{RootModel: "gpt-4o-mini", SubModel: "gpt-4o-mini", Embedder: emb}}
	tk, err := Generate(KindNIAH, 8000, 3, 0)
	require.NoError(t, err)
	res, ok := runItem(context.Background(), r, tk, ModeRLM, 8000)
	require.True(t, ok)
	require.Empty(t, res.Error)
	// The context is embedded chunk by chunk: about its size in tokens.
	assert.InDelta(t, 8000, res.EmbedTokens, 2000, "every chunk embedded once is charged")
	assert.Equal(t, 3, m.Calls(), "two root steps and one sub-call")
	assert.Greater(t, res.Calls, 3, "embedding requests count as calls")
	assert.Less(t, res.SubPromptTokens, 2000, "embedding tokens are not sub-call prompt tokens")
	assert.Equal(t, res.RootPromptTokens+res.SubPromptTokens+res.EmbedTokens+res.CompletionTokens, res.TotalTokens)
	assert.True(t, res.CostKnown)
	embedCost := float64(res.EmbedTokens) * 0.02 / 1e6
	assert.Greater(t, res.CostUSD, embedCost, "the cost includes the embeddings")

	// A token budget that the embeddings overrun stops the item.
	r.Limits = llm.Limits{MaxTokens: 4000}
	res, ok = runItem(context.Background(), r, tk, ModeRLM, 8000)
	require.True(t, ok)
	assert.Less(t, res.Score, 1.0)
	assert.NotEmpty(t, res.Failure, "the budget stops the run: %+v", res)
}

// TestWriteReportChart checks the chart plots score and tokens against
// context size for both modes: both panels, a line per mode in its colour,
// log-axis labels, and no score labels past 1.
func TestWriteReportChart(t *testing.T) {
	var rs []Result
	for i, size := range []int{8000, 128000, 1000000} {
		for item := 0; item < 3; item++ {
			rs = append(
				rs,
				Result{
					Key:         Key{Task: KindNIAH, Size: size, Index: item, Mode: ModeRLM},
					Score:       float64((item + i) % 2),
					TotalTokens: 4000 + 1000*i,
					Calls:       3,
					CostKnown:   true,
				},
				Result{
					Key:         Key{Task: KindNIAH, Size: size, Index: item, Mode: ModeDirect},
					Score:       1,
					TotalTokens: size + 100,
					Calls:       1,
					CostKnown:   true,
				},
			)
		}
	}
	for item := 0; item < 3; item++ {
		rs = append(
			rs,
			Result{
				Key:         Key{Task: KindNIAH, Size: 10000000, Index: item, Mode: ModeRLM},
				Score:       1,
				TotalTokens: 9000,
				Calls:       5,
				CostKnown:   true,
			},
			Result{Key: Key{Task: KindNIAH, Size: 10000000, Index: item, Mode: ModeDirect}, Failure: FailContextOverflow},
		)
	}
	dir := t.TempDir()
	_, err := WriteReport(dir, rs, "")
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "chart-niah.svg"))
	require.NoError(t, err)
	assertSVG(t, b)
	svg := string(b)
	for _, want := range []string{"niah: score against context size", "niah: tokens per item", ">rlm<", ">direct<", ">10k<", ">100k<", ">1m<", ">10m<", ">1.0<", ">0.0<",
		">context overflow (not sent)<",
		"stroke:#1F77B4", "stroke:#D62728"} {
		assert.Contains(t, svg, want)
	}
	assert.NotContains(t, svg, ">1.2<", "no score label past 1")
	// Each mode draws a polyline through its sizes in each panel: four
	// scores each; four token means for rlm, three for direct (nothing
	// was sent at 10m).
	for c, pts := range map[string][]int{"1F77B4": {4, 4}, "D62728": {4, 3}} {
		var got []int
		for _, m := range regexp.MustCompile(`<path d="M[\d.]+,[\d.]+((?:L[\d.]+,[\d.]+)+)" style="fill:none;stroke:#`+c).FindAllStringSubmatch(svg, -1) {
			if n := strings.Count(m[1], "L") + 1; n >= 3 {
				got = append(got, n)
			}
		}
		assert.Equal(t, pts, got, "polylines of #%s", c)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportMarkdown))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| 1m | direct | 3 | 1.000 [0.439, 1.000] |")
}

// TestRunAllTasksThroughOrchestrator runs every task kind through the real
// orchestrator (rlm) and direct mode against a scripted model that knows
// the gold answers: the root model SUBMITs the gold from its first step.
// It checks the answers survive the whole path (prompt, sandbox, SUBMIT,
// scoring) for each answer format, and that the report covers every task.
func TestRunAllTasksThroughOrchestrator(t *testing.T) {
	kinds := Kinds()
	golds := map[string]string{}
	for _, k := range kinds {
		tk, err := Generate(k, 8000, 11, 0)
		require.NoError(t, err)
		golds[tk.Query] = tk.Gold.Answer
	}
	m := llmtest.NewScripted().WithModel("gpt-4o-mini").Default(func(req llm.Request) (*llm.Response, error) {
		var all strings.Builder
		for _, msg := range req.Messages {
			all.WriteString(msg.Content)
		}
		for q, a := range golds {
			if !strings.Contains(all.String(), q) {
				continue
			}
			if strings.Contains(req.Messages[0].Content, "SUBMIT") {
				return llmtest.Say("```python\nSUBMIT({\"answer\": " + strconv.Quote(a) + "})\n```")(req)
			}
			return llmtest.Say(a)(req)
		}
		return nil, errors.New("unknown query")
	})
	runners := map[string]Runner{
		ModeRLM:    &RLM{Model: m, Config: orchestrator.Config{RootModel: "gpt-4o-mini", SubModel: "gpt-4o-mini"}},
		ModeDirect: &Direct{Model: m, ModelName: "gpt-4o-mini", Window: 128000},
	}
	dir := t.TempDir()
	results, err := Run(context.Background(), Config{Tasks: kinds, Sizes: []int{8000}, Seed: 11, Runners: runners,
		Results: filepath.Join(dir, ResultsFile), Model: "gpt-4o-mini"})
	require.NoError(t, err)
	require.Len(t, results, 2*len(kinds))
	for _, r := range results {
		assert.Equal(t, 1.0, r.Score, "%s: %q vs %q (%s)", r.Key, r.Answer, r.Gold, r.Error)
		if r.Mode == ModeRLM {
			assert.Equal(t, "submit", r.StopReason, r.Key.String())
			assert.Less(t, r.RootPromptTokens, 3000, "%s: the root prompt holds no context", r.Key)
		} else {
			assert.Greater(t, r.RootPromptTokens, 7000, "%s: direct pastes the context", r.Key)
		}
	}
	paths, err := WriteReport(dir, results, "")
	require.NoError(t, err)
	assert.Len(t, paths, len(kinds)+1)
}
