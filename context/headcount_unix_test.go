//go:build unix

package rlmctx

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// headDoc writes a JSON document of items made by item until it passes
// the estimate threshold: a dict when keys, else a list (JSON Lines when
// lines).
func headDoc(t *testing.T, name string, keys, lines bool, item func(i int) any) string {
	t.Helper()
	var b strings.Builder
	switch {
	case lines:
	case keys:
		b.WriteString("{")
	default:
		b.WriteString("[")
	}
	for i := 0; b.Len() <= llm.DefaultEstimateThreshold+1<<10; i++ {
		enc, err := json.Marshal(item(i))
		require.NoError(t, err)
		switch {
		case lines:
			b.Write(enc)
			b.WriteString("\n")
			continue
		case i > 0:
			b.WriteString(",")
		}
		if keys {
			fmt.Fprintf(&b, "%q:", fmt.Sprintf("src/f%05d.go", i))
		}
		b.Write(enc)
	}
	switch {
	case lines:
	case keys:
		b.WriteString("}")
	default:
		b.WriteString("]")
	}
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o600))
	return p
}

// goSource is a Go file of about n bytes, with the escapes, tabs, CRLF
// line ends and non-ASCII letters of real sources.
func goSource(i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package f%d\r\n\r\nimport \"fmt\"\n\n", i)
	for j := 0; b.Len() < n; j++ {
		fmt.Fprintf(&b, "// F%d_%d prints «é%d» 😀 — naïve\tcafé\n", i, j, j)
		fmt.Fprintf(&b, "func F%d_%d() {\n\tfmt.Println(\"%d\", 'x', `raw`)   \n\n\n}\n", i, j, i*j)
	}
	return b.String()
}

// TestHeadCountMatchesSummaryCount: a large document's token estimate
// from the head counted at load is the one counted from its value (the
// same excerpt: identical counts), and the summary counts no tokens
// again (the tokenizer's garbage, about 22 MB for the 256 KB excerpt,
// is made at load beside a small heap, not at the summary beside the
// values). Documents whose first items do not hold the excerpt within
// the bounded prefix, and texts, are counted from their value as before.
func TestHeadCountMatchesSummaryCount(t *testing.T) {
	tests := []struct {
		name  string
		path  func(t *testing.T) string
		ahead bool // counted at load
	}{
		{"dict of sources", func(t *testing.T) string {
			return headDoc(t, "d.json", true, false, func(i int) any { return goSource(i, 3000+i%7*1000) })
		}, true},
		{"list of records", func(t *testing.T) string {
			return headDoc(t, "r.json", false, false, func(i int) any {
				return map[string]any{"id": i, "name": fmt.Sprintf("record %d", i), "tags": []string{"a", "b"}, "score": float64(i) + .5, "note": nil}
			})
		}, true},
		{"json lines", func(t *testing.T) string {
			return headDoc(t, "l.jsonl", false, true, func(i int) any { return map[string]any{"role": "user", "content": goSource(i, 500)} })
		}, true},
		{"unicode and whitespace", func(t *testing.T) string {
			return headDoc(t, "u.json", false, false, func(i int) any {
				return strings.Repeat("日本語のテキスト  \u00a0\u2003 ", i%5+1) + strings.Repeat(" ", i%9) + "\r\n\r\n  x" + strings.Repeat("\n", i%4)
			})
		}, true},
		{"nested", func(t *testing.T) string {
			return headDoc(t, "n.json", true, false, func(i int) any {
				return map[string]any{"a": []any{i, "ü", map[string]any{"b": goSource(i, 200)}}, "c": true}
			})
		}, true},
		{"huge first item", func(t *testing.T) string {
			return headDoc(t, "h.json", false, false, func(i int) any { return goSource(i, 3<<20) })
		}, false},
		{"one text", func(t *testing.T) string {
			return headDoc(t, "s.jsonl", false, true, func(i int) any { return goSource(i, 5<<20) })
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkHeadCount(t, tc.path(t), tc.ahead)
		})
	}
	// The files of issue 30, when present.
	for _, p := range []string{"/tmp/g2/dict.json", "/tmp/g2/records.json"} {
		t.Run(p, func(t *testing.T) {
			if _, err := os.Stat(p); err != nil {
				t.Skip(err)
			}
			checkHeadCount(t, p, true)
		})
	}
}

// checkHeadCount loads path as rlm does (mapped, values made as it is
// outlined) and compares its token count with countTokens of its value.
func checkHeadCount(t *testing.T, path string, ahead bool) {
	t.Helper()
	paused := 0
	opts := LoadOptions{
		MappedMin: testMappedMin,
		Values:    func() pyjson.Builder[any] { return echoBuilder{} },
		Pause:     func() { paused++ },
		CountHead: true,
	}
	v, _, err := LoadVar(context.Background(), VarSpec{Name: "x", Source: path}, opts)
	require.NoError(t, err)
	assert.Positive(t, paused, "the load pauses the collector before making values")
	assert.Equal(t, ahead, v.head.bytes > 0, "counted at load")

	llm.DefaultTokenizer() // made before the measure
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, est := v.Tokens()
	runtime.ReadMemStats(&after)
	if ahead {
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10), "Tokens counts nothing after the load")
	}
	wn, west := countTokens(v.GoValue(), v.SizeBytes)
	assert.Equal(t, wn, n)
	assert.Equal(t, west, est)
	assert.True(t, est || !ahead)
}

// TestHeadCountOnlyWhenAsked: without CountHead (rlm exec, which shows
// no summary) the load counts no tokens (nor loads the tokenizer).
func TestHeadCountOnlyWhenAsked(t *testing.T) {
	p := headDoc(t, "d.json", true, false, func(i int) any { return goSource(i, 3000) })
	opts := LoadOptions{MappedMin: testMappedMin, Values: func() pyjson.Builder[any] { return echoBuilder{} }}
	v, _, err := LoadVar(context.Background(), VarSpec{Name: "x", Source: p}, opts)
	require.NoError(t, err)
	assert.Zero(t, v.head)
}
