package rlmctx

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlmhq/rlm/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckSizeLimits(t *testing.T) {
	cfg := SizeConfig{WarnThreshold: 100, ChunkThreshold: 1000, MaxTotalSize: 1500}
	c := NewContext("q")
	_, err := c.Add("small", strings.Repeat("a", 100)) // == warn: no warning
	require.NoError(t, err)
	_, err = c.Add("medium", strings.Repeat("b", 101))
	require.NoError(t, err)
	_, err = c.Add("large", strings.Repeat("c", 1001))
	require.NoError(t, err)
	_, err = c.Add("edge", strings.Repeat("d", 1000)) // == chunk: only large
	require.NoError(t, err)

	got := c.CheckSizeLimits(cfg)
	require.Len(t, got, 4)
	assert.Equal(t, SizeWarning{Kind: LargeVariable, Name: "medium", Size: 101, Threshold: 100}, got[0])
	assert.Equal(t, SizeWarning{Kind: RequiresChunking, Name: "large", Size: 1001, Threshold: 1000, SuggestedChunks: 1001/100 + 1}, got[1])
	assert.Equal(t, LargeVariable, got[2].Kind)
	assert.Equal(t, SizeWarning{Kind: TotalSizeExceeded, Total: 100 + 101 + 1001 + 1000, Max: 1500}, got[3])
	assert.Contains(t, got[1].String(), "needs chunking")
	assert.Contains(t, got[3].String(), "exceeds the maximum")
	assert.Equal(t, "requires_chunking", RequiresChunking.String())

	d := DefaultSizeConfig()
	assert.EqualValues(t, 100<<10, d.WarnThreshold)
	assert.EqualValues(t, 1<<20, d.ChunkThreshold)
	assert.EqualValues(t, 10<<20, d.MaxTotalSize)
	assert.Empty(t, c.CheckSizeLimits(SizeConfig{}), "defaults: all small")
}

func TestChunkText(t *testing.T) {
	words := strings.Repeat("lorem ipsum dolor ", 200)
	tests := []struct {
		name string
		s    string
		max  int
		// every piece but the last ends with this (line or word cut)
		endsWith string
	}{
		{"lines", strings.Repeat("line of text number x\n", 500), 100, "\n"},
		{"words", words, 50, " "},
		{"no spaces", strings.Repeat("x", 1000), 64, ""},
		{"unicode no spaces", strings.Repeat("日本語🙂", 300), 10, ""},
		{"mixed", "a\n" + strings.Repeat("b", 300) + " c d\n\ne", 40, ""},
		{"shorter than max", "short", 100, ""},
		{"exact", strings.Repeat("y", 100), 100, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pieces := ChunkText(tt.s, tt.max)
			assert.Equal(t, tt.s, strings.Join(pieces, ""), "joined == original")
			for i, p := range pieces {
				assert.LessOrEqual(t, len(p), tt.max)
				assert.NotEmpty(t, p)
				assert.True(t, utf8.ValidString(p), "no split characters")
				if tt.endsWith != "" && i < len(pieces)-1 {
					assert.True(t, strings.HasSuffix(p, tt.endsWith), "piece %d %q", i, p)
				}
			}
		})
	}
	assert.Nil(t, ChunkText("", 10))
}

func TestAutoChunk(t *testing.T) {
	cfg := SizeConfig{WarnThreshold: 1000, ChunkThreshold: 4000, MaxTotalSize: 1 << 20}
	text := strings.Repeat("2026-01-01 event happened here\n", 400) // 12,400 bytes
	c := NewContext("q")
	_, err := c.Add("log", text)
	require.NoError(t, err)
	_, err = c.Add("small", "tiny")
	require.NoError(t, err)
	_, err = c.Add("data", []any{strings.Repeat("z", 5000)}) // not text: left alone
	require.NoError(t, err)
	total := c.TotalSizeBytes

	added := c.AutoChunk(cfg)
	assert.Equal(t, []string{"log_chunks"}, added)
	assert.Equal(t, total, c.TotalSizeBytes, "chunks are not counted twice")
	cv, ok := c.Get("log_chunks")
	require.True(t, ok)
	pieces := cv.Value.([]any)
	var b strings.Builder
	for _, p := range pieces {
		s := p.(string)
		assert.LessOrEqual(t, len(s), 1000)
		assert.True(t, strings.HasSuffix(s, "\n"))
		b.WriteString(s)
	}
	assert.Equal(t, text, b.String())
	assert.Equal(t, len(pieces), cv.ItemCount)
	lv, _ := c.Get("log")
	assert.Contains(t, lv.Summary, "also split into log_chunks (13 chunks)")
	assert.Contains(t, cv.Summary, "13 chunks")
	for _, ln := range strings.Split(c.VariableSummaries(), "\n") {
		assert.LessOrEqual(t, llm.CountTokens(ln), MaxSummaryTokens, ln)
		t.Log(ln)
	}
	// Idempotent.
	assert.Empty(t, c.AutoChunk(cfg))
	assert.Len(t, c.Vars, 4)
}
