package bench

import (
	"context"
	"fmt"
	"sync"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
)

// RLM is the rlm mode: the orchestrator answering over the task's variables
// as externalized context. Each item runs on a fresh ledger (so Limits and
// the reported usage are per item) metering the shared Model.
type RLM struct {
	// Model is the shared, unmetered model stack (client, recorder, replay
	// or fake).
	Model llm.ChatModel
	// Config is the orchestrator configuration; its Model and Ledger are
	// set per item.
	Config orchestrator.Config
	// EmbeddingModel names Config.Embedder's model; its requests are
	// charged to the item's ledger at that model's price.
	EmbeddingModel string
	Prices         *llm.PriceTable
	Limits         llm.Limits
}

// TaskContext is t's variables as an externalized context for the
// orchestrator.
func TaskContext(t *Task) (*rlmctx.ExternalizedContext, error) {
	c := rlmctx.NewContext(t.Query)
	for _, v := range t.Vars {
		if _, err := c.Add(v.Name, v.Value); err != nil {
			return nil, fmt.Errorf("bench: variable %s: %w", v.Name, err)
		}
	}
	return c, nil
}

// FirstRequest is the first root request of the RLM for t.
func (r *RLM) FirstRequest(t *Task) (llm.Request, error) {
	c, err := TaskContext(t)
	if err != nil {
		return llm.Request{}, err
	}
	msgs, _ := orchestrator.New(r.Config).RootPrompt(c)
	return llm.Request{Model: r.Config.RootModel, Messages: msgs}, nil
}

// Run answers t with the orchestrator.
func (r *RLM) Run(ctx context.Context, t *Task) (*Outcome, error) {
	c, err := TaskContext(t)
	if err != nil {
		return nil, err
	}
	msgs, _ := orchestrator.New(r.Config).RootPrompt(c)
	ledger := llm.NewLedger(llm.LedgerConfig{Prices: r.Prices, Limits: r.Limits})
	split := &splitModel{inner: llm.Metered(r.Model, ledger)}
	if len(msgs) > 0 {
		split.rootSystem = msgs[0].Content
	}
	cfg := r.Config
	cfg.Model, cfg.Ledger = split, ledger
	var emb *meteredEmbedder
	if cfg.Embedder != nil {
		emb = &meteredEmbedder{inner: cfg.Embedder, ledger: ledger, model: r.EmbeddingModel, charged: map[string]bool{}}
		cfg.Embedder = emb
	}
	res, err := orchestrator.New(cfg).Run(ctx, c)
	if err != nil {
		return nil, err
	}
	tot := res.Usage
	root := split.rootPrompt()
	embTokens := emb.tokens()
	out := &Outcome{
		Answer:           res.Answer,
		RootPromptTokens: root,
		SubPromptTokens:  max(tot.PromptTokens-root-embTokens, 0),
		EmbedTokens:      embTokens,
		CompletionTokens: tot.CompletionTokens,
		Calls:            tot.Calls,
		CostUSD:          tot.CostUSD,
		CostKnown:        tot.CostKnown,
		Iterations:       res.Iterations,
		StopReason:       string(res.StopReason),
		MetaVersion:      cfg.Meta.Version,
	}
	switch res.StopReason {
	case orchestrator.StopSubmit:
	case orchestrator.StopCanceled:
		return out, ctx.Err()
	case orchestrator.StopModelError:
		out.Failure = FailureKind(res.Err)
		return out, res.Err
	default:
		out.Failure = string(res.StopReason)
	}
	return out, nil
}

// splitModel tells root requests (those opening with the root system
// prompt) from sub-calls and sums their prompt tokens.
type splitModel struct {
	inner      llm.ChatModel
	rootSystem string
	mu         sync.Mutex
	root       int
}

func (s *splitModel) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := s.inner.Chat(ctx, req)
	if err != nil || len(req.Messages) == 0 || req.Messages[0].Content != s.rootSystem {
		return resp, err
	}
	n := resp.Usage.PromptTokens
	if n == 0 {
		n = llm.CountRequestTokens(req)
	}
	s.mu.Lock()
	s.root += n
	s.mu.Unlock()
	return resp, nil
}

func (s *splitModel) rootPrompt() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.root
}

// Model is the wrapped model's default name (the orchestrator and the
// ledger use it for requests without a model).
func (s *splitModel) Model() string {
	if d, ok := s.inner.(interface{ Model() string }); ok {
		return d.Model()
	}
	return ""
}

// meteredEmbedder charges one item's embedding requests to its ledger
// (the shared client cannot: its ledger is fixed for the run). Texts are
// counted with the embedding model's tokenizer; a text already embedded in
// this item is not charged again, as the client serves it from its cache.
type meteredEmbedder struct {
	inner   llm.Embedder
	ledger  *llm.Ledger
	model   string
	mu      sync.Mutex
	charged map[string]bool
	total   int
}

func (m *meteredEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	tok := llm.TokenizerForModel(m.model)
	m.mu.Lock()
	var fresh []string
	n := 0
	seen := map[string]bool{}
	for _, t := range texts {
		if !m.charged[t] && !seen[t] {
			seen[t] = true
			fresh = append(fresh, t)
			n += tok.Count(t)
		}
	}
	m.mu.Unlock()
	if len(fresh) == 0 {
		return m.inner.Embed(ctx, texts)
	}
	res, err := m.ledger.Reserve(m.model, n, 0)
	if err != nil {
		return nil, err
	}
	vecs, err := m.inner.Embed(ctx, texts)
	if err != nil {
		res.Cancel()
		return nil, err
	}
	res.Commit(llm.Usage{PromptTokens: n})
	m.mu.Lock()
	for _, t := range fresh {
		m.charged[t] = true
	}
	m.total += n
	m.mu.Unlock()
	return vecs, nil
}

// tokens is the embedding tokens charged so far (0 for a nil embedder).
func (m *meteredEmbedder) tokens() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}
