package py

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// percentFormat implements Python's printf-style "format % args".
func percentFormat(thread *starlark.Thread, format string, arg starlark.Value) (string, error) {
	arg, err := Unproxy(thread, arg)
	if err != nil {
		return "", err
	}
	var args []starlark.Value
	var mapping starlark.Mapping
	if t, ok := arg.(starlark.Tuple); ok {
		args = t
	} else {
		args = []starlark.Value{arg}
		if dl, ok := arg.(PyDictLike); ok {
			mapping = dl.UnderlyingDict()
		} else if m, ok := arg.(starlark.Mapping); ok {
			if _, isStr := arg.(starlark.String); !isStr {
				mapping = m
			}
		}
	}
	next := 0
	usedMapping := false
	nextArg := func() (starlark.Value, error) {
		if next >= len(args) {
			return nil, Errorf("TypeError", "not enough arguments for format string")
		}
		next++
		return args[next-1], nil
	}
	a := fmtAppender{thread: thread, buf: make([]byte, 0, len(format)+8*len(args)), next: SmallAlloc}
	i := 0
	for i < len(format) {
		j := strings.IndexByte(format[i:], '%')
		if j < 0 {
			a.buf = append(a.buf, format[i:]...)
			break
		}
		a.buf = append(a.buf, format[i:i+j]...)
		i += j + 1
		if i >= len(format) {
			return "", Errorf("ValueError", "incomplete format")
		}
		var v starlark.Value
		if format[i] == '(' {
			k := strings.IndexByte(format[i:], ')')
			if k < 0 {
				return "", Errorf("ValueError", "incomplete format key")
			}
			if mapping == nil {
				return "", Errorf("TypeError", "format requires a mapping")
			}
			key := format[i+1 : i+k]
			i += k + 1
			x, found, err := mapping.Get(starlark.String(key))
			if err != nil {
				return "", err
			}
			if !found {
				return "", &PyError{Kind: "KeyError", Msg: Repr(starlark.String(key))}
			}
			v = x
			usedMapping = true
		}
		s := FmtSpec{fill: ' ', Precision: -1}
		left := false
		for i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0 {
			switch format[i] {
			case '-':
				left = true
			case '+':
				s.Sign = '+'
			case ' ':
				if s.Sign == 0 {
					s.Sign = ' '
				}
			case '#':
				s.alt = true
			case '0':
				s.zero = true
			}
			i++
		}
		readNum := func() (int, error) {
			if i < len(format) && format[i] == '*' {
				i++
				x, err := nextArg()
				if err != nil {
					return 0, err
				}
				n, err := starlark.AsInt32(x)
				if err != nil {
					return 0, Errorf("TypeError", "* wants int")
				}
				return n, nil
			}
			j := i
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
			if i == j {
				return -1, nil
			}
			return strconv.Atoi(format[j:i])
		}
		w, err := readNum()
		if err != nil {
			return "", err
		}
		if w < 0 && w != -1 {
			left, w = true, -w
		}
		if w > 0 {
			s.width = w
		}
		if i < len(format) && format[i] == '.' {
			i++
			p, err := readNum()
			if err != nil {
				return "", err
			}
			if p < 0 {
				p = 0
			}
			s.Precision = p
		}
		if err := CheckAlloc(thread, int64(s.width)+int64(max(s.Precision, 0))); err != nil {
			return "", err
		}
		for i < len(format) && (format[i] == 'l' || format[i] == 'h' || format[i] == 'L') {
			i++
		}
		if i >= len(format) {
			return "", Errorf("ValueError", "incomplete format")
		}
		c := format[i]
		i++
		if c == '%' {
			a.buf = append(a.buf, '%')
			continue
		}
		if v == nil {
			if v, err = nextArg(); err != nil {
				return "", err
			}
		}
		if v, err = Unproxy(thread, v); err != nil {
			return "", err
		}
		if left {
			s.align = '<'
			s.zero = false
		}
		if strings.IndexByte("sradiuxXoeEfFgGc", c) < 0 {
			r, _ := utf8.DecodeRuneInString(format[i-1:])
			shown := r
			if r < 31 || r > 126 {
				shown = '?'
			}
			return "", Errorf(
				"ValueError",
				"unsupported format character '%c' (0x%x) at index %d",
				shown,
				r,
				utf8.RuneCountInString(format[:i-1]),
			)
		}
		if err := a.room(s.width); err != nil {
			return "", err
		}
		if out, ok := percentFast(a.buf, c, v, s); ok {
			a.buf = out
			continue
		}
		out, err := percentOne(thread, c, v, s)
		if err != nil {
			return "", err
		}
		if err := a.room(len(out)); err != nil {
			return "", err
		}
		a.buf = append(a.buf, out...)
	}
	if next < len(args) && !usedMapping && mapping == nil {
		return "", Errorf("TypeError", "not all arguments converted during string formatting")
	}
	return bytesString(a.buf), nil
}

// percentFast appends the conversion c of v for the common cases (%s of
// a str, an int64 or a float, %d of an int64, %f of a float) as
// percentOne would write it; ok is false, with dst unchanged, for the
// others.
func percentFast(dst []byte, c byte, v starlark.Value, s FmtSpec) ([]byte, bool) {
	switch c {
	case 's':
		if str, ok := v.(starlark.String); ok {
			s.Sign, s.alt, s.zero = 0, false, false
			if s.align == 0 {
				s.align = '>'
			}
			if s.width == 0 && s.Precision < 0 {
				return append(dst, str...), true
			}
			return appendFormatFast(dst, str, &s)
		}
		if s.width == 0 && s.Precision < 0 {
			return appendStrValue(dst, v)
		}
	case 'd', 'i', 'u':
		if _, ok := v.(starlark.Int); ok && s.Precision < 0 {
			s.Typ = 'd'
			return appendFormatFast(dst, v, &s)
		}
	case 'f', 'F':
		if _, ok := v.(starlark.Float); ok {
			s.Typ = c
			if s.Precision < 0 {
				s.Precision = 6
			}
			return appendFormatFast(dst, v, &s)
		}
	}
	return dst, false
}

func percentOne(thread *starlark.Thread, c byte, v starlark.Value, s FmtSpec) (string, error) {
	switch c {
	case 's', 'r', 'a':
		var str string
		switch c {
		case 's', 'r':
			// Rendered for the step: a value nested past the recursion
			// limit is a RecursionError, as in str() and repr().
			r := Renderer{Thread: thread}
			if c == 's' {
				r.str(v)
			} else {
				r.Repr(v)
			}
			if r.Err != nil {
				return "", r.Err
			}
			str = r.B.String()
		default:
			a, err := pyASCII(thread, nil, starlark.Tuple{v}, nil)
			if err != nil {
				return "", err
			}
			str = string(a.(starlark.String))
		}
		s.Sign, s.alt, s.zero = 0, false, false
		if s.align == 0 {
			s.align = '>'
		}
		return formatString(str, s)
	case 'd', 'i', 'u', 'x', 'X', 'o':
		var n *big.Int
		switch x := v.(type) {
		case starlark.Int:
			n = x.BigInt()
		case starlark.Bool:
			n = boolInt(x).BigInt()
		case starlark.Float:
			i, err := starlark.NumberToInt(x)
			if err != nil {
				return "", Errorf("OverflowError", "cannot convert float to integer")
			}
			if c != 'd' && c != 'i' && c != 'u' {
				return "", Errorf("TypeError", "%%%c format: an integer is required, not float", c)
			}
			n = i.BigInt()
		default:
			return "", Errorf("TypeError", "%%%c format: a real number is required, not %s", c, PyType(v))
		}
		if c == 'i' || c == 'u' {
			c = 'd'
		}
		s.Typ = c
		if s.Precision >= 0 {
			// %.3d pads the digits with zeros.
			prec := s.Precision
			s.Precision = -1
			neg := n.Sign() < 0
			digits := new(big.Int).Abs(n).Text(map[byte]int{'d': 10, 'x': 16, 'X': 16, 'o': 8}[c])
			if c == 'd' {
				if _, err := intDecimal(n); err != nil {
					return "", err
				}
			}
			if c == 'X' {
				digits = strings.ToUpper(digits)
			}
			for len(digits) < prec {
				digits = "0" + digits
			}
			sp := SignPrefix(neg, s.Sign)
			return Pad(sp+digits, s, '>', len(sp)), nil
		}
		return formatInt(n, s, "int")
	case 'f', 'F', 'e', 'E', 'g', 'G':
		f, err := FloatArg("%", v) // also Fraction and Decimal, as float(v)
		if err != nil {
			return "", err
		}
		s.Typ = c
		if s.Precision < 0 {
			s.Precision = 6
		}
		return FormatFloat(f, s)
	case 'c':
		switch x := v.(type) {
		case starlark.Int:
			n, ok := x.Int64()
			if !ok || n < 0 || n > utf8.MaxRune {
				return "", Errorf("OverflowError", "%%c arg not in range(0x110000)")
			}
			return Pad(string(rune(n)), s, '>', 0), nil
		case starlark.String:
			if utf8.RuneCountInString(string(x)) == 1 {
				return Pad(string(x), s, '>', 0), nil
			}
		}
		return "", Errorf("TypeError", "%%c requires int or char")
	}
	return "", Errorf("ValueError", "unsupported format character '%c' (0x%x)", c, c)
}
