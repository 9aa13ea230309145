package pylib

import (
	"regexp/syntax"
	"unicode/utf8"
)

// classSeq matches a pattern that is a sequence of character classes
// with counted repeats, literals, \b and capturing groups around parts
// of the sequence (\d{7}, [A-Z]{5}, (\d{4})-(\d{2})-(\d{2}),
// \b[A-Z][a-z]+\b), when no match needs backtracking: every repeat whose
// count can vary is followed by the end of the pattern, by a class it
// shares no character with that must match at least once, or by \b with
// only word (or only non-word) characters in it. A shorter count then
// fails where the longest one does, so at each place the greedy count is
// the only candidate and the leftmost match is the first place where the
// sequence matches. It tries each place a match can start with a table
// lookup per ASCII byte, instead of RE2's machine per character, and
// reads characters as RE2 does (a class past ASCII decodes UTF-8, an
// invalid byte is U+FFFD; \b sees ASCII word characters), so its matches
// are RE2's.
type classSeq struct {
	items  []seqStep
	groups int
	first  [256]bool // the bytes a match can start with
	lead   int       // the index of the first class item (only \b and group starts before it)
}

// seqStep is one step of a classSeq.
type seqStep struct {
	op       seqOp
	cls      *classRun // op seqClass: the class
	min, max int       // op seqClass: the count (max < 0: no bound)
	group    int       // op seqOpen, seqClose: the group
}

type seqOp uint8

const (
	seqClass seqOp = iota
	seqWordBoundary
	seqOpen
	seqClose
)

// seqOf returns the sequence matcher of re (as regexp/syntax parses it,
// not simplified), or nil when re is not such a sequence.
func seqOf(re *syntax.Regexp, groups int) *classSeq {
	q := &classSeq{groups: groups}
	if !q.add(re) {
		return nil
	}
	q.lead = -1
	for k, it := range q.items {
		if it.op == seqClass {
			q.lead = k
			break
		}
	}
	if q.lead < 0 || q.items[q.lead].min < 1 {
		return nil
	}
	for k, it := range q.items {
		if it.op == seqClass && it.min != it.max && !q.forced(k) {
			return nil
		}
	}
	c := q.items[q.lead].cls
	for b := 0; b < utf8.RuneSelf; b++ {
		q.first[b] = c.ascii[b]
	}
	if len(c.ranges) > 0 {
		for b := utf8.RuneSelf; b < 256; b++ {
			q.first[b] = true
		}
	}
	return q
}

// add appends re's items; false when re is not one of the forms taken.
func (q *classSeq) add(re *syntax.Regexp) bool {
	class := func(re *syntax.Regexp) *classRun {
		switch {
		case re.Op == syntax.OpCharClass:
			return newClassRun(re.Rune)
		case re.Op == syntax.OpLiteral && len(re.Rune) == 1 && re.Flags&syntax.FoldCase == 0:
			return newClassRun([]rune{re.Rune[0], re.Rune[0]})
		case re.Op == syntax.OpAnyCharNotNL:
			return newClassRun([]rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune})
		case re.Op == syntax.OpAnyChar:
			return newClassRun([]rune{0, utf8.MaxRune})
		}
		return nil
	}
	switch re.Op {
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !q.add(sub) {
				return false
			}
		}
		return true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return false
		}
		for _, r := range re.Rune {
			q.items = append(q.items, seqStep{op: seqClass, cls: newClassRun([]rune{r, r}), min: 1, max: 1})
		}
		return true
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		q.items = append(q.items, seqStep{op: seqClass, cls: class(re), min: 1, max: 1})
		return true
	case syntax.OpRepeat, syntax.OpPlus, syntax.OpStar, syntax.OpQuest:
		c := class(re.Sub[0])
		if c == nil || re.Flags&syntax.NonGreedy != 0 {
			return false
		}
		it := seqStep{op: seqClass, cls: c}
		switch re.Op {
		case syntax.OpRepeat:
			it.min, it.max = re.Min, re.Max
		case syntax.OpPlus:
			it.min, it.max = 1, -1
		case syntax.OpStar:
			it.min, it.max = 0, -1
		case syntax.OpQuest:
			it.min, it.max = 0, 1
		}
		if it.max == 0 {
			return false
		}
		q.items = append(q.items, it)
		return true
	case syntax.OpWordBoundary:
		q.items = append(q.items, seqStep{op: seqWordBoundary})
		return true
	case syntax.OpCapture:
		q.items = append(q.items, seqStep{op: seqOpen, group: re.Cap})
		if !q.add(re.Sub[0]) {
			return false
		}
		q.items = append(q.items, seqStep{op: seqClose, group: re.Cap})
		return true
	}
	return false
}

// forced reports whether a shorter count of item k (a class with a
// varying count) fails wherever its longest count does: what follows it
// is the end, a class disjoint from it matched at least once, or \b with
// the class all word or all non-word characters.
func (q *classSeq) forced(k int) bool {
	c := q.items[k].cls
	for _, it := range q.items[k+1:] {
		switch it.op {
		case seqOpen, seqClose:
			continue
		case seqWordBoundary:
			word, other := false, len(c.ranges) > 0
			for b := 0; b < utf8.RuneSelf; b++ {
				if c.ascii[b] {
					if syntax.IsWordChar(rune(b)) {
						word = true
					} else {
						other = true
					}
				}
			}
			return q.items[k].min >= 1 && (!word || !other)
		case seqClass:
			return it.min >= 1 && disjoint(c, it.cls)
		}
	}
	return true
}

// disjoint reports whether classes a and b share no character.
func disjoint(a, b *classRun) bool {
	for i := range a.ascii {
		if a.ascii[i] && b.ascii[i] {
			return false
		}
	}
	for i := 0; i+1 < len(a.ranges); i += 2 {
		for j := 0; j+1 < len(b.ranges); j += 2 {
			if a.ranges[i] <= b.ranges[j+1] && b.ranges[j] <= a.ranges[i+1] {
				return false
			}
		}
	}
	return true
}

// isWordByte reports whether s[i] is a word character as RE2's \b sees
// it (ASCII letters, digits, _); false outside s.
func isWordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	b := s[i]
	return b < utf8.RuneSelf && syntax.IsWordChar(rune(b))
}

// matchAt matches the sequence at i, filling m (the match's and the
// groups' pairs); it returns the match's end, or -1 and the place from
// which a match may start (past i).
func (q *classSeq) matchAt(s string, i int, m []int) (end, next int) {
	p := i
	for k := range q.items {
		it := &q.items[k]
		switch it.op {
		case seqOpen:
			m[2*it.group] = p
		case seqClose:
			m[2*it.group+1] = p
		case seqWordBoundary:
			if isWordByte(s, p-1) == isWordByte(s, p) {
				return -1, i + 1
			}
		case seqClass:
			c := it.cls
			n := 0
			for n != it.max && p < len(s) {
				if b := s[p]; b < utf8.RuneSelf {
					if !c.ascii[b] {
						break
					}
					p++
				} else {
					w := c.width(s, p)
					if w == 0 {
						break
					}
					p += w
				}
				n++
			}
			if n < it.min {
				if k == q.lead {
					// Every place in this run starts a shorter one.
					return -1, max(p, i+1)
				}
				return -1, i + 1
			}
		}
	}
	m[0], m[1] = i, p
	return p, 0
}

// MatchAt returns the submatch indexes of the match starting at pos
// (re.match), or, with full, of the one also ending at the end of s
// (re.fullmatch), or nil. At a place the greedy match is the only
// candidate (see classSeq), and the longest, so a full match is that one
// when it reaches the end. \b sees the text before pos, as in Python.
func (q *classSeq) MatchAt(s string, pos int, full bool) []int {
	if pos > len(s) {
		return nil
	}
	m := make([]int, 2*(q.groups+1))
	if end, _ := q.matchAt(s, pos, m); end < 0 || full && end != len(s) {
		return nil
	}
	return m
}

// Find returns the submatch indexes of the leftmost match in s at or
// after pos, or nil: what a search of s from pos finds (\b sees the text
// before pos, as in Python).
func (q *classSeq) Find(s string, pos int) []int {
	m := make([]int, 2*(q.groups+1))
	if q.next(s, pos, m) < 0 {
		return nil
	}
	return m
}

// next writes in m the indexes of the leftmost match in s at or after i
// and returns its end, or -1 when there is none.
func (q *classSeq) next(s string, i int, m []int) int {
	for i < len(s) {
		for i < len(s) && !q.first[s[i]] {
			i++
		}
		if i == len(s) {
			return -1
		}
		end, next := q.matchAt(s, i, m)
		if end >= 0 {
			return end
		}
		if next == i+1 && s[i] >= utf8.RuneSelf {
			_, w := utf8.DecodeRuneInString(s[i:])
			next = i + w
		}
		i = next
	}
	return -1
}

// Each yields the matches of the sequence in s, in order, as RE2's
// FindAllStringSubmatchIndex finds them, until yield returns false. The
// index slices are cut from larger arrays that no later match
// overwrites (a finditer match keeps its slice).
func (q *classSeq) Each(s string, yield func(m []int) bool) {
	q.each(s, nil, yield)
}

// each is Each cutting the index slices from buf first; it returns the
// buffer to cut the next ones from (a scan line by line shares one).
func (q *classSeq) each(s string, buf []int, yield func(m []int) bool) []int {
	size := 2 * (q.groups + 1)
	for i := 0; ; {
		if len(buf)+size > cap(buf) {
			buf = make([]int, 0, size*256)
		}
		m := buf[len(buf) : len(buf)+size : len(buf)+size]
		end := q.next(s, i, m)
		if end < 0 {
			return buf
		}
		buf = buf[:len(buf)+size]
		if !yield(m) {
			return buf
		}
		i = end
	}
}
