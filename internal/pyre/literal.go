package pyre

import "strings"

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

// finder scans for needle's byte at index rare.
type finder struct {
	needle string
	rare   int
}

func literalFinder(text, needle string) finder {
	rare, best := 0, 1<<30
	for i := 0; i < len(needle); i++ {
		if f := freqTable[needle[i]]; f < best {
			rare, best = i, f
		}
	}
	mid := len(text) / 2
	return finder{needle: needle, rare: rarestInSample(needle, text[mid:min(len(text), mid+sampleSize)], rare)}
}

// index returns the first occurrence at or after from, or -1. When the
// scanned byte keeps turning up without the needle (more than one
// candidate in 256 bytes), it hands over to strings.Index, whose vector
// search does not mind frequent candidates.
func (f finder) index(text string, from int) int {
	if f.rare == 0 {
		if i := strings.Index(text[from:], f.needle); i >= 0 {
			return from + i
		}
		return -1
	}
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
		if fails++; fails > 64 && fails > (q-from)>>8 {
			if j := strings.Index(text[start+1:], f.needle); j >= 0 {
				return start + 1 + j
			}
			return -1
		}
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
