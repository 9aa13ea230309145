package llm

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Defaults for zero [Config] fields.
const (
	DefaultMaxConcurrency = 16
	DefaultEmbedBatchSize = 256
	DefaultMaxRetries     = 4
	DefaultTimeout        = 5 * time.Minute
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultRetryMaxDelay  = 30 * time.Second
	// DefaultMaxResponseBytes bounds one response body, decompressed.
	DefaultMaxResponseBytes = 64 << 20
	// DefaultBaseURL is OpenAI's API, used when Config.BaseURL is empty.
	DefaultBaseURL = "https://api.openai.com/v1"
)

// Config configures a [Client]. Zero fields take the defaults above.
type Config struct {
	BaseURL         string   // OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (default OpenAI)
	APIKey          string   // never printed; see String
	Model           string   // chat model used when Request.Model is empty
	SubModel        string   // model for sub-calls (llm_query); empty means Model
	EmbeddingModel  string   // model for Embed; empty disables embeddings
	Temperature     *float32 // default sampling temperature; nil = server default
	MaxOutputTokens int      // default max output tokens per call; 0 = server default
	Timeout         time.Duration
	// MaxRetries is the number of retries after the first attempt for
	// retryable failures (429, 5xx, timeouts, connection errors); 0 means
	// DefaultMaxRetries, negative means no retries.
	MaxRetries        int
	MaxConcurrency    int // requests in flight per client, chat and embeddings together (default 16)
	RequestsPerMinute int // 0 = unlimited
	TokensPerMinute   int // prompt + max output tokens per minute; 0 = unlimited
	EmbedBatchSize    int // inputs per embeddings request (default 256)
	// MaxResponseBytes bounds the size of one response body after
	// decompression (default DefaultMaxResponseBytes); a larger reply
	// fails with ErrResponseTooLarge instead of exhausting memory.
	MaxResponseBytes int64
	CacheDir         string
	HTTPClient       *http.Client

	// RetryBaseDelay is the first backoff delay; it doubles per retry with
	// jitter, up to RetryMaxDelay. A server's Retry-After takes precedence.
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
	// EmbedLedger, if set, is charged for embedding requests (chat calls are
	// charged by wrapping the client with [Metered]).
	EmbedLedger *Ledger
	// OnAttemptError, if set, is called after each failed attempt of a
	// request (chat or embeddings) with the classified error (an *Error
	// when it could be classified) and whether the attempt will be
	// retried; e.g. to count retries and upstream errors by kind. It must
	// be safe for concurrent use and must not block.
	OnAttemptError func(err error, retry bool)
}

// String describes the configuration with the API key redacted.
func (c Config) String() string {
	key := "(none)"
	if c.APIKey != "" {
		key = "[REDACTED]"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "llm.Config{BaseURL:%q APIKey:%s Model:%q", RedactURL(c.baseURL()), key, c.Model)
	if c.SubModel != "" {
		fmt.Fprintf(&b, " SubModel:%q", c.SubModel)
	}
	if c.EmbeddingModel != "" {
		fmt.Fprintf(&b, " EmbeddingModel:%q", c.EmbeddingModel)
	}
	if c.Temperature != nil {
		fmt.Fprintf(&b, " Temperature:%g", *c.Temperature)
	}
	if c.MaxOutputTokens != 0 {
		fmt.Fprintf(&b, " MaxOutputTokens:%d", c.MaxOutputTokens)
	}
	fmt.Fprintf(&b, " Timeout:%s MaxRetries:%d MaxConcurrency:%d", c.timeout(), c.maxRetries(), c.maxConcurrency())
	if c.RequestsPerMinute != 0 {
		fmt.Fprintf(&b, " RequestsPerMinute:%d", c.RequestsPerMinute)
	}
	if c.TokensPerMinute != 0 {
		fmt.Fprintf(&b, " TokensPerMinute:%d", c.TokensPerMinute)
	}
	if c.MaxResponseBytes != 0 {
		fmt.Fprintf(&b, " MaxResponseBytes:%d", c.MaxResponseBytes)
	}
	if c.CacheDir != "" {
		fmt.Fprintf(&b, " CacheDir:%q", c.CacheDir)
	}
	b.WriteString("}")
	return redactKey(b.String(), c.Secrets()...)
}

// Secrets returns the credentials the configuration holds: the API key,
// and the password and credential-like query parameter values (api-key,
// token, sig, ...) of BaseURL. Pass them to [Redact] for any text that is
// printed or written.
func (c Config) Secrets() []string {
	var out []string
	if c.APIKey != "" {
		out = append(out, c.APIKey)
	}
	return append(out, urlSecrets(c.BaseURL)...)
}

// GoString is String, so %#v does not print the key either.
func (c Config) GoString() string { return c.String() }

func (c Config) baseURL() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func (c Config) maxRetries() int {
	switch {
	case c.MaxRetries < 0:
		return 0
	case c.MaxRetries == 0:
		return DefaultMaxRetries
	}
	return c.MaxRetries
}

func (c Config) maxConcurrency() int {
	if c.MaxConcurrency <= 0 {
		return DefaultMaxConcurrency
	}
	return c.MaxConcurrency
}

func (c Config) embedBatchSize() int {
	if c.EmbedBatchSize <= 0 {
		return DefaultEmbedBatchSize
	}
	return c.EmbedBatchSize
}

func (c Config) maxResponseBytes() int64 {
	if c.MaxResponseBytes <= 0 {
		return DefaultMaxResponseBytes
	}
	return c.MaxResponseBytes
}

func (c Config) retryBaseDelay() time.Duration {
	if c.RetryBaseDelay <= 0 {
		return DefaultRetryBaseDelay
	}
	return c.RetryBaseDelay
}

func (c Config) retryMaxDelay() time.Duration {
	if c.RetryMaxDelay <= 0 {
		return DefaultRetryMaxDelay
	}
	return c.RetryMaxDelay
}
