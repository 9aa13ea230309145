package llm

import "context"

type reservationKey struct{}

// WithReservation returns a context carrying res, budget already reserved
// for the one call about to be made with it. A [Metered] model over the
// same ledger then uses res (committing or cancelling it) instead of
// reserving again, so a caller can reserve at once, in program order, and
// send later without another call taking the budget in between. The
// reservation serves one call; its owner should Cancel it if the call is
// never made (a no-op once used).
func WithReservation(ctx context.Context, res *Reservation) context.Context {
	return context.WithValue(ctx, reservationKey{}, res)
}

// Metered wraps m so that every call reserves budget on l before it is
// sent (prompt tokens counted exactly with the model's tokenizer, plus the
// request's MaxTokens) and commits the server's usage afterwards. A call
// the ledger refuses is never sent. Failed calls are not charged.
//
// If the server reports no usage, the ledger is charged the counted prompt
// tokens and the tokens of the reply.
func Metered(m ChatModel, l *Ledger) ChatModel {
	return &metered{inner: m, l: l}
}

type metered struct {
	inner ChatModel
	l     *Ledger
}

func (m *metered) Chat(ctx context.Context, req Request) (*Response, error) {
	model := req.Model
	if model == "" {
		if d, ok := m.inner.(interface{ Model() string }); ok {
			model = d.Model()
		}
	}
	counted := req
	counted.Model = model
	res, _ := ctx.Value(reservationKey{}).(*Reservation)
	if res == nil || res.l != m.l || !res.claimed.CompareAndSwap(false, true) {
		var err error
		if res, err = m.l.ReserveRequest(counted); err != nil {
			return nil, err
		}
	}
	resp, err := m.inner.Chat(ctx, req)
	if err != nil {
		res.Cancel()
		return nil, err
	}
	u := resp.Usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		t := TokenizerForModel(model)
		u.PromptTokens = CountRequestTokens(counted) // the upstream sent no usage
		u.CompletionTokens = t.Count(resp.Content)
		for _, tc := range resp.ToolCalls {
			u.CompletionTokens += t.Count(tc.Name) + t.Count(tc.Arguments)
		}
	}
	if model == "" {
		model = resp.Model
		res.model = model
	}
	res.Commit(u)
	return resp, nil
}

// Model is the wrapped model's default model name, if it has one.
func (m *metered) Model() string {
	if d, ok := m.inner.(interface{ Model() string }); ok {
		return d.Model()
	}
	return ""
}

// SubModel is the wrapped model's sub-call model name, if it has one.
func (m *metered) SubModel() string { return SubModelOf(m.inner) }

// Unwrap returns the wrapped model.
func (m *metered) Unwrap() ChatModel { return m.inner }
