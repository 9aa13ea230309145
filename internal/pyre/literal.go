package pyre

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unsafe"
)

// literalMin is the text size from which IndexLiteral and its siblings
// scan for the needle's rarest byte: below it strings.Index is as fast and
// sampling the text would cost more than the search.
const literalMin = 256 << 10

// IndexLiteral returns the byte offset of the first occurrence of needle
// in text, or -1: strings.Index, but on large texts it scans for the
// needle's rarest byte (picked from a sample of the text), which is
// several times faster than strings.Index when the needle's first byte is
// common (the same matcher search() uses for literals).
func IndexLiteral(text, needle string) int {
	if len(text) < literalMin || len(needle) < 2 {
		return strings.Index(text, needle)
	}
	return literalFinder(text, needle).index(text, 0)
}

// LastIndexLiteral returns the byte offset of the last occurrence of
// needle in text, or -1 (strings.LastIndex, scanning backwards for the
// needle's rarest byte on large texts).
func LastIndexLiteral(text, needle string) int {
	if len(text) < literalMin || len(needle) < 2 {
		return strings.LastIndex(text, needle)
	}
	return literalFinder(text, needle).lastIndex(text)
}

// CountLiteral returns the number of non-overlapping occurrences of a
// non-empty needle in text (strings.Count, with IndexLiteral's scan).
func CountLiteral(text, needle string) int {
	if len(text) < literalMin || len(needle) < 2 {
		return strings.Count(text, needle)
	}
	f := literalFinder(text, needle)
	n := 0
	for from := 0; ; {
		i := f.index(text, from)
		if i < 0 {
			return n
		}
		n++
		from = i + len(needle)
	}
}

// ReplaceLiteral is strings.Replace(text, old, repl, n) for a non-empty
// old, finding old with IndexLiteral's scan on large texts.
func ReplaceLiteral(text, old, repl string, n int) string {
	if len(text) < literalMin || len(old) < 2 {
		return strings.Replace(text, old, repl, n)
	}
	f := literalFinder(text, old)
	var b strings.Builder
	last := 0
	for k := 0; n < 0 || k < n; k++ {
		i := f.index(text, last)
		if i < 0 {
			break
		}
		if b.Len() == 0 && last == 0 {
			b.Grow(len(text))
		}
		b.WriteString(text[last:i])
		b.WriteString(repl)
		last = i + len(old)
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// finder scans for needle's byte at index rare; when that byte turns up
// too often, for the pair of it and the needle's byte at index rare2.
type finder struct {
	needle      string
	rare, rare2 int
}

func literalFinder(text, needle string) finder {
	rare, best := 0, 1<<30
	for i := 0; i < len(needle); i++ {
		if f := freqTable[needle[i]]; f < best {
			rare, best = i, f
		}
	}
	mid := len(text) / 2
	rare, rare2 := rarestTwoInSample(needle, text[mid:min(len(text), mid+sampleSize)], rare)
	return finder{needle: needle, rare: rare, rare2: rare2}
}

// index returns the first occurrence at or after from, or -1. When the
// scanned byte keeps turning up without the needle (more than one
// candidate in 32 bytes), it goes on with pairIndex, which looks for two
// of the needle's bytes at once, 16 positions at a time.
func (f finder) index(text string, from int) int {
	n, c := len(f.needle), f.needle[f.rare]
	fails := 0
	for q := from + f.rare; q < len(text); q++ {
		i := strings.IndexByte(text[q:], c)
		if i < 0 {
			return -1
		}
		q += i
		start := q - f.rare
		if start+n <= len(text) && text[start:start+n] == f.needle {
			return start
		}
		if fails++; fails > 64 && fails > (q-from)>>5 {
			return f.pairIndex(text, start+1)
		}
	}
	return -1
}

// Byte-parallel constants for pairIndex.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// zeroBytes has the top bit set in each byte of x that is zero (and
// possibly in bytes above one that is: candidates, checked by the
// caller).
func zeroBytes(x uint64) uint64 { return (x - lsb) &^ x & msb }

// pairIndex returns the first occurrence at or after from, or -1,
// reading 8 candidate positions at a time and keeping those where both
// the needle's rare and rare2 bytes match.
func (f finder) pairIndex(text string, from int) int {
	n := len(f.needle)
	if f.rare2 == f.rare || len(text)-from < n+16 {
		if i := strings.Index(text[from:], f.needle); i >= 0 {
			return from + i
		}
		return -1
	}
	b := unsafe.Slice(unsafe.StringData(text), len(text))
	a1, a2 := f.rare, f.rare2
	c1, c2 := lsb*uint64(f.needle[a1]), lsb*uint64(f.needle[a2])
	start := from
	// Positions start..start+15 read 16 bytes from start+a1 and from
	// start+a2; both reads stay within the text while start+n+16 <=
	// len(text) (a1, a2 < n).
	for ; start+n+16 <= len(text); start += 16 {
		p1, p2 := b[start+a1:start+a1+16], b[start+a2:start+a2+16]
		m := zeroBytes(binary.LittleEndian.Uint64(p1)^c1) & zeroBytes(binary.LittleEndian.Uint64(p2)^c2)
		m2 := zeroBytes(binary.LittleEndian.Uint64(p1[8:])^c1) & zeroBytes(binary.LittleEndian.Uint64(p2[8:])^c2)
		if m|m2 == 0 {
			continue
		}
		for m != 0 {
			s := start + bits.TrailingZeros64(m)>>3
			if text[s:s+n] == f.needle {
				return s
			}
			m &= m - 1
		}
		for m2 != 0 {
			s := start + 8 + bits.TrailingZeros64(m2)>>3
			if text[s:s+n] == f.needle {
				return s
			}
			m2 &= m2 - 1
		}
	}
	if i := strings.Index(text[start:], f.needle); i >= 0 {
		return start + i
	}
	return -1
}

// lastIndex returns the last occurrence, or -1.
func (f finder) lastIndex(text string) int {
	n, c := len(f.needle), f.needle[f.rare]
	end := len(text) // candidates start before end-n+1
	fails := 0
	for q := len(text) - n + f.rare; q >= f.rare; q-- {
		i := strings.LastIndexByte(text[:q+1], c)
		if i < f.rare {
			return -1
		}
		q = i
		start := q - f.rare
		if start+n <= len(text) && text[start:start+n] == f.needle {
			return start
		}
		if fails++; fails > 64 && fails > (end-q)>>8 {
			return strings.LastIndex(text[:start+n-1], f.needle)
		}
	}
	return -1
}
