package rlmctx

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/pyjson"
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
	_, err = c.Add("data", []any{strings.Repeat("z", 5000)}) // one item: nothing to split
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
	assert.Contains(t, lv.Summary(), "also split into log_chunks (13 chunks)")
	assert.Contains(t, cv.Summary(), "13 chunks")
	for _, ln := range strings.Split(c.VariableSummaries(), "\n") {
		assert.LessOrEqual(t, llm.CountTokens(ln), MaxSummaryTokens, ln)
		t.Log(ln)
	}
	// Idempotent.
	assert.Empty(t, c.AutoChunk(cfg))
	assert.Len(t, c.Vars, 4)
}

// TestAutoChunkJSON: large lists and dicts get NAME_chunks too, pieces
// of consecutive items that concatenate (merge) back to the original.
func TestAutoChunkJSON(t *testing.T) {
	cfg := SizeConfig{WarnThreshold: 1000, ChunkThreshold: 4000, MaxTotalSize: 1 << 20}
	var items []any
	d := NewDict(0)
	for i := 0; i < 300; i++ {
		rec := NewDict(2)
		rec.Set("id", int64(i))
		rec.Set("text", fmt.Sprintf("record number %d", i))
		items = append(items, rec)
		d.Set(fmt.Sprintf("key%03d", i), fmt.Sprintf("value %d", i))
	}
	items = append(items, strings.Repeat("x", 1500)) // larger than a chunk: a piece alone
	c := NewContext("q")
	_, err := c.Add("records", items)
	require.NoError(t, err)
	_, err = c.Add("table", d)
	require.NoError(t, err)
	require.Equal(t, []string{"records_chunks", "table_chunks"}, c.AutoChunk(cfg))

	rv, _ := c.Get("records_chunks")
	var joined []any
	for _, p := range rv.Value.([]any) {
		piece := p.([]any)
		if len(piece) > 1 {
			assert.LessOrEqual(t, pyjson.Size(piece), int64(1000))
		}
		joined = append(joined, piece...)
	}
	assert.Equal(t, items, joined)
	last := rv.Value.([]any)[len(rv.Value.([]any))-1].([]any)
	assert.Len(t, last, 1, "the oversized item is alone")
	assert.Contains(t, rv.Summary(), "(lists of consecutive items)")
	assert.Contains(t, rv.Summary(), "sum(records_chunks, []) equals records")

	tv, _ := c.Get("table_chunks")
	merged := NewDict(0)
	for _, p := range tv.Value.([]any) {
		piece := p.(*Dict)
		assert.LessOrEqual(t, pyjson.Size(piece), int64(1000))
		for k, v := range piece.All() {
			merged.Set(k, v)
		}
	}
	assert.Equal(t, pyjson.Excerpt(d, -1), pyjson.Excerpt(merged, -1))
	orig, _ := c.Get("table")
	assert.Contains(t, orig.Summary(), "also split into table_chunks")
}

// TestAutoChunkRoundTrip: AutoChunk's pieces join back to the original
// exactly, whatever the line endings, and never split a UTF-8 character or
// a CRLF pair.
func TestAutoChunkRoundTrip(t *testing.T) {
	const piece = 64
	cfg := SizeConfig{WarnThreshold: piece, ChunkThreshold: 2 * piece, ChunkSize: piece, MaxTotalSize: 1 << 30}
	longCRLF := strings.Repeat("x", piece-1) + "\r\n" + strings.Repeat("y", 3*piece) + "\r\n"
	tests := []struct {
		name, text string
	}{
		{"crlf lines", strings.Repeat("a windows line of text\r\n", 40)},
		{"crlf pair at a forced cut", longCRLF + longCRLF},
		{"no trailing newline", strings.Repeat("some words here\n", 30) + "and a last line without newline"},
		{"no newline at all", strings.Repeat("word ", 100)},
		{"one long word", strings.Repeat("z", 1000)},
		{"only newlines", strings.Repeat("\n", 500)},
		{"cr only (old mac)", strings.Repeat("mac line\r", 60)},
		{"mixed endings", strings.Repeat("unix\nwindows\r\nmac\r", 40)},
		{"tabs and spaces", strings.Repeat("col1\tcol2  col3 ", 40)},
	}
	// Multi-byte characters (2, 3 and 4 bytes) at every offset around the
	// cut points, with and without spaces.
	for _, ch := range []string{"é", "日", "🙂"} {
		for off := 0; off < 4; off++ {
			tests = append(
				tests,
				struct{ name, text string }{
					fmt.Sprintf("%s at offset %d, no spaces", ch, off),
					strings.Repeat("b", off) + strings.Repeat(ch, 200),
				},
				struct{ name, text string }{
					fmt.Sprintf("%s at offset %d, words", ch, off),
					strings.Repeat(strings.Repeat("c", off)+ch+ch+ch+" ", 60),
				},
			)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewContext("q")
			_, err := c.Add("doc", tt.text)
			require.NoError(t, err)
			require.Equal(t, []string{"doc_chunks"}, c.AutoChunk(cfg))
			cv, _ := c.Get("doc_chunks")
			var b strings.Builder
			list := cv.Value.([]any)
			for i, p := range list {
				s := p.(string)
				assert.NotEmpty(t, s)
				assert.LessOrEqual(t, len(s), piece)
				assert.True(t, utf8.ValidString(s), "piece %d splits a character: %q", i, s)
				if i < len(list)-1 {
					assert.False(t, strings.HasSuffix(s, "\r") && strings.HasPrefix(list[i+1].(string), "\n"), "piece %d splits a CRLF", i)
				}
				b.WriteString(s)
			}
			assert.True(t, b.String() == tt.text, "joined pieces differ from the original")
		})
	}
}

// TestAutoChunkSummaryCap: the summaries of a chunked variable and of its
// companion stay under the cap, for long names too.
func TestAutoChunkSummaryCap(t *testing.T) {
	text := strings.Repeat("2026-01-01 event happened here, and more words follow\n", 400) // 21 KB
	cfg := SizeConfig{ChunkThreshold: 10 << 10, ChunkSize: 1 << 10}
	for _, name := range []string{"log", "server_log", "very_long_variable_name_for_the_access_log"} {
		c := NewContext("q")
		_, err := c.Add(name, text)
		require.NoError(t, err)
		require.Len(t, c.AutoChunk(cfg), 1)
		for _, ln := range strings.Split(c.VariableSummaries(), "\n") {
			assert.LessOrEqual(t, llm.CountTokens(ln), MaxSummaryTokens, ln)
		}
		cv, _ := c.Get(name + ChunkSuffix)
		assert.Contains(t, cv.Summary(), fmt.Sprintf("%d chunks", len(cv.Value.([]any))))
		v, _ := c.Get(name)
		assert.Contains(t, v.Summary(), "also split into "+name+ChunkSuffix)
	}
}

// TestSummaryCapPathological: a long custom type name or note is cut so
// the line still fits.
func TestSummaryCapPathological(t *testing.T) {
	v, err := NewVariable("data", "x", WithType(Custom(strings.Repeat("very long type name ", 20))), WithNote(strings.Repeat("note ", 100)))
	require.NoError(t, err)
	ln := summaryLine(v.Name, v.Summary())
	assert.LessOrEqual(t, llm.CountTokens(ln), MaxSummaryTokens, ln)
	assert.True(t, utf8.ValidString(ln))
}

// TestSizeBytesIsEncodedSize: a list's or dict's size, summed from its
// items' sizes (kept for AutoChunk when large), is its JSON encoding's.
func TestSizeBytesIsEncodedSize(t *testing.T) {
	big := make([]any, 0, 5000)
	for i := 0; i < 5000; i++ {
		big = append(big, fmt.Sprintf("item \"%d\" é\n", i))
	}
	nested := NewDict(0)
	nested.Set("a\tb", []any{int64(1), 2.5, nil, true, "x"})
	nested.Set("é", NewDict(0))
	tests := []struct {
		name string
		val  any
		kept bool
	}{
		{"empty list", []any{}, false},
		{"one item", []any{"s"}, false},
		{"mixed", []any{int64(-3), 1e20, 0.1, false, nil, []any{}, nested}, false},
		{"dict", nested, false},
		{"empty dict", NewDict(0), false},
		{"large list", big, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewVariable("x", tt.val)
			require.NoError(t, err)
			assert.Equal(t, pyjson.Size(tt.val), v.SizeBytes)
			assert.Equal(t, tt.kept, v.itemSizes != nil)
			if tt.kept {
				assert.Equal(t, itemSizes(tt.val), v.itemSizes, "the sizes AutoChunk would measure")
			}
			c := NewContext("q")
			require.NoError(t, c.AddVariable(v))
			c.AutoChunk(SizeConfig{})
			assert.Nil(t, v.itemSizes, "AutoChunk drops them")
		})
	}
}
