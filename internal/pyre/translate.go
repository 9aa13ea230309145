package pyre

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// ErrUnsupported is wrapped by errors for Python regex constructs RE2 lacks.
var ErrUnsupported = errors.New("not supported by RE2, a linear-time engine")

// Flags are Python re flags, with Python's values (re.I = 2, re.M = 8, ...).
type Flags int

// Python re flag values.
const (
	IgnoreCase Flags = 2
	Locale     Flags = 4
	Multiline  Flags = 8
	DotAll     Flags = 16
	Unicode    Flags = 32
	Verbose    Flags = 64
	ASCII      Flags = 256
)

// CompileRE translates a Python re pattern with flags (see [Translate]) and
// compiles it for RE2. It returns the translated expression too.
func CompileRE(pattern string, flags Flags) (*regexp.Regexp, string, error) {
	expr, err := Translate(pattern, flags)
	if err != nil {
		return nil, "", err
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		// Name the problem, not the translated expression.
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = string(se.Code)
		}
		return nil, "", fmt.Errorf("invalid regular expression %q: %s", pattern, msg)
	}
	return re, expr, nil
}

// Translate rewrites a Python re pattern with flags into RE2 syntax: flags
// become a leading (?ims), verbose patterns lose their whitespace and
// comments, \Z becomes \z, \w and \W are Unicode-aware unless ASCII is set,
// \uXXXX and \UXXXXXXXX become \x{...}, {,n} becomes {0,n}, a ']' first in
// a class is literal, (?#...) comments are dropped. Constructs RE2 lacks
// (lookaround, backreferences, atomic groups, possessive quantifiers,
// conditional groups) are errors wrapping [ErrUnsupported] that say what to
// do instead.
func Translate(pattern string, flags Flags) (string, error) {
	unsupported := func(what, advice string) error {
		return fmt.Errorf("regular expression %q uses %s, which is %w; %s", pattern, what, ErrUnsupported, advice)
	}
	const filter = "match more broadly and filter the matches in code"
	const compare = "match the parts separately and compare them in code"
	p := pattern
	verbose := flags&Verbose != 0
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
	if flags&IgnoreCase != 0 {
		prefix += "i"
	}
	if flags&Multiline != 0 {
		prefix += "m"
	}
	if flags&DotAll != 0 {
		prefix += "s"
	}
	if prefix != "" {
		b.WriteString("(?" + prefix + ")")
	}
	unicodeWord := flags&ASCII == 0
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n == 'Z' && !inClass:
				b.WriteString(`\z`)
			case n >= '1' && n <= '9' && !inClass:
				return "", unsupported(`a backreference (\`+string(n)+`)`, compare)
			case n == 'u' && i+5 < len(p):
				b.WriteString(`\x{` + p[i+2:i+6] + `}`)
				i += 4
			case n == 'U' && i+9 < len(p):
				b.WriteString(`\x{` + p[i+2:i+10] + `}`)
				i += 8
			case n == 'x' && i+3 < len(p) && p[i+2] != '{':
				b.WriteString(p[i : i+4])
				i += 2
			case n == 'w' && unicodeWord:
				// Python's \w is Unicode (letters, digits, _); RE2's is ASCII.
				if inClass {
					b.WriteString(`\p{L}\p{N}_`)
				} else {
					b.WriteString(`[\p{L}\p{N}_]`)
				}
			case n == 'W' && unicodeWord && !inClass:
				b.WriteString(`[^\p{L}\p{N}_]`)

			case n == 's' || n == 'S' && !inClass:
				// Python's \s has \v (and, for str patterns, \x1c-\x1f and
				// Unicode spaces); RE2's is [\t\n\f\r ].
				space := `\t-\r\x1c-\x20\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`
				if !unicodeWord {
					space = `\t-\r `
				}
				switch {
				case inClass:
					b.WriteString(space)
				case n == 's':
					b.WriteString("[" + space + "]")
				default:
					b.WriteString("[^" + space + "]")
				}
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
				// Python has no POSIX classes: "[:" is literal.
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
				return "", unsupported("a lookahead assertion (?"+rest[:1]+"...)", filter)
			case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
				return "", unsupported("a lookbehind assertion (?"+rest[:2]+"...)", filter)
			case strings.HasPrefix(rest, "P="):
				return "", unsupported("a named backreference (?P=...)", compare)
			case strings.HasPrefix(rest, ">"):
				return "", unsupported("an atomic group (?>...)", "use a plain group (?:...)")
			case strings.HasPrefix(rest, "("):
				return "", unsupported("a conditional group (?(...)...)", "use two searches, or match both forms with |")
			case strings.HasPrefix(rest, "#"):
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					return "", fmt.Errorf("invalid regular expression %q: missing ), unterminated comment", pattern)
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
			return "", unsupported("a possessive quantifier ("+string(c)+"+)", "use the plain quantifier ("+string(c)+")")
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
