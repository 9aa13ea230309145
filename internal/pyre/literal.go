package pyre

import (
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
	if len(old) == 1 && len(text) < literalMin {
		return replaceByte(text, old[0], repl, n)
	}
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

// replaceByte is strings.Replace(text, string(c), repl, n) for a short
// text: one count and one buffer of the result's size, filled byte by
// byte (Replace finds each match twice and writes through a Builder).
func replaceByte(text string, c byte, repl string, n int) string {
	first := strings.IndexByte(text, c)
	if first < 0 || n == 0 {
		return text
	}
	m := 0
	for i := first; i < len(text) && (n < 0 || m < n); i++ {
		if text[i] == c {
			m++
		}
	}
	b := make([]byte, len(text)+m*(len(repl)-1))
	j := copy(b, text[:first])
	i := first
	for ; i < len(text) && m > 0; i++ {
		if c1 := text[i]; c1 != c {
			b[j] = c1
			j++
			continue
		}
		j += copy(b[j:], repl)
		m--
	}
	copy(b[j:], text[i:])
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not changed again
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
// candidate per KB: one IndexByte call costs more than the two-byte scan
// of a KB), it goes on with pairIndex, which looks for two of the
// needle's bytes at once, 32 positions at a time.
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
		if fails++; fails > 64 && fails > (q-from)>>10 {
			return f.pairIndex(text, start+1)
		}
	}
	return -1
}

// Byte-parallel constants for pairBlocksGeneric.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// zeroBytes has the top bit set in each byte of x that is zero (and
// possibly in bytes above one that is: candidates, checked by the
// caller).
func zeroBytes(x uint64) uint64 { return (x - lsb) &^ x & msb }

// pairIndex returns the first occurrence at or after from, or -1,
// testing pairBlock candidate positions at a time (pairBlocks) for both
// the needle's rare and rare2 bytes and verifying those that have them.
func (f finder) pairIndex(text string, from int) int {
	n := len(f.needle)
	if f.rare2 != f.rare {
		p := unsafe.StringData(text)
		c1, c2 := f.needle[f.rare], f.needle[f.rare2]
		// Block k reads text[from+rare+32k : from+rare+32k+32], within the
		// text while from+n-1+32(k+1) <= len(text) (rare, rare2 < n); its
		// positions are then all valid starts.
		for blocks := (len(text) - from - n + 1) / pairBlock; blocks > 0; blocks = (len(text) - from - n + 1) / pairBlock {
			k, m := pairBlocks(
				(*byte)(unsafe.Add(unsafe.Pointer(p), from+f.rare)),
				(*byte)(unsafe.Add(unsafe.Pointer(p), from+f.rare2)),
				blocks,
				c1,
				c2,
			)
			from += k * pairBlock
			if m == 0 {
				break
			}
			for ; m != 0; m &= m - 1 {
				s := from + bits.TrailingZeros32(m)
				if text[s:s+n] == f.needle {
					return s
				}
			}
			from += pairBlock
		}
	}
	if i := strings.Index(text[from:], f.needle); i >= 0 {
		return from + i
	}
	return -1
}

// lastIndex returns the last occurrence, or -1 (lastPairIndex: Go's
// strings.LastIndexByte reads a byte at a time, slower than the pair scan
// even for a rare byte).
func (f finder) lastIndex(text string) int {
	return f.lastPairIndex(text, len(text)-len(f.needle)+1)
}

// lastPairIndex returns the last occurrence that starts before end, or
// -1: pairIndex run forwards over windows of the text taken from the end
// backwards, keeping a window's last match.
func (f finder) lastPairIndex(text string, end int) int {
	const window = 64 << 10
	n := len(f.needle)
	for hi := end; hi > 0; hi -= window {
		// Matches starting in [lo, hi) end before hi+n-1.
		t := text[:min(len(text), hi+n-1)]
		last := -1
		for from := max(0, hi-window); ; {
			i := f.pairIndex(t, from)
			if i < 0 {
				break
			}
			last, from = i, i+1
		}
		if last >= 0 {
			return last
		}
	}
	return -1
}
