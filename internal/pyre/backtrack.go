package pyre

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	// v2, not v1: v2 is already in rlm's module graph (tiktoken uses it),
	// and only v2 can keep Python's group numbering with named groups
	// (OptionMaintainCaptureOrder) and bound a match's backtracking stack
	// (OptionMaxBacktrackingStackSize).
	"github.com/dlclark/regexp2/v2"
)

// Sentinels of the backtracking engine's budgets.
var (
	// ErrMatchTimeout is wrapped by the error of a match that ran past its
	// time budget.
	ErrMatchTimeout = errors.New("pyre: match time budget exhausted")
	// ErrBacktrackLimit is wrapped by the error of a match that needed a
	// deeper backtracking stack than [BacktrackStack].
	ErrBacktrackLimit = errors.New("pyre: backtracking stack limit exceeded")
)

// BacktrackStack bounds the backtracking stack of one match of the
// backtracking engine, in stack slots (8 bytes each): 4 Mi slots, 32 MB.
const BacktrackStack = 4 << 20

// Compiled is a Python pattern compiled for the engine that can run it:
// RE2 (linear time, with the literal prefilter) whenever it can, else the
// backtracking engine (lookaround, backreferences, atomic groups,
// possessive quantifiers, conditional groups, and whatever RE2 rejects).
type Compiled struct {
	// RE2 is the pattern compiled for Go's regexp; nil when only the
	// backtracking engine can run it.
	RE2 *regexp.Regexp
	// Expr is RE2's expression (RE2 != nil).
	Expr string
	// BT is the pattern compiled for the backtracking engine (RE2 == nil).
	BT *Backtrack
	// Groups is the number of capturing groups.
	Groups int
	// Names are the groups' names, index 0 (the whole match) and unnamed
	// groups "".
	Names []string
	// Flags are the global flags, with the pattern's leading inline ones.
	Flags Flags
	// ASCIIOnly reports that RE2 has Python's meaning only on ASCII text
	// (the pattern uses \d or \b, Unicode-aware in Python and ASCII in
	// RE2): BT is set too, for other text up to ASCIIOnlyMax bytes.
	ASCIIOnly bool
	// ExplicitNewline reports that the pattern names a newline (\n, or a
	// class of only \n and \r): search() then matches across lines.
	ExplicitNewline bool
	// CanBeEmpty reports whether a match can be empty (its minimum width
	// is 0).
	CanBeEmpty bool
	// EmptyFirst reports a pattern that can prefer an empty match where a
	// non-empty one starts at the same place (it can be empty and has a
	// lazy quantifier or an alternation, e.g. a??, \s*?, (,|)): after such
	// an empty match Python's findall, finditer, sub and split take the
	// non-empty one, which RE2 cannot find, so BT is set for them.
	EmptyFirst bool
}

// CompilePython parses pattern as CPython 3.11's re module does (a bad
// pattern is an [*Error] with CPython's message) and compiles it for RE2
// when RE2 can run it with Python's meaning, else for the backtracking
// engine.
func CompilePython(pattern string, flags Flags) (*Compiled, error) {
	t, err := parse(pattern, flags)
	if err != nil {
		return nil, err
	}
	c := &Compiled{Groups: t.groups, Names: t.names, Flags: t.flags, CanBeEmpty: t.minWidth == 0, ExplicitNewline: explicitNewline(t.seq)}
	if t.bt == "" && !needsBT(t.seq) {
		if expr, err := Translate(pattern, flags); err == nil {
			if re, err := regexp.Compile(expr); err == nil && re.NumSubexp() == t.groups {
				c.RE2, c.Expr = re, expr
				if c.Flags&ASCII == 0 && usesUnicodeClasses(t.seq) {
					c.ASCIIOnly = true
					if c.BT, err = compileBT(t); err != nil {
						c.BT, c.ASCIIOnly = nil, false
					}
				}
				if c.CanBeEmpty && lazyOrBranch(t.seq) {
					if c.BT == nil {
						c.BT, _ = compileBT(t)
					}
					c.EmptyFirst = c.BT != nil
				}
				return c, nil
			}
		}
	}
	bt, err := compileBT(t)
	if err != nil {
		return nil, err
	}
	c.BT = bt
	return c, nil
}

// needsBT reports constructs RE2 would accept with another meaning than
// Python's: scoped ASCII/verbose flags and categories in scoped groups.
func needsBT(seq []*node) bool {
	for _, n := range seq {
		if n.op == opGroup && (n.add|n.del)&(ASCII|Unicode|Verbose) != 0 {
			return true
		}
		for _, alt := range n.alts {
			if needsBT(alt) {
				return true
			}
		}
		if needsBT(n.sub) {
			return true
		}
	}
	return false
}

// lazyOrBranch reports a lazy quantifier or an alternation.
func lazyOrBranch(seq []*node) bool {
	for _, n := range seq {
		if n.op == opBranch || n.op == opRepeat && n.lazy {
			return true
		}
		for _, alt := range n.alts {
			if lazyOrBranch(alt) {
				return true
			}
		}
		if lazyOrBranch(n.sub) || lazyOrBranch(n.no) {
			return true
		}
	}
	return false
}

func explicitNewline(seq []*node) bool {
	for _, n := range seq {
		switch n.op {
		case opLit:
			if n.r == '\n' {
				return true
			}
		case opIn:
			if !n.neg {
				has, other := false, false
				for _, it := range n.set {
					if it.cat == 0 && it.lo == it.hi && (it.lo == '\n' || it.lo == '\r') {
						has = has || it.lo == '\n'
					} else {
						other = true
					}
				}
				if has && !other {
					return true
				}
			}
		}
		for _, alt := range n.alts {
			if explicitNewline(alt) {
				return true
			}
		}
		if explicitNewline(n.sub) || explicitNewline(n.no) {
			return true
		}
	}
	return false
}

// usesUnicodeClasses reports what RE2 runs with ASCII meaning: \d, \D,
// \b and \B (Python's see Unicode digits and word characters), and \S
// and \W inside a set.
func usesUnicodeClasses(seq []*node) bool {
	for _, n := range seq {
		switch {
		case n.op == opAt && (n.at == 'b' || n.at == 'B'), n.op == opCat && n.cat|0x20 == 'd':
			return true
		case n.op == opIn:
			for _, it := range n.set {
				if it.cat == 'S' || it.cat == 'W' || it.cat|0x20 == 'd' {
					return true
				}
			}
		}
		for _, alt := range n.alts {
			if usesUnicodeClasses(alt) {
				return true
			}
		}
		if usesUnicodeClasses(n.sub) {
			return true
		}
	}
	return false
}

// ASCIIOnlyMax is the size up to which text that is not ASCII runs on
// the backtracking engine for an [Compiled.ASCIIOnly] pattern; larger
// texts run on RE2 (fast, with the prefilter) with ASCII \d and \b.
const ASCIIOnlyMax = 1 << 20

// Backtrack is a pattern compiled for the backtracking engine
// (github.com/dlclark/regexp2, .NET's engine) with Python's syntax and
// meaning. It matches against code points ([]rune), so its offsets are
// Python's string positions. It is safe for concurrent use.
type Backtrack struct {
	search, anchored, full, nonEmpty *regexp2.Regexp
	groups                           int
}

func compileBT(t *tree) (*Backtrack, error) {
	expr := netSyntax(t)
	opts := []regexp2.CompileOption{regexp2.OptionMaintainCaptureOrder(), regexp2.OptionMaxBacktrackingStackSize(BacktrackStack)}
	b := &Backtrack{groups: t.groups}
	var err error
	for _, v := range []struct {
		re  **regexp2.Regexp
		src string
	}{{&b.search, expr}, {&b.anchored, `\G(?:` + expr + `)`}, {&b.full, `\G(?:` + expr + `)\z`}, {&b.nonEmpty, `\G(?:` + expr + `)(?!\G)`}} {
		if *v.re, err = regexp2.Compile(v.src, opts...); err != nil {
			return nil, &Error{
				Msg: fmt.Sprintf(
					"the backtracking engine cannot compile this pattern (%s)",
					strings.TrimPrefix(err.Error(), "error parsing regexp: "),
				),
				Pos: -1,
			}
		}
	}
	return b, nil
}

// Mode says how a match is anchored.
type Mode int

// Match modes: re.search, re.match, re.fullmatch, and a non-empty match
// at pos (Python's next match after an empty one at the same place).
const (
	Search Mode = iota
	Anchored
	Full
	NonEmptyAt
)

// Find returns the first match in text at or after pos (Search), or at pos
// (Anchored, Full: the match must also end at the end of text), as pairs
// of code-point offsets for the whole match and each group (-1 for a group
// that did not participate), or nil. Lookbehind, ^ and \b see text before
// pos, as in Python. A match that runs longer than budget (> 0) fails with
// an error wrapping [ErrMatchTimeout].
func (b *Backtrack) Find(text []rune, pos int, mode Mode, budget time.Duration) ([]int, error) {
	re := b.search
	switch mode {
	case Anchored:
		re = b.anchored
	case Full:
		re = b.full
	case NonEmptyAt:
		re = b.nonEmpty
	}
	if budget > 0 {
		// MatchTimeout is read when a match starts: a copy carries this
		// call's budget without touching the shared Regexp.
		c := *re
		c.MatchTimeout = budget
		re = &c
	}
	m, err := re.FindRunesMatchStartingAt(text, pos)
	if err != nil {
		switch {
		case errors.Is(err, regexp2.ErrBacktrackingStackLimit):
			return nil, fmt.Errorf("%w (%d slots)", ErrBacktrackLimit, BacktrackStack)
		case strings.HasPrefix(err.Error(), "match timeout"):
			return nil, fmt.Errorf("%w (%v)", ErrMatchTimeout, budget)
		}
		return nil, fmt.Errorf("pyre: backtracking engine: %s", firstLine(err.Error()))
	}
	if m == nil {
		return nil, nil
	}
	out := make([]int, 2*(b.groups+1))
	for i := 0; i <= b.groups; i++ {
		g := m.GroupByNumber(i)
		if g == nil || len(g.Captures) == 0 {
			out[2*i], out[2*i+1] = -1, -1
			continue
		}
		out[2*i], out[2*i+1] = g.RuneIndex, g.RuneIndex+g.RuneLength
	}
	return out, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
