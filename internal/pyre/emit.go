package pyre

import (
	"strconv"
	"strings"
)

// Python's \s for str patterns (str.isspace), as a class body in .NET syntax.
const (
	pySpace      = `\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`
	pyWord       = `\p{L}\p{N}_`
	asciiWord    = `a-zA-Z0-9_`
	asciiSpace   = `\t-\r `
	asciiDigit   = `0-9`
	unicodeDigit = `\p{Nd}`
)

// emitter writes a parsed pattern in the syntax of regexp2 (.NET's), with
// Python's meaning: \w, \s, \d and \b as Python defines them for str
// patterns (or ASCII), \Z as the very end, groups numbered in order.
type emitter struct {
	b strings.Builder
}

// netSyntax returns t in regexp2 syntax.
func netSyntax(t *tree) string {
	e := &emitter{}
	var fl string
	if t.flags&IgnoreCase != 0 {
		fl += "i"
	}
	if t.flags&Multiline != 0 {
		fl += "m"
	}
	if t.flags&DotAll != 0 {
		fl += "s"
	}
	if fl != "" {
		e.b.WriteString("(?" + fl + ")")
	}
	e.seq(t.seq, t.flags&ASCII != 0)
	return e.b.String()
}

func (e *emitter) seq(seq []*node, ascii bool) {
	for _, n := range seq {
		e.node(n, ascii)
	}
}

// lit writes r as a literal outside a class.
func (e *emitter) lit(r rune) {
	switch {
	case r < 0x80 && strings.ContainsRune(`\*+?|{}[]()^$.# -`, r):
		e.b.WriteByte('\\')
		e.b.WriteRune(r)
	case r < 0x20 || r == 0x7f:
		e.b.WriteString(`\x` + hex2(r))
	default:
		e.b.WriteRune(r)
	}
}

func hex2(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

// classLit writes r as a literal inside a class.
func (e *emitter) classLit(r rune) {
	switch {
	case r < 0x80 && strings.ContainsRune(`\]^-[`, r):
		e.b.WriteByte('\\')
		e.b.WriteRune(r)
	case r < 0x20 || r == 0x7f:
		e.b.WriteString(`\x` + hex2(r))
	default:
		e.b.WriteRune(r)
	}
}

// catBody returns the class body of a positive category (d, s, w).
func catBody(cat byte, ascii bool) string {
	switch cat {
	case 'd':
		if ascii {
			return asciiDigit
		}
		return unicodeDigit
	case 's':
		if ascii {
			return asciiSpace
		}
		return pySpace
	}
	if ascii {
		return asciiWord
	}
	return pyWord
}

// cat writes a category escape as a standalone class.
func (e *emitter) cat(cat byte, ascii bool) {
	lower := cat | 0x20
	if cat == lower {
		e.b.WriteString("[" + catBody(lower, ascii) + "]")
	} else {
		e.b.WriteString("[^" + catBody(lower, ascii) + "]")
	}
}

// set writes a character set. Negated categories inside a set (\W, \S,
// \D) have no class-body form, so such a set becomes an alternation.
func (e *emitter) set(n *node, ascii bool) {
	var body strings.Builder
	var negCats []byte
	for _, it := range n.set {
		switch {
		case it.cat != 0 && it.cat == it.cat|0x20:
			body.WriteString(catBody(it.cat, ascii))
		case it.cat != 0:
			negCats = append(negCats, it.cat|0x20)
		default:
			sub := &emitter{}
			sub.classLit(it.lo)
			if it.hi != it.lo {
				sub.b.WriteByte('-')
				sub.classLit(it.hi)
			}
			body.WriteString(sub.b.String())
		}
	}
	if len(negCats) == 0 {
		if n.neg {
			e.b.WriteString("[^" + body.String() + "]")
		} else {
			e.b.WriteString("[" + body.String() + "]")
		}
		return
	}
	var alt []string
	if body.Len() > 0 {
		alt = append(alt, "["+body.String()+"]")
	}
	for _, c := range negCats {
		alt = append(alt, "[^"+catBody(c, ascii)+"]")
	}
	union := "(?:" + strings.Join(alt, "|") + ")"
	if n.neg {
		e.b.WriteString(`(?:(?!` + union + `)[\s\S])`)
		return
	}
	e.b.WriteString(union)
}

func (e *emitter) node(n *node, ascii bool) {
	switch n.op {
	case opLit:
		e.lit(n.r)
	case opNotLit:
		e.b.WriteString("[^")
		e.classLit(n.r)
		e.b.WriteString("]")
	case opAny:
		e.b.WriteByte('.')
	case opIn:
		e.set(n, ascii)
	case opCat:
		e.cat(n.cat, ascii)
	case opAt:
		switch n.at {
		case '^', '$':
			e.b.WriteByte(n.at)
		case 'A':
			e.b.WriteString(`\A`)
		case 'Z':
			e.b.WriteString(`\z`)
		case 'b', 'B':
			w := "[" + catBody('w', ascii) + "]"
			bound := `(?:(?<=` + w + `)(?!` + w + `)|(?<!` + w + `)(?=` + w + `))`
			if n.at == 'B' {
				bound = `(?!` + bound + `)`
			}
			e.b.WriteString(bound)
		}
	case opBranch:
		e.b.WriteString("(?:")
		for i, alt := range n.alts {
			if i > 0 {
				e.b.WriteByte('|')
			}
			e.seq(alt, ascii)
		}
		e.b.WriteByte(')')
	case opGroup:
		switch {
		case n.group > 0:
			e.b.WriteByte('(')
		case n.add&^(ASCII|Unicode|Verbose) != 0 || n.del&^Verbose != 0:
			e.b.WriteString("(?" + netFlags(n.add))
			if d := netFlags(n.del); d != "" {
				e.b.WriteString("-" + d)
			}
			e.b.WriteByte(':')
		default:
			e.b.WriteString("(?:")
		}
		sub := ascii
		if n.add&ASCII != 0 {
			sub = true
		} else if n.add&Unicode != 0 {
			sub = false
		}
		e.seq(n.sub, sub)
		e.b.WriteByte(')')
	case opAtomic:
		e.b.WriteString("(?>")
		e.seq(n.sub, ascii)
		e.b.WriteByte(')')
	case opAssert:
		e.b.WriteString("(?")
		if n.dir < 0 {
			e.b.WriteByte('<')
		}
		if n.neg {
			e.b.WriteByte('!')
		} else {
			e.b.WriteByte('=')
		}
		e.seq(n.sub, ascii)
		e.b.WriteByte(')')
	case opRepeat:
		if n.poss {
			e.b.WriteString("(?>")
		}
		e.b.WriteString("(?:")
		e.seq(n.sub, ascii)
		e.b.WriteByte(')')
		switch {
		case n.min == 0 && n.max == maxRepeat:
			e.b.WriteByte('*')
		case n.min == 1 && n.max == maxRepeat:
			e.b.WriteByte('+')
		case n.min == 0 && n.max == 1:
			e.b.WriteByte('?')
		case n.max == maxRepeat:
			e.b.WriteString("{" + strconv.Itoa(n.min) + ",}")
		case n.min == n.max:
			e.b.WriteString("{" + strconv.Itoa(n.min) + "}")
		default:
			e.b.WriteString("{" + strconv.Itoa(n.min) + "," + strconv.Itoa(n.max) + "}")
		}
		if n.lazy {
			e.b.WriteByte('?')
		}
		if n.poss {
			e.b.WriteByte(')')
		}
	case opRef:
		e.b.WriteString(`\k<` + strconv.Itoa(n.group) + `>`)
	case opCond:
		e.b.WriteString("(?(" + strconv.Itoa(n.group) + ")")
		e.seq(n.sub, ascii)
		if n.no != nil {
			e.b.WriteByte('|')
			e.seq(n.no, ascii)
		}
		e.b.WriteByte(')')
	}
}

func netFlags(f Flags) string {
	var s string
	if f&IgnoreCase != 0 {
		s += "i"
	}
	if f&Multiline != 0 {
		s += "m"
	}
	if f&DotAll != 0 {
		s += "s"
	}
	return s
}
