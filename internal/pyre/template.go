package pyre

import (
	"fmt"
	"strconv"
	"strings"
)

// Template is a parsed re.sub replacement template: literal text and
// group references (\1, \g<1>, \g<name>, \g<0>).
type Template struct {
	parts []tmplPart
}

type tmplPart struct {
	lit   string
	group int // -1: literal
}

// ParseTemplate parses a replacement template as CPython 3.11's
// re._parser.parse_template does, for a pattern with groups capturing
// groups named by names (index = group number). Errors carry CPython's
// messages; an unknown group name is an [*Error] of Kind "IndexError".
func ParseTemplate(tmpl string, groups int, names []string) (*Template, error) {
	t := &Template{}
	if !strings.Contains(tmpl, `\`) {
		t.parts = []tmplPart{{lit: tmpl, group: -1}}
		return t, nil
	}
	src := []rune(tmpl)
	var lit strings.Builder
	errAt := func(msg string, pos int) error { return &Error{Msg: msg, Pattern: tmpl, Pos: pos} }
	addGroup := func(g, pos int) error {
		if g > groups {
			return errAt(fmt.Sprintf("invalid group reference %d", g), pos)
		}
		if lit.Len() > 0 {
			t.parts = append(t.parts, tmplPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
		t.parts = append(t.parts, tmplPart{group: g})
		return nil
	}
	isOct := func(i int) bool { return i < len(src) && src[i] >= '0' && src[i] <= '7' }
	isDig := func(i int) bool { return i < len(src) && src[i] >= '0' && src[i] <= '9' }
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' {
			lit.WriteRune(c)
			continue
		}
		if i+1 >= len(src) {
			return nil, errAt("bad escape (end of pattern)", len(src)-1)
		}
		start := i
		i++
		c = src[i]
		switch {
		case c == 'g':
			i++
			if i >= len(src) || src[i] != '<' {
				return nil, errAt("missing <", i)
			}
			end := i + 1
			for end < len(src) && src[end] != '>' {
				end++
			}
			name := string(src[i+1 : min(end, len(src))])
			if end >= len(src) {
				if name == "" {
					return nil, errAt("missing group name", end)
				}
				return nil, errAt("missing >, unterminated name", i+1)
			}
			if name == "" {
				return nil, errAt("missing group name", i+1)
			}
			var g int
			if isIdentifier(name) {
				g = -1
				for k, n := range names {
					if n == name && k > 0 {
						g = k
					}
				}
				if g < 0 {
					return nil, &Error{Msg: fmt.Sprintf("unknown group name %s", pyQuote(name)), Pos: -1, Kind: "IndexError"}
				}
			} else {
				v, err := strconv.ParseUint(name, 10, 64)
				if err != nil || strings.ContainsAny(name, "+-_ ") {
					return nil, errAt(fmt.Sprintf("bad character in group name %s", pyQuote(name)), i+1)
				}
				if v >= 1<<30 {
					return nil, errAt(fmt.Sprintf("invalid group reference %d", v), i+1)
				}
				g = int(v)
			}
			if err := addGroup(g, i+1); err != nil {
				return nil, err
			}
			i = end
		case c == '0':
			j := i + 1
			for j < len(src) && j < i+3 && isOct(j) {
				j++
			}
			v, _ := strconv.ParseUint(string(src[i:j]), 8, 32)
			lit.WriteRune(rune(v & 0xff))
			i = j - 1
		case c >= '1' && c <= '9':
			j := i + 1
			if isDig(j) {
				j++
				if c <= '7' && src[j-1] <= '7' && isOct(j) {
					v, _ := strconv.ParseUint(string(src[i:j+1]), 8, 32)
					if v > 0o377 {
						return nil, errAt(fmt.Sprintf("octal escape value %s outside of range 0-0o377", string(src[start:j+1])), start)
					}
					lit.WriteRune(rune(v))
					i = j
					continue
				}
			}
			g, _ := strconv.Atoi(string(src[i:j]))
			if err := addGroup(g, i); err != nil {
				return nil, err
			}
			i = j - 1
		default:
			esc := `\` + string(c)
			if r, ok := simpleEscapes[esc]; ok {
				lit.WriteRune(r)
				continue
			}
			if c < 0x80 && strings.ContainsRune(asciiLetter, c) {
				return nil, errAt("bad escape "+esc, start)
			}
			lit.WriteString(esc)
		}
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, tmplPart{lit: lit.String(), group: -1})
	}
	return t, nil
}

// Literal reports whether the template has no group references, and its text.
func (t *Template) Literal() (string, bool) {
	switch {
	case len(t.parts) == 0:
		return "", true
	case len(t.parts) == 1 && t.parts[0].group < 0:
		return t.parts[0].lit, true
	}
	return "", false
}

// Expand appends the template for one match to b; group returns a group's
// text ("" for a group that did not participate).
func (t *Template) Expand(b *strings.Builder, group func(int) string) {
	for _, p := range t.parts {
		if p.group < 0 {
			b.WriteString(p.lit)
		} else {
			b.WriteString(group(p.group))
		}
	}
}
