package pyre

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
)

// Prefilter finds the places in a text where a match of a pattern may be:
// occurrences of one of the literals every match contains (case-folded
// where the pattern ignores case), or of one of a small set of bytes every
// match contains. It is safe for concurrent use.
type Prefilter struct {
	lits  []lit  // required literals (one of them is in every match)
	class string // else a small set of bytes every match contains
}

// NewPrefilter analyses a parsed and simplified pattern; it returns nil when
// the pattern has neither required literals nor a small required byte set.
func NewPrefilter(re *syntax.Regexp) *Prefilter {
	if set, ok := required(re); ok {
		return &Prefilter{lits: set.lits}
	}
	if c, ok := requiredClass(re); ok {
		return &Prefilter{class: c}
	}
	return nil
}

// String describes what the prefilter scans for, e.g. "ERROR" | (?i)"warn"
// or class "0123456789".
func (p *Prefilter) String() string {
	if p.class != "" {
		return fmt.Sprintf("class %q", p.class)
	}
	parts := make([]string, len(p.lits))
	for i, l := range p.lits {
		if l.fold {
			parts[i] = fmt.Sprintf("(?i)%q", l.s)
		} else {
			parts[i] = fmt.Sprintf("%q", l.s)
		}
	}
	return strings.Join(parts, " | ")
}

// Scanner returns a scanner for one text (it keeps per-text state).
func (p *Prefilter) Scanner() *Scanner {
	if p.class != "" {
		return &Scanner{classScanner(p.class)}
	}
	return &Scanner{newScanner(p.lits)}
}

// Scanner finds the candidates of a [Prefilter] in one text, front to back.
type Scanner struct{ sc scanner }

// Next returns the offset of the first candidate (the start of a required
// literal or byte) at or after from, or -1. Calls on one text must not
// decrease from.
func (s *Scanner) Next(text string, from int) int { return s.sc.next(text, from) }

// maxAlternatives bounds the literals scanned for at once.
const maxAlternatives = 8

// litSet means: every match contains at least one of lits.
type litSet struct {
	lits []lit
}

func (s litSet) score() int {
	if len(s.lits) == 0 {
		return -1
	}
	best := 1 << 30
	for _, l := range s.lits {
		sc := len(l.s)
		if !l.fold {
			sc += 3 // an exact scan is cheaper and more selective
		}
		best = min(best, sc)
	}
	return best - 2*(len(s.lits)-1)
}

func better(a, b litSet) litSet {
	if b.score() > a.score() {
		return b
	}
	return a
}

// required computes literals that every match of re contains.
func required(re *syntax.Regexp) (litSet, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return literalSet(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		if r, fold, ok := classLiteral(re); ok {
			return literalSet([]rune{r}, fold)
		}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		return requiredConcat(re.Sub)
	case syntax.OpAlternate:
		var out litSet
		for _, sub := range re.Sub {
			s, ok := required(sub)
			if !ok {
				return litSet{}, false
			}
			out.lits = append(out.lits, s.lits...)
		}
		out.lits = dedupe(out.lits)
		if len(out.lits) > maxAlternatives {
			return litSet{}, false
		}
		return out, true
	}
	return litSet{}, false
}

// requiredConcat considers each child's literals and the runs of adjacent
// literal children (merged, e.g. [Mm] + "agic" -> (?i)"magic").
func requiredConcat(subs []*syntax.Regexp) (litSet, bool) {
	var best litSet
	type piece struct {
		r    []rune
		fold bool
	}
	var run []piece
	flush := func() {
		if len(run) == 0 {
			return
		}
		// The whole run, case-folded if any part is.
		var all []rune
		fold := false
		for _, p := range run {
			all = append(all, p.r...)
			fold = fold || p.fold
		}
		if s, ok := literalSet(all, fold); ok {
			best = better(best, s)
		}
		// Maximal exact sub-runs.
		var exact []rune
		for i, p := range run {
			if !p.fold {
				exact = append(exact, p.r...)
			}
			if p.fold || i == len(run)-1 {
				if len(exact) > 0 {
					if s, ok := literalSet(exact, false); ok {
						best = better(best, s)
					}
				}
				exact = nil
			}
		}
		run = nil
	}
	for _, sub := range subs {
		switch {
		case sub.Op == syntax.OpLiteral:
			run = append(run, piece{sub.Rune, sub.Flags&syntax.FoldCase != 0})
			continue
		case sub.Op == syntax.OpCharClass:
			if r, fold, ok := classLiteral(sub); ok {
				run = append(run, piece{[]rune{r}, fold})
				continue
			}
		}
		flush()
		if s, ok := required(sub); ok {
			best = better(best, s)
		}
	}
	flush()
	return best, len(best.lits) > 0
}

// literalSet makes a one-literal set. A case-folded literal keeps its
// longest part made of ASCII characters whose case folding stays in ASCII
// (not k or s, which also fold to the Kelvin sign and the long s).
func literalSet(rs []rune, fold bool) (litSet, bool) {
	if !fold {
		s := string(rs)
		if s == "" {
			return litSet{}, false
		}
		return litSet{lits: []lit{{s: s}}}, true
	}
	var best, cur []rune
	for _, r := range rs {
		lr := unicode.ToLower(r)
		if r >= 0x80 || lr == 'k' || lr == 's' {
			if len(cur) > len(best) {
				best = cur
			}
			cur = nil
			continue
		}
		cur = append(cur, lr)
	}
	if len(cur) > len(best) {
		best = cur
	}
	if len(best) == 0 {
		return litSet{}, false
	}
	s := string(best)
	if !hasLetter(s) {
		return litSet{lits: []lit{{s: s}}}, true
	}
	return litSet{lits: []lit{{s: s, fold: true}}}, true
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// classLiteral reports whether a character class is a single rune, or the
// two cases of one ASCII letter (then fold is true).
func classLiteral(re *syntax.Regexp) (r rune, fold, ok bool) {
	rs := re.Rune
	var members []rune
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i+1]-rs[i] > 2 {
			return 0, false, false
		}
		for c := rs[i]; c <= rs[i+1]; c++ {
			members = append(members, c)
		}
		if len(members) > 2 {
			return 0, false, false
		}
	}
	switch len(members) {
	case 1:
		return members[0], false, true
	case 2:
		a, b := members[0], members[1]
		if a < 0x80 && b < 0x80 && unicode.ToLower(a) == unicode.ToLower(b) && a != b {
			return unicode.ToLower(a), true, true
		}
	}
	return 0, false, false
}

func dedupe(ls []lit) []lit {
	seen := map[lit]bool{}
	out := ls[:0]
	for _, l := range ls {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// matchesNewline reports whether the pattern names a newline explicitly
// (a literal \n or a class of only line-break characters), so that it is
// meant to match across lines.
func matchesNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	case syntax.OpCharClass:
		has, other := false, false
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if c == '\n' {
					has = true
				} else if c != '\r' {
					other = true
				}
				if other {
					break
				}
			}
		}
		return has && !other
	}
	for _, sub := range re.Sub {
		if matchesNewline(sub) {
			return true
		}
	}
	return false
}

// scanner finds the next occurrence of a required literal.
type scanner interface {
	// next returns the start of the first occurrence at or after from, or -1.
	next(text string, from int) int
}

func newScanner(ls []lit) scanner {
	if len(ls) == 1 {
		return newLitScanner(ls[0])
	}
	m := &multiScanner{subs: make([]scanner, len(ls)), at: make([]int, len(ls))}
	for i, l := range ls {
		m.subs[i] = newLitScanner(l)
		m.at[i] = -2 // not searched yet
	}
	return m
}

func newLitScanner(l lit) scanner {
	if !l.fold {
		if len(l.s) < 2 {
			return exactScanner(l.s)
		}
		rare, best := 0, 1<<30
		for i := 0; i < len(l.s); i++ {
			if f := freqTable[l.s[i]]; f < best {
				rare, best = i, f
			}
		}
		return &rareScanner{needle: l.s, rare: rare}
	}
	// Scan for the rarest byte of the needle, in both cases.
	rare, best := 0, 1<<30
	for i := 0; i < len(l.s); i++ {
		if f := foldFreq(l.s[i]); f < best {
			rare, best = i, f
		}
	}
	c := l.s[rare]
	return &foldScanner{needle: l.s, rare: rare, lo: c, up: upper(c)}
}

type exactScanner string

func (s exactScanner) next(text string, from int) int {
	i := strings.Index(text[from:], string(s))
	if i < 0 {
		return -1
	}
	return from + i
}

// rareScanner finds an exact needle by scanning for its rarest byte: by a
// fixed frequency table, refined on the first call by a sample of the text.
// When that is its first byte, it uses strings.Index, which scans for the
// same byte and switches to a vector search when candidates are frequent.
type rareScanner struct {
	needle  string
	rare    int
	sampled bool
}

// sampleSize is the text sampled to pick the byte to scan for.
const sampleSize = 64 << 10

func (s *rareScanner) next(text string, from int) int {
	if !s.sampled {
		s.sampled = true
		s.rare = rarestInSample(s.needle, text[from:min(len(text), from+sampleSize)], s.rare)
	}
	if s.rare == 0 {
		return exactScanner(s.needle).next(text, from)
	}
	n := len(s.needle)
	c := s.needle[s.rare]
	for q := from + s.rare; q < len(text); q++ {
		i := strings.IndexByte(text[q:], c)
		if i < 0 {
			return -1
		}
		q += i
		start := q - s.rare
		if start+n <= len(text) && text[start:start+n] == s.needle {
			return start
		}
	}
	return -1
}

type foldScanner struct {
	needle  string // lower case ASCII
	rare    int    // index of the byte scanned for
	lo, up  byte   // its two cases
	sampled bool
}

func (s *foldScanner) next(text string, from int) int {
	if !s.sampled {
		s.sampled = true
		sample := text[from:min(len(text), from+sampleSize)]
		if len(sample) >= 4096 {
			var counts [256]int
			for i := 0; i < len(sample); i++ {
				counts[sample[i]]++
			}
			freq := func(c byte) int { return counts[c] + counts[upper(c)]*btoi(upper(c) != c) }
			for i := 0; i < len(s.needle); i++ {
				if freq(s.needle[i]) < freq(s.needle[s.rare]) {
					s.rare = i
				}
			}
			s.lo, s.up = s.needle[s.rare], upper(s.needle[s.rare])
		}
	}
	n := len(s.needle)
	for q := from + s.rare; q < len(text); q++ {
		i := indexByte2(text[q:], s.lo, s.up)
		if i < 0 {
			return -1
		}
		q += i
		start := q - s.rare
		if start+n <= len(text) && equalFoldASCII(text[start:start+n], s.needle) {
			return start
		}
	}
	return -1
}

// indexByte2 is the first index of a or b in s, or -1.
func indexByte2(s string, a, b byte) int {
	i := strings.IndexByte(s, a)
	if a == b {
		return i
	}
	t := s
	if i >= 0 {
		t = s[:i]
	}
	if j := strings.IndexByte(t, b); j >= 0 {
		return j
	}
	return i
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 0x20
	}
	return c
}

// equalFoldASCII compares s with a lower-case ASCII needle.
func equalFoldASCII(s, needle string) bool {
	for i := 0; i < len(needle); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 0x20
		}
		if c != needle[i] {
			return false
		}
	}
	return true
}

// multiScanner merges the occurrences of several literals.
type multiScanner struct {
	subs []scanner
	at   []int // next occurrence of each (-1: none left, -2: not searched)
}

func (m *multiScanner) next(text string, from int) int {
	best := -1
	for i, s := range m.subs {
		if m.at[i] == -2 || (m.at[i] >= 0 && m.at[i] < from) {
			m.at[i] = s.next(text, from)
		}
		if a := m.at[i]; a >= 0 && (best < 0 || a < best) {
			best = a
		}
	}
	return best
}

// byteRank orders bytes from most to least frequent in typical English text
// and code; bytes not listed are rare.
const byteRank = " etaoinsrhldcumfpgwybv,.kx\n\"0-1_j2q(z)=:/3'54869;ETAIOSNRCLDMPHBFGUWYVKXJQZ"

var freqTable = func() [256]int {
	var t [256]int
	for i := range t {
		t[i] = 0
	}
	n := len(byteRank)
	for i := 0; i < n; i++ {
		t[byteRank[i]] = n - i
	}
	return t
}()

// foldFreq is the relative frequency of a lower-case byte in both cases.
func foldFreq(c byte) int { return freqTable[c] + freqTable[upper(c)] }

// maxClassBytes bounds the byte classes used as a prefilter: scanning for
// a large class finds a candidate on nearly every line.
const maxClassBytes = 16

// requiredClass computes a small set of ASCII bytes of which every match
// contains at least one (e.g. the digits for \d{4}), for patterns without
// required literals.
func requiredClass(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) > 0 && re.Rune[0] < 0x80 {
			r := re.Rune[0]
			if re.Flags&syntax.FoldCase != 0 {
				lr := unicode.ToLower(r)
				if lr == 'k' || lr == 's' {
					return "", false
				}
				return string([]rune{lr, unicode.ToUpper(r)}), true
			}
			return string(r), true
		}
	case syntax.OpCharClass:
		var b []byte
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= 0x80 || int(re.Rune[i+1]-re.Rune[i]) >= maxClassBytes {
				return "", false
			}
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				b = append(b, byte(c))
			}
		}
		if len(b) == 0 || len(b) > maxClassBytes {
			return "", false
		}
		return string(b), true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredClass(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredClass(re.Sub[0])
		}
	case syntax.OpConcat:
		best, ok := "", false
		for _, sub := range re.Sub {
			if c, cok := requiredClass(sub); cok && (!ok || classCost(c) < classCost(best)) {
				best, ok = c, true
			}
		}
		return best, ok
	case syntax.OpAlternate:
		seen := map[byte]bool{}
		var b []byte
		for _, sub := range re.Sub {
			c, ok := requiredClass(sub)
			if !ok {
				return "", false
			}
			for i := 0; i < len(c); i++ {
				if !seen[c[i]] {
					seen[c[i]] = true
					b = append(b, c[i])
				}
			}
		}
		if len(b) > maxClassBytes {
			return "", false
		}
		return string(b), true
	}
	return "", false
}

// classCost estimates how often a byte class occurs in text.
func classCost(c string) int {
	n := 0
	for i := 0; i < len(c); i++ {
		n += freqTable[c[i]] + 1
	}
	return n
}

// classScanner finds the next byte of a class.
type classScanner string

func (s classScanner) next(text string, from int) int {
	i := strings.IndexAny(text[from:], string(s))
	if i < 0 {
		return -1
	}
	return from + i
}

// rarestInSample returns the index of the needle byte least frequent in
// sample (ties and small samples keep def).
func rarestInSample(needle, sample string, def int) int {
	rare, _ := rarestTwoInSample(needle, sample, def)
	return rare
}

// rarestTwoInSample returns rarestInSample's index and the index of the
// least frequent needle byte other than the byte there (rare itself when
// every byte of the needle is that byte, or the sample is small), counting
// the sample once.
func rarestTwoInSample(needle, sample string, def int) (rare, rare2 int) {
	if len(sample) < 4096 {
		return def, def
	}
	var counts [256]int
	for i := 0; i < len(sample); i++ {
		counts[sample[i]]++
	}
	rare = def
	for i := 0; i < len(needle); i++ {
		if counts[needle[i]] < counts[needle[rare]] {
			rare = i
		}
	}
	rare2 = rare
	for i := 0; i < len(needle); i++ {
		if needle[i] != needle[rare] && (rare2 == rare || counts[needle[i]] < counts[needle[rare2]]) {
			rare2 = i
		}
	}
	return rare, rare2
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
