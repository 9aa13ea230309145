package builtins

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/sandbox"
)

// defaultSubOutputTokens is reserved out of the context window for the
// reply when Host.MaxOutputTokens is 0.
const defaultSubOutputTokens = 1024

// llm_query(prompt, model=None, truncate=False)
// Ask a sub-model; returns a future str (stripped). A prompt larger than the model's context window is refused unless truncate=True (cuts its middle, marked).
func llmQuery(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		prompt, model string
		truncate      bool
	)
	if err := unpack(thread, name, args, kwargs, "prompt", &prompt, "model??", &model, "truncate?", &truncate); err != nil {
		return nil, err
	}
	return h.query(thread, name, prompt, model, truncate)
}

// llm_query_batched(prompts, model=None, truncate=False)
// Ask a sub-model several prompts concurrently; returns a list of futures, one per prompt (stripped str).
func llmQueryBatched(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		list     starlark.Value
		model    string
		truncate bool
	)
	if err := unpack(thread, name, args, kwargs, "prompts", &list, "model??", &model, "truncate?", &truncate); err != nil {
		return nil, err
	}
	seq, ok := asSequence(list)
	if !ok {
		return nil, typeErr("%s: prompts must be a list of str, got %s", name, pyTypeName(list))
	}
	prompts := make([]string, seq.Len())
	for i := range prompts {
		v, err := sandbox.Unproxy(thread, seq.Index(i))
		if err != nil {
			return nil, err
		}
		s, ok := v.(starlark.String)
		if !ok {
			return nil, typeErr("%s: prompts[%d] must be a str, got %s", name, i, pyTypeName(v))
		}
		prompts[i] = string(s)
	}
	futures := make([]starlark.Value, len(prompts))
	for i, p := range prompts {
		f, err := h.query(thread, name, p, model, truncate)
		if err != nil {
			return nil, fmt.Errorf("prompts[%d]: %w", i, err)
		}
		futures[i] = f
	}
	return starlark.NewList(futures), nil
}

// subModel is the model name for a sub-call.
func (h *Host) subModel(model string) string {
	if model != "" {
		return model
	}
	if h.SubModel != "" {
		return h.SubModel
	}
	if m, ok := h.Model.(interface{ Model() string }); ok {
		return m.Model()
	}
	return ""
}

func (h *Host) maxOutput() int {
	if h.MaxOutputTokens > 0 {
		return h.MaxOutputTokens
	}
	return defaultSubOutputTokens
}

// contextWindow is the window of model in tokens, or 0 if unknown.
func (h *Host) contextWindow(model string) int {
	if h.ContextWindow > 0 {
		return h.ContextWindow
	}
	if n, ok := llm.ContextWindow(model); ok {
		return n
	}
	return 0
}

func (h *Host) noModelErr(helper string) error {
	return fmt.Errorf("%s: no model configured (%w)", helper, llm.ErrNoModel)
}

// fitPrompt checks prompt against the model's context window. It returns
// the prompt to send: unchanged, or, if truncate is set, cut in the middle
// with a visible marker.
func (h *Host) fitPrompt(helper, model, prompt string, truncate bool) (string, error) {
	window := h.contextWindow(model)
	if window <= 0 {
		return prompt, nil
	}
	tok := llm.TokenizerForModel(model)
	limit := window - h.maxOutput() - 16 // room for message framing
	if limit <= 0 {
		return "", fmt.Errorf(
			"%s: %w: the window of %s (%d tokens) leaves no room for a prompt after %d reply tokens",
			helper,
			ErrContextWindow,
			modelLabel(model),
			window,
			h.maxOutput(),
		)
	}
	n, _ := tok.CountLarge(prompt)
	if n <= limit {
		return prompt, nil
	}
	if !truncate {
		return "", fmt.Errorf(
			"%s: %w: the prompt is about %d tokens but %s accepts %d (window %d minus %d for the reply); split it (chunk(var, size)) or pass truncate=True",
			helper,
			ErrContextWindow,
			n,
			modelLabel(model),
			limit,
			window,
			h.maxOutput(),
		)
	}
	return truncateMiddle(tok, prompt, n, limit), nil
}

func modelLabel(model string) string {
	if model == "" {
		return "the model"
	}
	return model
}

// truncateMiddle cuts the middle of s (n tokens) so that it fits in limit
// tokens, keeping two thirds of the room for the head and one third for
// the tail, with a marker saying how much was removed.
func truncateMiddle(tok *llm.Tokenizer, s string, n, limit int) string {
	marker := func(cut int) string {
		return fmt.Sprintf("\n\n[... truncated: about %d tokens removed to fit the context window ...]\n\n", cut)
	}
	room := limit - tok.Count(marker(n)) - 8
	if room <= 0 {
		return marker(n)
	}
	// Estimate bytes per token, then shrink until it fits.
	ratio := float64(len(s)) / float64(max(n, 1))
	keep := int(float64(room) * ratio)
	for range 20 {
		headLen := runeFloor(s, keep*2/3)
		tailStart := runeCeil(s, len(s)-(keep-headLen))
		out := s[:headLen] + marker(n-room) + s[tailStart:]
		if m, _ := tok.CountLarge(out); m <= limit {
			return out
		}
		keep = keep * 9 / 10
	}
	return marker(n)
}

func runeFloor(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	if i < 0 {
		return 0
	}
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

func runeCeil(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return i
}

// query starts one sub-call and returns its future.
func (h *Host) query(thread *starlark.Thread, helper, prompt, model string, truncate bool) (*deferred.Future, error) {
	if h.Model == nil {
		return nil, h.noModelErr(helper)
	}
	model = h.subModel(model)
	prompt, err := h.fitPrompt(helper, model, prompt, truncate)
	if err != nil {
		return nil, err
	}
	req := llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}, MaxTokens: h.MaxOutputTokens}
	return h.startChat(thread, helper, req)
}

// startChat reserves budget for req at once (so a refusal raises in the
// calling step and nothing is sent) and starts the call as a future.
func (h *Host) startChat(thread *starlark.Thread, helper string, req llm.Request) (*deferred.Future, error) {
	key := chatKey(req)
	var res *llm.Reservation
	if h.Ledger != nil {
		var err error
		res, err = h.Ledger.ReserveRequest(req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was sent", helper, err)
		}
	}
	tr := h.startOp(helper, req.Model, chatPrompt(req))
	f, started := h.Group.Go(h.opCtx(thread), func(ctx context.Context) (starlark.Value, error) {
		if res != nil {
			ctx = llm.WithReservation(ctx, res) // the metered model uses it
			defer res.Cancel()                  // no-op once used
		}
		resp, err := h.Model.Chat(ctx, req)
		if err != nil {
			err = fmt.Errorf("%s: %w", helper, err)
			tr.end("", llm.Usage{}, err)
			return nil, err
		}
		tr.firstByte(resp.FirstByte)
		tr.end(resp.Content, resp.Usage, nil)
		return starlark.String(strings.TrimSpace(resp.Content)), nil
	}, deferred.Label(helper), deferred.Key(key))
	if !started {
		if res != nil {
			res.Cancel() // memoized (or closed): nothing will be sent
		}
		tr.notStarted(f, key)
	}
	return f, nil
}

// chatPrompt is the text of req's messages as recorded for the trajectory.
func chatPrompt(req llm.Request) string {
	if len(req.Messages) == 1 {
		return req.Messages[0].Content
	}
	var b strings.Builder
	for i, m := range req.Messages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("[" + m.Role + "]\n" + m.Content)
	}
	return b.String()
}

// chatKey is the content hash identifying a chat request.
func chatKey(req llm.Request) string {
	hs := sha256.New()
	var n [8]byte
	put := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		hs.Write(n[:])
		hs.Write([]byte(s))
	}
	put("chat")
	put(req.Model)
	put(fmt.Sprint(req.MaxTokens))
	if req.Temperature != nil {
		put(fmt.Sprint(*req.Temperature))
	}
	for _, m := range req.Messages {
		put(m.Role)
		put(m.Content)
	}
	return hex.EncodeToString(hs.Sum(nil))
}
