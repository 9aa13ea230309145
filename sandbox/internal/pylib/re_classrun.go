package pylib

import (
	"regexp/syntax"
	"sort"
	"unicode/utf8"
)

// classRun matches a pattern that is one character class repeated, C+
// (\w+, [a-z]+, \d+, [^,\n]+: how models split text into words and
// fields). Its matches, leftmost and greedy with nothing around them, are
// the maximal runs of C's characters, which a scan of the text finds
// with a table lookup per ASCII byte instead of RE2's machine per
// character.
type classRun struct {
	ascii  [utf8.RuneSelf]bool // the ASCII characters in C
	ranges []rune              // C's ranges of characters from U+0080, as lo, hi pairs in order
	// AsciiText: the runs are the matches on ASCII text only. \b\w+\b
	// is \w+ there (RE2's \b sees ASCII word characters, which are
	// \w's), not where \w takes in a letter RE2's \b does not.
	AsciiText bool
}

// runOf returns the run matcher of a simplified pattern C+ (greedy), or
// of \b C+ \b when C's ASCII characters are the word characters, else
// nil.
func runOf(re *syntax.Regexp) *classRun {
	plus := func(re *syntax.Regexp) bool {
		return re.Op == syntax.OpPlus && re.Flags&syntax.NonGreedy == 0 && re.Sub[0].Op == syntax.OpCharClass
	}
	if plus(re) {
		return newClassRun(re.Sub[0].Rune)
	}
	if re.Op == syntax.OpConcat && len(re.Sub) == 3 && re.Sub[0].Op == syntax.OpWordBoundary && plus(re.Sub[1]) &&
		re.Sub[2].Op == syntax.OpWordBoundary {
		c := newClassRun(re.Sub[1].Sub[0].Rune)
		for b := 0; b < utf8.RuneSelf; b++ {
			if c.ascii[b] != syntax.IsWordChar(rune(b)) {
				return nil
			}
		}
		c.AsciiText = true
		return c
	}
	return nil
}

// newClassRun returns the run matcher of the class whose ranges (lo, hi
// pairs in order, as regexp/syntax gives them) are ranges.
func newClassRun(ranges []rune) *classRun {
	c := &classRun{}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
			c.ascii[r] = true
		}
		if hi >= utf8.RuneSelf {
			c.ranges = append(c.ranges, max(lo, utf8.RuneSelf), hi)
		}
	}
	return c
}

// has reports whether r, a character from U+0080 (or utf8.RuneError for
// an invalid byte, as RE2 reads it), is in the class.
func (c *classRun) has(r rune) bool {
	// The first pair whose hi is at least r.
	k := sort.Search(len(c.ranges)/2, func(k int) bool { return c.ranges[2*k+1] >= r })
	return k < len(c.ranges)/2 && c.ranges[2*k] <= r
}

// width returns the byte length of the character at s[i] when it is in
// the class, else 0.
func (c *classRun) width(s string, i int) int {
	if b := s[i]; b < utf8.RuneSelf {
		if c.ascii[b] {
			return 1
		}
		return 0
	}
	if len(c.ranges) == 0 {
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if c.has(r) {
		return n
	}
	return 0
}

// Each yields the maximal runs of the class in s, in order, as [start,
// end) pairs, until yield returns false. The pairs are cut from arrays
// of 256 of them that no later pair overwrites (a finditer match keeps
// its pair).
func (c *classRun) Each(s string, yield func(m []int) bool) {
	var buf []int
	for i := 0; i < len(s); {
		// Skip to the next character of the class.
		for i < len(s) && s[i] < utf8.RuneSelf && !c.ascii[s[i]] {
			i++
		}
		if i == len(s) {
			return
		}
		w := c.width(s, i)
		if w == 0 {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		start := i
		for i += w; i < len(s); i += w {
			if b := s[i]; b < utf8.RuneSelf {
				if !c.ascii[b] {
					break
				}
				w = 1
				continue
			}
			if w = c.width(s, i); w == 0 {
				break
			}
		}
		if len(buf) == cap(buf) {
			buf = make([]int, 0, 512)
		}
		buf = append(buf, start, i)
		if !yield(buf[len(buf)-2 : len(buf) : len(buf)]) {
			return
		}
	}
}
