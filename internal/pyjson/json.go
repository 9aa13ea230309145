package pyjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// ---- encoding ----

// jsonWriter is what the encoder writes to.
type jsonWriter = TextWriter

// Encode writes v as compact JSON in the style of Python's
// json.dumps(ensure_ascii=False) with ", " and ": " separators: dict order
// kept, floats always carrying a '.' or exponent so they decode back as
// floats, NaN and Infinity written as Python does.
func Encode(w io.Writer, v any) error {
	if jw, ok := w.(jsonWriter); ok {
		return encodeValue(jw, v, 0)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := encodeValue(bw, v, 0); err != nil {
		return err
	}
	return bw.Flush()
}

// MarshalJSON returns the JSON encoding of d (see [Encode]).
func (d *Dict) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	if err := encodeValue(&b, d, 0); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// maxDepth bounds nesting when encoding and decoding.
const maxDepth = 10000

var errDepth = fmt.Errorf("%w: nesting deeper than %d levels", ErrUnsupportedValue, maxDepth)

func encodeValue(w jsonWriter, v any, depth int) error {
	jw := Writer{w: w, o: compact}
	jw.value(v, depth)
	return jw.err
}

// formatFloat renders f like Python's repr.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	var s string
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s = strconv.FormatFloat(f, 'e', -1, 64)
		// Python writes 1e+16 as 1e+16 and 1e-05 as 1e-05: two-digit exponent.
		if i := strings.IndexAny(s, "e"); i >= 0 {
			exp := s[i+2:]
			if len(exp) == 1 {
				s = s[:i+2] + "0" + exp
			}
		}
		return s
	}
	s = strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// countWriter counts bytes written.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error)       { c.n += int64(len(p)); return len(p), nil }
func (c *countWriter) WriteString(s string) (int, error) { c.n += int64(len(s)); return len(s), nil }
func (c *countWriter) WriteByte(byte) error              { c.n++; return nil }

// Size is the length of v's JSON encoding (see [Encode]), computed
// without building it. A string counts as its raw length.
func Size(v any) int64 {
	if s, ok := v.(string); ok {
		return int64(len(s))
	}
	var c countWriter
	_ = encodeValue(&c, v, 0)
	return c.n
}

// limitWriter is a strings.Builder that stops after max bytes.
type limitWriter struct {
	b   strings.Builder
	max int
}

var errLimit = errors.New("limit reached")

func (l *limitWriter) WriteString(s string) (int, error) {
	if l.max >= 0 && l.b.Len()+len(s) > l.max {
		l.b.WriteString(s[:l.max-l.b.Len()])
		return 0, errLimit
	}
	return l.b.WriteString(s)
}
func (l *limitWriter) Write(p []byte) (int, error) {
	return l.WriteString(bytesToString(p))
}
func (l *limitWriter) WriteByte(c byte) error {
	_, err := l.WriteString(string(rune(c)))
	return err
}

// Excerpt encodes v, keeping at most max bytes (max < 0: all). The cut
// may split a UTF-8 sequence; callers trim.
func Excerpt(v any, max int) string {
	lw := &limitWriter{max: max}
	if max >= 0 {
		lw.b.Grow(min(max, 1<<20))
	}
	_ = encodeValue(lw, v, 0)
	return lw.b.String()
}

// ---- normalizing Go values ----

// Normalize converts a Go value to the variable value kinds: string, bool,
// nil, int64, *big.Int, float64, []any, *Dict. Other integer and float
// types, []string, map[string]any (keys sorted), json.Number and
// json.RawMessage are converted; other values go through encoding/json.
// Values already in normal form are returned as is, without copying.
func Normalize(v any) (any, error) {
	out, _, err := normalize(v, 0)
	return out, err
}

func normalize(v any, depth int) (any, bool, error) {
	if depth > maxDepth {
		return nil, false, errDepth
	}
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		return v, false, nil
	case *big.Int:
		if x == nil {
			return nil, true, nil
		}
		if x.IsInt64() {
			return x.Int64(), true, nil
		}
		return v, false, nil
	case *Dict:
		if x == nil {
			return nil, true, nil
		}
		var nd *Dict
		for i, k := range x.Keys() {
			val, _ := x.Get(k)
			nv, changed, err := normalize(val, depth+1)
			if err != nil {
				return nil, false, err
			}
			if changed && nd == nil {
				nd = NewDict(x.Len())
				for _, pk := range x.Keys()[:i] {
					pv, _ := x.Get(pk)
					nd.Set(pk, pv)
				}
			}
			if nd != nil {
				nd.Set(k, nv)
			}
		}
		if nd != nil {
			return nd, true, nil
		}
		return x, false, nil
	case []any:
		var nl []any
		for i, it := range x {
			nv, changed, err := normalize(it, depth+1)
			if err != nil {
				return nil, false, err
			}
			if changed && nl == nil {
				nl = make([]any, len(x))
				copy(nl, x[:i])
			}
			if nl != nil {
				nl[i] = nv
			}
		}
		if nl != nil {
			return nl, true, nil
		}
		return x, false, nil
	case int:
		return int64(x), true, nil
	case int8:
		return int64(x), true, nil
	case int16:
		return int64(x), true, nil
	case int32:
		return int64(x), true, nil
	case uint:
		return normUint(uint64(x)), true, nil
	case uint8:
		return int64(x), true, nil
	case uint16:
		return int64(x), true, nil
	case uint32:
		return int64(x), true, nil
	case uint64:
		return normUint(x), true, nil
	case float32:
		return float64(x), true, nil
	case big.Int:
		return normalize(&x, depth)
	case Dict:
		return normalize(&x, depth)
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, true, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := NewDict(len(keys))
		for _, k := range keys {
			nv, _, err := normalize(x[k], depth+1)
			if err != nil {
				return nil, false, err
			}
			d.Set(k, nv)
		}
		return d, true, nil
	case json.Number:
		val, err := Decode([]byte(x))
		if err != nil {
			return nil, false, fmt.Errorf("%w: bad json.Number %q", ErrUnsupportedValue, string(x))
		}
		return val, true, nil
	case json.RawMessage:
		val, err := Decode(x)
		if err != nil {
			return nil, false, err
		}
		return val, true, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Func, reflect.Chan, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return nil, false, fmt.Errorf("%w: %T (use str, int, float, bool, None, list or dict)", ErrUnsupportedValue, v)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %T: %v", ErrUnsupportedValue, v, err)
	}
	val, err := Decode(data)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %T: %v", ErrUnsupportedValue, v, err)
	}
	return val, true, nil
}

func normUint(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return new(big.Int).SetUint64(u)
}

// ---- decoding ----

// SyntaxError is malformed JSON, JSON Lines or CSV input, or input this
// decoder refuses (Kind). It wraps ErrSyntax, or Kind when set.
type SyntaxError struct {
	Source string // file name or "" for in-memory data
	Line   int    // 1-based
	Column int    // 1-based, in characters
	Offset int64  // byte offset from the start of the input
	Char   int    // offset in characters (code points), as Python counts
	Msg    string
	// Kind is set for well-formed input that is refused: ErrIntTooLong.
	Kind error
}

func (e *SyntaxError) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString(e.Source)
		b.WriteString(": ")
	}
	what := "malformed input at line"
	if e.Kind != nil {
		what = "line"
	}
	fmt.Fprintf(&b, "%s %d, column %d: %s", what, e.Line, e.Column, e.Msg)
	return b.String()
}

// Unwrap returns ErrSyntax, or Kind when set.
func (e *SyntaxError) Unwrap() error {
	if e.Kind != nil {
		return e.Kind
	}
	return ErrSyntax
}

// Decode parses one JSON document the way Python's json.loads does:
// objects become *Dict (order kept, a repeated key keeps its first position
// and last value), integers int64 (or *big.Int beyond int64), other numbers
// float64; NaN, Infinity and -Infinity are accepted. Errors are *SyntaxError
// with line and column. data is not retained.
func Decode(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, UTF8Error("", data, 0)
	}
	d := &decoder{data: data}
	return d.document()
}

// DecodeOwned parses data, which the caller hands over and never modifies
// again: strings without escapes point into it (no copy).
func DecodeOwned(data []byte, source string) (any, error) {
	if !utf8.Valid(data) {
		return nil, UTF8Error(source, data, 0)
	}
	d := &decoder{data: data, owned: true, source: source}
	return d.document()
}

// UTF8Error names the first invalid byte offset in data (plus base).
func UTF8Error(source string, data []byte, base int64) error {
	off := 0
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		off += size
	}
	if source != "" {
		return fmt.Errorf("%s: %w at byte offset %d (the file must be UTF-8 text; convert it, e.g. with iconv -f LATIN1 -t UTF-8)", source, ErrInvalidUTF8, base+int64(off))
	}
	return fmt.Errorf("%w at byte offset %d", ErrInvalidUTF8, base+int64(off))
}

type decoder struct {
	data   []byte
	py     bool     // Python's json.loads: its messages, lenient number ends
	depth  int      // most nesting allowed (maxDepth unless py)
	kstack []string // keys of the objects being parsed
	vstack []any    // values of the objects and arrays being parsed
	pos    int
	owned  bool
	source string
	// lineBase and offBase shift reported positions (JSON Lines).
	lineBase int
	offBase  int64
}

func (d *decoder) errorf(pos int, format string, args ...any) error {
	if pos > len(d.data) {
		pos = len(d.data)
	}
	line := 1 + strings.Count(bytesToString(d.data[:pos]), "\n")
	ls := 0
	for i := pos - 1; i >= 0; i-- {
		if d.data[i] == '\n' {
			ls = i + 1
			break
		}
	}
	col := 1 + utf8.RuneCount(d.data[ls:pos])
	char := col - 1 + utf8.RuneCount(d.data[:ls])
	return &SyntaxError{Source: d.source, Line: line + d.lineBase, Column: col, Offset: d.offBase + int64(pos), Char: char, Msg: fmt.Sprintf(format, args...)}
}

// fail is errorf with CPython's json.loads message py in Python mode.
func (d *decoder) fail(pos int, py string, format string, args ...any) error {
	if d.py {
		return d.errorf(pos, "%s", py)
	}
	return d.errorf(pos, format, args...)
}

// DecodePython parses s as Python's json.loads does, with its error
// messages (Msg "Expecting value", "Extra data", ...; see
// [SyntaxError.PythonMessage]) and number syntax ("1." is 1 followed by
// extra data). Nesting beyond maxDepth is a *SyntaxError whose Kind is
// ErrTooDeep, with CPython's RecursionError message. Strings are copied;
// invalid UTF-8 is kept as it is.
func DecodePython(s string, maxDepth int) (any, error) {
	d := &decoder{data: unsafe.Slice(unsafe.StringData(s), len(s)), py: true, depth: maxDepth}
	return d.document()
}

// PythonMessage is the error as CPython's json.JSONDecodeError words it:
// "Msg: line L column C (char N)".
func (e *SyntaxError) PythonMessage() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Column, e.Char)
}

func (d *decoder) document() (any, error) {
	if d.depth == 0 {
		d.depth = maxDepth
	}
	d.skipSpace()
	if d.pos >= len(d.data) {
		return nil, d.fail(d.pos, "Expecting value", "expecting a JSON value, found end of input (empty file?)")
	}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		return nil, d.fail(d.pos, "Extra data", "extra data after the JSON value (several documents? use a .jsonl file for one value per line)")
	}
	return v, nil
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if depth >= d.depth && d.pos < len(d.data) && (d.data[d.pos] == '[' || d.data[d.pos] == '{') {
		what := map[byte]string{'[': "array", '{': "object"}[d.data[d.pos]]
		err := d.fail(d.pos, "maximum recursion depth exceeded while decoding a JSON "+what+" from a unicode string", "nesting deeper than %d levels", d.depth)
		if d.py {
			err.(*SyntaxError).Kind = ErrTooDeep
		}
		return nil, err
	}
	if d.pos >= len(d.data) {
		return nil, d.fail(d.pos, "Expecting value", "expecting a value, found end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		if d.hasPrefix("-Infinity") {
			d.pos += len("-Infinity")
			return math.Inf(-1), nil
		}
		return d.number()
	case d.hasPrefix("true"):
		d.pos += 4
		return true, nil
	case d.hasPrefix("false"):
		d.pos += 5
		return false, nil
	case d.hasPrefix("null"):
		d.pos += 4
		return nil, nil
	case d.hasPrefix("NaN"):
		d.pos += 3
		return math.NaN(), nil
	case d.hasPrefix("Infinity"):
		d.pos += 8
		return math.Inf(1), nil
	default:
		r, _ := utf8.DecodeRune(d.data[d.pos:])
		return nil, d.fail(d.pos, "Expecting value", "expecting a value, found %q", r)
	}
}

func (d *decoder) hasPrefix(s string) bool {
	return len(d.data)-d.pos >= len(s) && string(d.data[d.pos:d.pos+len(s)]) == s
}

func (d *decoder) object(depth int) (any, error) {
	start := d.pos
	d.pos++ // {
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return NewDict(0), nil
	}
	// Entries collect on the decoder's stacks, then move to exact-size slices.
	base := len(d.kstack)
	defer func() { d.kstack, d.vstack = d.kstack[:base], d.vstack[:base] }()
	for {
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail(d.pos, "Expecting property name enclosed in double quotes", "unterminated object (opened at byte %d)", d.offBase+int64(start))
		}
		if d.data[d.pos] != '"' {
			return nil, d.fail(d.pos, "Expecting property name enclosed in double quotes", "expecting a property name in double quotes")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.fail(d.pos, "Expecting ':' delimiter", "expecting ':' delimiter")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.kstack = append(d.kstack, k.(string))
		d.vstack = append(d.vstack, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail(d.pos, "Expecting ',' delimiter", "unterminated object (opened at byte %d)", d.offBase+int64(start))
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			n := len(d.kstack) - base
			obj := &Dict{keys: make([]string, n), vals: make([]any, n)}
			copy(obj.keys, d.kstack[base:])
			copy(obj.vals, d.vstack[base:])
			if n > dictIndexMin {
				obj.reindex()
				if len(obj.idx) < n {
					obj = dedup(obj)
				}
			} else if hasDupKeys(obj.keys) {
				obj = dedup(obj)
			}
			return obj, nil
		default:
			return nil, d.fail(d.pos, "Expecting ',' delimiter", "expecting ',' or '}' in object")
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	start := d.pos
	d.pos++ // [
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return []any{}, nil
	}
	// Items collect on the value stack (kstack stays aligned with a "" key).
	base := len(d.vstack)
	defer func() { d.kstack, d.vstack = d.kstack[:base], d.vstack[:base] }()
	for {
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.kstack = append(d.kstack, "")
		d.vstack = append(d.vstack, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail(d.pos, "Expecting ',' delimiter", "unterminated array (opened at byte %d)", d.offBase+int64(start))
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			arr := make([]any, len(d.vstack)-base)
			copy(arr, d.vstack[base:])
			return arr, nil
		default:
			return nil, d.fail(d.pos, "Expecting ',' delimiter", "expecting ',' or ']' in array")
		}
	}
}

func (d *decoder) number() (any, error) {
	start := d.pos
	i := d.pos
	if d.data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d.data) && d.data[i] == '0' {
		i++
	} else if digits() == 0 {
		if d.py {
			return nil, d.errorf(start, "Expecting value")
		}
		return nil, d.errorf(i, "invalid number")
	}
	// In Python mode a '.' or exponent without digits ends the number
	// before it (then "Extra data" follows), as CPython's number pattern.
	isFloat := false
	if i < len(d.data) && d.data[i] == '.' {
		at := i
		i++
		if digits() > 0 {
			isFloat = true
		} else if d.py {
			i = at
		} else {
			return nil, d.errorf(i, "invalid number: digits expected after '.'")
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		at := i
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() > 0 {
			isFloat = true
		} else if d.py {
			i = at
		} else {
			return nil, d.errorf(i, "invalid number: digits expected in exponent")
		}
	}
	d.pos = i
	lit := bytesToString(d.data[start:i])
	if !isFloat {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return n, nil
		}
		if n := len(strings.TrimPrefix(lit, "-")); n > MaxIntDigits {
			err := d.errorf(start, "Exceeds the limit (%d digits) for integer string conversion: value has %d digits", MaxIntDigits, n)
			err.(*SyntaxError).Kind = ErrIntTooLong
			return nil, err
		}
		b, ok := new(big.Int).SetString(lit, 10)
		if !ok {
			return nil, d.errorf(start, "invalid integer")
		}
		return b, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, d.errorf(start, "invalid number")
	}
	return f, nil
}

func (d *decoder) str() (any, error) {
	start := d.pos
	d.pos++ // opening quote
	i := d.pos
	for i < len(d.data) {
		c := d.data[i]
		if c == '"' {
			s := d.data[d.pos:i]
			d.pos = i + 1
			if d.owned {
				return bytesToString(s), nil
			}
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, d.fail(i, "Invalid control character at", "invalid control character in string (escape it as \\u%04x)", c)
		}
		i++
	}
	if i >= len(d.data) {
		return nil, d.fail(start, "Unterminated string starting at", "unterminated string starting here")
	}
	// Slow path: escapes.
	buf := make([]byte, 0, i-d.pos+16)
	buf = append(buf, d.data[d.pos:i]...)
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return bytesToString(buf), nil
		case c < 0x20:
			return nil, d.fail(i, "Invalid control character at", "invalid control character in string (escape it as \\u%04x)", c)
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(d.data) {
			break
		}
		e := d.data[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'n':
			buf = append(buf, '\n')
		case 't':
			buf = append(buf, '\t')
		case 'r':
			buf = append(buf, '\r')
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'u':
			r, ok := d.hex4(i)
			if !ok {
				if d.py {
					return nil, d.errorf(i-1, "Invalid \\uXXXX escape")
				}
				return nil, d.errorf(i-2, "invalid \\uXXXX escape")
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 {
				if r2, ok := d.hex4(i + 2); ok && i+1 < len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' && r2 >= 0xDC00 && r2 < 0xE000 {
					r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
					i += 6
				} else {
					r = utf8.RuneError // lone surrogate: not representable in UTF-8
				}
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return nil, d.fail(i-2, "Invalid \\escape", "invalid escape \\%c", e)
		}
	}
	return nil, d.fail(start, "Unterminated string starting at", "unterminated string starting here")
}

func (d *decoder) hex4(i int) (rune, bool) {
	if i+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

func hasDupKeys(keys []string) bool {
	for i := 1; i < len(keys); i++ {
		for j := 0; j < i; j++ {
			if keys[i] == keys[j] {
				return true
			}
		}
	}
	return false
}

// dedup rebuilds a decoded object with repeated keys the way Python does:
// first position, last value.
func dedup(o *Dict) *Dict {
	d := NewDict(len(o.keys))
	for i, k := range o.keys {
		d.Set(k, o.vals[i])
	}
	return d
}

// DecodeLinesOwned parses JSON Lines: one JSON value per non-blank line,
// errors naming the line. data is handed over as for [DecodeOwned].
func DecodeLinesOwned(data []byte, source string) (any, error) {
	if !utf8.Valid(data) {
		return nil, UTF8Error(source, data, 0)
	}
	out := []any{}
	line := 0
	var off int64
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var ln []byte
		if i < 0 {
			ln, data = data, nil
		} else {
			ln, data = data[:i], data[i+1:]
		}
		line++
		if len(bytes.TrimSpace(ln)) > 0 {
			d := &decoder{data: ln, owned: true, source: source, lineBase: line - 1, offBase: off}
			v, err := d.document()
			if err != nil {
				var se *SyntaxError
				if errors.As(err, &se) {
					se.Msg = fmt.Sprintf("JSON Lines record %d: %s", line, se.Msg)
				}
				return nil, err
			}
			out = append(out, v)
		}
		off += int64(len(ln)) + 1
	}
	return out, nil
}
