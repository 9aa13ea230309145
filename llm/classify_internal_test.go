package llm

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		hdr  map[string]string
		want time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"ms wins", map[string]string{"Retry-After": "3", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(10 * time.Second).Format(http.TimeFormat)}, 10 * time.Second},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-1"}, 0},
	}
	for _, tc := range tests {
		h := http.Header{}
		for k, v := range tc.hdr {
			h.Set(k, v)
		}
		assert.Equal(t, tc.want, parseRetryAfter(h, now), tc.name)
	}
}

func TestBackoff(t *testing.T) {
	base, maxD := 100*time.Millisecond, 2*time.Second
	for attempt := range 10 {
		want := min(base<<attempt, maxD)
		for range 50 {
			d := backoff(attempt, 0, base, maxD)
			assert.GreaterOrEqual(t, d, want/2, "attempt %d", attempt)
			assert.LessOrEqual(t, d, maxD, "attempt %d", attempt)
			assert.LessOrEqual(t, d, want*3/2+1, "attempt %d", attempt)
		}
	}
	assert.Equal(t, 7*time.Second, backoff(0, 7*time.Second, base, maxD), "Retry-After beats the cap")
	assert.LessOrEqual(t, backoff(1000, 0, base, maxD), maxD, "no overflow")
}

func TestRedactKey(t *testing.T) {
	key := "sk-proj-ABCDEFGHIJKLMNOP"
	tests := []struct{ in, want string }{
		{"key " + key + " here", "key [REDACTED] here"},
		{"other sk-abcdefghijklmnop", "other sk-abcd***"},
		{"no key", "no key"},
		{"short sk-ab", "short sk-ab"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, redactKey(tc.in, key))
	}
	assert.Equal(t, "x", redactKey("x", ""))
}

func TestIsContextLength(t *testing.T) {
	yes := []string{
		"context_length_exceeded",
		"This model's maximum context length is 4097 tokens",
		"the request exceeds the available context size, try increasing it",
		"prompt is too long",
		"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096",
		"too many tokens in prompt",
		"context window exceeded",
	}
	no := []string{"rate limit", "invalid api key", "model not found", "bad gateway"}
	for _, s := range yes {
		assert.True(t, IsContextLength(s), s)
	}
	for _, s := range no {
		assert.False(t, IsContextLength(s), s)
	}
}

func TestKindForStatus(t *testing.T) {
	tests := []struct {
		status int
		text   string
		want   Kind
	}{
		{429, "", KindRateLimit},
		{429, "insufficient_quota", KindAuth},
		{500, "", KindTransient},
		{503, "", KindTransient},
		{408, "", KindTransient},
		{500, "context window exceeded", KindContextLength},
		{401, "", KindAuth},
		{403, "", KindAuth},
		{400, "", KindBadRequest},
		{404, "", KindBadRequest},
		{422, "", KindBadRequest},
		{413, "", KindContextLength},
		{400, "maximum context length", KindContextLength},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, kindForStatus(tc.status, tc.text), "%d %q", tc.status, tc.text)
	}
}

func TestIsReasoningModel(t *testing.T) {
	for m, want := range map[string]bool{"o3": true, "o4-mini": true, "gpt-5-nano": true, "openai/o1": true, "gpt-4o": false, "llama3.1": false, "qwen3:8b": false} {
		assert.Equal(t, want, isReasoningModel(m), m)
	}
}
