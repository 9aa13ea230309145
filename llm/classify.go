package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// keyPattern matches things that look like API keys (OpenAI style sk-...),
// redacted from every message defensively even when they are not our key.
var keyPattern = regexp.MustCompile(`\b(sk-[A-Za-z0-9_\-]{4})[A-Za-z0-9_\-*]{4,}`)

// bearerPattern matches an Authorization header's credentials ("Bearer
// tok-..."), which servers echo in error bodies whatever the key's shape.
var bearerPattern = regexp.MustCompile(`(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=\-]{6,}`)

// urlPattern matches URLs in free text, for redacting their credentials.
var urlPattern = regexp.MustCompile(`(?i)\bhttps?://[^\s"'<>\x60]+`)

// minSecretLen is the shortest secret replaced verbatim: a shorter key would
// match ordinary text (the shape-based patterns still apply).
const minSecretLen = 4

// redactKey removes the secrets (the configured API key, credentials of the
// base URL) and anything shaped like an API key or bearer token from s, and
// the credentials of every URL in it.
func redactKey(s string, secrets ...string) string {
	s = RedactSecrets(s, secrets...)
	if strings.Contains(s, "://") {
		s = urlPattern.ReplaceAllStringFunc(s, func(u string) string {
			if !strings.ContainsAny(u, "?@#") {
				return u
			}
			return RedactURL(u)
		})
	}
	s = bearerPattern.ReplaceAllString(s, "$1$2[REDACTED]")
	return keyPattern.ReplaceAllString(s, "$1***")
}

// maxErrorBody is the length to which a server's error body is cut in
// messages (after redaction, so a secret straddling the cut cannot leak).
const maxErrorBody = 500

// cutRedacted redacts s, then cuts it to at most maxErrorBody bytes on a
// rune boundary.
func cutRedacted(s string, secrets []string) string {
	s = redactKey(s, secrets...)
	if len(s) <= maxErrorBody {
		return s
	}
	i := maxErrorBody
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

// redactedError carries a redacted message. It does not unwrap to the
// original (whose text may hold the key), but errors.Is still sees through
// it, so errors.Is(err, context.DeadlineExceeded) works.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string        { return e.msg }
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }

func redactErr(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: redactKey(err.Error(), secrets...), err: err}
}

// contextLengthPhrases are lower-case fragments servers use for prompts that
// exceed the model's window (OpenAI, vLLM, llama.cpp, Ollama, TGI).
var contextLengthPhrases = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length",
	"context window",
	"too many tokens",
	"exceeds the context",
	"exceed_context_size",
	"exceeds the available context",
	"prompt is too long",
	"input is too long",
	"tokens + `max_new_tokens`", // TGI
}

// IsContextLength reports whether a server message (or error code)
// describes a prompt exceeding the model's context window.
func IsContextLength(msg string) bool {
	m := strings.ToLower(msg)
	for _, p := range contextLengthPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// classify turns an error from go-openai (or the transport) into an *Error.
// parent is the caller's context: if it is done, the error is its error.
// hdr holds the failed response's headers, if any.
func classify(parent context.Context, err error, hdr http.Header, secrets []string) error {
	if err == nil {
		return nil
	}
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	if perr := parent.Err(); perr != nil {
		if cause := context.Cause(parent); cause != perr {
			// The cause says why (e.g. a sandbox step's time limit).
			return fmt.Errorf("llm: %w (%w)", cause, perr)
		}
		return fmt.Errorf("llm: %w", perr)
	}
	e := &Error{Err: redactErr(err, secrets)}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &reqErr):
		e.StatusCode = reqErr.HTTPStatusCode
		body := strings.TrimSpace(string(reqErr.Body))
		e.Message = body // redacted and cut below, with every other message
		if e.Message == "" {
			e.Message = http.StatusText(e.StatusCode)
		}
		e.Kind = kindForStatus(e.StatusCode, body)
	case errors.As(err, &apiErr):
		e.StatusCode = apiErr.HTTPStatusCode
		code := ""
		if apiErr.Code != nil {
			code = fmt.Sprint(apiErr.Code)
		}
		e.Message = apiErr.Message
		if code != "" && !strings.Contains(e.Message, code) {
			e.Message = code + ": " + e.Message
		}
		e.Kind = kindForStatus(e.StatusCode, code+" "+apiErr.Type+" "+apiErr.Message)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		e.Kind = KindTransient
		e.Message = "request timed out"
	case isUnreachable(err):
		e.Kind = KindTransient
		e.Message = err.Error()
		e.Err = &redactedError{
			msg: ErrUnreachable.Error() + ": " + redactKey(err.Error(), secrets...),
			err: errors.Join(ErrUnreachable, err),
		}
	case isConnErr(err):
		e.Kind = KindTransient
		e.Message = err.Error()
	default:
		// Client-side validation (e.g. go-openai refusing a parameter).
		e.Kind = KindBadRequest
		e.Message = err.Error()
	}
	if hdr != nil {
		e.RetryAfter = parseRetryAfter(hdr, time.Now())
	}
	e.Message = cutRedacted(e.Message, secrets)
	return e
}

func kindForStatus(status int, text string) Kind {
	switch {
	case status == http.StatusTooManyRequests:
		if strings.Contains(strings.ToLower(text), "insufficient_quota") {
			return KindAuth // out of credit: retrying will not help
		}
		return KindRateLimit
	case status == http.StatusRequestTimeout || status >= 500:
		if IsContextLength(text) {
			// Some servers (llama.cpp, Ollama) report overflow as 500.
			return KindContextLength
		}
		return KindTransient
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return KindAuth
	case status == http.StatusRequestEntityTooLarge:
		return KindContextLength
	case IsContextLength(text):
		return KindContextLength
	case status >= 400:
		return KindBadRequest
	}
	return KindUnknown
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isUnreachable reports a connection refused or a host name that does
// not resolve: nothing serves the endpoint.
func isUnreachable(err error) bool {
	var dns *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &dns) && dns.IsNotFound)
}

func isConnErr(err error) bool {
	var ue *url.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &oe) ||
		errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "EOF") ||
		strings.Contains(err.Error(), "connection reset")
}

// parseRetryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or
// an HTTP date). It returns 0 if neither is present or valid.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// backoff returns the wait before retry number attempt (0-based): the
// server's Retry-After if given, else base*2^attempt with ±50% jitter,
// capped at max.
func backoff(attempt int, retryAfter, base, max time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := base << min(attempt, 20)
	if d <= 0 || d > max {
		d = max
	}
	// Full range jitter in [d/2, 3d/2).
	j := time.Duration(rand.Int64N(int64(d) + 1))
	d = d/2 + j
	if d > max {
		d = max
	}
	return d
}
