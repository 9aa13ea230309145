package pyfront

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// parseFString lowers the body of an f-string into parts: string
// literals and expressions whose value is a str (_py_format, _py_repr,
// _py_str, _py_ascii calls).
func (p *parser) parseFString(ft *fstringToken) []Expr {
	fs := &fstring{p: p, ft: ft, body: ft.body}
	return fs.parts(0, len(ft.body), false)
}

type fstring struct {
	p    *parser
	ft   *fstringToken
	body string
}

// pos returns the source position of body offset i.
func (fs *fstring) pos(i int) Position {
	pos := fs.ft.bodyPos
	s := fs.body[:i]
	if n := strings.Count(s, "\n"); n > 0 {
		pos.Line += int32(n)
		s = s[strings.LastIndex(s, "\n")+1:]
		pos.Col = 1
	}
	pos.Col += int32(utf8.RuneCountInString(s))
	return pos
}

func (fs *fstring) errorf(i int, format string, args ...any) {
	fs.p.in.errorf(fs.pos(i), "f-string: "+format, args...)
}

// parts parses body[i:end]: literal text and replacement fields. In a
// format spec (spec=true) the text ends at end.
func (fs *fstring) parts(i, end int, spec bool) []Expr {
	var out []Expr
	var lit strings.Builder
	litStart := i
	flush := func() {
		if lit.Len() == 0 {
			return
		}
		s := lit.String()
		if !fs.ft.raw {
			var err error
			s, err = pyUnescape(s, false)
			if err != nil {
				fs.errorf(litStart, "%v", err)
			}
		}
		out = append(out, strLit(s, fs.pos(litStart)))
		lit.Reset()
	}
	for i < end {
		c := fs.body[i]
		switch {
		case c == '{' && !spec && i+1 < end && fs.body[i+1] == '{':
			lit.WriteByte('{')
			i += 2
		case c == '}' && !spec && i+1 < end && fs.body[i+1] == '}':
			lit.WriteByte('}')
			i += 2
		case c == '}':
			fs.errorf(i, "single '}' is not allowed")
		case c == '{':
			flush()
			var e []Expr
			e, i = fs.field(i, spec)
			out = append(out, e...)
			litStart = i
		case c == '\\' && !fs.ft.raw && i+1 < end:
			lit.WriteString(fs.body[i : i+2])
			i += 2
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return out
}

// field parses a replacement field starting at body[i] == '{' and
// returns its parts and the offset after the closing '}'.
func (fs *fstring) field(i int, nested bool) ([]Expr, int) {
	start := i + 1
	j := fs.exprEnd(start)
	if j >= len(fs.body) {
		fs.errorf(i, "expecting '}'")
	}
	text := fs.body[start:j]
	if strings.TrimSpace(text) == "" {
		fs.errorf(i, "valid expression required before '}'")
	}
	var out []Expr
	selfDoc := false
	if fs.body[j] == '=' {
		selfDoc = true
		j++
		for j < len(fs.body) && (fs.body[j] == ' ' || fs.body[j] == '\t') {
			j++
		}
		out = append(out, strLit(fs.body[start:j], fs.pos(start)))
	}
	x := fs.parseExpr(text, start)
	pos := fs.pos(start)
	conv := byte(0)
	if j < len(fs.body) && fs.body[j] == '!' {
		if j+1 >= len(fs.body) || strings.IndexByte("rsa", fs.body[j+1]) < 0 {
			fs.errorf(j, "invalid conversion character: expected 's', 'r', or 'a'")
		}
		conv = fs.body[j+1]
		j += 2
	}
	var spec Expr
	if j < len(fs.body) && fs.body[j] == ':' {
		if nested {
			fs.errorf(j, "expressions nested too deeply")
		}
		k := fs.specEnd(j + 1)
		parts := fs.parts(j+1, k, true)
		if len(parts) > 1 && fs.p.opts.FStrings {
			spec = fstrCall(parts, fs.pos(j+1))
		}
		if spec == nil {
			spec = concat(parts, fs.pos(j+1))
		}
		j = k
	}
	if j >= len(fs.body) || fs.body[j] != '}' {
		fs.errorf(j, "expecting '}'")
	}
	if selfDoc && conv == 0 && spec == nil {
		conv = 'r'
	}
	switch conv {
	case 'r':
		x = call("_py_repr", pos, x)
	case 's':
		x = call("_py_str", pos, x)
	case 'a':
		x = call("_py_ascii", pos, x)
	}
	if spec != nil || conv == 0 {
		if spec == nil {
			spec = strLit("", pos)
		}
		x = call("_py_format", pos, x, spec)
	}
	return append(out, x), j + 1
}

// exprEnd returns the offset of the '}', '!', ':' or '=' that ends the
// expression of a replacement field starting at i.
func (fs *fstring) exprEnd(i int) int {
	depth := 0
	b := fs.body
	for i < len(b) {
		c := b[i]
		switch c {
		case '\'', '"':
			i = fs.skipString(i)
			continue
		case '(', '[', '{':
			depth++
		case ')', ']':
			depth--
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		case '!':
			if depth == 0 && (i+1 >= len(b) || b[i+1] != '=') {
				return i
			}
			if i+1 < len(b) && b[i+1] == '=' {
				i += 2
				continue
			}
		case ':':
			if depth == 0 {
				return i
			}
		case '=':
			if i+1 < len(b) && b[i+1] == '=' {
				i += 2
				continue
			}
			if depth == 0 && i > 0 && strings.IndexByte("=!<>", b[i-1]) < 0 {
				k := i + 1
				for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
					k++
				}
				if k < len(b) && (b[k] == '}' || b[k] == '!' || b[k] == ':') {
					return i
				}
			}
		case '#':
			fs.errorf(i, "expression part cannot include '#'")
		case '\\':
			fs.errorf(i, "expression part cannot include a backslash")
		}
		i++
	}
	return i
}

// skipString returns the offset after the string literal starting at i.
func (fs *fstring) skipString(i int) int {
	b := fs.body
	q := b[i]
	if i+2 < len(b) && b[i+1] == q && b[i+2] == q {
		k := strings.Index(b[i+3:], strings.Repeat(string(q), 3))
		if k < 0 {
			fs.errorf(i, "unterminated string")
		}
		return i + 3 + k + 3
	}
	for k := i + 1; k < len(b); k++ {
		if b[k] == '\\' {
			k++
			continue
		}
		if b[k] == q {
			return k + 1
		}
	}
	fs.errorf(i, "unterminated string")
	return 0
}

// specEnd returns the offset of the '}' that closes a format spec
// starting at i (nested fields allowed).
func (fs *fstring) specEnd(i int) int {
	depth := 0
	for ; i < len(fs.body); i++ {
		switch fs.body[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	fs.errorf(i-1, "expecting '}'")
	return 0
}

// parseExpr parses the expression text of a field found at offset i.
func (fs *fstring) parseExpr(text string, i int) Expr {
	pos := fs.pos(i)
	in := newScanner(fs.p.file, []byte(text), pos.Line, pos.Col)
	in.exprOnly = true
	in.lineStart = false
	sub := &parser{in: in, file: fs.p.file, opts: fs.p.opts, temps: fs.p.temps, prog: fs.p.prog, block: fs.p.block, inDef: fs.p.inDef}
	sub.nextToken()
	x := sub.fixStars(sub.parseExpr())
	if sub.tok != EOF {
		sub.in.errorf(sub.tokval.pos, "f-string: invalid syntax: got %s", tokName(sub.tok))
	}
	return x
}

// concat joins string-valued parts with +.
func concat(parts []Expr, pos Position) Expr {
	if len(parts) == 0 {
		return strLit("", pos)
	}
	out := parts[0]
	for _, e := range parts[1:] {
		out = &BinaryExpr{OpPos: pos, Op: PLUS, X: out, Y: e}
	}
	return out
}

// fstrMaxFields bounds the fields of one _py_fstr call: a Starlark call
// passes at most 255 positional arguments.
const fstrMaxFields = 120

// Tags of the records of a _py_fstr template (see RUNTIME.md).
const (
	fstrLit     = 'L' // 'L' len text: literal text
	fstrField   = 'F' // 'F' conv len spec: a value formatted with a constant spec
	fstrDynSpec = 'D' // 'D' conv: a value, then its spec (a str value)
)

// fstrCall lowers the parts of an f-string (literals and the field
// calls that field builds) to _py_fstr(template, values...): the
// template lists the literals and, per field, its conversion and
// constant spec, so the runtime formats the whole string into one
// buffer. It returns nil when parts holds anything else.
func fstrCall(parts []Expr, pos Position) Expr {
	var tmpl []byte
	var args []Expr
	fields := 0
	for _, e := range parts {
		if lit, ok := e.(*Literal); ok {
			s, ok := lit.Value.(string)
			if !ok || lit.Token != STRING {
				return nil
			}
			tmpl = append(tmpl, fstrLit)
			tmpl = binary.AppendUvarint(tmpl, uint64(len(s)))
			tmpl = append(tmpl, s...)
			continue
		}
		x, conv, spec, ok := fieldParts(e)
		if !ok {
			return nil
		}
		if fields++; fields > fstrMaxFields {
			return nil
		}
		args = append(args, x)
		if lit, ok := spec.(*Literal); ok && lit.Token == STRING {
			s := lit.Value.(string)
			tmpl = append(tmpl, fstrField, conv)
			tmpl = binary.AppendUvarint(tmpl, uint64(len(s)))
			tmpl = append(tmpl, s...)
			continue
		}
		tmpl = append(tmpl, fstrDynSpec, conv)
		args = append(args, spec)
	}
	if fields == 0 {
		return nil
	}
	return call("_py_fstr", pos, append([]Expr{strLit(string(tmpl), pos)}, args...)...)
}

// fieldParts takes apart a field call that field built: _py_format(x,
// spec), with x possibly a conversion call, or a bare conversion call
// (no spec: ""). conv is 0, 'r', 's' or 'a'.
func fieldParts(e Expr) (x Expr, conv byte, spec Expr, ok bool) {
	c, ok := e.(*CallExpr)
	if !ok {
		return nil, 0, nil, false
	}
	id, ok := c.Fn.(*Ident)
	if !ok {
		return nil, 0, nil, false
	}
	convOf := map[string]byte{"_py_repr": 'r', "_py_str": 's', "_py_ascii": 'a'}
	if cv, isConv := convOf[id.Name]; isConv && len(c.Args) == 1 {
		return c.Args[0], cv, strLit("", c.Lparen), true
	}
	if id.Name != "_py_format" || len(c.Args) != 2 {
		return nil, 0, nil, false
	}
	x, spec = c.Args[0], c.Args[1]
	if inner, ok := x.(*CallExpr); ok {
		if iid, ok := inner.Fn.(*Ident); ok && len(inner.Args) == 1 {
			if cv, isConv := convOf[iid.Name]; isConv {
				return inner.Args[0], cv, spec, true
			}
		}
	}
	return x, 0, spec, true
}
