package pyre

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
// (pairIndex, and lastPairIndex backwards), which finds what
// strings.Index and strings.LastIndex find at every offset of
// the match within its 32-position blocks and near the text's end.
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
	ats := []int{len(base) - 40, len(base) - 19, len(base)}
	for k := 0; k <= pairBlock+1; k++ {
		ats = append(ats, len(base)/2+k)
	}
	for _, at := range ats {
		text := base[:at] + "2024-01-13 1500000 " + base[at:]
		for _, n := range []string{"2024-01-13 1500000 ", "2024-01-13 1500000", "no 2024-01-99"} {
			assert.Equal(t, strings.Index(text, n), IndexLiteral(text, n), "Index %q at %d", n, at)
			assert.Equal(t, strings.Count(text, n), CountLiteral(text, n), "Count %q at %d", n, at)
			assert.Equal(t, strings.LastIndex(text, n), LastIndexLiteral(text, n), "LastIndex %q at %d", n, at)
			for _, end := range []int{len(text) - len(n) + 1, at, at + 1, at - 70000} {
				if end >= 0 && end <= len(text)-len(n)+1 {
					assert.Equal(
						t,
						strings.LastIndex(text[:end+len(n)-1], n),
						literalFinder(text, n).lastPairIndex(text, end),
						"lastPairIndex %q at %d end %d",
						n,
						at,
						end,
					)
				}
			}
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

// TestPairBlocks: the SSE2 scan (on amd64) and the portable one find the
// same first block and mask of positions holding both bytes, on random
// text over a small alphabet, where both bytes keep turning up.
func TestPairBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 4096+pairBlock)
	for trial := 0; trial < 300; trial++ {
		for i := range buf {
			buf[i] = "abcdefgh"[r.IntN(2+trial%7)]
		}
		off1, off2 := r.IntN(pairBlock), r.IntN(pairBlock)
		blocks := r.IntN(4096/pairBlock) + 1
		c1, c2 := "abcdefgh"[r.IntN(8)], "abcdefgh"[r.IntN(8)]
		k, m := pairBlocks(&buf[off1], &buf[off2], blocks, c1, c2)
		gk, gm := pairBlocksGeneric(&buf[off1], &buf[off2], blocks, c1, c2)
		// The portable mask may flag extra positions (above a true match
		// within a word); the first block and its true matches agree.
		var want uint32
		if k < blocks {
			for j := 0; j < pairBlock; j++ {
				if buf[off1+k*pairBlock+j] == c1 && buf[off2+k*pairBlock+j] == c2 {
					want |= 1 << j
				}
			}
		}
		require.Equal(t, want, m, "trial %d", trial)
		require.Equal(t, k, gk, "trial %d", trial)
		require.Equal(t, want, gm&want, "trial %d", trial)
		if k == blocks {
			require.Zero(t, gm)
		}
	}
}

// TestReplaceByte: ReplaceLiteral of a one-byte old string in a short
// text (replaceByte) is strings.Replace, for every count.
func TestReplaceByte(t *testing.T) {
	for _, text := range []string{"", "-", "2024-01-01", "--a--", "abc", "h\u00e9-llo-", "\xff-\xff"} {
		for _, old := range []string{"-", "a", "\xff"} {
			for _, repl := range []string{"", "+", "<R>"} {
				for _, k := range []int{-1, 0, 1, 2, 5} {
					assert.Equal(t, strings.Replace(text, old, repl, k), ReplaceLiteral(text, old, repl, k), "%q %q %q %d", text, old, repl, k)
				}
			}
		}
	}
}
