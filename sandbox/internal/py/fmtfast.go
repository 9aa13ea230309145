package py

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// Formatting into one buffer: f-strings (_py_fstr), printf-style % and
// str.format append each part where it belongs instead of building a
// string per part and joining them with +. The fast paths cover the
// common values (str, int64, float) and specs; everything else goes
// through formatValue, the one reference implementation, so the output
// is the same either way.

// bytesString returns b as a string without copying; b must not be
// written again.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendFloatRepr appends CPython's repr(f).
func appendFloatRepr(dst []byte, f float64) []byte {
	if a := math.Abs(f); a >= 1e-4 && a < 1e16 {
		// repr writes these without an exponent: the shortest digits
		// that round-trip, as 'f' with precision -1 writes them.
		n := len(dst)
		dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
		if bytes.IndexByte(dst[n:], '.') < 0 {
			dst = append(dst, ".0"...)
		}
		return dst
	}
	return append(dst, formatFloatRepr(f)...)
}

// appendStrValue appends str(v) for a str, an int that fits in int64 or
// a float; ok is false, with dst unchanged, for anything else.
func appendStrValue(dst []byte, v starlark.Value) ([]byte, bool) {
	switch x := v.(type) {
	case starlark.String:
		return append(dst, x...), true
	case starlark.Int:
		if n, ok := x.Int64(); ok {
			return strconv.AppendInt(dst, n, 10), true
		}
	case starlark.Float:
		return appendFloatRepr(dst, float64(x)), true
	}
	return dst, false
}

// appendFill appends n copies of fill.
func appendFill(dst []byte, fill rune, n int) []byte {
	if fill < utf8.RuneSelf {
		for ; n > 0; n-- {
			dst = append(dst, byte(fill))
		}
		return dst
	}
	for ; n > 0; n-- {
		dst = utf8.AppendRune(dst, fill)
	}
	return dst
}

// appendPad appends body padded to s's width, as pad does.
func appendPad(dst []byte, body []byte, s *FmtSpec, defAlign byte, signLen int) []byte {
	n := utf8.RuneCount(body)
	if n >= s.width {
		return append(dst, body...)
	}
	fill, align := s.fillAlign(defAlign)
	padN := s.width - n
	switch align {
	case '<':
		dst = append(dst, body...)
		return appendFill(dst, fill, padN)
	case '^':
		l := padN / 2
		dst = appendFill(dst, fill, l)
		dst = append(dst, body...)
		return appendFill(dst, fill, padN-l)
	case '=':
		dst = append(dst, body[:signLen]...)
		dst = appendFill(dst, fill, padN)
		return append(dst, body[signLen:]...)
	}
	dst = appendFill(dst, fill, padN)
	return append(dst, body...)
}

// appendFormatFast appends format(v, s) for a str, an int that fits in
// int64 or a finite float with the common presentation types; ok is
// false, with dst unchanged, for anything else. The caller has checked
// the allocation of s's width and precision.
func appendFormatFast(dst []byte, v starlark.Value, s *FmtSpec) ([]byte, bool) {
	switch x := v.(type) {
	case starlark.String:
		if (s.Typ != 0 && s.Typ != 's') || s.Sign != 0 || s.align == '=' || s.alt || s.noNeg0 || s.Grouping != 0 {
			return dst, false
		}
		str := string(x)
		if s.Precision >= 0 && utf8.RuneCountInString(str) > s.Precision {
			i := 0
			for k := 0; k < s.Precision; k++ {
				_, n := utf8.DecodeRuneInString(str[i:])
				i += n
			}
			str = str[:i]
		}
		if s.width == 0 {
			return append(dst, str...), true
		}
		return appendPad(dst, []byte(str), s, '<', 0), true
	case starlark.Int:
		n, ok := x.Int64()
		if !ok || (s.Typ != 0 && s.Typ != 'd') || s.Precision >= 0 || s.Grouping != 0 || s.noNeg0 {
			return dst, false
		}
		var tmp [24]byte
		body := append(tmp[:0], SignPrefix(n < 0, s.Sign)...)
		signLen := len(body)
		u := uint64(n)
		if n < 0 {
			u = -u
		}
		body = strconv.AppendUint(body, u, 10)
		return appendPad(dst, body, s, '>', signLen), true
	case starlark.Float:
		f := float64(x)
		if s.Grouping != 0 || s.noNeg0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return dst, false
		}
		var tmp [32]byte
		body := append(tmp[:0], SignPrefix(math.Signbit(f), s.Sign)...)
		signLen := len(body)
		a := math.Abs(f)
		switch {
		case s.Typ == 'f' || s.Typ == 'F':
			prec := s.Precision
			if prec < 0 {
				prec = 6
			}
			body = strconv.AppendFloat(body, a, 'f', prec, 64)
			if s.alt && prec == 0 {
				body = append(body, '.')
			}
		case s.Typ == 0 && s.Precision < 0 && !s.alt:
			body = appendFloatRepr(body, a)
		default:
			return dst, false
		}
		return appendPad(dst, body, s, '>', signLen), true
	}
	return dst, false
}

// fmtAppender builds one formatted string, checking its size against the
// step's memory allowance as it grows past smallAlloc.
type fmtAppender struct {
	thread *starlark.Thread
	buf    []byte
	next   int // the size at which to check again
}

// room checks that the buffer may grow by n bytes.
func (a *fmtAppender) room(n int) error {
	if need := len(a.buf) + n; need >= a.next {
		if err := CheckAlloc(a.thread, int64(need)); err != nil {
			return err
		}
		a.next = max(2*need, SmallAlloc)
	}
	return nil
}

// Value appends format(v, spec) (Python's str(v) for an empty spec)
// after conversion conv (0, 'r', 's' or 'a').
func (a *fmtAppender) Value(v starlark.Value, conv byte, spec string) error {
	if p, ok := v.(Proxy); ok {
		t, err := Unproxy(a.thread, p)
		if err != nil {
			return err
		}
		v = t
	}
	switch conv {
	case 0:
	case 's':
		if _, ok := v.(starlark.String); !ok {
			s, err := builtinStr(a.thread, starlark.Tuple{v}, nil)
			if err != nil {
				return err
			}
			v = s
		}
	case 'r':
		s, err := pyRepr(a.thread, nil, starlark.Tuple{v}, nil)
		if err != nil {
			return err
		}
		v = s
	case 'a':
		s, err := pyASCII(a.thread, nil, starlark.Tuple{v}, nil)
		if err != nil {
			return err
		}
		v = s
	}
	if s, ok := v.(starlark.String); ok {
		if err := a.room(len(s)); err != nil {
			return err
		}
		if spec == "" {
			a.buf = append(a.buf, s...)
			return nil
		}
	} else if spec == "" {
		if out, ok := appendStrValue(a.buf, v); ok {
			a.buf = out
			return nil
		}
	}
	if spec != "" {
		s, err := parseSpec(spec)
		if err != nil {
			return err
		}
		if err := CheckAlloc(a.thread, int64(s.width)+int64(max(s.Precision, 0))); err != nil {
			return err
		}
		if err := a.room(s.width); err != nil {
			return err
		}
		if out, ok := appendFormatFast(a.buf, v, &s); ok {
			a.buf = out
			return nil
		}
	}
	str, err := formatValue(a.thread, v, spec)
	if err != nil {
		return err
	}
	if err := a.room(len(str)); err != nil {
		return err
	}
	a.buf = append(a.buf, str...)
	return nil
}

// pyFStrFast is _py_fstr's fast path (starlark.FastCallable): when every
// value is a str, int, float, bool or None, whose formatting runs none of
// the program's code, it formats without the general call's frame and
// argument handling; it declines anything else, and an error, which the
// general call then reports with its traceback.
func pyFStrFast(thread *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
	if len(args) == 0 {
		return nil, false
	}
	if !allBasic(args[1:]) {
		return nil, false
	}
	v, err := pyFStr(thread, nil, args, nil)
	if err != nil {
		return nil, false
	}
	return v, true
}

// pyFStr is _py_fstr(template, values...), an f-string: the template
// (built by pyfront, see its RUNTIME.md) lists literal text and fields;
// each field takes the next value (and, with a dynamic spec, the value
// after it as its spec).
func pyFStr(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 || len(kwargs) > 0 {
		return nil, ArgErr("_py_fstr", "takes a template and values")
	}
	tmpl, ok := args[0].(starlark.String)
	if !ok {
		return nil, ArgErr("_py_fstr", "template must be a str")
	}
	vals := args[1:]
	a := fmtAppender{thread: thread, buf: make([]byte, 0, len(tmpl)+8*len(vals)), next: SmallAlloc}
	t := string(tmpl)
	for len(t) > 0 {
		tag := t[0]
		t = t[1:]
		switch tag {
		case 'L':
			n, k := readUvarint(t)
			if k <= 0 || uint64(len(t)-k) < n {
				return nil, errBadTemplate()
			}
			lit := t[k : k+int(n)]
			t = t[k+int(n):]
			if err := a.room(len(lit)); err != nil {
				return nil, err
			}
			a.buf = append(a.buf, lit...)
		case 'F', 'D':
			if len(t) == 0 || len(vals) == 0 {
				return nil, errBadTemplate()
			}
			conv := t[0]
			t = t[1:]
			v := vals[0]
			vals = vals[1:]
			var spec string
			if tag == 'F' {
				n, k := readUvarint(t)
				if k <= 0 || uint64(len(t)-k) < n {
					return nil, errBadTemplate()
				}
				spec = t[k : k+int(n)]
				t = t[k+int(n):]
			} else {
				if len(vals) == 0 {
					return nil, errBadTemplate()
				}
				s, ok := vals[0].(starlark.String)
				if !ok {
					return nil, Errorf("TypeError", "format spec must be a str")
				}
				spec = string(s)
				vals = vals[1:]
			}
			if err := a.Value(v, conv, spec); err != nil {
				return nil, err
			}
		default:
			return nil, errBadTemplate()
		}
	}
	return starlark.String(bytesString(a.buf)), nil
}

// readUvarint decodes the unsigned varint (encoding/binary's format) at
// the start of s: its value and length, or k <= 0 if there is none.
func readUvarint(s string) (n uint64, k int) {
	var shift uint
	for i := 0; i < len(s) && i < 10; i++ {
		c := s[i]
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n, i + 1
		}
		shift += 7
	}
	return 0, 0
}

func errBadTemplate() error { return ArgErr("_py_fstr", "malformed template") }
