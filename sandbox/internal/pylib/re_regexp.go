package pylib

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/pyre"
	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// Python re flag values.
const (
	ReIgnoreCase = int(pyre.IgnoreCase)
	reLocale     = int(pyre.Locale)
	reMultiline  = int(pyre.Multiline)
	reDotAll     = int(pyre.DotAll)
	reUnicode    = int(pyre.Unicode)
	reVerbose    = int(pyre.Verbose)
	reASCII      = int(pyre.ASCII)
)

// Regexp is a Python-syntax regular expression compiled for Go's RE2
// engine (linear time), with a literal prefilter: when every match
// contains one of a few literals (see [pyre.Prefilter]) and cannot span a
// newline, only the lines holding one are searched with the full
// expression. The translation and the prefilter analysis are shared with
// the search() helper (package grep).
type Regexp struct {
	Re        *regexp.Regexp  // nil: only the backtracking engine can run the pattern
	bt        *pyre.Backtrack // the backtracking engine (nil: RE2 only)
	asciiOnly bool            // re has Python's meaning only on ASCII text; bt runs on other text
	canEmpty  bool            // a match can be empty
	// emptyFirst: after an empty match, Python's iteration may take a
	// non-empty one at the same place, which RE2 cannot find: findall,
	// finditer, sub and split run on bt (pyre.Compiled.EmptyFirst).
	emptyFirst bool
	groups     int
	names      []string
	pattern    string // as written (Python syntax)
	flags      int

	pre      *pyre.Prefilter // nil: no prefilter
	LineOK   bool            // matches cannot span lines and use no \A \z anchors
	pureLit  int             // > 0: the pattern is exactly a case-sensitive literal this long
	dollarNL bool            // a non-multiline $ that Python also matches before a final newline
	lookBack bool            // an assertion sees the character before it (^ \A \b \B)
	Chunk    int             // > 0: the longest text RE2 runs its backtracker on (see eachChunked)
	First    *[256]bool      // nil, or the bytes a match can start with (see eachFirst)
	Run      *classRun       // nil, or the class C of a pattern C+: its matches are C's maximal runs (see classRun.each)
	Seq      *classSeq       // nil, or the pattern as a sequence of counted classes that needs no backtracking (see classSeq)

	once        sync.Once      // compiles the variants below
	anchored    *regexp.Regexp // \A(?:re)
	full        *regexp.Regexp // \A(?:re)\z
	searchCtx   *regexp.Regexp // \A(?s:.)(?s:.*?)(re): search after one character of context
	anchoredCtx *regexp.Regexp // \A(?s:.)(re)
	fullCtx     *regexp.Regexp // \A(?s:.)(re)\z
}

// PrefilterMin is the text size from which the literal prefilter is used.
const PrefilterMin = 16 << 10

// CompileRegexp compiles a Python-syntax pattern with Python re flags
// (re.I = 2, re.M = 8, re.S = 16, re.X = 64). A bad pattern is a re.error
// with CPython's message. Patterns RE2 cannot run (lookaround,
// backreferences, ...) run on a backtracking engine instead.
func CompileRegexp(pattern string, flags int) (*Regexp, error) {
	c, err := pyre.CompilePython(pattern, pyre.Flags(flags))
	if err != nil {
		var pe *pyre.Error
		if errors.As(err, &pe) && pe.Kind != "" {
			return nil, &py.PyError{Kind: pe.Kind, Msg: pe.Error(), Err: err}
		}
		return nil, &py.PyError{Kind: "re.error", Msg: err.Error(), Err: err}
	}
	r := &Regexp{
		Re:         c.RE2,
		bt:         c.BT,
		asciiOnly:  c.ASCIIOnly,
		canEmpty:   c.CanBeEmpty,
		emptyFirst: c.EmptyFirst,
		groups:     c.Groups,
		names:      c.Names,
		pattern:    pattern,
		flags:      flags,
	}
	if r.Re != nil {
		r.dollarNL = flags&reMultiline == 0 && !inlineMultiline.MatchString(pattern) && hasPlainDollar(pattern)
		r.analyze(c.Expr)
	}
	return r, nil
}

var inlineMultiline = regexp.MustCompile(`\(\?[a-zA-Z]*m[a-zA-Z]*[:)]`)

// hasPlainDollar reports whether p holds a $ anchor (not escaped, not in a
// character class).
func hasPlainDollar(p string) bool {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '$':
			return true
		}
	}
	return false
}

// finalNewline reports whether a search of s must also try s without its
// final newline: Python's $ (without MULTILINE) matches at the end of the
// text and just before a newline that ends it; RE2's only at the end.
func (r *Regexp) finalNewline(s string, pos int) bool {
	return r.dollarNL && pos < len(s) && s[len(s)-1] == '\n'
}

// earlier reports whether match a is preferred to b: it starts first, or at
// the same place and is longer (or b is nil).
func earlier(a, b []int) bool {
	if a == nil {
		return false
	}
	return b == nil || a[0] < b[0] || a[0] == b[0] && a[1] > b[1]
}

// analyze sets up the prefilter.
func (r *Regexp) analyze(goPat string) {
	r.lookBack = true
	re, err := syntax.Parse(goPat, syntax.Perl)
	if err != nil {
		return
	}
	re = re.Simplify()
	r.lookBack = looksBack(re)
	r.LineOK = lineLocal(re)
	if prog, err := syntax.Compile(re); err == nil && len(prog.Inst) > 0 {
		r.Chunk = min(maxBacktrackVector/len(prog.Inst), maxChunk)
	}
	if set, ok := firstBytes(re); ok {
		r.First = set
	}
	if re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0 {
		r.pureLit = len(string(re.Rune))
	}
	if r.groups == 0 {
		r.Run = runOf(re)
	}
	if raw, err := syntax.Parse(goPat, syntax.Perl); err == nil && r.Run == nil {
		r.Seq = seqOf(raw, r.groups)
	}
	r.pre = pyre.NewPrefilter(re)
}

// lineLocal reports whether no match can contain a newline and the
// pattern does not depend on the start or end of the whole text.
func lineLocal(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpBeginText, syntax.OpEndText:
		return false
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if c == '\n' {
				return false
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return false
			}
		}
	}
	for _, s := range re.Sub {
		if !lineLocal(s) {
			return false
		}
	}
	return true
}

func lineBounds(s string, i int) (int, int) {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		end = len(s)
	} else {
		end += i
	}
	return start, end
}

// CanPrefilter reports whether the prefilter applies to a search of s from pos.
func (r *Regexp) CanPrefilter(s string, pos int) bool {
	return r.pre != nil && len(s)-pos >= PrefilterMin && (r.LineOK || r.pureLit > 0)
}

// FindIndex returns the submatch indexes of the leftmost match in s at or
// after pos (pairs of byte offsets, -1 for groups that did not
// participate), or nil.
func (r *Regexp) FindIndex(s string, pos int) []int {
	m := r.findIndex(s, pos)
	if r.finalNewline(s, pos) {
		if m2 := r.findIndex(s[:len(s)-1], pos); earlier(m2, m) {
			m = m2
		}
	}
	return m
}

func (r *Regexp) findIndex(s string, pos int) []int {
	if pos > len(s) {
		return nil
	}
	if r.Seq != nil && !r.CanPrefilter(s, pos) {
		return r.Seq.Find(s, pos)
	}
	if r.CanPrefilter(s, pos) {
		sc := r.pre.Scanner()
		from := pos
		for {
			i := sc.Next(s, from)
			if i < 0 {
				return nil
			}
			if r.pureLit > 0 {
				return []int{i, i + r.pureLit}
			}
			ls, le := lineBounds(s, i)
			if ls < pos {
				// The line holding pos: ^ and \b must see the text before pos.
				if m := r.findFrom(s[:le], pos); m != nil {
					return m
				}
			} else if m := r.Re.FindStringSubmatchIndex(s[ls:le]); m != nil {
				for k := range m {
					if m[k] >= 0 {
						m[k] += ls
					}
				}
				return m
			}
			from = le + 1
			if from >= len(s) {
				return nil
			}
		}
	}
	if pos == 0 {
		return r.Re.FindStringSubmatchIndex(s)
	}
	return r.findFrom(s, pos)
}

// findFrom finds the first match at or after pos > 0, with ^, \A and \b
// seeing the text before pos as Python's pos argument does.
func (r *Regexp) findFrom(s string, pos int) []int {
	if r.lookBack {
		// Only a match starting at pos can depend on the text before
		// pos: try that one with context, then search s[pos:], and fall
		// back to the (slower) search with context if that finds a match
		// at pos, which the context rules out.
		r.compileVariants()
		if m := withContext(r.anchoredCtx, s, pos); m != nil {
			return m
		}
	}
	m := r.Re.FindStringSubmatchIndex(s[pos:])
	if m == nil {
		return nil
	}
	if r.lookBack && m[0] == 0 {
		_, size := utf8.DecodeRuneInString(s[pos:])
		if pos+size > len(s) || size == 0 {
			return nil
		}
		return withContext(r.searchCtx, s, pos+size)
	}
	for k := range m {
		if m[k] >= 0 {
			m[k] += pos
		}
	}
	return m
}

// looksBack reports whether re holds an assertion that depends on the
// character before its position (^, \A, \b, \B).
func looksBack(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range re.Sub {
		if looksBack(sub) {
			return true
		}
	}
	return false
}

// compileVariants compiles the anchored and with-context forms of the
// expression used by match, fullmatch and searches from pos > 0.
func (r *Regexp) compileVariants() {
	r.once.Do(func() {
		src := r.Re.String()
		// Wrapping a valid expression keeps it valid (short of RE2's
		// nesting limit, where a variant is nil and finds nothing).
		variant := func(expr string) *regexp.Regexp {
			re, _ := regexp.Compile(expr)
			return re
		}
		r.anchored = variant(`\A(?:` + src + `)`)
		r.full = variant(`\A(?:` + src + `)\z`)
		r.searchCtx = variant(`\A(?s:.)(?s:.*?)(` + src + `)`)
		r.anchoredCtx = variant(`\A(?s:.)(` + src + `)`)
		r.fullCtx = variant(`\A(?s:.)(` + src + `)\z`)
	})
}

// withContext runs re, a with-context variant (one character, then the
// expression as group 1), on s from the character before pos, so that ^,
// \A and \b see that character; it returns the submatch indexes in s.
func withContext(re *regexp.Regexp, s string, pos int) []int {
	if re == nil {
		return nil
	}
	_, size := utf8.DecodeLastRuneInString(s[:pos])
	from := pos - size
	m := re.FindStringSubmatchIndex(s[from:])
	if m == nil {
		return nil
	}
	m = m[2:]
	for k := range m {
		if m[k] >= 0 {
			m[k] += from
		}
	}
	return m
}

// FindAllIndex returns up to n (all if n < 0) non-overlapping matches.
func (r *Regexp) FindAllIndex(s string, n int) [][]int {
	var out [][]int
	r.eachMatch(s, n, func(m []int) bool {
		out = appendMatch(out, m)
		return true
	})
	return out
}

// eachMatch calls f with up to n (all if n < 0) non-overlapping matches
// of s in order, as FindAllIndex finds them, until f returns false; f may
// keep m. A caller that makes a value of each match (re.findall) builds
// its result without holding all the matches' indexes first.
func (r *Regexp) eachMatch(s string, n int, f func(m []int) bool) {
	count := 0
	yield := func(m []int) bool {
		count++
		return f(m) && (n < 0 || count < n)
	}
	if n == 0 {
		return
	}
	if r.finalNewline(s, 0) || r.canEmpty {
		// Python's iteration: after an empty match the next one must not
		// be empty at the same place; after a non-empty one it may be.
		for pos, advance := 0, false; pos <= len(s); {
			m := r.FindIndex(s, pos)
			if m != nil && advance && m[1] == pos {
				if pos == len(s) {
					break
				}
				_, size := utf8.DecodeRuneInString(s[pos:])
				m = r.FindIndex(s, pos+size)
			}
			if m == nil || !yield(m) {
				break
			}
			pos, advance = m[1], m[0] == m[1]
		}
		return
	}
	if r.Run != nil && (!r.Run.AsciiText || py.FactsOf(s) == nil) {
		r.Run.Each(s, yield)
		return
	}
	if r.Seq != nil && !r.CanPrefilter(s, 0) {
		r.Seq.Each(s, yield)
		return
	}
	if !r.CanPrefilter(s, 0) {
		switch {
		case r.LineOK && len(s) >= PrefilterMin && r.First != nil && !r.lookBack:
			r.eachFirst(s, yield)
			return
		case r.LineOK && len(s) >= PrefilterMin && r.Chunk > 0:
			r.eachChunked(s, n, yield)
			return
		}
		for _, m := range r.Re.FindAllStringSubmatchIndex(s, n) {
			if !yield(m) {
				return
			}
		}
		return
	}
	// yieldIn yields the matches ms of s[ls:], shifted to offsets in s.
	yieldIn := func(ms [][]int, ls int) bool {
		for _, m := range ms {
			for k := range m {
				if m[k] >= 0 {
					m[k] += ls
				}
			}
			if !yield(m) {
				return false
			}
		}
		return true
	}
	sc := r.pre.Scanner()
	from := 0
	ahead := -2 // the candidate found past a line's first match (-1: none), or -2
	// With a sequence matcher, each line holding a candidate is scanned
	// whole by it: a line's start and end are a text's to its \b.
	base, stopped := 0, false
	lined := 0 // the bytes of the lines scanned by the sequence matcher
	var buf []int
	yieldSeq := func(m []int) bool {
		for k := range m {
			m[k] += base
		}
		stopped = !yield(m)
		return !stopped
	}
	for from < len(s) {
		i := ahead
		if i == -2 || (i >= 0 && i < from) {
			i = sc.Next(s, from)
		}
		ahead = -2
		if i < 0 {
			return
		}
		if r.pureLit > 0 {
			if !yield([]int{i, i + r.pureLit}) {
				return
			}
			from = i + r.pureLit
			continue
		}
		ls, le := lineBounds(s, i)
		if ls < from {
			ls = from
		}
		from = le + 1
		if r.Seq != nil {
			base = ls
			if buf = r.Seq.each(s[ls:le], buf, yieldSeq); stopped {
				return
			}
			lined += le - ls
			if from >= seqSample && 2*lined > from && from < len(s) {
				// Most lines hold a candidate: scanning the rest whole
				// costs less than finding them (after a newline, as at
				// a text's start, \b sees no word character before).
				base = from
				r.Seq.each(s[from:], buf, yieldSeq)
				return
			}
			continue
		}
		// Most lines hold one match: find the first without FindAll,
		// whose result for each line costs a 10-slot [][]int (240 bytes
		// for a 16-byte match), and run FindAll on the line only when a
		// candidate follows the first match on it.
		first := r.Re.FindStringSubmatchIndex(s[ls:le])
		if first == nil {
			continue
		}
		if ahead = sc.Next(s, ls+first[1]); ahead < 0 || ahead >= le {
			if !yieldIn([][]int{first}, ls) {
				return
			}
			continue
		}
		if !yieldIn(r.Re.FindAllStringSubmatchIndex(s[ls:le], -1), ls) {
			return
		}
	}
}

// seqSample is how much of a text eachMatch searches line by line with
// the prefilter before it decides whether the sequence matcher should
// scan the rest whole.
const seqSample = 256 << 10

// eachFirst is eachMatch for a pattern whose matches stay within a line
// (lineOK), that has no prefilter and does not look before a match (no ^,
// \b, \B), when the bytes a match can start with are known
// (firstBytes: [A-Z]\w* starts with A to Z): it skips to the next such
// byte and runs RE2 from there on the rest of its line, where its
// backtracker runs, instead of trying RE2 at every place. No match starts
// before that byte, and the pattern does not see what precedes it, so
// the matches are the same. yield counts toward n.
func (r *Regexp) eachFirst(s string, yield func(m []int) bool) {
	set := r.First
	for p := 0; p < len(s); {
		for p < len(s) && !set[s[p]] {
			p++
		}
		if p == len(s) {
			return
		}
		le := strings.IndexByte(s[p:], '\n')
		if le < 0 {
			le = len(s)
		} else {
			le += p
		}
		m := r.Re.FindStringSubmatchIndex(s[p:le])
		if m == nil {
			p = le + 1
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += p
			}
		}
		if !yield(m) {
			return
		}
		p = m[1]
	}
}

// maxBacktrackVector is regexp's bound on its backtracker's visited bits
// (the program's length times the text's): on a longer text RE2 runs its
// NFA, several times slower.
const maxBacktrackVector = 256 * 1024

// maxChunk bounds the pieces eachChunked runs RE2 on: its backtracker
// clears a bit per program instruction and text byte at every match, so
// longer pieces cost more per match (1 KB: \w+ over 20 MB of log lines
// in 0.7x the time the NFA takes on the whole text).
const maxChunk = 1 << 10

// eachChunked is eachMatch for a pattern whose matches stay within a
// line (lineOK) and that has no prefilter (\w+, [A-Z]\w*): it runs RE2 on
// pieces of whole lines short enough for its backtracker instead of on
// the whole text with its NFA. A match cannot cross a line end, and at a
// piece's start ^, \b and \B see the start of a text as they see the
// newline before it, so the matches are the same. yield counts toward n.
func (r *Regexp) eachChunked(s string, n int, yield func(m []int) bool) {
	count := 0
	for cs := 0; cs < len(s); {
		ce := cs + r.Chunk
		switch {
		case ce >= len(s):
			ce = len(s)
		case strings.LastIndexByte(s[cs:ce], '\n') >= 0:
			ce = cs + strings.LastIndexByte(s[cs:ce], '\n') + 1
		case strings.IndexByte(s[ce:], '\n') >= 0:
			ce += strings.IndexByte(s[ce:], '\n') + 1 // a line longer than a piece
		default:
			ce = len(s)
		}
		left := -1
		if n >= 0 {
			left = n - count
		}
		for _, m := range r.Re.FindAllStringSubmatchIndex(s[cs:ce], left) {
			for k := range m {
				if m[k] >= 0 {
					m[k] += cs
				}
			}
			count++
			if !yield(m) {
				return
			}
		}
		cs = ce
	}
}

// appendMatch appends m to out, doubling out when it is full: append grows
// a large slice by a quarter, which for a million matches copies the
// slice headers about four times over.
func appendMatch(out [][]int, m []int) [][]int {
	if len(out) == cap(out) {
		grown := make([][]int, len(out), 2*len(out)+16)
		copy(grown, out)
		out = grown
	}
	return append(out, m)
}

// MatchIndex returns the submatch indexes of the match starting at pos
// (re.match), or, with full, of the one spanning s from pos (re.fullmatch),
// or nil.
func (r *Regexp) MatchIndex(s string, pos int, full bool) []int { return r.matchAt(s, pos, full) }

// NumSubexp returns the number of capturing groups.
func (r *Regexp) NumSubexp() int { return r.groups }

// SubexpNames returns the names of the capturing groups (index 0 is "").
func (r *Regexp) SubexpNames() []string { return r.names }

// String returns the pattern as written.
func (r *Regexp) String() string { return r.pattern }

// matchAt returns the match anchored at pos (re.match, or re.fullmatch if
// full) or nil.
func (r *Regexp) matchAt(s string, pos int, full bool) []int {
	if r.Seq != nil {
		return r.Seq.MatchAt(s, pos, full)
	}
	r.compileVariants()
	find := func(s string) []int {
		switch {
		case pos > 0 && full:
			return withContext(r.fullCtx, s, pos)
		case pos > 0:
			return withContext(r.anchoredCtx, s, pos)
		case full && r.full != nil:
			return r.full.FindStringSubmatchIndex(s)
		case !full && r.anchored != nil:
			return r.anchored.FindStringSubmatchIndex(s)
		}
		return nil
	}
	m := find(s)
	if !full && r.finalNewline(s, pos) {
		if m2 := find(s[:len(s)-1]); m2 != nil && (m == nil || m2[1] > m[1]) {
			m = m2
		}
	}
	return m
}

// escapePattern implements re.escape.
func escapePattern(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c < 128 && strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// firstBytes returns the bytes a match of re can start with, or ok false
// when it cannot tell or any byte could start one. A rune past ASCII (or
// a literal under case folding, which folds k to the Kelvin sign) admits
// every non-ASCII byte.
func firstBytes(re *syntax.Regexp) (set *[256]bool, ok bool) {
	set = new([256]bool)
	if !addFirst(set, re) {
		return nil, false
	}
	n := 0
	for _, in := range set {
		if in {
			n++
		}
	}
	return set, n > 0 && n < 256
}

// addFirst adds to set the bytes a match of re can start with; false
// when it cannot tell.
func addFirst(set *[256]bool, re *syntax.Regexp) bool {
	nonASCII := func() {
		for b := 0x80; b < 0x100; b++ {
			set[b] = true
		}
	}
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpEndLine, syntax.OpEndText:
		return true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		c := re.Rune[0]
		switch {
		case c >= utf8.RuneSelf:
			nonASCII()
		case re.Flags&syntax.FoldCase != 0:
			set[c] = true
			set[unicode.ToUpper(c)] = true
			set[unicode.ToLower(c)] = true
			nonASCII()
		default:
			set[c] = true
		}
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for c := lo; c <= hi && c < utf8.RuneSelf; c++ {
				set[c] = true
			}
			if hi >= utf8.RuneSelf {
				nonASCII()
			}
		}
		return true
	case syntax.OpCapture, syntax.OpPlus, syntax.OpStar, syntax.OpQuest, syntax.OpRepeat:
		return addFirst(set, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !addFirst(set, sub) {
				return false
			}
			if !nullable(sub) {
				return true
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !addFirst(set, sub) {
				return false
			}
		}
		return true
	}
	return false // any character, ^, \A, \b, \B
}

// nullable reports whether re can match the empty string.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !nullable(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if nullable(sub) {
				return true
			}
		}
	}
	return false
}
