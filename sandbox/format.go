package sandbox

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
)

// fmtSpec is a parsed Python format specification.
type fmtSpec struct {
	fill      rune
	align     byte // '<' '>' '^' '=' or 0
	sign      byte // '+' '-' ' ' or 0
	alt       bool // '#'
	zero      bool // '0'
	width     int
	grouping  byte // ',' '_' or 0
	precision int  // -1 if absent
	typ       byte // 0 if absent
}

func parseSpec(spec string) (fmtSpec, error) {
	s := fmtSpec{fill: ' ', precision: -1}
	i := 0
	isAlign := func(c byte) bool { return c == '<' || c == '>' || c == '^' || c == '=' }
	if r, n := utf8.DecodeRuneInString(spec); n > 0 && n < len(spec) && isAlign(spec[n]) {
		s.fill, s.align = r, spec[n]
		i = n + 1
	} else if len(spec) > 0 && isAlign(spec[0]) {
		s.align = spec[0]
		i = 1
	}
	if i < len(spec) && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ') {
		s.sign = spec[i]
		i++
	}
	if i < len(spec) && spec[i] == 'z' {
		i++
	}
	if i < len(spec) && spec[i] == '#' {
		s.alt = true
		i++
	}
	if i < len(spec) && spec[i] == '0' {
		s.zero = true
		i++
	}
	j := i
	for i < len(spec) && spec[i] >= '0' && spec[i] <= '9' {
		i++
	}
	if i > j {
		s.width, _ = strconv.Atoi(spec[j:i])
	}
	if i < len(spec) && (spec[i] == ',' || spec[i] == '_') {
		s.grouping = spec[i]
		i++
	}
	if i < len(spec) && spec[i] == '.' {
		i++
		j := i
		for i < len(spec) && spec[i] >= '0' && spec[i] <= '9' {
			i++
		}
		if i == j {
			return s, Errorf("ValueError", "Format specifier missing precision")
		}
		s.precision, _ = strconv.Atoi(spec[j:i])
	}
	if i < len(spec) {
		s.typ = spec[i]
		i++
	}
	if i != len(spec) {
		return s, Errorf("ValueError", "Invalid format specifier '%s'", spec)
	}
	return s, nil
}

// formatValue implements Python's format(v, spec).
func formatValue(thread *starlark.Thread, v starlark.Value, spec string) (string, error) {
	v, err := Unproxy(thread, v)
	if err != nil {
		return "", err
	}
	if spec == "" {
		r := renderer{thread: thread}
		r.str(v)
		if r.err != nil {
			return "", r.err
		}
		return r.b.String(), nil
	}
	s, err := parseSpec(spec)
	if err != nil {
		return "", err
	}
	if err := checkAlloc(thread, int64(s.width)+int64(max(s.precision, 0))); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case starlark.String:
		return formatString(string(x), s)
	case starlark.Bool:
		if s.typ == 0 || s.typ == 's' {
			return formatString(Str(x), s)
		}
		return formatInt(boolInt(x).BigInt(), s)
	case starlark.Int:
		switch s.typ {
		case 'e', 'E', 'f', 'F', 'g', 'G', '%':
			f, _ := starlark.AsFloat(x)
			return formatFloat(f, s)
		}
		return formatInt(x.BigInt(), s)
	case starlark.Float:
		return formatFloat(float64(x), s)
	}
	if s.typ == 0 || s.typ == 's' {
		// Python: object.__format__ rejects non-empty specs; be lenient for
		// alignment-only specs on None and containers, which models use.
		if s.precision < 0 && s.grouping == 0 && s.sign == 0 && !s.alt {
			return formatString(Str(v), s)
		}
	}
	return "", Errorf("TypeError", "unsupported format string passed to %s.__format__", pyType(v))
}

func pad(body string, s fmtSpec, defAlign byte, signLen int) string {
	n := utf8.RuneCountInString(body)
	if n >= s.width {
		return body
	}
	align := s.align
	fill := s.fill
	if align == 0 {
		if s.zero && defAlign == '>' {
			align, fill = '=', '0'
		} else {
			align = defAlign
		}
	}
	padN := s.width - n
	f := string(fill)
	switch align {
	case '<':
		return body + strings.Repeat(f, padN)
	case '^':
		l := padN / 2
		return strings.Repeat(f, l) + body + strings.Repeat(f, padN-l)
	case '=':
		return body[:signLen] + strings.Repeat(f, padN) + body[signLen:]
	}
	return strings.Repeat(f, padN) + body
}

func formatString(x string, s fmtSpec) (string, error) {
	if s.typ != 0 && s.typ != 's' {
		return "", Errorf("ValueError", "Unknown format code '%c' for object of type 'str'", s.typ)
	}
	if s.sign != 0 {
		return "", Errorf("ValueError", "Sign not allowed in string format specifier")
	}
	if s.align == '=' {
		return "", Errorf("ValueError", "'=' alignment not allowed in string format specifier")
	}
	if s.precision >= 0 && utf8.RuneCountInString(x) > s.precision {
		i := 0
		for k := 0; k < s.precision; k++ {
			_, n := utf8.DecodeRuneInString(x[i:])
			i += n
		}
		x = x[:i]
	}
	return pad(x, s, '<', 0), nil
}

func signPrefix(neg bool, sign byte) string {
	switch {
	case neg:
		return "-"
	case sign == '+':
		return "+"
	case sign == ' ':
		return " "
	}
	return ""
}

// group inserts sep every n digits from the right of digits.
func group(digits string, sep byte, n int) string {
	if sep == 0 || len(digits) <= n {
		return digits
	}
	var b strings.Builder
	first := len(digits) % n
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += n {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(digits[i : i+n])
	}
	return b.String()
}

func formatInt(n *big.Int, s fmtSpec) (string, error) {
	if s.precision >= 0 {
		return "", Errorf("ValueError", "Precision not allowed in integer format specifier")
	}
	neg := n.Sign() < 0
	abs := new(big.Int).Abs(n)
	var digits, prefix string
	groupN := 3
	switch s.typ {
	case 0, 'd', 'n':
		var err error
		if digits, err = intDecimal(abs); err != nil {
			return "", err
		}
	case 'b':
		digits, prefix, groupN = abs.Text(2), "0b", 4
	case 'o':
		digits, prefix, groupN = abs.Text(8), "0o", 4
	case 'x':
		digits, prefix, groupN = abs.Text(16), "0x", 4
	case 'X':
		digits, prefix, groupN = strings.ToUpper(abs.Text(16)), "0X", 4
	case 'c':
		if neg || !abs.IsInt64() || abs.Int64() > utf8.MaxRune {
			return "", Errorf("OverflowError", "%%c arg not in range(0x110000)")
		}
		return pad(string(rune(abs.Int64())), s, '<', 0), nil
	case 's':
		return "", Errorf("ValueError", "Unknown format code 's' for object of type 'int'")
	default:
		return "", Errorf("ValueError", "Unknown format code '%c' for object of type 'int'", s.typ)
	}
	if !s.alt {
		prefix = ""
	}
	if s.grouping != 0 && s.grouping == ',' && groupN == 4 {
		return "", Errorf("ValueError", "Cannot specify ',' with '%c'.", s.typ)
	}
	sp := signPrefix(neg, s.sign) + prefix
	if s.zero && s.align == 0 && s.grouping != 0 {
		// Zero padding with grouping pads the digits with grouped zeros.
		need := s.width - len(sp)
		for len(group(digits, s.grouping, groupN)) < need {
			digits = "0" + digits
		}
		return sp + group(digits, s.grouping, groupN), nil
	}
	return pad(sp+group(digits, s.grouping, groupN), s, '>', len(sp)), nil
}

func formatFloat(f float64, s fmtSpec) (string, error) {
	typ := s.typ
	prec := s.precision
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	upper := typ == 'E' || typ == 'F' || typ == 'G'
	var body string
	switch {
	case math.IsInf(a, 0):
		body = "inf"
	case math.IsNaN(a):
		body = "nan"
	default:
		switch typ {
		case 'f', 'F':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a, 'f', prec, 64)
			if s.alt && prec == 0 {
				body += "."
			}
		case 'e', 'E':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a, 'e', prec, 64)
		case '%':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a*100, 'f', prec, 64) + "%"
		case 'g', 'G', 'n':
			if prec < 0 {
				prec = 6
			}
			body = formatG(a, prec, s.alt, false)
		case 0:
			if prec < 0 {
				body = formatFloatRepr(a)
			} else {
				body = formatG(a, prec, s.alt, true)
			}
		case 'd':
			return "", Errorf("ValueError", "Unknown format code 'd' for object of type 'float'")
		default:
			return "", Errorf("ValueError", "Unknown format code '%c' for object of type 'float'", typ)
		}
	}
	if upper {
		body = strings.ToUpper(body)
	}
	if s.grouping != 0 {
		intEnd := strings.IndexAny(body, ".eE%")
		if intEnd < 0 {
			intEnd = len(body)
		}
		if body[0] >= '0' && body[0] <= '9' {
			body = group(body[:intEnd], s.grouping, 3) + body[intEnd:]
		}
	}
	sp := signPrefix(neg, s.sign)
	return pad(sp+body, s, '>', len(sp)), nil
}

// formatG implements Python's 'g' presentation (and the default
// presentation with a precision when noneType is set).
func formatG(a float64, prec int, alt, noneType bool) string {
	if prec == 0 {
		prec = 1
	}
	if a == 0 {
		if alt {
			return "0." + strings.Repeat("0", prec-1)
		}
		if noneType {
			return "0.0"
		}
		return "0"
	}
	e := strconv.FormatFloat(a, 'e', prec-1, 64)
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	var body string
	if -4 <= exp && exp < prec {
		body = strconv.FormatFloat(a, 'f', prec-1-exp, 64)
		if !alt {
			if strings.Contains(body, ".") {
				body = strings.TrimRight(body, "0")
				body = strings.TrimSuffix(body, ".")
			}
			if noneType && !strings.Contains(body, ".") {
				body += ".0"
			}
		}
		return body
	}
	if !alt && strings.Contains(mant, ".") {
		mant = strings.TrimRight(mant, "0")
		mant = strings.TrimSuffix(mant, ".")
	}
	sign := "+"
	if exp < 0 {
		sign = "-"
		exp = -exp
	}
	es := strconv.Itoa(exp)
	if len(es) < 2 {
		es = "0" + es
	}
	return mant + "e" + sign + es
}

func pyFormatBuiltin(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	spec := ""
	if err := starlark.UnpackPositionalArgs("format", args, kwargs, 1, &v, &spec); err != nil {
		return nil, err
	}
	s, err := formatValue(thread, v, spec)
	if err != nil {
		return nil, err
	}
	return starlark.String(s), nil
}

func pyFormatHelper(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, argErr("_py_format", "takes 2 arguments")
	}
	if s, ok := args[0].(starlark.String); ok {
		if spec, ok := args[1].(starlark.String); ok && spec == "" {
			return s, nil
		}
	}
	spec, ok := args[1].(starlark.String)
	if !ok {
		return nil, Errorf("TypeError", "format spec must be a str")
	}
	s, err := formatValue(thread, args[0], string(spec))
	if err != nil {
		return nil, err
	}
	return starlark.String(s), nil
}

// strFormat implements str.format(*args, **kwargs).
func strFormat(thread *starlark.Thread, format string, args starlark.Tuple, kwargs []starlark.Tuple) (string, error) {
	var b strings.Builder
	auto := 0
	manual := false
	kw := map[string]starlark.Value{}
	for _, kv := range kwargs {
		k, _ := starlark.AsString(kv[0])
		kw[k] = kv[1]
	}
	i := 0
	for i < len(format) {
		c := format[i]
		if c == '}' {
			if i+1 < len(format) && format[i+1] == '}' {
				b.WriteByte('}')
				i += 2
				continue
			}
			return "", Errorf("ValueError", "Single '}' encountered in format string")
		}
		if c != '{' {
			j := strings.IndexAny(format[i:], "{}")
			if j < 0 {
				b.WriteString(format[i:])
				break
			}
			b.WriteString(format[i : i+j])
			i += j
			continue
		}
		if i+1 < len(format) && format[i+1] == '{' {
			b.WriteByte('{')
			i += 2
			continue
		}
		// Find the matching '}' allowing one level of nested {} in the spec.
		depth, j := 1, i+1
		for ; j < len(format) && depth > 0; j++ {
			switch format[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		if depth != 0 {
			return "", Errorf("ValueError", "Single '{' encountered in format string")
		}
		field := format[i+1 : j-1]
		i = j
		name, spec, hasSpec := strings.Cut(field, ":")
		conv := byte(0)
		if k := strings.IndexByte(name, '!'); k >= 0 {
			if k+2 != len(name) {
				return "", Errorf("ValueError", "expected ':' after conversion specifier")
			}
			conv = name[k+1]
			name = name[:k]
		}
		_ = hasSpec
		// Resolve the argument name: "", "0", "key", with .attr / [idx] parts.
		head := name
		rest := ""
		if k := strings.IndexAny(name, ".["); k >= 0 {
			head, rest = name[:k], name[k:]
		}
		var v starlark.Value
		switch {
		case head == "":
			if manual {
				return "", Errorf("ValueError", "cannot switch from manual field specification to automatic field numbering")
			}
			if auto >= len(args) {
				return "", Errorf("IndexError", "Replacement index %d out of range for positional args tuple", auto)
			}
			v = args[auto]
			auto++
		case head[0] >= '0' && head[0] <= '9':
			manual = true
			n, err := strconv.Atoi(head)
			if err != nil || n >= len(args) {
				return "", Errorf("IndexError", "Replacement index %s out of range for positional args tuple", head)
			}
			v = args[n]
		default:
			x, ok := kw[head]
			if !ok {
				return "", &PyError{Kind: "KeyError", Msg: Repr(starlark.String(head))}
			}
			v = x
		}
		for rest != "" {
			if rest[0] == '.' {
				k := strings.IndexAny(rest[1:], ".[")
				attr := rest[1:]
				if k >= 0 {
					attr, rest = rest[1:1+k], rest[1+k:]
				} else {
					rest = ""
				}
				ha, ok := v.(starlark.HasAttrs)
				if !ok {
					return "", Errorf("AttributeError", "'%s' object has no attribute '%s'", pyType(v), attr)
				}
				x, err := ha.Attr(attr)
				if err != nil || x == nil {
					return "", Errorf("AttributeError", "'%s' object has no attribute '%s'", pyType(v), attr)
				}
				v = x
			} else {
				k := strings.IndexByte(rest, ']')
				if k < 0 {
					return "", Errorf("ValueError", "Missing ']' in format string")
				}
				key := rest[1:k]
				rest = rest[k+1:]
				var kv starlark.Value = starlark.String(key)
				if n, err := strconv.Atoi(key); err == nil {
					kv = starlark.MakeInt(n)
				}
				x, err := getItem(v, kv)
				if err != nil {
					return "", err
				}
				v = x
			}
		}
		// Nested fields in the spec: {x:{w}.{p}f}
		if strings.Contains(spec, "{") {
			var err error
			spec, err = strFormatNested(thread, spec, args, kwargs, &auto)
			if err != nil {
				return "", err
			}
		}
		switch conv {
		case 'r':
			v = starlark.String(Repr(v))
		case 's':
			v = starlark.String(Str(v))
		case 'a':
			a, err := pyASCII(thread, nil, starlark.Tuple{v}, nil)
			if err != nil {
				return "", err
			}
			v = a
		case 0:
		default:
			return "", Errorf("ValueError", "Unknown conversion specifier %c", conv)
		}
		s, err := formatValue(thread, v, spec)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func strFormatNested(thread *starlark.Thread, spec string, args starlark.Tuple, kwargs []starlark.Tuple, auto *int) (string, error) {
	var b strings.Builder
	for {
		i := strings.IndexByte(spec, '{')
		if i < 0 {
			b.WriteString(spec)
			return b.String(), nil
		}
		j := strings.IndexByte(spec[i:], '}')
		if j < 0 {
			return "", Errorf("ValueError", "unmatched '{' in format spec")
		}
		b.WriteString(spec[:i])
		name := spec[i+1 : i+j]
		var v starlark.Value
		if name == "" {
			if *auto >= len(args) {
				return "", Errorf("IndexError", "Replacement index %d out of range for positional args tuple", *auto)
			}
			v = args[*auto]
			*auto++
		} else if n, err := strconv.Atoi(name); err == nil && n < len(args) {
			v = args[n]
		} else {
			for _, kv := range kwargs {
				if k, _ := starlark.AsString(kv[0]); k == name {
					v = kv[1]
				}
			}
			if v == nil {
				return "", &PyError{Kind: "KeyError", Msg: Repr(starlark.String(name))}
			}
		}
		b.WriteString(Str(v))
		spec = spec[i+j+1:]
	}
}

// getItem returns x[k] with Python error kinds.
func getItem(x, k starlark.Value) (starlark.Value, error) {
	if dl, ok := x.(pyDictLike); ok {
		x = dl.underlyingDict()
	}
	switch c := x.(type) {
	case starlark.Mapping:
		v, found, err := c.Get(k)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, &PyError{Kind: "KeyError", Msg: Repr(k)}
		}
		return v, nil
	case starlark.Indexable:
		i, err := starlark.AsInt32(k)
		if err != nil {
			return nil, Errorf("TypeError", "%s indices must be integers", pyType(x))
		}
		n := c.Len()
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, Errorf("IndexError", "%s index out of range", pyType(x))
		}
		return c.Index(i), nil
	}
	return nil, Errorf("TypeError", "'%s' object is not subscriptable", pyType(x))
}
