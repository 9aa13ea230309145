package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Client is an OpenAI-compatible chat and embeddings client with retries,
// error classification, a shared concurrency/rate limiter and an embedding
// cache. It implements [ChatModel] and [Embedder] and is safe for
// concurrent use; share one Client across a whole run.
type Client struct {
	cfg     Config
	secrets []string // redacted from errors and replies (Config.Secrets)
	api     *openai.Client
	sched   *scheduler
	cache   *embedCache
	sleep   func(ctx context.Context, d time.Duration) error
	// answered is set at the first call the endpoint answered; until
	// then an unreachable endpoint is not retried (ErrUnreachable).
	answered atomic.Bool
}

var (
	_ ChatModel = (*Client)(nil)
	_ Embedder  = (*Client)(nil)
)

// New returns a client for cfg. It does not contact the server.
func New(cfg Config) (*Client, error) {
	secrets := cfg.Secrets()
	if cfg.BaseURL != "" && !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, &Error{
			Kind: KindBadRequest,
			Message: fmt.Sprintf(
				"base URL %q must start with http:// or https:// (e.g. http://localhost:11434/v1)",
				redactKey(cfg.BaseURL, secrets...),
			),
		}
	}
	// A query in the base URL (gateways taking ?api-key=...) is sent with
	// every request; go-openai would append the path after it.
	base, query := cfg.baseURL(), url.Values(nil)
	if u, err := url.Parse(base); err == nil && u.RawQuery != "" {
		query = u.Query()
		u.RawQuery, u.ForceQuery = "", false
		base = strings.TrimRight(u.String(), "/")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: newTransport(cfg.maxConcurrency())}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = base
	oc.HTTPClient = &headerDoer{hc: hc, query: query, limit: cfg.maxResponseBytes()}
	c := &Client{
		cfg:     cfg,
		secrets: secrets,
		api:     openai.NewClientWithConfig(oc),
		sched:   newScheduler(cfg.maxConcurrency(), cfg.RequestsPerMinute, cfg.TokensPerMinute),
		sleep:   sleepCtx,
	}
	c.cache = newEmbedCache(cfg.CacheDir)
	return c, nil
}

// Config returns the client's configuration (print it with String, which
// redacts the key).
func (c *Client) Config() Config { return c.cfg }

// Model is the default chat model.
func (c *Client) Model() string { return c.cfg.Model }

// SubModel is the model for sub-calls: Config.SubModel, else Config.Model.
func (c *Client) SubModel() string {
	if c.cfg.SubModel != "" {
		return c.cfg.SubModel
	}
	return c.cfg.Model
}

// EmbeddingModel is the configured embedding model ("" if none).
func (c *Client) EmbeddingModel() string { return c.cfg.EmbeddingModel }

// writeBufferSize is the buffer of each upstream connection's writes.
const writeBufferSize = 32 << 10

// newTransport is the transport of a client without Config.HTTPClient.
func newTransport(maxConcurrency int) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// Keep as many idle connections as requests may be in flight, so a
	// burst of sub-calls reuses connections instead of churning them.
	tr.MaxIdleConnsPerHost = maxConcurrency
	// A request goes out in one write where it fits: with the default
	// 4 KiB buffer a root call's first request (a 5 KiB system prompt)
	// took two, each a trip through the network stack.
	tr.WriteBufferSize = writeBufferSize
	return tr
}

// headerDoer adds the base URL's query to every request, bounds response
// bodies, keeps credentials out of transport errors, and records the
// headers of failed responses so that Retry-After can be honoured
// (go-openai's errors do not carry headers).
type headerDoer struct {
	hc    *http.Client
	query url.Values // from the base URL, added to every request
	limit int64      // max response body bytes, decompressed
}

type hdrKey struct{}

type hdrBox struct {
	mu sync.Mutex
	h  http.Header
}

func (d *headerDoer) Do(req *http.Request) (*http.Response, error) {
	if len(d.query) > 0 {
		q := req.URL.Query()
		for k, vs := range d.query {
			if _, ok := q[k]; !ok {
				q[k] = vs
			}
		}
		req.URL.RawQuery = q.Encode()
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			// The request URL may carry the key (?api-key=...).
			ue.URL = RedactURL(ue.URL)
		}
		return nil, err
	}
	if resp.ContentLength > d.limit {
		resp.Body.Close()
		return nil, d.tooLarge(resp.ContentLength)
	}
	resp.Body = &limitedBody{rc: resp.Body, left: d.limit, d: d}
	if resp.StatusCode >= 400 {
		if box, ok := req.Context().Value(hdrKey{}).(*hdrBox); ok {
			box.mu.Lock()
			box.h = resp.Header.Clone()
			box.mu.Unlock()
		}
	}
	return resp, err
}

func (d *headerDoer) tooLarge(n int64) error {
	size := "exceeds"
	if n > 0 {
		size = fmt.Sprintf("is %d bytes, over", n)
	}
	return &Error{Kind: KindBadRequest, Err: ErrResponseTooLarge,
		Message: fmt.Sprintf(
			"the server's response %s the limit of %d bytes per response (MaxResponseBytes, counted after decompression); raise it only for a server you trust",
			size,
			d.limit,
		)}
}

// limitedBody fails with ErrResponseTooLarge once more than left bytes are
// read, so a huge (or decompression-bomb) reply cannot exhaust memory.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
	d    *headerDoer
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.d.tooLarge(0)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, b.d.tooLarge(0)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxRetryAfter is the longest server-requested pause waited out (or
// RetryMaxDelay if larger); longer ones fail the call.
const maxRetryAfter = 2 * time.Minute

// do runs one logical call with scheduling, per-attempt timeout, error
// classification and retries.
func (c *Client) do(ctx context.Context, tokens int, call func(ctx context.Context) error) error {
	retries := c.cfg.maxRetries()
	for attempt := 0; ; attempt++ {
		release, err := c.sched.acquire(ctx, tokens)
		if err != nil {
			if KindOf(err) != KindUnknown {
				return err
			}
			return fmt.Errorf("llm: %w", err)
		}
		box := &hdrBox{}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, hdrKey{}, box), c.cfg.timeout())
		err = call(actx)
		cancel()
		release()
		if err == nil {
			c.answered.Store(true)
			return nil
		}
		box.mu.Lock()
		hdr := box.h
		box.mu.Unlock()
		err = classify(ctx, err, hdr, c.secrets)
		var le *Error
		if !errors.As(err, &le) || !le.Retryable() || attempt >= retries ||
			// Nothing has ever answered at this endpoint: it is wrong or
			// down, and waiting out the backoff would only delay saying so.
			(!c.answered.Load() && errors.Is(err, ErrUnreachable)) ||
			// The server asks for a longer pause than a run should sit
			// through: report it (RetryAfter is set) instead of waiting.
			le.RetryAfter > max(c.cfg.retryMaxDelay(), maxRetryAfter) {
			c.attemptFailed(err, false)
			return err
		}
		c.attemptFailed(err, true)
		wait := backoff(attempt, le.RetryAfter, c.cfg.retryBaseDelay(), c.cfg.retryMaxDelay())
		if err := c.sleep(ctx, wait); err != nil {
			return fmt.Errorf("llm: %w (after %v)", err, le)
		}
	}
}

// attemptFailed reports a failed attempt to Config.OnAttemptError.
func (c *Client) attemptFailed(err error, retry bool) {
	if c.cfg.OnAttemptError != nil {
		c.cfg.OnAttemptError(err, retry)
	}
}

// isReasoningModel reports models that take max_completion_tokens and
// reject sampling parameters (OpenAI o-series and gpt-5).
func isReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	return strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") || strings.HasPrefix(m, "o4") || strings.HasPrefix(m, "gpt-5")
}

// Chat sends one chat completion request. Empty Request fields take the
// client's defaults (model, temperature, max output tokens).
func (c *Client) Chat(ctx context.Context, req Request) (*Response, error) {
	oreq, err := c.chatRequest(req)
	if err != nil {
		return nil, err
	}
	tokens := 0
	if c.sched.tpm != nil {
		tokens = CountRequestTokens(req) + max(req.MaxTokens, c.cfg.MaxOutputTokens)
	}
	var resp openai.ChatCompletionResponse
	var firstByte time.Duration
	err = c.do(ctx, tokens, func(ctx context.Context) error {
		var err error
		sent := time.Now()
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			GotFirstResponseByte: func() { firstByte = time.Since(sent) },
		})
		resp, err = c.api.CreateChatCompletion(ctx, oreq)
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err := fromOpenAI(resp, oreq.Model)
	if err != nil {
		return nil, err
	}
	out.FirstByte = firstByte
	// A server (or a model) that sends the key back must not get it into
	// the answer, the trajectory, the recording or the next prompt.
	out.Content = RedactSecrets(out.Content, c.secrets...)
	for i := range out.ToolCalls {
		out.ToolCalls[i].Arguments = RedactSecrets(out.ToolCalls[i].Arguments, c.secrets...)
	}
	return out, nil
}

func (c *Client) chatRequest(req Request) (openai.ChatCompletionRequest, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return openai.ChatCompletionRequest{}, &Error{
			Kind:    KindBadRequest,
			Message: "no model: set Request.Model or Config.Model",
			Err:     ErrNoModel,
		}
	}
	if len(req.Messages) == 0 {
		return openai.ChatCompletionRequest{}, &Error{Kind: KindBadRequest, Message: "request has no messages"}
	}
	o := openai.ChatCompletionRequest{Model: model}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
		o.Messages = append(o.Messages, om)
	}
	for _, t := range req.Tools {
		var params any = t.Parameters
		if len(t.Parameters) == 0 {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		o.Tools = append(o.Tools, openai.Tool{Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	maxTok := req.MaxTokens
	if maxTok == 0 {
		maxTok = c.cfg.MaxOutputTokens
	}
	temp := req.Temperature
	if temp == nil {
		temp = c.cfg.Temperature
	}
	o.Seed = req.Seed
	o.Stop = req.Stop
	if isReasoningModel(model) {
		o.MaxCompletionTokens = maxTok
		// Reasoning models accept only the default temperature and top_p.
	} else {
		// max_tokens, not max_completion_tokens: OpenAI-compatible servers
		// (Ollama, llama.cpp, older vLLM) know only max_tokens, and OpenAI
		// still accepts it for non-reasoning models.
		//lint:ignore SA1019 max_tokens is what every OpenAI-compatible server understands
		o.MaxTokens = maxTok
		if temp != nil {
			o.Temperature = *temp
			if o.Temperature == 0 {
				// go-openai omits a zero temperature; send the smallest
				// positive value instead (documented go-openai idiom).
				o.Temperature = math.SmallestNonzeroFloat32
			}
		}
		if p := req.TopP; p != nil {
			o.TopP = *p
			if o.TopP == 0 {
				// Omitted when zero too: the smallest positive value
				// keeps only the most likely token, as 0 asks.
				o.TopP = math.SmallestNonzeroFloat32
			}
		}
	}
	return o, nil
}

func fromOpenAI(resp openai.ChatCompletionResponse, model string) (*Response, error) {
	if len(resp.Choices) == 0 {
		return nil, &Error{Kind: KindTransient, Message: "server returned no choices"}
	}
	ch := resp.Choices[0]
	out := &Response{
		ID:           resp.ID,
		Model:        resp.Model,
		Content:      ch.Message.Content,
		FinishReason: string(ch.FinishReason),
		Usage: Usage{
			PromptTokens:     resp.Usage.PromptTokens,
			CompletionTokens: resp.Usage.CompletionTokens,
		},
	}
	if out.Model == "" {
		out.Model = model
	}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		out.Usage.CachedTokens = d.CachedTokens
	}
	for _, tc := range ch.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, nil
}

// CountRequestTokens counts the prompt tokens of req exactly with the
// model's tokenizer, including the per-message overhead of the chat format
// (an upper-bound-leaning estimate of what the server will bill).
func CountRequestTokens(req Request) int {
	t := TokenizerForModel(req.Model)
	n := 3 // every reply is primed with <|start|>assistant<|message|>
	for _, m := range req.Messages {
		n += 3 + t.Count(m.Content) + t.Count(m.Role)
		if m.Name != "" {
			n += 1 + t.Count(m.Name)
		}
		for _, tc := range m.ToolCalls {
			n += 3 + t.Count(tc.Name) + t.Count(tc.Arguments)
		}
	}
	for _, tl := range req.Tools {
		n += 8 + t.Count(tl.Name) + t.Count(tl.Description) + t.Count(string(tl.Parameters))
	}
	return n
}
