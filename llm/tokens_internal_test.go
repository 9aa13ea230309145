package llm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCountCacheIsExact counts long texts twice (the second time from the
// cache) and texts differing in one word: the cache never returns another
// text's count.
func TestCountCacheIsExact(t *testing.T) {
	shared, err := NewTokenizer(EncodingCl100k)
	require.NoError(t, err)
	tok := &Tokenizer{codec: shared.codec, name: shared.name, counts: newCountCache()} // a fresh cache
	base := strings.Repeat("the quick brown fox jumps over the lazy dog. ", 60)
	tests := []struct {
		name string
		text string
	}{
		{"long", base},
		{"one word more", base + "antidisestablishmentarianism"},
		{"one char changed", strings.Replace(base, "quick", "qu1ck", 1)},
	}
	codec := tok.codec
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := codec.Count(tt.text)
			require.NoError(t, err)
			assert.Equal(t, want, tok.Count(tt.text))
			assert.Equal(t, want, tok.Count(tt.text), "from the cache")
		})
	}
	assert.NotEqual(t, tok.Count(tests[0].text), tok.Count(tests[1].text))
	assert.Len(t, tok.counts.m, len(tests), "each long text counted once")
	assert.Equal(t, 1, tok.Count("short"), "short texts are not cached")
	assert.Len(t, tok.counts.m, len(tests))
}
