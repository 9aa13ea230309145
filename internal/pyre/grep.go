package pyre

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Matcher finds matches of one pattern. It is safe for concurrent use.
type Matcher struct {
	lit   string         // literal pattern (re == nil)
	re    *regexp.Regexp // compiled with (?m): ^ and $ match at line ends
	pre   *Prefilter     // nil: run the regular expression on every line
	whole bool           // the pattern can match a newline explicitly: match over the whole text
}

// lit is one required literal; fold means ASCII case-insensitive (s is lower case).
type lit struct {
	s    string
	fold bool
}

// Literal returns a Matcher for the exact string s.
func Literal(s string) *Matcher {
	return &Matcher{lit: s}
}

// Compile compiles a Python-style regular expression. ^ and $ match at the
// start and end of each line (as with re.MULTILINE).
func Compile(pattern string) (*Matcher, error) {
	re, expr, err := CompileRE(pattern, Multiline)
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil { // cannot happen: regexp.Compile parsed it
		return m, nil
	}
	tree = tree.Simplify()
	m.whole = matchesNewline(tree)
	m.pre = NewPrefilter(tree)
	return m, nil
}

// Prefilter describes the literals the matcher scans for ("none" if it runs
// the regular expression over every line).
func (m *Matcher) Prefilter() string {
	switch {
	case m.re == nil:
		return fmt.Sprintf("literal %q", m.lit)
	case m.pre == nil:
		return "none"
	}
	return m.pre.String()
}

// Regexp returns the compiled regular expression (nil for a literal).
func (m *Matcher) Regexp() *regexp.Regexp { return m.re }

// FindAll calls fn with the byte offsets of successive non-overlapping
// matches in text, in order, until fn returns false or limit matches were
// reported (limit < 0: no limit). A regular expression is matched against
// each line separately unless it contains an explicit newline.
func (m *Matcher) FindAll(text string, limit int, fn func(start, end int) bool) {
	if limit == 0 {
		return
	}
	n := 0
	emit := func(s, e int) bool {
		n++
		return fn(s, e) && (limit < 0 || n < limit)
	}
	switch {
	case m.re == nil:
		m.findLiteral(text, emit)
	case m.whole:
		for _, loc := range m.re.FindAllStringIndex(text, limit) {
			if !emit(loc[0], loc[1]) {
				return
			}
		}
	case m.pre != nil:
		m.findCandidates(text, m.pre.Scanner(), emit)
	default:
		m.findEveryLine(text, emit)
	}
}

// First returns the first match in text, or -1, -1.
func (m *Matcher) First(text string) (start, end int) {
	start, end = -1, -1
	m.FindAll(text, 1, func(s, e int) bool {
		start, end = s, e
		return false
	})
	return start, end
}

func (m *Matcher) findLiteral(text string, emit func(s, e int) bool) {
	if m.lit == "" {
		return
	}
	sc := newLitScanner(lit{s: m.lit})
	for pos := 0; pos <= len(text); {
		s := sc.next(text, pos)
		if s < 0 {
			return
		}
		if !emit(s, s+len(m.lit)) {
			return
		}
		pos = s + len(m.lit)
	}
}

// matchLine reports the matches within text[ls:le]; it returns false to stop.
func (m *Matcher) matchLine(text string, ls, le int, emit func(s, e int) bool) bool {
	line := text[ls:le]
	if !m.re.MatchString(line) {
		return true
	}
	for _, loc := range m.re.FindAllStringIndex(line, -1) {
		if !emit(ls+loc[0], ls+loc[1]) {
			return false
		}
	}
	return true
}

func (m *Matcher) findEveryLine(text string, emit func(s, e int) bool) {
	for ls := 0; ls <= len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		if !m.matchLine(text, ls, le, emit) {
			return
		}
		ls = le + 1
	}
}

func (m *Matcher) findCandidates(text string, sc *Scanner, emit func(s, e int) bool) {
	for pos := 0; pos <= len(text); {
		c := sc.Next(text, pos)
		if c < 0 {
			return
		}
		ls := strings.LastIndexByte(text[pos:c], '\n') + 1 + pos
		le := strings.IndexByte(text[c:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += c
		}
		if !m.matchLine(text, ls, le, emit) {
			return
		}
		pos = le + 1
	}
}
