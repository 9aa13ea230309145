package pyre

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLiteralFunctions compares IndexLiteral, LastIndexLiteral,
// CountLiteral and ReplaceLiteral with the strings functions on texts
// past literalMin, with needles whose first byte is common (the rare-byte
// scan), frequent candidates (the hand-over to strings.Index), and
// needles at the ends or absent.
func TestLiteralFunctions(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < literalMin+1000; i++ {
		b.WriteString("the quick brown fox eats the lazy dog; ")
		if i%997 == 5 {
			b.WriteString("the magic word ")
		}
	}
	text := "tHead " + b.String() + " zzTail"
	needles := []string{"the magic word", "e magic", "the lazy", "tHead", "zzTail", "no such needle", "xq", "the", " ", "ee ee"}
	for _, n := range needles {
		assert.Equal(t, strings.Index(text, n), IndexLiteral(text, n), "Index %q", n)
		assert.Equal(t, strings.LastIndex(text, n), LastIndexLiteral(text, n), "LastIndex %q", n)
		assert.Equal(t, strings.Count(text, n), CountLiteral(text, n), "Count %q", n)
		for _, k := range []int{-1, 0, 1, 3} {
			assert.Equal(t, strings.Replace(text, n, "<R>", k), ReplaceLiteral(text, n, "<R>", k), "Replace %q %d", n, k)
		}
	}
	// Small texts take strings' functions unchanged.
	assert.Equal(t, 4, IndexLiteral("the cat", "cat"))
	assert.Equal(t, 0, IndexLiteral("abc", ""))
	assert.Equal(t, 3, LastIndexLiteral("abc", ""))
}

// TestLiteralPairScan: needles whose bytes are all common in the text
// (dates and numbers in log lines) go on with the two-byte scan
// (pairIndex), which finds what strings.Index finds at every offset of
// the match within its 16-byte blocks and near the text's end.
func TestLiteralPairScan(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < literalMin+5000; i++ {
		b.WriteString("2024-01-")
		b.WriteString(string(rune('0' + i%3)))
		b.WriteString(string(rune('0' + i%10)))
		b.WriteString(" 00")
		b.WriteString(strings.Repeat(string(rune('0'+i%7)), 3))
		b.WriteString(" ok\n")
	}
	base := b.String()
	f := literalFinder(base, "2024-01-13 1500000 ")
	assert.NotEqual(t, f.rare, f.rare2, "two different bytes")
	for _, at := range []int{len(base) / 2, len(base)/2 + 1, len(base)/2 + 7, len(base)/2 + 8, len(base)/2 + 15, len(base) - 19, len(base)} {
		text := base[:at] + "2024-01-13 1500000 " + base[at:]
		for _, n := range []string{"2024-01-13 1500000 ", "2024-01-13 1500000", "no 2024-01-99"} {
			assert.Equal(t, strings.Index(text, n), IndexLiteral(text, n), "Index %q at %d", n, at)
			assert.Equal(t, strings.Count(text, n), CountLiteral(text, n), "Count %q at %d", n, at)
			for _, from := range []int{0, at - 3, at + 1} {
				if from >= 0 && from <= len(text) {
					want := strings.Index(text[from:], n)
					if want >= 0 {
						want += from
					}
					assert.Equal(t, want, literalFinder(text, n).pairIndex(text, from), "pairIndex %q at %d from %d", n, at, from)
				}
			}
		}
	}
}
