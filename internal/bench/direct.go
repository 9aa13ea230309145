package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
)

// directSystem is the system message of a direct-mode request.
const directSystem = "Answer the question using only the context in the user message. Reply with the answer alone, in the format the question asks for."

// Direct is the baseline mode: the whole context pasted into one prompt
// with the query, sent as a single chat request.
type Direct struct {
	// Model answers the request (a client, recorder, replay or fake).
	Model llm.ChatModel
	// ModelName is the request's model; empty uses the client's default.
	ModelName string
	// Window is the model's context window in tokens (prompt plus reply);
	// a prompt that does not fit is recorded as a context_overflow failure
	// without being sent. 0 means unknown: send and let the server judge.
	Window int
	// MaxOutputTokens is sent as the request's max tokens and reserved in
	// the window check (0 = server default, nothing reserved).
	MaxOutputTokens int
	Temperature     *float32
	// Prices and Limits configure the per-item ledger (nil prices =
	// built-in table; zero limits = unlimited).
	Prices *llm.PriceTable
	Limits llm.Limits
}

// FirstRequest is the one request direct mode sends for t.
func (d *Direct) FirstRequest(t *Task) (llm.Request, error) {
	var b strings.Builder
	size := len(t.Query) + 256
	texts := make([]string, len(t.Vars))
	for i, v := range t.Vars {
		texts[i] = v.Text()
		size += len(texts[i]) + len(v.Name) + 32
	}
	b.Grow(size)
	for i, v := range t.Vars {
		fmt.Fprintf(&b, "Context variable `%s`:\n", v.Name)
		b.WriteString(texts[i])
		if !strings.HasSuffix(texts[i], "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	b.WriteString("Question: ")
	b.WriteString(t.Query)
	return llm.Request{
		Model: d.ModelName,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: directSystem},
			{Role: llm.RoleUser, Content: b.String()},
		},
		Temperature: d.Temperature,
		MaxTokens:   d.MaxOutputTokens,
	}, nil
}

// Run sends the direct request for t, unless it overflows the window.
func (d *Direct) Run(ctx context.Context, t *Task) (*Outcome, error) {
	req, err := d.FirstRequest(t)
	if err != nil {
		return nil, err
	}
	if d.Window > 0 {
		n := RequestTokens(req)
		if n+d.MaxOutputTokens > d.Window {
			return &Outcome{
					Failure: FailContextOverflow,
				}, fmt.Errorf(
					"%w: the direct prompt is %d tokens (+%d for the reply) and the window is %d",
					ErrContextOverflow,
					n,
					d.MaxOutputTokens,
					d.Window,
				)
		}
	}
	ledger := llm.NewLedger(llm.LedgerConfig{Prices: d.Prices, Limits: d.Limits})
	resp, err := llm.Metered(d.Model, ledger).Chat(ctx, req)
	tot := ledger.Totals()
	out := &Outcome{
		RootPromptTokens: tot.PromptTokens,
		CompletionTokens: tot.CompletionTokens,
		Calls:            tot.Calls,
		CostUSD:          tot.CostUSD,
		CostKnown:        tot.CostKnown,
		Iterations:       1,
	}
	if err != nil {
		return out, err
	}
	out.Answer = strings.TrimSpace(orchestrator.StripReasoning(resp.Content)) // a reasoning model's <think> text is not the answer
	out.StopReason = resp.FinishReason
	return out, nil
}

// RequestTokens counts the prompt tokens of req exactly, as
// llm.CountRequestTokens does, counting large message contents in parallel
// (see [CountTokens]).
func RequestTokens(req llm.Request) int {
	tok := llm.TokenizerForModel(req.Model)
	blank := req
	blank.Messages = make([]llm.Message, len(req.Messages))
	n := 0
	for i, m := range req.Messages {
		blank.Messages[i] = m
		blank.Messages[i].Content = ""
		n += countExact(tok, m.Content)
	}
	return n + llm.CountRequestTokens(blank)
}
