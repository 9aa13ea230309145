package sandbox

import (
	le "encoding/binary"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Python re flag values.
const (
	reIgnoreCase = 2
	reLocale     = 4
	reMultiline  = 8
	reDotAll     = 16
	reUnicode    = 32
	reVerbose    = 64
	reASCII      = 256
)

// Regexp is a Python-syntax regular expression compiled for Go's RE2
// engine (linear time), with a literal prefilter: when the pattern
// requires a literal and cannot match across a newline, only the lines
// containing that literal are searched with the full expression.
type Regexp struct {
	re      *regexp.Regexp
	pattern string // as written (Python syntax)
	flags   int

	lit      string // required literal ("" if none)
	litFold  bool   // lit must be matched case-insensitively (lit is lower-case)
	lineOK   bool   // matches cannot span lines and use no \A \z anchors
	pureLit  bool   // the pattern is exactly lit (no captures)
	dollarNL bool   // a non-multiline $ that Python also matches before a final newline
	once     sync.Once
	anchored *regexp.Regexp
	full     *regexp.Regexp
}

// prefilterMin is the text size from which the literal prefilter is used.
const prefilterMin = 16 << 10

// CompileRegexp compiles a Python-syntax pattern with Python re flags
// (re.I = 2, re.M = 8, re.S = 16, re.X = 64). Python-only syntax RE2 lacks
// (lookaround, backreferences) is a clear error.
func CompileRegexp(pattern string, flags int) (*Regexp, error) {
	goPat, err := translatePattern(pattern, flags)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(goPat)
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		return nil, &PyError{Kind: "re.error", Msg: msg}
	}
	r := &Regexp{re: re, pattern: pattern, flags: flags}
	r.dollarNL = flags&reMultiline == 0 && !inlineMultiline.MatchString(pattern) && hasPlainDollar(pattern)
	r.analyze(goPat)
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

// translatePattern converts Python regex syntax to Go syntax.
func translatePattern(p string, flags int) (string, error) {
	unsupported := func(what string) error {
		return &PyError{Kind: "re.error", Msg: "re: " + what + " not supported (the sandbox uses the RE2 engine, which runs in linear time); rewrite the pattern without it, e.g. match more and filter in code, or use two searches", Err: ErrUnsupported}
	}
	verbose := flags&reVerbose != 0
	if strings.HasPrefix(p, "(?") {
		// Leading inline flags like (?x) or (?ix): handle x here.
		end := strings.IndexByte(p, ')')
		if end > 2 {
			fl := p[2:end]
			if strings.Trim(fl, "imsxauL") == "" && strings.ContainsRune(fl, 'x') {
				verbose = true
				fl = strings.Map(func(r rune) rune {
					if strings.ContainsRune("xauL", r) {
						return -1
					}
					return r
				}, fl)
				if fl == "" {
					p = p[end+1:]
				} else {
					p = "(?" + fl + ")" + p[end+1:]
				}
			}
		}
	}
	var b strings.Builder
	var prefix string
	if flags&reIgnoreCase != 0 {
		prefix += "i"
	}
	if flags&reMultiline != 0 {
		prefix += "m"
	}
	if flags&reDotAll != 0 {
		prefix += "s"
	}
	if prefix != "" {
		b.WriteString("(?" + prefix + ")")
	}
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n == 'Z':
				b.WriteString(`\z`)
			case n >= '1' && n <= '9' && !inClass:
				return "", unsupported("backreferences (\\" + string(n) + ") are")
			case n == 'u' && i+5 < len(p):
				b.WriteString(`\x{` + p[i+2:i+6] + `}`)
				i += 4
			case n == 'U' && i+9 < len(p):
				b.WriteString(`\x{` + p[i+2:i+10] + `}`)
				i += 8
			case n == 'x' && i+3 < len(p) && p[i+2] != '{':
				b.WriteString(p[i : i+4])
				i += 2
			case n == 'w' && flags&reASCII == 0:
				// Python's \w is Unicode (letters, digits, _); RE2's is ASCII.
				if inClass {
					b.WriteString(`\p{L}\p{N}_`)
				} else {
					b.WriteString(`[\p{L}\p{N}_]`)
				}
			case n == 'W' && flags&reASCII == 0 && !inClass:
				b.WriteString(`[^\p{L}\p{N}_]`)
			default:
				b.WriteByte(c)
				b.WriteByte(n)
			}
			i++
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
			if c == '[' && i+1 < len(p) && p[i+1] == ':' {
				b.WriteString(`\[`)
				continue
			}
			b.WriteByte(c)
			continue
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is literal in Python.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
			continue
		case c == '(' && strings.HasPrefix(p[i:], "(?"):
			rest := p[i+2:]
			switch {
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"):
				return "", unsupported("lookahead assertions ((?=...), (?!...)) are")
			case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
				return "", unsupported("lookbehind assertions ((?<=...), (?<!...)) are")
			case strings.HasPrefix(rest, "P="):
				return "", unsupported("named backreferences ((?P=name)) are")
			case strings.HasPrefix(rest, ">"):
				return "", unsupported("atomic groups are")
			case strings.HasPrefix(rest, "("):
				return "", unsupported("conditional groups are")
			case strings.HasPrefix(rest, "#"):
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					return "", &PyError{Kind: "re.error", Msg: "missing ), unterminated comment"}
				}
				i += 2 + end
				continue
			}
			b.WriteByte(c)
			continue
		case c == '{' && strings.HasPrefix(p[i:], "{,"):
			b.WriteString("{0,")
			i++
			continue
		case (c == '+' || c == '*' || c == '?' || c == '}') && i+1 < len(p) && p[i+1] == '+':
			return "", unsupported("possessive quantifiers are")
		case verbose && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'):
			continue
		case verbose && c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// analyze extracts the prefilter literal.
func (r *Regexp) analyze(goPat string) {
	re, err := syntax.Parse(goPat, syntax.Perl)
	if err != nil {
		return
	}
	re = re.Simplify()
	r.lineOK = lineLocal(re)
	lit, fold := requiredLiteral(re)
	if lit == "" {
		return
	}
	if fold {
		// Fold only when the literal is ASCII; else fall back to the regex.
		for i := 0; i < len(lit); i++ {
			if lit[i] >= utf8.RuneSelf {
				return
			}
		}
		lit = strings.ToLower(lit)
	}
	r.lit, r.litFold = lit, fold
	if re.Op == syntax.OpLiteral {
		r.pureLit = true
		return
	}
	// Go's regexp already skips ahead with a case-sensitive literal prefix;
	// the prefilter only pays when there is none.
	if prefix, _ := r.re.LiteralPrefix(); len(prefix) >= 3 {
		r.lit = ""
	}
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

// requiredLiteral returns the longest literal every match must contain.
func requiredLiteral(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, bestFold := "", false
		for _, s := range re.Sub {
			if l, f := requiredLiteral(s); len(l) > len(best) {
				best, bestFold = l, f
			}
		}
		return best, bestFold
	}
	return "", false
}

// literalIndex returns the index of the next occurrence of r.lit in s at
// or after from, or -1.
func (r *Regexp) literalIndex(s string, from int, buf *[]byte) int {
	if !r.litFold {
		i := strings.Index(s[from:], r.lit)
		if i < 0 {
			return -1
		}
		return from + i
	}
	return indexFold(s, r.lit, from, buf)
}

// indexFold finds lit (ASCII lower-case) in s case-insensitively, by
// lower-casing s in blocks (8 bytes at a time) and searching each block.
func indexFold(s, lit string, from int, buf *[]byte) int {
	const block = 64 << 10
	if *buf == nil {
		*buf = make([]byte, block+len(lit)+8)
	}
	for start := from; start < len(s); start += block {
		end := start + block + len(lit) - 1
		if end > len(s) {
			end = len(s)
		}
		b := (*buf)[:end-start]
		lowerASCII(b, s[start:end])
		if i := strings.Index(unsafeString(b), lit); i >= 0 {
			return start + i
		}
		if end == len(s) {
			break
		}
	}
	return -1
}

// lowerASCII writes src with ASCII A-Z lower-cased into dst (same length).
func lowerASCII(dst []byte, src string) {
	const ones = 0x0101010101010101
	const highs = 0x8080808080808080
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := uint64(src[i]) | uint64(src[i+1])<<8 | uint64(src[i+2])<<16 | uint64(src[i+3])<<24 |
			uint64(src[i+4])<<32 | uint64(src[i+5])<<40 | uint64(src[i+6])<<48 | uint64(src[i+7])<<56
		h := x &^ highs
		geA := (h + (0x80-'A')*ones) & highs
		gtZ := (h + (0x80-'Z'-1)*ones) & highs
		upper := geA &^ gtZ &^ x & highs
		le.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}

// unsafeString views b as a string without copying (b is not modified
// while the string is in use).
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

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

// canPrefilter reports whether the prefilter applies to a search of s from pos.
func (r *Regexp) canPrefilter(s string, pos int) bool {
	return r.lit != "" && len(s)-pos >= prefilterMin && (r.lineOK || r.pureLit && !r.litFold)
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
	if r.canPrefilter(s, pos) {
		var buf []byte
		from := pos
		for {
			i := r.literalIndex(s, from, &buf)
			if i < 0 {
				return nil
			}
			if r.pureLit && !r.litFold {
				return []int{i, i + len(r.lit)}
			}
			ls, le := lineBounds(s, i)
			if ls < pos {
				ls = pos
			}
			if m := r.re.FindStringSubmatchIndex(s[ls:le]); m != nil {
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
		return r.re.FindStringSubmatchIndex(s)
	}
	return r.findFrom(s, pos)
}

// findFrom finds the first match at or after pos, with ^ and \b seeing the
// text before pos as Python's pos argument does.
func (r *Regexp) findFrom(s string, pos int) []int {
	rd := strings.NewReader(s)
	rd.Seek(int64(pos), 0)
	m := r.re.FindReaderSubmatchIndex(rd)
	if m == nil {
		return nil
	}
	for k := range m {
		if m[k] >= 0 {
			m[k] += pos
		}
	}
	return m
}

// FindAllIndex returns up to n (all if n < 0) non-overlapping matches.
func (r *Regexp) FindAllIndex(s string, n int) [][]int {
	if r.finalNewline(s, 0) {
		var out [][]int
		for pos := 0; pos <= len(s) && (n < 0 || len(out) < n); {
			m := r.FindIndex(s, pos)
			if m == nil {
				break
			}
			out = append(out, m)
			pos = m[1]
			if m[1] == m[0] {
				_, size := utf8.DecodeRuneInString(s[pos:])
				pos += max(size, 1)
			}
		}
		return out
	}
	if !r.canPrefilter(s, 0) {
		return r.re.FindAllStringSubmatchIndex(s, n)
	}
	var out [][]int
	var buf []byte
	from := 0
	for n < 0 || len(out) < n {
		i := r.literalIndex(s, from, &buf)
		if i < 0 {
			break
		}
		if r.pureLit && !r.litFold {
			out = append(out, []int{i, i + len(r.lit)})
			from = i + len(r.lit)
			continue
		}
		ls, le := lineBounds(s, i)
		if ls < from {
			ls = from
		}
		ms := r.re.FindAllStringSubmatchIndex(s[ls:le], -1)
		for _, m := range ms {
			for k := range m {
				if m[k] >= 0 {
					m[k] += ls
				}
			}
			out = append(out, m)
			if n >= 0 && len(out) >= n {
				break
			}
		}
		from = le + 1
		if from >= len(s) {
			break
		}
	}
	return out
}

// NumSubexp returns the number of capturing groups.
func (r *Regexp) NumSubexp() int { return r.re.NumSubexp() }

// SubexpNames returns the names of the capturing groups (index 0 is "").
func (r *Regexp) SubexpNames() []string { return r.re.SubexpNames() }

// String returns the pattern as written.
func (r *Regexp) String() string { return r.pattern }

// matchAt returns the match anchored at pos (re.match) or nil.
func (r *Regexp) matchAt(s string, pos int, full bool) []int {
	r.once.Do(func() {
		r.anchored, _ = regexp.Compile(`\A(?:` + r.re.String() + `)`)
		r.full, _ = regexp.Compile(`\A(?:` + r.re.String() + `)\z`)
	})
	re := r.anchored
	if full {
		re = r.full
	}
	if re == nil {
		return nil
	}
	m := re.FindStringSubmatchIndex(s[pos:])
	if !full && r.finalNewline(s, pos) {
		if m2 := re.FindStringSubmatchIndex(s[pos : len(s)-1]); m2 != nil && (m == nil || m2[1] > m[1]) {
			m = m2
		}
	}
	if m == nil {
		return nil
	}
	for k := range m {
		if m[k] >= 0 {
			m[k] += pos
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

var _ = unicode.IsSpace
var _ = fmt.Sprintf
