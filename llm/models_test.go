package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rlmhq/rlm/llm"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"https://user:s3cret@gw.example.com/v1", "https://REDACTED@gw.example.com/v1"},
		{"https://gw.example.com/v1?api-key=s3cret&x=1", "https://gw.example.com/v1?api-key=REDACTED&x=REDACTED"},
		{"://bad url s3cret", "[REDACTED URL]"},
		{"https://gw.example.com/cb#access_token=s3cret&x=1", "https://gw.example.com/cb#REDACTED"},
		{"https://gw.example.com/docs#section-2", "https://gw.example.com/docs#section-2"},
	}
	for _, tt := range tests {
		got := llm.RedactURL(tt.in)
		assert.Equal(t, tt.want, got)
		assert.NotContains(t, got, "s3cret")
	}
	// URLs inside text (error messages) lose their credentials too.
	text := llm.Redact(`Post "https://gw.example.com/v1/chat?api-key=s3cret": dial tcp: refused; see https://u:s3cret@h/x#token=s3cret`)
	assert.NotContains(t, text, "s3cret")
	assert.Contains(t, text, "api-key=REDACTED")
	cfg := llm.Config{BaseURL: "https://u:s3cret@gw.example.com/v1", APIKey: "sk-abcdefgh12345678"}
	assert.NotContains(t, cfg.String(), "s3cret")
	assert.NotContains(t, cfg.String(), "abcdefgh12345678")
}
