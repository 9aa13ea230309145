package llm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReserveRequestCounts: a reservation holds the prompt's counted
// tokens only when a token or cost limit needs them; otherwise only the
// reply cap (the prompt is not tokenized).
func TestReserveRequestCounts(t *testing.T) {
	req := Request{Model: "gpt-4o-mini", MaxTokens: 10, Messages: []Message{{Role: RoleUser, Content: strings.Repeat("word ", 2000)}}}
	tests := []struct {
		name    string
		limits  Limits
		counted bool
	}{
		{"token limit", Limits{MaxTokens: 1 << 20}, true},
		{"cost limit", Limits{MaxCostUSD: 100}, true},
		{"call limit only", Limits{MaxCalls: 5}, false},
		{"none", Limits{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewLedger(LedgerConfig{Limits: tc.limits}).ReserveRequest(req)
			require.NoError(t, err)
			if tc.counted {
				assert.Equal(t, CountRequestTokens(req)+10, r.tokens)
			} else {
				assert.Equal(t, 10, r.tokens)
			}
		})
	}
}
