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
