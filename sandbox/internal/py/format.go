package py

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// FmtSpec is a parsed Python format specification.
type FmtSpec struct {
	fill      rune
	FillSet   bool // the spec gave a fill character
	align     byte // '<' '>' '^' '=' or 0
	Sign      byte // '+' '-' ' ' or 0
	noNeg0    bool // 'z': negative zero coercion
	alt       bool // '#'
	zero      bool // '0'
	width     int
	Grouping  byte // ',' '_' or 0
	Precision int  // -1 if absent
	Typ       byte // 0 if absent
}

// parseSpec reads a format spec as CPython's
// parse_internal_render_format_spec does.
func parseSpec(spec string) (FmtSpec, error) {
	s := FmtSpec{fill: ' ', Precision: -1}
	i := 0
	isAlign := func(c byte) bool { return c == '<' || c == '>' || c == '^' || c == '=' }
	if r, n := utf8.DecodeRuneInString(spec); n > 0 && n < len(spec) && isAlign(spec[n]) {
		s.fill, s.FillSet, s.align = r, true, spec[n]
		i = n + 1
	} else if len(spec) > 0 && isAlign(spec[0]) {
		s.align = spec[0]
		i = 1
	}
	if i < len(spec) && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ') {
		s.Sign = spec[i]
		i++
	}
	if i < len(spec) && spec[i] == 'z' {
		s.noNeg0 = true
		i++
	}
	if i < len(spec) && spec[i] == '#' {
		s.alt = true
		i++
	}
	if i < len(spec) && spec[i] == '0' && !s.FillSet {
		s.zero = true
		i++
	}
	j := i
	for i < len(spec) && spec[i] >= '0' && spec[i] <= '9' {
		i++
	}
	if i > j {
		w, err := strconv.Atoi(spec[j:i])
		if err != nil {
			return s, Errorf("ValueError", "Too many decimal digits in format string")
		}
		s.width = w
	}
	if i < len(spec) && (spec[i] == ',' || spec[i] == '_') {
		s.Grouping = spec[i]
		i++
		if i < len(spec) && (spec[i] == ',' || spec[i] == '_') {
			return s, Errorf("ValueError", "Cannot specify both ',' and '_'.")
		}
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
		p, err := strconv.Atoi(spec[j:i])
		if err != nil {
			return s, Errorf("ValueError", "Too many decimal digits in format string")
		}
		s.Precision = p
	}
	if len(spec)-i > 1 {
		return s, errBadSpec
	}
	if i < len(spec) {
		s.Typ = spec[i]
	}
	return s, nil
}

// checkGrouping is CPython's check of a thousands separator against the
// presentation type typ (the type's default when the spec has none).
func (s *FmtSpec) checkGrouping(typ byte) error {
	if s.Grouping == 0 {
		return nil
	}
	switch typ {
	case 'd', 'e', 'f', 'g', 'E', 'G', '%', 'F', 0:
		return nil
	case 'b', 'o', 'x', 'X':
		if s.Grouping == '_' {
			return nil
		}
	}
	if typ > ' ' && typ < 0x7f {
		return Errorf("ValueError", "Cannot specify '%c' with '%c'.", s.Grouping, typ)
	}
	return Errorf("ValueError", "Cannot specify '%c' with '\\x%x'.", s.Grouping, typ)
}

// unknownCode is CPython's error for a presentation type that the type
// named typeName does not have.
func unknownCode(typ byte, typeName string) error {
	if typ > ' ' && typ < 0x7f {
		return Errorf("ValueError", "Unknown format code '%c' for object of type '%s'", typ, typeName)
	}
	return Errorf("ValueError", "Unknown format code '\\x%x' for object of type '%s'", typ, typeName)
}

// fillAlign returns the fill character and alignment that s pads with,
// for a type whose default alignment is defAlign: a '0' before the
// width, with no fill given, fills with zeros (after the sign for
// numbers).
func (s *FmtSpec) fillAlign(defAlign byte) (rune, byte) {
	fill, align := s.fill, s.align
	if s.zero && !s.FillSet {
		fill = '0'
		if align == 0 && defAlign == '>' {
			align = '='
		}
	}
	if align == 0 {
		align = defAlign
	}
	return fill, align
}

// pyFormatter is implemented by the values a module defines that format
// themselves under a format spec (decimal.Decimal: format(d, ".2f")).
type pyFormatter interface {
	PyFormat(thread *starlark.Thread, s FmtSpec) (string, error)
}

// formatValue implements Python's format(v, spec).
func formatValue(thread *starlark.Thread, v starlark.Value, spec string) (string, error) {
	v, err := Unproxy(thread, v)
	if err != nil {
		return "", err
	}
	if spec == "" {
		r := Renderer{Thread: thread}
		r.str(v)
		if r.Err != nil {
			return "", r.Err
		}
		return r.B.String(), nil
	}
	s, err := parseSpec(spec)
	if err == errBadSpec {
		return "", Errorf("ValueError", "Invalid format specifier '%s' for object of type '%s'", spec, PyType(v))
	}
	if err != nil {
		return "", err
	}
	if err := CheckAlloc(thread, int64(s.width)+int64(max(s.Precision, 0))); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case starlark.String:
		return formatString(string(x), s)
	case starlark.Bool:
		return formatInt(boolInt(x).BigInt(), s, "bool")
	case starlark.Int:
		return formatInt(x.BigInt(), s, "int")
	case starlark.Float:
		return FormatFloat(float64(x), s)
	case pyFormatter:
		return x.PyFormat(thread, s)
	}
	if s.Typ == 0 || s.Typ == 's' {
		// Python: object.__format__ rejects non-empty specs; be lenient for
		// alignment-only specs on None and containers, which models use.
		if s.Precision < 0 && s.Grouping == 0 && s.Sign == 0 && !s.alt && !s.noNeg0 {
			s.Typ = 0
			return formatString(Str(v), s)
		}
	}
	return "", Errorf("TypeError", "unsupported format string passed to %s.__format__", PyType(v))
}

// Pad pads body to s's width; signLen is the length of the sign and
// prefix that zero padding ('=' alignment) goes after.
func Pad(body string, s FmtSpec, defAlign byte, signLen int) string {
	if utf8.RuneCountInString(body) >= s.width {
		return body
	}
	return string(appendPad(nil, []byte(body), &s, defAlign, signLen))
}

func formatString(x string, s FmtSpec) (string, error) {
	typ := s.Typ
	if typ == 0 {
		typ = 's'
	}
	if err := s.checkGrouping(typ); err != nil {
		return "", err
	}
	if typ != 's' {
		return "", unknownCode(typ, "str")
	}
	switch {
	case s.Sign == ' ':
		return "", Errorf("ValueError", "Space not allowed in string format specifier")
	case s.Sign != 0:
		return "", Errorf("ValueError", "Sign not allowed in string format specifier")
	case s.noNeg0:
		return "", Errorf("ValueError", "Negative zero coercion (z) not allowed in string format specifier")
	case s.alt:
		return "", Errorf("ValueError", "Alternate form (#) not allowed in string format specifier")
	case s.align == '=':
		return "", Errorf("ValueError", "'=' alignment not allowed in string format specifier")
	}
	if s.Precision >= 0 && utf8.RuneCountInString(x) > s.Precision {
		i := 0
		for k := 0; k < s.Precision; k++ {
			_, n := utf8.DecodeRuneInString(x[i:])
			i += n
		}
		x = x[:i]
	}
	return Pad(x, s, '<', 0), nil
}

func SignPrefix(neg bool, sign byte) string {
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

// Group inserts sep every n digits from the right of digits.
func Group(digits string, sep byte, n int) string {
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

// FormatNumber lays out a number: sign and prefix, the integer digits
// (grouped), then rest (fraction, exponent, '%'), padded to s's width.
// Zero padding of grouped digits inserts grouped zeros, as CPython does.
func FormatNumber(sp, digits, rest string, s FmtSpec, groupN int) string {
	fill, align := s.fillAlign('>')
	if s.Grouping != 0 && fill == '0' && align == '=' {
		need := s.width - len(sp) - utf8.RuneCountInString(rest)
		for len(Group(digits, s.Grouping, groupN)) < need {
			digits = "0" + digits
		}
		return sp + Group(digits, s.Grouping, groupN) + rest
	}
	return Pad(sp+Group(digits, s.Grouping, groupN)+rest, s, '>', len(sp))
}

func formatInt(n *big.Int, s FmtSpec, typeName string) (string, error) {
	typ := s.Typ
	if typ == 0 {
		typ = 'd'
	}
	if err := s.checkGrouping(typ); err != nil {
		return "", err
	}
	switch typ {
	case 'b', 'c', 'd', 'o', 'x', 'X', 'n':
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		f := float64(starlark.MakeBigInt(n).Float())
		if math.IsInf(f, 0) {
			return "", Errorf("OverflowError", "int too large to convert to float")
		}
		return FormatFloat(f, s)
	default:
		return "", unknownCode(typ, typeName)
	}
	if s.Precision >= 0 {
		return "", Errorf("ValueError", "Precision not allowed in integer format specifier")
	}
	if s.noNeg0 {
		return "", Errorf("ValueError", "Negative zero coercion (z) not allowed in integer format specifier")
	}
	neg := n.Sign() < 0
	abs := new(big.Int).Abs(n)
	var digits, prefix string
	groupN := 3
	switch typ {
	case 'd', 'n':
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
		if s.Sign != 0 {
			return "", Errorf("ValueError", "Sign not allowed with integer format specifier 'c'")
		}
		if s.alt {
			return "", Errorf("ValueError", "Alternate form (#) not allowed with integer format specifier 'c'")
		}
		if !n.IsInt64() {
			return "", Errorf("OverflowError", "Python int too large to convert to C long")
		}
		if neg || abs.Int64() > utf8.MaxRune {
			return "", Errorf("OverflowError", "%%c arg not in range(0x110000)")
		}
		return Pad(string(rune(abs.Int64())), s, '>', 0), nil
	}
	if !s.alt {
		prefix = ""
	}
	return FormatNumber(SignPrefix(neg, s.Sign)+prefix, digits, "", s, groupN), nil
}

func FormatFloat(f float64, s FmtSpec) (string, error) {
	typ := s.Typ
	if err := s.checkGrouping(typ); err != nil {
		return "", err
	}
	switch typ {
	case 0, 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%':
	default:
		return "", unknownCode(typ, "float")
	}
	prec := s.Precision
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
		if prec < 0 {
			prec = 6
		}
		switch typ {
		case 'f', 'F':
			body = strconv.FormatFloat(a, 'f', prec, 64)
			if s.alt && prec == 0 {
				body += "."
			}
		case 'e', 'E':
			body = strconv.FormatFloat(a, 'e', prec, 64)
			if s.alt && prec == 0 {
				body = strings.Replace(body, "e", ".e", 1)
			}
		case '%':
			body = strconv.FormatFloat(a*100, 'f', prec, 64)
			if s.alt && prec == 0 {
				body += "."
			}
		case 'g', 'G', 'n':
			body = formatG(a, prec, s.alt, false)
		case 0:
			if s.Precision < 0 {
				body = formatFloatRepr(a)
			} else {
				body = formatG(a, prec, s.alt, true)
			}
		}
		if neg && s.noNeg0 && strings.Trim(strings.SplitN(strings.ToLower(body), "e", 2)[0], "0.") == "" {
			neg = false
		}
	}
	if typ == '%' {
		body += "%"
	}
	if upper {
		body = strings.ToUpper(body)
	}
	sp := SignPrefix(neg, s.Sign)
	intEnd := strings.IndexFunc(body, func(r rune) bool { return r < '0' || r > '9' })
	if intEnd < 0 {
		intEnd = len(body)
	}
	if intEnd == 0 {
		// inf, nan: no digits to group or to pad with zeros.
		s.Grouping = 0
	}
	return FormatNumber(sp, body[:intEnd], body[intEnd:], s, 3), nil
}

// formatG implements Python's 'g' presentation (and the default
// presentation with a precision when noneType is set: at least one
// digit after the point, so one digit less before an exponent is used).
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
	limit := prec
	if noneType {
		limit = prec - 1
	}
	var body string
	if -4 <= exp && exp < limit {
		body = strconv.FormatFloat(a, 'f', prec-1-exp, 64)
		if !alt {
			if strings.Contains(body, ".") {
				body = strings.TrimRight(body, "0")
				body = strings.TrimSuffix(body, ".")
			}
			if noneType && !strings.Contains(body, ".") {
				body += ".0"
			}
		} else if !strings.Contains(body, ".") {
			body += "."
		}
		return body
	}
	if !alt && strings.Contains(mant, ".") {
		mant = strings.TrimRight(mant, "0")
		mant = strings.TrimSuffix(mant, ".")
	} else if alt && !strings.Contains(mant, ".") {
		mant += "."
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
		return nil, ArgErr("_py_format", "takes 2 arguments")
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
	a := fmtAppender{thread: thread, buf: make([]byte, 0, len(format)+8*len(args)), next: SmallAlloc}
	auto := 0
	manual := false
	i := 0
	for i < len(format) {
		c := format[i]
		if c == '}' {
			if i+1 < len(format) && format[i+1] == '}' {
				a.buf = append(a.buf, '}')
				i += 2
				continue
			}
			return "", Errorf("ValueError", "Single '}' encountered in format string")
		}
		if c != '{' {
			j := strings.IndexAny(format[i:], "{}")
			if j < 0 {
				a.buf = append(a.buf, format[i:]...)
				break
			}
			a.buf = append(a.buf, format[i:i+j]...)
			i += j
			continue
		}
		if i+1 < len(format) && format[i+1] == '{' {
			a.buf = append(a.buf, '{')
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
			if auto > 0 {
				return "", Errorf("ValueError", "cannot switch from automatic field numbering to manual field specification")
			}
			manual = true
			n, err := strconv.Atoi(head)
			if err != nil || n >= len(args) {
				return "", Errorf("IndexError", "Replacement index %s out of range for positional args tuple", head)
			}
			v = args[n]
		default:
			for _, kv := range kwargs {
				if k, _ := starlark.AsString(kv[0]); k == head {
					v = kv[1]
				}
			}
			if v == nil {
				return "", &PyError{Kind: "KeyError", Msg: Repr(starlark.String(head))}
			}
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
					return "", Errorf("AttributeError", "'%s' object has no attribute '%s'", PyType(v), attr)
				}
				x, err := ha.Attr(attr)
				if err != nil || x == nil {
					return "", Errorf("AttributeError", "'%s' object has no attribute '%s'", PyType(v), attr)
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
				x, err := GetItem(v, kv)
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
		case 'r', 's', 'a', 0:
		default:
			return "", Errorf("ValueError", "Unknown conversion specifier %c", conv)
		}
		if err := a.Value(v, conv, spec); err != nil {
			return "", err
		}
	}
	return bytesString(a.buf), nil
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

// GetItem returns x[k] with Python error kinds.
func GetItem(x, k starlark.Value) (starlark.Value, error) {
	if dl, ok := x.(PyDictLike); ok {
		x = dl.UnderlyingDict()
	}
	switch c := x.(type) {
	case starlark.Mapping:
		v, found, err := c.Get(k)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, KeyErr(k)
		}
		return v, nil
	case starlark.Indexable:
		i, err := starlark.AsInt32(k)
		if err != nil {
			return nil, Errorf("TypeError", "%s indices must be integers", PyType(x))
		}
		n := c.Len()
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, Errorf("IndexError", "%s index out of range", PyType(x))
		}
		return c.Index(i), nil
	}
	return nil, Errorf("TypeError", "'%s' object is not subscriptable", PyType(x))
}
