package llm

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Limits are run-wide budgets; a zero field means unlimited.
type Limits struct {
	MaxCalls   int
	MaxTokens  int     // prompt + completion tokens
	MaxCostUSD float64 // only enforceable for models with a known price
}

// LedgerConfig configures a [Ledger].
type LedgerConfig struct {
	Prices *PriceTable // nil = DefaultPrices()
	Limits Limits
}

// Totals are accumulated usage. CostKnown is false if any counted call was
// on a model without a price; CostUSD then covers only the priced calls.
type Totals struct {
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CachedTokens     int     `json:"cached_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	CostKnown        bool    `json:"cost_known"`
}

// Tokens is prompt plus completion tokens.
func (t Totals) Tokens() int { return t.PromptTokens + t.CompletionTokens }

func (t *Totals) add(u Usage, cost float64, known bool) {
	if t.Calls == 0 {
		t.CostKnown = true
	}
	t.Calls++
	t.PromptTokens += u.PromptTokens
	t.CompletionTokens += u.CompletionTokens
	t.CachedTokens += u.CachedTokens
	t.CostUSD += cost
	t.CostKnown = t.CostKnown && known
}

// Ledger accounts calls, tokens and cost per model and enforces [Limits]
// pre-emptively: [Ledger.Reserve] counts in-flight reservations, so
// concurrent calls cannot overshoot a budget together. Safe for concurrent
// use.
type Ledger struct {
	prices *PriceTable
	limits Limits

	mu      sync.Mutex
	total   Totals
	byModel map[string]*Totals
	// in-flight reservations
	resCalls  int
	resTokens int
	resCost   float64
}

// NewLedger returns an empty ledger.
func NewLedger(cfg LedgerConfig) *Ledger {
	p := cfg.Prices
	if p == nil {
		p = DefaultPrices()
	}
	return &Ledger{prices: p, limits: cfg.Limits, byModel: map[string]*Totals{}, total: Totals{CostKnown: true}}
}

// Limits returns the ledger's limits.
func (l *Ledger) Limits() Limits { return l.limits }

// Prices returns the ledger's price table.
func (l *Ledger) Prices() *PriceTable { return l.prices }

// Reservation is budget held for one in-flight call; finish it with exactly
// one of Commit or Cancel (later calls are no-ops).
type Reservation struct {
	l      *Ledger
	model  string
	tokens int
	cost   float64
	once   sync.Once
	// claimed is set when a Metered call adopts the reservation.
	claimed atomic.Bool
}

// ReserveRequest reserves budget for one call of req (see Reserve). The
// prompt's tokens are counted only when a token or cost limit needs them:
// without one, a reservation holds only the call (the usage committed is
// the upstream's), and counting a prompt exactly was a large part of what
// a run cost rlm serve.
func (l *Ledger) ReserveRequest(req Request) (*Reservation, error) {
	prompt := 0
	if l.countsPrompts() {
		prompt = CountRequestTokens(req)
	}
	return l.Reserve(req.Model, prompt, req.MaxTokens)
}

// countsPrompts reports whether the limits need a call's prompt tokens.
func (l *Ledger) countsPrompts() bool { return l.limits.MaxTokens > 0 || l.limits.MaxCostUSD > 0 }

// Reserve checks that one more call of promptTokens plus up to
// maxOutputTokens on model fits the limits, counting committed usage and
// other in-flight reservations, and holds that budget until Commit or
// Cancel. A refusal is an *Error of KindBudget wrapping ErrBudgetExceeded.
// With a cost limit, a model without a known price is refused (wrapping
// ErrUnknownPrice too): its calls could not be counted against the limit.
func (l *Ledger) Reserve(model string, promptTokens, maxOutputTokens int) (*Reservation, error) {
	tokens := promptTokens + max(maxOutputTokens, 0)
	var cost float64
	p, priced := l.prices.Lookup(model)
	if priced {
		cost = p.cost(Usage{PromptTokens: promptTokens, CompletionTokens: max(maxOutputTokens, 0)})
	} else if l.limits.MaxCostUSD > 0 {
		// Metered at $0 it would step around the limit: refuse it.
		name := model
		if name == "" {
			name = "(unnamed)"
		}
		return nil, &Error{Kind: KindBudget, Budget: "cost", Err: fmt.Errorf("%w: %w", ErrBudgetExceeded, ErrUnknownPrice),
			Message: fmt.Sprintf("model %q has no known price, so the cost limit $%.4f cannot count its calls; nothing was sent (use a model with a known price, or add this model's price to the price table)", name, l.limits.MaxCostUSD)}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.limits
	var why, budget string
	switch {
	case lim.MaxCalls > 0 && l.total.Calls+l.resCalls+1 > lim.MaxCalls:
		budget = "calls"
		why = fmt.Sprintf("call limit %d reached (%d made, %d in flight)", lim.MaxCalls, l.total.Calls, l.resCalls)
	case lim.MaxTokens > 0 && l.total.Tokens()+l.resTokens+tokens > lim.MaxTokens:
		budget = "tokens"
		why = fmt.Sprintf(
			"token limit %d: %d used, %d reserved in flight, this call needs up to %d",
			lim.MaxTokens,
			l.total.Tokens(),
			l.resTokens,
			tokens,
		)
	case lim.MaxCostUSD > 0 && l.total.CostUSD+l.resCost+cost > lim.MaxCostUSD:
		budget = "cost"
		why = fmt.Sprintf(
			"cost limit $%.4f: $%.4f spent, $%.4f reserved in flight, this call may cost up to $%.4f",
			lim.MaxCostUSD,
			l.total.CostUSD,
			l.resCost,
			cost,
		)
	}
	if why != "" {
		return nil, &Error{Kind: KindBudget, Budget: budget, Message: why + " (raise the limit or narrow the task)", Err: ErrBudgetExceeded}
	}
	l.resCalls++
	l.resTokens += tokens
	l.resCost += cost
	return &Reservation{l: l, model: model, tokens: tokens, cost: cost}, nil
}

func (r *Reservation) release() {
	r.l.resCalls--
	r.l.resTokens -= r.tokens
	r.l.resCost -= r.cost
	if r.l.resCalls == 0 {
		r.l.resTokens, r.l.resCost = 0, 0 // drop float drift
	}
}

// Commit releases the reservation and records the call's actual usage.
func (r *Reservation) Commit(u Usage) {
	if r == nil {
		return
	}
	r.once.Do(func() {
		cost, known := r.l.prices.Cost(r.model, u)
		r.l.mu.Lock()
		defer r.l.mu.Unlock()
		r.release()
		r.l.record(r.model, u, cost, known)
	})
}

// Cancel releases the reservation without recording a call.
func (r *Reservation) Cancel() {
	if r == nil {
		return
	}
	r.once.Do(func() {
		r.l.mu.Lock()
		defer r.l.mu.Unlock()
		r.release()
	})
}

// Record adds a call's usage without a reservation (no limit check).
func (l *Ledger) Record(model string, u Usage) {
	cost, known := l.prices.Cost(model, u)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.record(model, u, cost, known)
}

func (l *Ledger) record(model string, u Usage, cost float64, known bool) {
	l.total.add(u, cost, known)
	t := l.byModel[model]
	if t == nil {
		t = &Totals{}
		l.byModel[model] = t
	}
	t.add(u, cost, known)
}

// Totals returns the totals over all models.
func (l *Ledger) Totals() Totals {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// ByModel returns the totals per model name.
func (l *Ledger) ByModel() map[string]Totals {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]Totals, len(l.byModel))
	for k, v := range l.byModel {
		m[k] = *v
	}
	return m
}

// InFlight returns the number of outstanding reservations.
func (l *Ledger) InFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.resCalls
}
