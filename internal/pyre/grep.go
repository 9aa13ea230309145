package pyre

import (
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"
)

// Matcher finds matches of one pattern. It is safe for concurrent use
// (but see [Matcher.WithBudget]).
type Matcher struct {
	lit       string         // literal pattern (re == nil && bt == nil)
	re        *regexp.Regexp // compiled with (?m): ^ and $ match at line ends
	bt        *Backtrack     // the backtracking engine: for patterns RE2 cannot run (re == nil), or for non-ASCII lines (asciiOnly)
	asciiOnly bool           // re has Python's meaning only on ASCII text
	pre       *Prefilter     // nil: run the regular expression on every line
	// emptyFirst: the pattern can prefer an empty match where a non-empty
	// one starts (Compiled.EmptyFirst); bt finds matches as Python does.
	emptyFirst bool
	whole      bool // the pattern can match a newline explicitly: match over the whole text

	// Set by WithBudget: the backtracking engine's context, time budget
	// per match, and the first error that stopped a search.
	ctx    context.Context
	budget time.Duration
	err    *error
	groups *[]int // the groups of the backtracking engine's last match (LastGroups)
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
// start and end of each line (as with re.MULTILINE). A bad pattern is an
// error wrapping an [*Error] with CPython's message.
func Compile(pattern string) (*Matcher, error) {
	c, err := CompilePython(pattern, Multiline)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w", pattern, err)
	}
	if c.RE2 == nil {
		return &Matcher{bt: c.BT, whole: c.ExplicitNewline}, nil
	}
	re, expr := c.RE2, c.Expr
	m := &Matcher{re: re, bt: c.BT, asciiOnly: c.ASCIIOnly, emptyFirst: c.EmptyFirst}
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
	case m.re == nil && m.bt != nil:
		return "none (backtracking engine)"
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
	if m.groups != nil {
		*m.groups = nil
	}
	n := 0
	emit := func(s, e int) bool {
		n++
		return fn(s, e) && (limit < 0 || n < limit)
	}
	switch {
	case m.re == nil && m.bt != nil:
		if m.whole {
			m.btFind(text, 0, len(text), emit)
		} else {
			m.findEveryLine(text, emit)
		}
	case m.re == nil:
		m.findLiteral(text, emit)
	case m.whole && m.emptyFirst:
		m.btFind(text, 0, len(text), emit)
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
	if m.re == nil || m.emptyFirst || m.asciiOnly && len(line) <= ASCIIOnlyMax && !isASCII(line) {
		return m.btFind(text, ls, le, emit)
	}
	if !m.re.MatchString(line) {
		return true
	}
	if m.groups != nil {
		*m.groups = nil // an RE2 match (LastGroups)
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

// WithBudget returns a copy of m whose backtracking engine gives up on a
// match after budget, or when ctx is done; Err then reports why. The copy
// is for one caller at a time.
func (m *Matcher) WithBudget(ctx context.Context, budget time.Duration) *Matcher {
	c := *m
	c.ctx, c.budget, c.err, c.groups = ctx, budget, new(error), new([]int)
	return &c
}

// NumGroups is the number of capture groups of a regular expression.
func (m *Matcher) NumGroups() int {
	switch {
	case m.re != nil:
		return m.re.NumSubexp()
	case m.bt != nil:
		return m.bt.groups
	}
	return 0
}

// LastGroups returns the byte offsets of the capture groups of the match
// that the backtracking engine last reported to a FindAll (or First)
// callback of a matcher from [Matcher.WithBudget]: a start and end per
// group, -1 for a group that took no part, valid until the next match
// is reported. It returns nil when that match
// came from RE2 (rerun [Matcher.Regexp] for its groups) or for a matcher
// without a budget.
func (m *Matcher) LastGroups() []int {
	if m.groups == nil {
		return nil
	}
	return *m.groups
}

// Err returns the error that stopped the last search of a matcher from
// [Matcher.WithBudget] (a match over its budget, wrapping
// [ErrMatchTimeout], or the context's error), or nil.
func (m *Matcher) Err() error {
	if m.err == nil {
		return nil
	}
	return *m.err
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// btFind reports the matches of the backtracking engine in text[from:to],
// found as Python's finditer finds them; it returns false to stop.
func (m *Matcher) btFind(text string, from, to int, emit func(s, e int) bool) bool {
	if m.err != nil && *m.err != nil {
		return false
	}
	if m.ctx != nil {
		if err := m.ctx.Err(); err != nil {
			*m.err = err
			return false
		}
	}
	runes := []rune(text[from:to])
	// Offsets come in order: convert them by walking the text.
	ri, bi := 0, from
	byteAt := func(r int) int {
		for ri < r {
			_, size := utf8.DecodeRuneInString(text[bi:])
			bi += size
			ri++
		}
		return bi
	}
	for pos, advance := 0, false; pos <= len(runes); {
		loc, err := m.bt.Find(runes, pos, Search, m.budget)
		if err == nil && loc != nil && advance && loc[1] == pos {
			loc, err = m.bt.Find(runes, pos, NonEmptyAt, m.budget)
			if err == nil && loc == nil && pos < len(runes) {
				loc, err = m.bt.Find(runes, pos+1, Search, m.budget)
			}
		}
		if err != nil {
			if m.err != nil {
				*m.err = err
			}
			return false
		}
		if loc == nil {
			return true
		}
		if loc[0] < ri { // cannot happen: matches come in order
			ri, bi = 0, from
		}
		s := byteAt(loc[0])
		e := byteAt(loc[1])
		if m.groups != nil {
			g := (*m.groups)[:0]
			for _, r := range loc[2:] {
				switch {
				case r < 0:
					g = append(g, -1)
				case r >= ri:
					g = append(g, byteAt(r))
				default: // a group in a lookbehind, before the match
					g = append(g, from+len(string(runes[:r])))
				}
			}
			*m.groups = g
		}
		if !emit(s, e) {
			return false
		}
		pos, advance = loc[1], loc[0] == loc[1]
	}
	return true
}
