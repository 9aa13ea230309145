package grep

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// ErrUnsupported is wrapped by errors for Python regex constructs RE2 lacks.
var ErrUnsupported = errors.New("not supported by RE2")

// Matcher finds matches of one pattern. It is safe for concurrent use.
type Matcher struct {
	lit    string         // literal pattern (re == nil)
	re     *regexp.Regexp // compiled with (?m): ^ and $ match at line ends
	pre    []lit          // required literals; empty: no prefilter
	class  string         // else a small set of bytes every match contains
	whole  bool           // the pattern can match a newline explicitly: match over the whole text
	prefix string         // description of the prefilter, for tests and benchmarks
}

// lit is one required literal; fold means ASCII case-insensitive (s is lower case).
type lit struct {
	s    string
	fold bool
}

// Literal returns a Matcher for the exact string s.
func Literal(s string) *Matcher {
	return &Matcher{lit: s, prefix: fmt.Sprintf("literal %q", s)}
}

// Compile compiles a Python-style regular expression. ^ and $ match at the
// start and end of each line (as with re.MULTILINE).
func Compile(pattern string) (*Matcher, error) {
	expr, err := Translate(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %s", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	m := &Matcher{re: re, prefix: "none"}
	tree, err := syntax.Parse("(?m)"+expr, syntax.Perl)
	if err != nil { // cannot happen: regexp.Compile parsed it
		return m, nil
	}
	tree = tree.Simplify()
	m.whole = matchesNewline(tree)
	if set, ok := required(tree); ok {
		m.pre = set.lits
		var parts []string
		for _, l := range set.lits {
			if l.fold {
				parts = append(parts, fmt.Sprintf("(?i)%q", l.s))
			} else {
				parts = append(parts, fmt.Sprintf("%q", l.s))
			}
		}
		m.prefix = strings.Join(parts, " | ")
	} else if c, ok := requiredClass(tree); ok {
		m.class = c
		m.prefix = fmt.Sprintf("class %q", c)
	}
	return m, nil
}

// Prefilter describes the literals the matcher scans for ("none" if it runs
// the regular expression over every line).
func (m *Matcher) Prefilter() string { return m.prefix }

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
	case len(m.pre) > 0:
		m.findCandidates(text, newScanner(m.pre), emit)
	case m.class != "":
		m.findCandidates(text, classScanner(m.class), emit)
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

func (m *Matcher) findCandidates(text string, sc scanner, emit func(s, e int) bool) {
	for pos := 0; pos <= len(text); {
		c := sc.next(text, pos)
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

// Translate rewrites a Python re pattern into RE2 syntax, rejecting
// constructs RE2 lacks with an explanation.
func Translate(pattern string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			d := pattern[i+1]
			switch {
			case !inClass && d == 'Z':
				b.WriteString(`\z`)
				i++
				continue
			case !inClass && d >= '1' && d <= '9':
				return "", fmt.Errorf("regular expression %q uses a backreference (\\%c), which is %w; match the parts separately and compare them in code", pattern, d, ErrUnsupported)
			case d == 'w':
				// Python's \w is Unicode (letters, digits, _); RE2's is ASCII.
				if inClass {
					b.WriteString(`\p{L}\p{N}_`)
				} else {
					b.WriteString(`[\p{L}\p{N}_]`)
				}
				i++
				continue
			case !inClass && d == 'W':
				b.WriteString(`[^\p{L}\p{N}_]`)
				i++
				continue
			}
			b.WriteByte(c)
			b.WriteByte(d)
			i++
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			// A ']' right after '[' or '[^' is a literal.
			if strings.HasPrefix(pattern[i+1:], "^]") {
				b.WriteString("[^\\]")
				i += 2
				continue
			} else if strings.HasPrefix(pattern[i+1:], "]") {
				b.WriteString("[\\]")
				i++
				continue
			}
		case c == '(' && strings.HasPrefix(pattern[i:], "(?"):
			rest := pattern[i+2:]
			switch {
			case strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!"):
				return "", fmt.Errorf("regular expression %q uses a lookahead (?%c...), which is %w; match more broadly and filter the matches in code", pattern, rest[0], ErrUnsupported)
			case strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!"):
				return "", fmt.Errorf("regular expression %q uses a lookbehind (?%s...), which is %w; match more broadly and filter the matches in code", pattern, rest[:2], ErrUnsupported)
			case strings.HasPrefix(rest, "P="):
				return "", fmt.Errorf("regular expression %q uses a named backreference (?P=...), which is %w; match the parts separately and compare them in code", pattern, ErrUnsupported)
			case strings.HasPrefix(rest, ">"):
				return "", fmt.Errorf("regular expression %q uses an atomic group (?>...), which is %w; use a plain group (...)", pattern, ErrUnsupported)
			}
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}
