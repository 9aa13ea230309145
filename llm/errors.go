package llm

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies a model-call failure.
type Kind int

// Error kinds.
const (
	KindUnknown       Kind = iota
	KindRateLimit          // 429: retried, honouring Retry-After
	KindTransient          // 5xx, timeouts, connection errors: retried
	KindAuth               // 401/403: not retried
	KindContextLength      // prompt exceeds the model's context window
	KindBadRequest         // 400/404 and other caller errors: not retried
	KindBudget             // refused before sending: a budget is exhausted
	KindReplayMiss         // replay file has no answer for this request
)

// String returns the kind's name as used in recordings and logs, e.g.
// "rate_limit".
func (k Kind) String() string {
	switch k {
	case KindRateLimit:
		return "rate_limit"
	case KindTransient:
		return "transient"
	case KindAuth:
		return "auth"
	case KindContextLength:
		return "context_length"
	case KindBadRequest:
		return "bad_request"
	case KindBudget:
		return "budget"
	case KindReplayMiss:
		return "replay_miss"
	}
	return "unknown"
}

// Error is the one typed error for classifying model-call failures; use
// errors.As to get it. Its message never contains the API key.
type Error struct {
	Kind       Kind
	StatusCode int           // HTTP status, 0 if none
	Message    string        // server or client message, redacted
	RetryAfter time.Duration // server's Retry-After, if any
	// Budget names the budget that refused a KindBudget error: "calls",
	// "tokens" or "cost" ("" for other kinds).
	Budget string
	Err    error // underlying cause
}

// Error formats the error as "llm: KIND (HTTP STATUS): MESSAGE".
func (e *Error) Error() string {
	s := "llm: " + e.Kind.String()
	if e.StatusCode != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.StatusCode)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Unwrap returns the underlying cause (redacted of the API key).
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the call may succeed if repeated.
func (e *Error) Retryable() bool { return e.Kind == KindRateLimit || e.Kind == KindTransient }

// KindOf returns the Kind of err, or KindUnknown if it is not an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindUnknown
}

// Sentinel errors.
var (
	// ErrNoModel means a command needs a model and none is configured.
	ErrNoModel = errors.New("llm: no model endpoint configured")
	// ErrBudgetExceeded is wrapped by every budget refusal.
	ErrBudgetExceeded = errors.New("llm: budget exceeded")
	// ErrRateLimitWait is wrapped (with context.DeadlineExceeded) when the
	// client's own requests- or tokens-per-minute limit would hold a call
	// past its context's deadline; the error is an *Error of KindRateLimit.
	ErrRateLimitWait = errors.New("llm: rate limit wait exceeds the deadline")
	// ErrUnknownPrice is wrapped (with ErrBudgetExceeded) when a cost limit
	// is set and a call's model has no known price: its cost could not be
	// counted, so the call is refused before it is sent.
	ErrUnknownPrice = errors.New("llm: no known price")
	// ErrResponseTooLarge is wrapped when a response body exceeds
	// Config.MaxResponseBytes (after decompression).
	ErrResponseTooLarge = errors.New("llm: response too large")
	// ErrUnreachable is wrapped by a connection error that says nothing
	// serves the endpoint (the connection was refused, or the host name
	// does not resolve). A client that has never had an answer from its
	// endpoint does not retry it: a wrong or missing server fails at once
	// instead of after the whole backoff.
	ErrUnreachable = errors.New("llm: endpoint unreachable")
)
