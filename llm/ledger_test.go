package llm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

func TestLedgerTotalsExactUnderConcurrency(t *testing.T) {
	l := llm.NewLedger(llm.LedgerConfig{})
	models := []string{"gpt-4o-mini", "gpt-4.1", "local-llama"}
	const perModel = 300
	var wg sync.WaitGroup
	for _, m := range models {
		for i := range perModel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := l.Reserve(m, 100, 50)
				if !assert.NoError(t, err) {
					return
				}
				if i%10 == 9 {
					r.Cancel()                           // failed calls are not charged
					r.Commit(llm.Usage{PromptTokens: 1}) // no-op after Cancel
					return
				}
				r.Commit(llm.Usage{PromptTokens: 10 + i%3, CompletionTokens: 5, CachedTokens: 2})
				r.Commit(llm.Usage{PromptTokens: 1000}) // second Commit is a no-op
			}()
		}
	}
	wg.Wait()

	// Expected, computed serially.
	calls, prompt := 0, 0
	for i := range perModel {
		if i%10 == 9 {
			continue
		}
		calls++
		prompt += 10 + i%3
	}
	by := l.ByModel()
	require.Len(t, by, 3)
	for _, m := range models {
		got := by[m]
		assert.Equal(t, calls, got.Calls, m)
		assert.Equal(t, prompt, got.PromptTokens, m)
		assert.Equal(t, 5*calls, got.CompletionTokens, m)
		assert.Equal(t, 2*calls, got.CachedTokens, m)
	}
	tot := l.Totals()
	assert.Equal(t, 3*calls, tot.Calls)
	assert.Equal(t, 3*prompt, tot.PromptTokens)
	assert.Equal(t, 0, l.InFlight())

	// Cost: priced models exact, the unknown one makes the total unknown.
	p := llm.DefaultPrices()
	c1, ok := p.Cost("gpt-4o-mini", llm.Usage{PromptTokens: prompt, CompletionTokens: 5 * calls, CachedTokens: 2 * calls})
	require.True(t, ok)
	assert.InDelta(t, c1, by["gpt-4o-mini"].CostUSD, 1e-12)
	assert.True(t, by["gpt-4o-mini"].CostKnown)
	assert.False(t, by["local-llama"].CostKnown)
	assert.False(t, tot.CostKnown, "an unknown model's cost is unknown, never zero")
}

func TestPriceCost(t *testing.T) {
	p := llm.DefaultPrices()
	tests := []struct {
		model string
		u     llm.Usage
		want  float64
		known bool
	}{
		{"gpt-4o", llm.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000}, 12.50, true},
		{"gpt-4o", llm.Usage{PromptTokens: 1_000_000, CachedTokens: 1_000_000}, 1.25, true},
		{"gpt-4o-2024-08-06", llm.Usage{PromptTokens: 1_000_000}, 2.50, true},
		{"openai/gpt-4.1-nano", llm.Usage{CompletionTokens: 1_000_000}, 0.40, true},
		{"gpt-5-mini", llm.Usage{PromptTokens: 2_000_000, CachedTokens: 1_000_000, CompletionTokens: 1_000_000}, 0.25 + 0.025 + 2.00, true},
		{"o3", llm.Usage{PromptTokens: 1_000_000}, 2.00, true},
		{"o4-mini", llm.Usage{CompletionTokens: 1_000_000}, 4.40, true},
		{"text-embedding-3-small", llm.Usage{PromptTokens: 1_000_000}, 0.02, true},
		{"llama3.1", llm.Usage{PromptTokens: 1}, 0, false},
		{"gpt-4o-audio-preview", llm.Usage{PromptTokens: 1}, 0, false},
	}
	for _, tc := range tests {
		got, ok := p.Cost(tc.model, tc.u)
		assert.Equal(t, tc.known, ok, tc.model)
		assert.InDelta(t, tc.want, got, 1e-9, tc.model)
	}
	for _, m := range []string{"gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-5", "gpt-5-mini", "gpt-5-nano", "o3", "o4-mini", "text-embedding-3-small", "text-embedding-3-large"} {
		_, ok := p.Lookup(m)
		assert.True(t, ok, m)
	}
}

func TestLoadPrices(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.json")
	require.NoError(
		t,
		os.WriteFile(path, []byte(`{"llama3.1": {"input": 0.1, "output": 0.2}, "gpt-4o": {"input": 5, "output": 15}}`), 0o644),
	)
	p, err := llm.LoadPrices(path)
	require.NoError(t, err)
	c, ok := p.Cost("llama3.1", llm.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000})
	assert.True(t, ok)
	assert.InDelta(t, 0.3, c, 1e-9)
	c, _ = p.Cost("gpt-4o", llm.Usage{PromptTokens: 1_000_000})
	assert.InDelta(t, 5, c, 1e-9, "file overrides built-in")
	_, ok = p.Lookup("gpt-4o-mini")
	assert.True(t, ok, "built-ins kept")

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"x": 1}`), 0o644))
	_, err = llm.LoadPrices(bad)
	assert.ErrorContains(t, err, "bad.json")
	_, err = llm.LoadPrices(filepath.Join(dir, "missing.json"))
	assert.Error(t, err)
}

func TestContextWindow(t *testing.T) {
	for model, want := range map[string]int{"gpt-4o": 128000, "gpt-4o-mini-2024-07-18": 128000, "gpt-4.1-mini": 1047576, "gpt-5": 400000, "o3": 200000, "openai/o4-mini": 200000} {
		n, ok := llm.ContextWindow(model)
		assert.True(t, ok, model)
		assert.Equal(t, want, n, model)
	}
	_, ok := llm.ContextWindow("llama3.1")
	assert.False(t, ok)
}

func TestBudgetReservation(t *testing.T) {
	tests := []struct {
		name   string
		limits llm.Limits
		calls  int // calls that fit
	}{
		{"calls", llm.Limits{MaxCalls: 3}, 3},
		{"tokens", llm.Limits{MaxTokens: 1000}, 3}, // each reserves 100+200
		// gpt-4o-mini: 100*0.15e-6 + 200*0.6e-6 = $0.000135 per call.
		{"cost", llm.Limits{MaxCostUSD: 0.000135*3 + 0.00001}, 3},
		{"unlimited", llm.Limits{}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := llm.NewLedger(llm.LedgerConfig{Limits: tc.limits})
			const model = "gpt-4o-mini"
			var held []*llm.Reservation
			for range tc.calls {
				r, err := l.Reserve(model, 100, 200)
				require.NoError(t, err)
				held = append(held, r)
			}
			if tc.name == "unlimited" {
				return
			}
			// In-flight reservations count: the next call is refused before any commit.
			_, err := l.Reserve(model, 100, 200)
			require.Error(t, err)
			assert.ErrorIs(t, err, llm.ErrBudgetExceeded)
			assert.Equal(t, llm.KindBudget, llm.KindOf(err))
			// Cancelling one frees its budget.
			held[0].Cancel()
			r, err := l.Reserve(model, 100, 200)
			require.NoError(t, err)
			r.Commit(llm.Usage{PromptTokens: 100, CompletionTokens: 200})
		})
	}
}

// TestReserveRequestCountsWhenLimited: a request's prompt is counted for
// its reservation under a token or cost limit (so a prompt over the limit
// is refused before it is sent), and not without one.
func TestReserveRequestCountsWhenLimited(t *testing.T) {
	long := strings.Repeat("word ", 2000) // about 2,000 tokens
	req := llm.Request{Model: "gpt-4o-mini", MaxTokens: 10, Messages: []llm.Message{{Role: llm.RoleUser, Content: long}}}
	tests := []struct {
		name    string
		limits  llm.Limits
		refused bool
	}{
		{"token limit", llm.Limits{MaxTokens: 1000}, true},
		{"cost limit", llm.Limits{MaxCostUSD: 0.0001}, true}, // 2,000 prompt tokens cost $0.0003
		{"call limit only", llm.Limits{MaxCalls: 1}, false},
		{"none", llm.Limits{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := llm.NewLedger(llm.LedgerConfig{Limits: tc.limits})
			r, err := l.ReserveRequest(req)
			if tc.refused {
				require.ErrorIs(t, err, llm.ErrBudgetExceeded)
				return
			}
			require.NoError(t, err)
			r.Commit(llm.Usage{PromptTokens: 2001, CompletionTokens: 3})
			assert.Equal(t, 2004, l.Totals().Tokens(), "the committed usage is the upstream's")
		})
	}
}

func TestMeteredRefusesBeforeSending(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, nil)
	l := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxTokens: 60}})
	m := llm.Metered(c, l)

	resp, err := m.Chat(context.Background(), userReq("short"))
	require.NoError(t, err)
	tot := l.Totals()
	assert.Equal(t, 1, tot.Calls)
	assert.Equal(t, resp.Usage.PromptTokens, tot.PromptTokens)
	assert.Equal(t, resp.Usage.CompletionTokens, tot.CompletionTokens)
	assert.Equal(t, "gpt-4o-mini", func() string {
		for k := range l.ByModel() {
			return k
		}
		return ""
	}())

	// A prompt that cannot fit the remaining budget is never sent.
	long := userReq(fmt.Sprint(make([]int, 100)))
	_, err = m.Chat(context.Background(), long)
	assert.ErrorIs(t, err, llm.ErrBudgetExceeded)
	assert.Equal(t, 1, srv.Count())
	assert.Equal(t, 1, l.Totals().Calls)

	// Failed calls are not charged.
	srv.Enqueue("", llmtest.ErrorReply(400, "", "nope"))
	_, err = m.Chat(context.Background(), userReq("x"))
	assert.Equal(t, llm.KindBadRequest, llm.KindOf(err))
	assert.Equal(t, 1, l.Totals().Calls)
	assert.Equal(t, 0, l.InFlight())
}

func TestMeteredConcurrentExact(t *testing.T) {
	s := llmtest.NewScripted().Default(func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Model: req.Model, Content: "x", Usage: llm.Usage{PromptTokens: 7, CompletionTokens: 3, CachedTokens: 1}}, nil
	})
	l := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCalls: 150}})
	m := llm.Metered(s, l)
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := userReq(fmt.Sprint(i))
			req.Model = "gpt-4.1"
			_, err := m.Chat(context.Background(), req)
			if err != nil {
				mu.Lock()
				refused++
				mu.Unlock()
				assert.True(t, errors.Is(err, llm.ErrBudgetExceeded))
			}
		}()
	}
	wg.Wait()
	tot := l.Totals()
	assert.Equal(t, 150, tot.Calls)
	assert.Equal(t, 50, refused)
	assert.Equal(t, 150, s.Calls(), "refused calls never reach the model")
	assert.Equal(t, 150*7, tot.PromptTokens)
	assert.Equal(t, 150*3, tot.CompletionTokens)
	assert.Equal(t, 150, tot.CachedTokens)
	want, _ := llm.DefaultPrices().Cost("gpt-4.1", llm.Usage{PromptTokens: 150 * 7, CompletionTokens: 150 * 3, CachedTokens: 150})
	assert.InDelta(t, want, tot.CostUSD, 1e-12)
	assert.True(t, tot.CostKnown)
}

func TestMeteredEstimatesMissingUsage(t *testing.T) {
	s := llmtest.NewScripted(func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: "four words right here"}, nil
	})
	l := llm.NewLedger(llm.LedgerConfig{})
	_, err := llm.Metered(s, l).Chat(context.Background(), userReq("hello there"))
	require.NoError(t, err)
	tot := l.Totals()
	assert.Equal(t, llm.CountRequestTokens(userReq("hello there")), tot.PromptTokens)
	assert.Equal(t, llm.CountTokens("four words right here"), tot.CompletionTokens)
}

// TestMeteredAdoptsReservation: a call reserved up front (in program
// order) and sent later uses its reservation, so a later call cannot take
// the budget in between; a reservation serves one call only, and one from
// another ledger is ignored.
func TestMeteredAdoptsReservation(t *testing.T) {
	model := llmtest.NewScripted().Default(llmtest.Say("ok"))
	l := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCalls: 1}})
	m := llm.Metered(model, l)
	req := llm.Request{Model: "gpt-4o-mini", Messages: []llm.Message{{Role: llm.RoleUser, Content: "first"}}}

	first, err := l.Reserve(req.Model, llm.CountRequestTokens(req), 0)
	require.NoError(t, err)
	// The second call, reserved after the first, is refused...
	_, err = m.Chat(context.Background(), userReq("second"))
	assert.ErrorIs(t, err, llm.ErrBudgetExceeded)
	// ...and the first, sent later, goes through on its reservation.
	ctx := llm.WithReservation(context.Background(), first)
	_, err = m.Chat(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, 1, l.Totals().Calls)
	assert.Equal(t, 0, l.InFlight())
	assert.Equal(t, 1, model.Calls())

	// Used once: the same context cannot make a second call.
	_, err = m.Chat(ctx, req)
	assert.ErrorIs(t, err, llm.ErrBudgetExceeded)
	first.Cancel() // no-op once used
	assert.Equal(t, 1, l.Totals().Calls)

	// A failed call cancels the adopted reservation.
	l2 := llm.NewLedger(llm.LedgerConfig{})
	failing := llm.Metered(llmtest.NewScripted(llmtest.Fail(&llm.Error{Kind: llm.KindTransient})), l2)
	res, err := l2.Reserve("m", 10, 0)
	require.NoError(t, err)
	_, err = failing.Chat(llm.WithReservation(context.Background(), res), req)
	assert.Error(t, err)
	assert.Equal(t, 0, l2.InFlight())
	assert.Equal(t, 0, l2.Totals().Calls)

	// A reservation on another ledger does not pay for this one's call.
	other, err := l2.Reserve("m", 10, 0)
	require.NoError(t, err)
	_, err = m.Chat(llm.WithReservation(context.Background(), other), req)
	assert.ErrorIs(t, err, llm.ErrBudgetExceeded)
	assert.Equal(t, 1, l2.InFlight())
	other.Cancel()
}
