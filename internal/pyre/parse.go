package pyre

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Error is a Python re.error: the message CPython 3.11's re module gives
// for a bad pattern or replacement template, with the position (in code
// points) when CPython reports one.
type Error struct {
	Msg     string
	Pattern string
	Pos     int    // -1: no position
	Kind    string // "": re.error; else the Python exception CPython raises (OverflowError, ValueError)
}

// Error formats the message as CPython's re.error does: "msg at position
// N", with the line and column when the pattern has several lines.
func (e *Error) Error() string {
	if e.Pos < 0 {
		return e.Msg
	}
	msg := fmt.Sprintf("%s at position %d", e.Msg, e.Pos)
	if strings.Contains(e.Pattern, "\n") {
		rs := []rune(e.Pattern)
		pos := min(e.Pos, len(rs))
		line, nl := 1, -1
		for i, r := range rs[:pos] {
			if r == '\n' {
				line++
				nl = i
			}
		}
		msg = fmt.Sprintf("%s (line %d, column %d)", msg, line, pos-nl)
	}
	return msg
}

// maxRepeat is CPython's MAXREPEAT (a repeat count must be below it).
const maxRepeat = 1<<32 - 1

// Node kinds of a parsed pattern (CPython's sre opcodes, simplified).
type op uint8

const (
	opLit    op = iota // r
	opNotLit           // any character but r
	opAny              // .
	opIn               // a character set
	opAt               // an anchor (at)
	opCat              // a category escape (cat)
	opBranch           // alts
	opGroup            // (group > 0: capturing) with add/del flags around sub
	opAtomic           // (?>sub)
	opAssert           // lookahead (dir 1) or lookbehind (dir -1), neg
	opRepeat           // sub{min,max}, lazy or possessive
	opRef              // backreference to group
	opCond             // (?(group)yes|no)
)

type node struct {
	op         op
	r          rune
	set        []setItem
	neg        bool
	at         byte // ^ $ A Z b B
	cat        byte // d D w W s S
	alts       [][]*node
	sub        []*node
	no         []*node // opCond's no branch (nil: none)
	group      int
	add, del   Flags
	dir        int
	min, max   int
	lazy, poss bool
}

// setItem is one member of a character set: a range lo-hi, or a category.
type setItem struct {
	lo, hi rune
	cat    byte
}

// tree is a parsed Python pattern.
type tree struct {
	seq      []*node
	flags    Flags    // global flags, with the leading inline ones
	groups   int      // capturing groups
	names    []string // names[i]: name of group i ("" for none), index 0 unused
	bt       string   // the first construct RE2 lacks ("" if none)
	minWidth int      // the least number of characters a match spans
}

type parser struct {
	src   []rune
	pat   string
	index int
	next  string // the next token: one character or a backslash and one (""=end)
	flags Flags

	groupNames map[string]int
	widths     [][2]int // per group; [0] = -1 while open
	closed     []bool
	lookbehind int // -1: not in a lookbehind; else groups before it
	refPos     map[int]int
	bt         string
}

func (p *parser) advance() error {
	if p.index >= len(p.src) {
		p.next = ""
		return nil
	}
	c := p.src[p.index]
	if c == '\\' {
		if p.index+1 >= len(p.src) {
			return &Error{Msg: "bad escape (end of pattern)", Pattern: p.pat, Pos: len(p.src) - 1}
		}
		p.next = string(p.src[p.index : p.index+2])
		p.index += 2
		return nil
	}
	p.next = string(c)
	p.index++
	return nil
}

func (p *parser) tell() int { return p.index - len([]rune(p.next)) }

func (p *parser) seek(i int) error {
	p.index = i
	return p.advance()
}

func (p *parser) get() (string, error) {
	t := p.next
	return t, p.advance()
}

func (p *parser) match(s string) (bool, error) {
	if p.next == s && s != "" {
		return true, p.advance()
	}
	return false, nil
}

func (p *parser) errorAt(msg string, offset int) error {
	return &Error{Msg: msg, Pattern: p.pat, Pos: p.tell() - offset}
}

func (p *parser) getwhile(n int, set string) (string, error) {
	var b strings.Builder
	for range n {
		if p.next == "" || !strings.Contains(set, p.next) {
			break
		}
		b.WriteString(p.next)
		if err := p.advance(); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func (p *parser) getuntil(term, name string) (string, error) {
	var b strings.Builder
	n := 0
	for {
		c := p.next
		if err := p.advance(); err != nil {
			return "", err
		}
		if c == "" {
			if n == 0 {
				return "", p.errorAt("missing "+name, 0)
			}
			return "", p.errorAt(fmt.Sprintf("missing %s, unterminated name", term), n)
		}
		if c == term {
			if n == 0 {
				return "", p.errorAt("missing "+name, 1)
			}
			break
		}
		b.WriteString(c)
		n += len([]rune(c))
	}
	return b.String(), nil
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) ||
			i > 0 &&
				(unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r) || unicode.Is(unicode.Nl, r)) {
			continue
		}
		return false
	}
	return true
}

func (p *parser) checkGroupName(name string, offset int) error {
	if !isIdentifier(name) {
		return p.errorAt(fmt.Sprintf("bad character in group name %s", pyQuote(name)), len([]rune(name))+offset)
	}
	return nil
}

// pyQuote is Python's repr of a str (enough for group names and escapes).
func pyQuote(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	var b strings.Builder
	b.WriteString(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case string(r) == q:
			b.WriteString(`\` + q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(q)
	return b.String()
}

func (p *parser) checkGroup(g int) bool {
	return g < len(p.widths) && p.closed[g]
}

func (p *parser) checkLookbehindGroup(g int) error {
	if p.lookbehind >= 0 {
		if !p.checkGroup(g) {
			return p.errorAt("cannot refer to an open group", 0)
		}
		if g >= p.lookbehind {
			return p.errorAt("cannot refer to group defined in the same lookbehind subpattern", 0)
		}
	}
	return nil
}

func (p *parser) needBT(what string) {
	if p.bt == "" {
		p.bt = what
	}
}

// parse parses a Python pattern as CPython 3.11's re module does, with its
// error messages.
func parse(pattern string, flags Flags) (*tree, error) {
	p := &parser{
		src:        []rune(pattern),
		pat:        pattern,
		flags:      flags,
		groupNames: map[string]int{},
		widths:     [][2]int{{0, 0}},
		closed:     []bool{true},
		lookbehind: -1,
		refPos:     map[int]int{},
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	seq, err := p.parseSub(flags&Verbose != 0, 0)
	if err != nil {
		return nil, err
	}
	if p.flags&Locale != 0 {
		return nil, &Error{Msg: "cannot use LOCALE flag with a str pattern", Pos: -1}
	}
	if p.next != "" {
		return nil, p.errorAt("unbalanced parenthesis", 0)
	}
	for g, pos := range p.refPos {
		if g >= len(p.widths) {
			return nil, &Error{Msg: fmt.Sprintf("invalid group reference %d", g), Pattern: pattern, Pos: pos}
		}
	}
	t := &tree{seq: seq, flags: p.flags, groups: len(p.widths) - 1, names: make([]string, len(p.widths)), bt: p.bt}
	for name, g := range p.groupNames {
		t.names[g] = name
	}
	if err := checkLookbehinds(t.seq, p); err != nil {
		return nil, err
	}
	t.minWidth, _ = width(t.seq, p)
	return t, nil
}

func (p *parser) parseSub(verbose bool, nested int) ([]*node, error) {
	var items [][]*node
	for {
		item, err := p.parseSeq(verbose, nested+1, nested == 0 && len(items) == 0)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
		ok, err := p.match("|")
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if nested == 0 {
			verbose = p.flags&Verbose != 0
		}
	}
	if len(items) == 1 {
		return items[0], nil
	}
	return []*node{{op: opBranch, alts: items}}, nil
}

const specialChars = ".\\[{()*+?^$|"

func (p *parser) parseSeq(verbose bool, nested int, first bool) ([]*node, error) {
	var seq []*node
	for {
		this := p.next
		if this == "" || this == "|" || this == ")" {
			return unpackGroups(seq), nil
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if verbose {
			if strings.Contains(" \t\n\r\v\f", this) {
				continue
			}
			if this == "#" {
				for {
					c, err := p.get()
					if err != nil {
						return nil, err
					}
					if c == "" || c == "\n" {
						break
					}
				}
				continue
			}
		}
		switch {
		case this[0] == '\\':
			n, err := p.escape(this)
			if err != nil {
				return nil, err
			}
			seq = append(seq, n)
		case !strings.Contains(specialChars, this):
			seq = append(seq, &node{op: opLit, r: []rune(this)[0]})
		case this == "[":
			n, err := p.parseSet()
			if err != nil {
				return nil, err
			}
			seq = append(seq, n)
		case strings.Contains("*+?{", this):
			var err error
			var done bool
			seq, done, err = p.parseRepeat(this, seq)
			if err != nil {
				return nil, err
			}
			_ = done
		case this == ".":
			seq = append(seq, &node{op: opAny})
		case this == "(":
			n, skip, err := p.parseGroup(verbose, nested, first && len(seq) == 0)
			if err != nil {
				return nil, err
			}
			if skip == 2 { // global flags: verbose may have changed
				verbose = p.flags&Verbose != 0
			}
			if n != nil {
				seq = append(seq, n)
			}
		case this == "^":
			seq = append(seq, &node{op: opAt, at: '^'})
		case this == "$":
			seq = append(seq, &node{op: opAt, at: '$'})
		}
	}
}

// unpackGroups inlines non-capturing groups without flags, as CPython does.
func unpackGroups(seq []*node) []*node {
	out := seq[:0:0]
	for _, n := range seq {
		if n.op == opGroup && n.group == 0 && n.add == 0 && n.del == 0 {
			out = append(out, n.sub...)
			continue
		}
		out = append(out, n)
	}
	return out
}

func (p *parser) parseRepeat(this string, seq []*node) ([]*node, bool, error) {
	here := p.tell()
	lo, hi := 0, maxRepeat
	switch this {
	case "?":
		hi = 1
	case "+":
		lo = 1
	case "{":
		if p.next == "}" {
			return append(seq, &node{op: opLit, r: '{'}), false, nil
		}
		los, err := p.getwhile(1<<30, "0123456789")
		if err != nil {
			return nil, false, err
		}
		his := los
		comma, err := p.match(",")
		if err != nil {
			return nil, false, err
		}
		if comma {
			if his, err = p.getwhile(1<<30, "0123456789"); err != nil {
				return nil, false, err
			}
		}
		if ok, err := p.match("}"); err != nil {
			return nil, false, err
		} else if !ok {
			if err := p.seek(here); err != nil {
				return nil, false, err
			}
			return append(seq, &node{op: opLit, r: '{'}), false, nil
		}
		if los != "" {
			v, err := strconv.ParseUint(los, 10, 64)
			if err != nil || v >= maxRepeat {
				return nil, false, &Error{Msg: "the repetition number is too large", Pos: -1, Kind: "OverflowError"}
			}
			lo = int(v)
		}
		if his != "" {
			v, err := strconv.ParseUint(his, 10, 64)
			if err != nil || v >= maxRepeat {
				return nil, false, &Error{Msg: "the repetition number is too large", Pos: -1, Kind: "OverflowError"}
			}
			hi = int(v)
			if hi < lo {
				return nil, false, p.errorAt("min repeat greater than max repeat", p.tell()-here)
			}
		}
	}
	width := p.tell() - here + 1
	if len(seq) == 0 || seq[len(seq)-1].op == opAt {
		return nil, false, p.errorAt("nothing to repeat", width)
	}
	last := seq[len(seq)-1]
	if last.op == opRepeat {
		return nil, false, p.errorAt("multiple repeat", width)
	}
	item := []*node{last}
	if last.op == opGroup && last.group == 0 && last.add == 0 && last.del == 0 {
		item = last.sub
	}
	n := &node{op: opRepeat, min: lo, max: hi, sub: item}
	if ok, err := p.match("?"); err != nil {
		return nil, false, err
	} else if ok {
		n.lazy = true
	} else if ok, err := p.match("+"); err != nil {
		return nil, false, err
	} else if ok {
		n.poss = true
		p.needBT("a possessive quantifier")
	}
	seq[len(seq)-1] = n
	return seq, true, nil
}

func (p *parser) parseSet() (*node, error) {
	here := p.tell() - 1
	var set []setItem
	neg, err := p.match("^")
	if err != nil {
		return nil, err
	}
	for {
		this, err := p.get()
		if err != nil {
			return nil, err
		}
		if this == "" {
			return nil, p.errorAt("unterminated character set", p.tell()-here)
		}
		if this == "]" && len(set) > 0 {
			break
		}
		var code1 setItem
		if this[0] == '\\' {
			if code1, err = p.classEscape(this); err != nil {
				return nil, err
			}
		} else {
			r := []rune(this)[0]
			code1 = setItem{lo: r, hi: r}
		}
		if ok, err := p.match("-"); err != nil {
			return nil, err
		} else if ok {
			that, err := p.get()
			if err != nil {
				return nil, err
			}
			if that == "" {
				return nil, p.errorAt("unterminated character set", p.tell()-here)
			}
			if that == "]" {
				set = append(set, code1, setItem{lo: '-', hi: '-'})
				break
			}
			var code2 setItem
			if that[0] == '\\' {
				if code2, err = p.classEscape(that); err != nil {
					return nil, err
				}
			} else {
				r := []rune(that)[0]
				code2 = setItem{lo: r, hi: r}
			}
			width := len([]rune(this)) + 1 + len([]rune(that))
			if code1.cat != 0 || code2.cat != 0 || code1.lo != code1.hi || code2.lo != code2.hi || code2.lo < code1.lo {
				return nil, p.errorAt(fmt.Sprintf("bad character range %s-%s", this, that), width)
			}
			set = append(set, setItem{lo: code1.lo, hi: code2.lo})
			continue
		}
		set = append(set, code1)
	}
	if len(set) == 1 && set[0].cat == 0 && set[0].lo == set[0].hi {
		if neg {
			return &node{op: opNotLit, r: set[0].lo}, nil
		}
		return &node{op: opLit, r: set[0].lo}, nil
	}
	return &node{op: opIn, set: set, neg: neg}, nil
}

const (
	hexDigits   = "0123456789abcdefABCDEF"
	octDigits   = "01234567"
	asciiLetter = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

var simpleEscapes = map[string]rune{`\a`: 7, `\b`: 8, `\f`: 12, `\n`: 10, `\r`: 13, `\t`: 9, `\v`: 11, `\\`: '\\'}

// numEscape handles \x, \u, \U and \N (the latter is not supported).
func (p *parser) numEscape(esc string) (rune, bool, error) {
	var n int
	switch esc[1] {
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	case 'N':
		return 0, true, &Error{
			Msg:  `named Unicode escapes (\N{...}) are not supported; write the character itself or \uXXXX`,
			Pos:  -1,
			Kind: "unsupported",
		}
	default:
		return 0, false, nil
	}
	digits, err := p.getwhile(n, hexDigits)
	if err != nil {
		return 0, true, err
	}
	esc += digits
	if len(digits) != n {
		return 0, true, p.errorAt("incomplete escape "+esc, len([]rune(esc)))
	}
	v, _ := strconv.ParseUint(digits, 16, 32)
	if v > unicode.MaxRune {
		return 0, true, p.errorAt("bad escape "+esc, len([]rune(esc)))
	}
	return rune(v), true, nil
}

func (p *parser) classEscape(esc string) (setItem, error) {
	if r, ok := simpleEscapes[esc]; ok {
		return setItem{lo: r, hi: r}, nil
	}
	c := esc[1]
	if strings.IndexByte("dDsSwW", c) >= 0 {
		return setItem{cat: c}, nil
	}
	if r, ok, err := p.numEscape(esc); ok || err != nil {
		return setItem{lo: r, hi: r}, err
	}
	if strings.IndexByte(octDigits, c) >= 0 {
		more, err := p.getwhile(2, octDigits)
		if err != nil {
			return setItem{}, err
		}
		esc += more
		v, _ := strconv.ParseUint(esc[1:], 8, 32)
		if v > 0o377 {
			return setItem{}, p.errorAt(fmt.Sprintf("octal escape value %s outside of range 0-0o377", esc), len(esc))
		}
		return setItem{lo: rune(v), hi: rune(v)}, nil
	}
	if c >= '0' && c <= '9' || strings.IndexByte(asciiLetter, c) >= 0 {
		return setItem{}, p.errorAt("bad escape "+esc, len([]rune(esc)))
	}
	r := []rune(esc)[1]
	return setItem{lo: r, hi: r}, nil
}

func (p *parser) escape(esc string) (*node, error) {
	c := esc[1]
	switch c {
	case 'A', 'Z', 'b', 'B':
		return &node{op: opAt, at: c}, nil
	case 'd', 'D', 's', 'S', 'w', 'W':
		return &node{op: opCat, cat: c}, nil
	}
	if r, ok := simpleEscapes[esc]; ok {
		return &node{op: opLit, r: r}, nil
	}
	if r, ok, err := p.numEscape(esc); ok || err != nil {
		return &node{op: opLit, r: r}, err
	}
	if c == '0' {
		more, err := p.getwhile(2, octDigits)
		if err != nil {
			return nil, err
		}
		v, _ := strconv.ParseUint("0"+more, 8, 32)
		return &node{op: opLit, r: rune(v)}, nil
	}
	if c >= '1' && c <= '9' {
		if p.next != "" && p.next[0] >= '0' && p.next[0] <= '9' && len(p.next) == 1 {
			esc += p.next
			if err := p.advance(); err != nil {
				return nil, err
			}
			if strings.IndexByte(octDigits, esc[1]) >= 0 && strings.IndexByte(octDigits, esc[2]) >= 0 && len(p.next) == 1 &&
				strings.Contains(octDigits, p.next) {
				esc += p.next
				if err := p.advance(); err != nil {
					return nil, err
				}
				v, _ := strconv.ParseUint(esc[1:], 8, 32)
				if v > 0o377 {
					return nil, p.errorAt(fmt.Sprintf("octal escape value %s outside of range 0-0o377", esc), len(esc))
				}
				return &node{op: opLit, r: rune(v)}, nil
			}
		}
		g, _ := strconv.Atoi(esc[1:])
		if g < len(p.widths) {
			if !p.checkGroup(g) {
				return nil, p.errorAt("cannot refer to an open group", len(esc))
			}
			if err := p.checkLookbehindGroup(g); err != nil {
				return nil, err
			}
			p.needBT("a backreference")
			return &node{op: opRef, group: g}, nil
		}
		return nil, p.errorAt(fmt.Sprintf("invalid group reference %d", g), len(esc)-1)
	}
	if strings.IndexByte(asciiLetter, c) >= 0 {
		return nil, p.errorAt("bad escape "+esc, len([]rune(esc)))
	}
	return &node{op: opLit, r: []rune(esc)[1]}, nil
}

// parseGroup parses what follows "(". skip is 2 after global flags (no node).
func (p *parser) parseGroup(verbose bool, nested int, first bool) (*node, int, error) {
	start := p.tell() - 1
	capture := true
	atomic := false
	name := ""
	var add, del Flags
	unterminated := func() error {
		return p.errorAt("missing ), unterminated subpattern", p.tell()-start)
	}
	if ok, err := p.match("?"); err != nil {
		return nil, 0, err
	} else if ok {
		char, err := p.get()
		if err != nil {
			return nil, 0, err
		}
		switch {
		case char == "":
			return nil, 0, p.errorAt("unexpected end of pattern", 0)
		case char == "P":
			if ok, err := p.match("<"); err != nil {
				return nil, 0, err
			} else if ok {
				if name, err = p.getuntil(">", "group name"); err != nil {
					return nil, 0, err
				}
				if err := p.checkGroupName(name, 1); err != nil {
					return nil, 0, err
				}
			} else if ok, err := p.match("="); err != nil {
				return nil, 0, err
			} else if ok {
				name, err := p.getuntil(")", "group name")
				if err != nil {
					return nil, 0, err
				}
				if err := p.checkGroupName(name, 1); err != nil {
					return nil, 0, err
				}
				g, ok := p.groupNames[name]
				if !ok {
					return nil, 0, p.errorAt(fmt.Sprintf("unknown group name %s", pyQuote(name)), len([]rune(name))+1)
				}
				if !p.checkGroup(g) {
					return nil, 0, p.errorAt("cannot refer to an open group", len([]rune(name))+1)
				}
				if err := p.checkLookbehindGroup(g); err != nil {
					return nil, 0, err
				}
				p.needBT("a named backreference")
				return &node{op: opRef, group: g}, 0, nil
			} else {
				c, err := p.get()
				if err != nil {
					return nil, 0, err
				}
				if c == "" {
					return nil, 0, p.errorAt("unexpected end of pattern", 0)
				}
				return nil, 0, p.errorAt("unknown extension ?P"+c, len([]rune(c))+2)
			}
		case char == ":":
			capture = false
		case char == "#":
			for {
				if p.next == "" {
					return nil, 0, p.errorAt("missing ), unterminated comment", p.tell()-start)
				}
				c, err := p.get()
				if err != nil {
					return nil, 0, err
				}
				if c == ")" {
					break
				}
			}
			return nil, 0, nil
		case char == "=" || char == "!" || char == "<":
			dir := 1
			outer := p.lookbehind
			if char == "<" {
				c, err := p.get()
				if err != nil {
					return nil, 0, err
				}
				if c == "" {
					return nil, 0, p.errorAt("unexpected end of pattern", 0)
				}
				if c != "=" && c != "!" {
					return nil, 0, p.errorAt("unknown extension ?<"+c, len([]rune(c))+2)
				}
				char = c
				dir = -1
				if outer < 0 {
					p.lookbehind = len(p.widths)
				}
				p.needBT("a lookbehind assertion")
			} else {
				p.needBT("a lookahead assertion")
			}
			sub, err := p.parseSub(verbose, nested+1)
			if err != nil {
				return nil, 0, err
			}
			if dir < 0 && outer < 0 {
				p.lookbehind = -1
			}
			if ok, err := p.match(")"); err != nil {
				return nil, 0, err
			} else if !ok {
				return nil, 0, unterminated()
			}
			return &node{op: opAssert, dir: dir, neg: char == "!", sub: sub}, 0, nil
		case char == "(":
			condname, err := p.getuntil(")", "group name")
			if err != nil {
				return nil, 0, err
			}
			var g int
			if isIdentifier(condname) {
				var ok bool
				if g, ok = p.groupNames[condname]; !ok {
					return nil, 0, p.errorAt(fmt.Sprintf("unknown group name %s", pyQuote(condname)), len([]rune(condname))+1)
				}
			} else {
				v, err := strconv.ParseUint(condname, 10, 64)
				if err != nil || strings.ContainsAny(condname, "+-_ ") {
					return nil, 0, p.errorAt(fmt.Sprintf("bad character in group name %s", pyQuote(condname)), len([]rune(condname))+1)
				}
				if v == 0 {
					return nil, 0, p.errorAt("bad group number", len([]rune(condname))+1)
				}
				if v >= 1<<30 {
					return nil, 0, p.errorAt(fmt.Sprintf("invalid group reference %d", v), len([]rune(condname))+1)
				}
				g = int(v)
				if _, seen := p.refPos[g]; !seen {
					p.refPos[g] = p.tell() - len([]rune(condname)) - 1
				}
			}
			if err := p.checkLookbehindGroup(g); err != nil {
				return nil, 0, err
			}
			p.needBT("a conditional group")
			yes, err := p.parseSeq(verbose, nested+1, false)
			if err != nil {
				return nil, 0, err
			}
			var no []*node
			if ok, err := p.match("|"); err != nil {
				return nil, 0, err
			} else if ok {
				if no, err = p.parseSeq(verbose, nested+1, false); err != nil {
					return nil, 0, err
				}
				if no == nil {
					no = []*node{}
				}
				if p.next == "|" {
					return nil, 0, p.errorAt("conditional backref with more than two branches", 0)
				}
			}
			if ok, err := p.match(")"); err != nil {
				return nil, 0, err
			} else if !ok {
				return nil, 0, unterminated()
			}
			return &node{op: opCond, group: g, sub: yes, no: no}, 0, nil
		case char == ">":
			capture = false
			atomic = true
			p.needBT("an atomic group")
		case strings.Contains("aiLmsux", char) || char == "-":
			a, d, global, err := p.parseFlags(char)
			if err != nil {
				return nil, 0, err
			}
			if global {
				if !first {
					return nil, 0, p.errorAt("global flags not at the start of the expression", p.tell()-start)
				}
				return nil, 2, nil
			}
			add, del = a, d
			capture = false
		default:
			return nil, 0, p.errorAt("unknown extension ?"+char, len([]rune(char))+1)
		}
	}
	group := 0
	if capture {
		group = len(p.widths)
		if name != "" {
			if og, ok := p.groupNames[name]; ok {
				return nil, 0, p.errorAt(
					fmt.Sprintf("redefinition of group name %s as group %d; was group %d", pyQuote(name), group, og),
					len([]rune(name))+1,
				)
			}
			p.groupNames[name] = group
		}
		p.widths = append(p.widths, [2]int{})
		p.closed = append(p.closed, false)
	}
	subVerbose := (verbose || add&Verbose != 0) && del&Verbose == 0
	sub, err := p.parseSub(subVerbose, nested+1)
	if err != nil {
		return nil, 0, err
	}
	if ok, err := p.match(")"); err != nil {
		return nil, 0, err
	} else if !ok {
		return nil, 0, unterminated()
	}
	if group > 0 {
		lo, hi := width(sub, p)
		p.widths[group] = [2]int{lo, hi}
		p.closed[group] = true
	}
	if atomic {
		return &node{op: opAtomic, sub: sub}, 0, nil
	}
	return &node{op: opGroup, group: group, add: add, del: del, sub: sub}, 0, nil
}

var flagLetters = map[string]Flags{"a": ASCII, "i": IgnoreCase, "L": Locale, "m": Multiline, "s": DotAll, "u": Unicode, "x": Verbose}

const typeFlags = ASCII | Locale | Unicode

func (p *parser) parseFlags(char string) (add, del Flags, global bool, err error) {
	if char != "-" {
		for {
			f := flagLetters[char]
			if char == "L" {
				return 0, 0, false, p.errorAt("bad inline flags: cannot use 'L' flag with a str pattern", 0)
			}
			add |= f
			if f&typeFlags != 0 && add&typeFlags != f {
				return 0, 0, false, p.errorAt("bad inline flags: flags 'a', 'u' and 'L' are incompatible", 0)
			}
			if char, err = p.get(); err != nil {
				return 0, 0, false, err
			}
			if char == "" {
				return 0, 0, false, p.errorAt("missing -, : or )", 0)
			}
			if strings.Contains(")-:", char) {
				break
			}
			if _, ok := flagLetters[char]; !ok {
				msg := "missing -, : or )"
				if r := []rune(char)[0]; len([]rune(char)) == 1 && unicode.IsLetter(r) {
					msg = "unknown flag"
				}
				return 0, 0, false, p.errorAt(msg, len([]rune(char)))
			}
		}
	}
	if char == ")" {
		if p.flags&ASCII != 0 && add&Unicode != 0 || p.flags&Unicode != 0 && add&ASCII != 0 {
			return 0, 0, false, &Error{Msg: "ASCII and UNICODE flags are incompatible", Pos: -1, Kind: "ValueError"}
		}
		p.flags |= add
		return 0, 0, true, nil
	}
	if char == "-" {
		if char, err = p.get(); err != nil {
			return 0, 0, false, err
		}
		if char == "" {
			return 0, 0, false, p.errorAt("missing flag", 0)
		}
		if _, ok := flagLetters[char]; !ok {
			msg := "missing flag"
			if r := []rune(char)[0]; len([]rune(char)) == 1 && unicode.IsLetter(r) {
				msg = "unknown flag"
			}
			return 0, 0, false, p.errorAt(msg, len([]rune(char)))
		}
		for {
			f := flagLetters[char]
			if f&typeFlags != 0 {
				return 0, 0, false, p.errorAt("bad inline flags: cannot turn off flags 'a', 'u' and 'L'", 0)
			}
			del |= f
			if char, err = p.get(); err != nil {
				return 0, 0, false, err
			}
			if char == "" {
				return 0, 0, false, p.errorAt("missing :", 0)
			}
			if char == ":" {
				break
			}
			if _, ok := flagLetters[char]; !ok {
				msg := "missing :"
				if r := []rune(char)[0]; len([]rune(char)) == 1 && unicode.IsLetter(r) {
					msg = "unknown flag"
				}
				return 0, 0, false, p.errorAt(msg, len([]rune(char)))
			}
		}
	}
	if add&del != 0 {
		return 0, 0, false, p.errorAt("bad inline flags: flag turned on and off", 1)
	}
	return add, del, false, nil
}

// maxWidth stands for an unbounded width.
const maxWidth = 1 << 62

// width is CPython's SubPattern.getwidth: the least and most characters a
// match of seq spans.
func width(seq []*node, p *parser) (lo, hi int) {
	add := func(a, b int) int { return min(a+b, maxWidth) }
	for _, n := range seq {
		switch n.op {
		case opBranch:
			i, j := maxWidth, 0
			for _, alt := range n.alts {
				l, h := width(alt, p)
				i, j = min(i, l), max(j, h)
			}
			lo, hi = add(lo, i), add(hi, j)
		case opAtomic, opGroup:
			l, h := width(n.sub, p)
			lo, hi = add(lo, l), add(hi, h)
		case opRepeat:
			l, h := width(n.sub, p)
			lo = min(lo+min(l*n.min, maxWidth), maxWidth)
			if n.max == maxRepeat && h > 0 {
				hi = maxWidth
			} else {
				hi = min(hi+min(h*n.max, maxWidth), maxWidth)
			}
		case opLit, opNotLit, opAny, opIn, opCat:
			lo, hi = add(lo, 1), add(hi, 1)
		case opRef:
			w := p.widths[n.group]
			lo, hi = add(lo, w[0]), add(hi, w[1])
		case opCond:
			i, j := width(n.sub, p)
			if n.no != nil {
				l, h := width(n.no, p)
				i, j = min(i, l), max(j, h)
			} else {
				i = 0
			}
			lo, hi = add(lo, i), add(hi, j)
		}
	}
	return lo, hi
}

// checkLookbehinds rejects variable-width lookbehinds, as CPython's
// compiler does.
func checkLookbehinds(seq []*node, p *parser) error {
	for _, n := range seq {
		if n.op == opAssert && n.dir < 0 {
			if lo, hi := width(n.sub, p); lo != hi {
				return &Error{Msg: "look-behind requires fixed-width pattern", Pos: -1}
			}
		}
		for _, alt := range n.alts {
			if err := checkLookbehinds(alt, p); err != nil {
				return err
			}
		}
		if err := checkLookbehinds(n.sub, p); err != nil {
			return err
		}
		if err := checkLookbehinds(n.no, p); err != nil {
			return err
		}
	}
	return nil
}
