package main

import (
	"flag"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rlmhq/rlm/llm"
)

// defaultOpenAIModel is the chat model used when OPENAI_API_KEY is set for
// OpenAI's own API (no base URL) and no model is named.
const defaultOpenAIModel = "gpt-4o-mini"

// noModelHelp is the message for commands that need a model and have none.
const noModelHelp = `set OPENAI_BASE_URL (or --base-url), OPENAI_API_KEY (or --api-key) and RLM_MODEL (or --model); ` +
	`e.g. for a local Ollama: --base-url http://localhost:11434/v1 --model llama3.1 ` +
	`(with only OPENAI_API_KEY set, OpenAI's API and ` + defaultOpenAIModel + ` are used)`

// optFloat is a float flag that remembers whether it was set.
type optFloat struct {
	v   float32
	set bool
}

func (f *optFloat) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatFloat(float64(f.v), 'g', -1, 32)
}

func (f *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 32)
	if err != nil || v < 0 || v > 2 {
		return fmt.Errorf("want a number between 0 and 2, got %q", s)
	}
	f.v, f.set = float32(v), true
	return nil
}

// modelFlags are the model endpoint flags shared by the commands that call
// models. Flags override the environment.
type modelFlags struct {
	baseURL, apiKey                 string
	model, subModel, embeddingModel string
	temperature                     optFloat
	maxOutputTokens                 int
	requestTimeout                  time.Duration
	maxRetries                      int
	maxConcurrency                  int
	requestsPerMinute, tokensPerMin int
	embedBatchSize                  int
	maxResponseBytes                int64
	cacheDir                        string
	record, replay                  string
	prices                          string
	// clock is the sandbox clock a --record recording records (see
	// sessionFlags.startClock).
	clock time.Time
	// wrap, if set, wraps the model and embedder below the meter (rlm
	// run's kept-run recorder).
	wrap func(llm.ChatModel, llm.Embedder) (llm.ChatModel, llm.Embedder, error)
}

// register adds the model flags to fs.
func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(
		&m.baseURL,
		"base-url",
		"",
		"OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama (default $OPENAI_BASE_URL, else OpenAI's API)",
	)
	fs.StringVar(&m.apiKey, "api-key", "", "API key (default $OPENAI_API_KEY; prefer the variable: flags show up in process lists)")
	fs.StringVar(&m.model, "model", "", "root chat model (default $RLM_MODEL; "+defaultOpenAIModel+" when only OPENAI_API_KEY is set)")
	fs.StringVar(&m.subModel, "sub-model", "", "model for sub-calls such as llm_query (default $RLM_SUB_MODEL, else the root model)")
	fs.StringVar(
		&m.embeddingModel,
		"embedding-model",
		"",
		"embedding model for find_relevant (default $RLM_EMBEDDING_MODEL; none disables embeddings)",
	)
	fs.Var(&m.temperature, "temperature", "sampling temperature `0-2` (default: the server's)")
	fs.IntVar(&m.maxOutputTokens, "max-output-tokens", 0, "max output tokens per model call (0 = server default)")
	fs.DurationVar(&m.requestTimeout, "request-timeout", llm.DefaultTimeout, "timeout of one model request attempt")
	fs.IntVar(&m.maxRetries, "max-retries", llm.DefaultMaxRetries, "retries of a failed request (429, 5xx, timeouts); 0 = none")
	fs.IntVar(&m.maxConcurrency, "max-concurrency", llm.DefaultMaxConcurrency, "model requests in flight at once (chat and embeddings)")
	fs.IntVar(&m.requestsPerMinute, "rpm", 0, "requests per minute limit (0 = unlimited)")
	fs.IntVar(&m.tokensPerMin, "tpm", 0, "tokens per minute limit (0 = unlimited)")
	fs.IntVar(&m.embedBatchSize, "embed-batch-size", llm.DefaultEmbedBatchSize, "inputs per embeddings request")
	m.maxResponseBytes = llm.DefaultMaxResponseBytes
	fs.Var(
		byteSize[int64]{&m.maxResponseBytes},
		"max-response-size",
		"largest model response body accepted, after decompression, a `SIZE` such as 64M (chat and embeddings)",
	)
	fs.StringVar(&m.cacheDir, "cache-dir", "", "directory for the on-disk embedding cache (default: memory only)")
	fs.StringVar(
		&m.record,
		"record",
		"",
		"record all model traffic to this JSONL `file` (no API key is stored; written to FILE.partial until the run ends)",
	)
	fs.StringVar(&m.replay, "replay", "", "answer model calls from a recording `file` made with --record, offline")
	fs.StringVar(
		&m.prices,
		"prices",
		"",
		"JSON `file` overriding model prices (USD per 1M tokens: {\"model\": {\"input\": 2.5, \"cached_input\": 1.25, \"output\": 10}})",
	)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// config resolves flags and environment into an llm.Config. It fails,
// wrapping llm.ErrNoModel, when no usable endpoint is configured (unless
// --replay supplies the answers).
func (m *modelFlags) config(env *cliEnv) (llm.Config, error) {
	getenv := env.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg := llm.Config{
		BaseURL:           firstNonEmpty(m.baseURL, getenv("OPENAI_BASE_URL")),
		APIKey:            firstNonEmpty(m.apiKey, getenv("OPENAI_API_KEY")),
		Model:             firstNonEmpty(m.model, getenv("RLM_MODEL")),
		SubModel:          firstNonEmpty(m.subModel, getenv("RLM_SUB_MODEL")),
		EmbeddingModel:    firstNonEmpty(m.embeddingModel, getenv("RLM_EMBEDDING_MODEL")),
		MaxOutputTokens:   m.maxOutputTokens,
		Timeout:           m.requestTimeout,
		MaxRetries:        m.maxRetries,
		MaxConcurrency:    m.maxConcurrency,
		RequestsPerMinute: m.requestsPerMinute,
		TokensPerMinute:   m.tokensPerMin,
		EmbedBatchSize:    m.embedBatchSize,
		MaxResponseBytes:  m.maxResponseBytes,
		CacheDir:          m.cacheDir,
	}
	if m.maxRetries == 0 {
		cfg.MaxRetries = -1 // the flag's 0 means none; Config's 0 means default
	}
	if m.temperature.set {
		t := m.temperature.v
		cfg.Temperature = &t
	}
	switch {
	case m.maxOutputTokens < 0:
		return cfg, fmt.Errorf("%w: --max-output-tokens must be >= 0", errUsage)
	case m.maxConcurrency < 1:
		return cfg, fmt.Errorf("%w: --max-concurrency must be >= 1", errUsage)
	case m.embedBatchSize < 1:
		return cfg, fmt.Errorf("%w: --embed-batch-size must be >= 1", errUsage)
	case m.requestTimeout < 0 || m.maxRetries < 0:
		return cfg, fmt.Errorf("%w: --request-timeout and --max-retries must be >= 0", errUsage)
	case m.requestsPerMinute < 0 || m.tokensPerMin < 0:
		return cfg, fmt.Errorf("%w: --rpm and --tpm must be >= 0", errUsage)
	case m.record != "" && m.replay != "":
		return cfg, fmt.Errorf("%w: --record and --replay cannot be used together", errUsage)
	case cfg.BaseURL != "" && !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://"):
		return cfg, fmt.Errorf(
			"%w: base URL %q (--base-url or OPENAI_BASE_URL) must start with http:// or https://, e.g. http://localhost:11434/v1",
			errUsage,
			llm.Redact(cfg.BaseURL, cfg.APIKey),
		)
	}

	if m.replay != "" {
		// The recording names the models it was made with, so requests
		// carry the same model names and hash to the same keys.
		meta, err := llm.ReadRecordingMeta(m.replay)
		if err != nil {
			return cfg, fmt.Errorf("--replay: %w (is it a recording made with --record?)", err)
		}
		if cfg.Model == "" {
			cfg.Model = meta.Model
		}
		if cfg.SubModel == "" {
			cfg.SubModel = meta.SubModel
		}
		if cfg.EmbeddingModel == "" {
			cfg.EmbeddingModel = meta.EmbeddingModel
		}
		return cfg, nil
	}

	if cfg.Model == "" {
		switch {
		case cfg.BaseURL == "" && cfg.APIKey != "":
			cfg.Model = defaultOpenAIModel
		case cfg.BaseURL != "":
			return cfg, fmt.Errorf(
				"%w: endpoint %s has no model: set RLM_MODEL (or --model), e.g. --model llama3.1",
				llm.ErrNoModel,
				llm.RedactURL(cfg.BaseURL),
			)
		default:
			return cfg, fmt.Errorf("%w: %s", llm.ErrNoModel, noModelHelp)
		}
	}
	if cfg.BaseURL == "" && cfg.APIKey == "" {
		return cfg, fmt.Errorf("%w: model %s would use OpenAI's API but OPENAI_API_KEY (or --api-key) is not set; "+
			"for a local server set OPENAI_BASE_URL (or --base-url), e.g. --base-url http://localhost:11434/v1", llm.ErrNoModel, cfg.Model)
	}
	return cfg, nil
}

// priceTable returns the built-in prices, overridden by --prices.
func (m *modelFlags) priceTable() (*llm.PriceTable, error) {
	if m.prices == "" {
		return llm.DefaultPrices(), nil
	}
	return llm.LoadPrices(m.prices)
}

// chatModel builds the run's model stack: the client (or the replay),
// wrapped by the recorder when --record is set and metered on ledger when
// ledger is non-nil. The embedder is nil when no embedding model is
// configured. The returned func closes the recorder; call it once at the
// end of the run (it is never nil).
func (m *modelFlags) chatModel(env *cliEnv, ledger *llm.Ledger) (llm.ChatModel, llm.Embedder, func() error, error) {
	noop := func() error { return nil }
	cfg, err := m.config(env)
	if err != nil {
		return nil, nil, noop, err
	}
	var (
		chat  llm.ChatModel
		emb   llm.Embedder
		close = noop
	)
	if m.replay != "" {
		r, err := llm.OpenReplay(m.replay)
		if err != nil {
			return nil, nil, noop, fmt.Errorf("--replay: %w (is it a recording made with --record?)", err)
		}
		chat = r
		if r.HasEmbeddings() {
			// A client over the recording batches, caches and charges the
			// ledger as the recorded run did (no disk cache: its state
			// would differ from the recorded run's).
			ecfg := cfg
			ecfg.BaseURL, ecfg.APIKey, ecfg.CacheDir = "http://replay.invalid/v1", "", ""
			ecfg.EmbeddingModel = firstNonEmpty(ecfg.EmbeddingModel, "replay")
			ecfg.MaxRetries = -1
			ecfg.HTTPClient = &http.Client{Transport: r.EmbeddingTransport()}
			ecfg.EmbedLedger = ledger
			c, err := llm.New(ecfg)
			if err != nil {
				return nil, nil, noop, err
			}
			emb = c
		}
	} else {
		cfg.EmbedLedger = ledger
		c, err := llm.New(cfg)
		if err != nil {
			return nil, nil, noop, err
		}
		chat = c
		if cfg.EmbeddingModel != "" {
			emb = c
		}
		if m.record != "" {
			var opts []llm.RecordOption
			if !m.clock.IsZero() {
				opts = append(opts, llm.RecordClock(m.clock))
			}
			rec, err := llm.NewRecorder(c, m.record, opts...)
			if err != nil {
				return nil, nil, noop, err
			}
			chat = rec
			if emb != nil {
				emb = rec.Embedder(emb)
			}
			close = rec.Close
		}
	}
	if m.wrap != nil {
		if chat, emb, err = m.wrap(chat, emb); err != nil {
			return nil, nil, close, err
		}
	}
	if ledger != nil {
		chat = llm.Metered(chat, ledger)
	}
	return chat, emb, close, nil
}

// endpoint resolves the model configuration and the price table for a
// command that calls models, refusing --max-cost (maxCost > 0) when a model
// of the run has no known price: its cost would count as unknown, so the
// limit could not stop it.
func (m *modelFlags) endpoint(env *cliEnv, maxCost float64) (llm.Config, *llm.PriceTable, error) {
	c, err := m.config(env)
	if err != nil {
		return llm.Config{}, nil, err
	}
	prices, err := m.priceTable()
	if err != nil {
		return llm.Config{}, nil, err
	}
	if maxCost <= 0 {
		return c, prices, nil
	}
	for _, name := range []string{c.Model, c.SubModel, c.EmbeddingModel} {
		if name == "" {
			continue
		}
		if _, ok := prices.Lookup(name); !ok {
			return llm.Config{}, nil, fmt.Errorf(
				`%w: --max-cost: no price is known for model %q, so the cost limit cannot be enforced; pass --prices FILE with {"%s": {"input": USD_PER_1M, "output": USD_PER_1M}}, or limit --max-tokens instead`,
				errUsage,
				name,
				name,
			)
		}
	}
	return c, prices, nil
}

// finishRecording closes the model of rlm cmd at the end of a run. A run
// that did not finish would not replay: with --record its recording is left
// in FILE.partial, an earlier FILE stays as it was, and kept reports that
// closeModel must not be called.
func (m *modelFlags) finishRecording(env *cliEnv, cmd string, finished bool, closeModel func() error) (kept bool, err error) {
	if !finished && m.record != "" {
		fmt.Fprintf(
			env.stderr,
			"rlm %s: the run did not finish: its recording is in %s%s; %s is unchanged\n",
			cmd,
			m.record,
			llm.PartialSuffix,
			m.record,
		)
		return true, nil
	}
	if err := closeModel(); err != nil {
		return false, fmt.Errorf("--record: %w", err)
	}
	return false, nil
}
