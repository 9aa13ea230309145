package pyjson

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

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
	return DecodeWith[any](data, goBuilder{}, DecodeOptions{})
}

// DecodeOwned parses data, which the caller hands over and never modifies
// again: strings without escapes point into it (no copy).
func DecodeOwned(data []byte, source string) (any, error) {
	if !utf8.Valid(data) {
		return nil, UTF8Error(source, data, 0)
	}
	return DecodeWith[any](data, goBuilder{}, DecodeOptions{Shared: true, Source: source})
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
		return fmt.Errorf(
			"%s: %w at byte offset %d (the file must be UTF-8 text; convert it, e.g. with iconv -f LATIN1 -t UTF-8)",
			source,
			ErrInvalidUTF8,
			base+int64(off),
		)
	}
	return fmt.Errorf("%w at byte offset %d", ErrInvalidUTF8, base+int64(off))
}

// Builder makes the values of a document that [DecodeWith] parses, V
// being the value type (any for [Decode]'s Go values).
type Builder[V any] interface {
	Null() V
	Bool(b bool) V
	Int(i int64) V
	// BigInt makes an integer beyond int64; b is not used again.
	BigInt(b *big.Int) V
	Float(f float64) V
	// String makes a string; s may point into the input (see
	// DecodeOptions.Shared).
	String(s string) V
	// Object makes an object of keys[i]: vals[i] in input order. A key may
	// repeat: Python keeps its first position and its last value. keys
	// and vals are reused after the call.
	Object(keys []string, vals []V) (V, error)
	// Array makes an array of vals, which are reused after the call.
	Array(vals []V) (V, error)
}

// SizedStrings is a [Builder] whose strings come with the length of their
// JSON encoding as [Encode] writes it ([StringSize]), which the decoder
// knows from the text at no cost: DecodeWith calls SizedString in place
// of String when the builder has it. The sizes hold for valid UTF-8 input
// (Python mode does not check it).
type SizedStrings[V any] interface {
	SizedString(s string, size int64) V
}

// DecodeOptions configures [DecodeWith].
type DecodeOptions struct {
	// Python selects Python's json.loads behaviour: its error messages
	// (see [SyntaxError.PythonMessage]), its number syntax ("1." is 1
	// followed by extra data) and ErrTooDeep past MaxDepth. The input's
	// UTF-8 is not checked (invalid sequences are kept as they are).
	Python bool
	// MaxDepth bounds the nesting of arrays and objects (0: 10,000).
	MaxDepth int
	// Shared lets strings without escapes point into the input instead of
	// being copied: the caller never modifies it again.
	Shared bool
	// Source names the input in errors ("" for in-memory data).
	Source string
	// Stop, when set, is called after every StopEvery values parsed; an
	// error it returns ends the decoding with that error (e.g. a time or
	// memory limit of the caller's).
	Stop func() error
	// Consumed, when set, is called with an offset of the input each time
	// the decoding has moved ConsumedEvery bytes past the last one: the
	// decoder reads the input before that offset again only to report an
	// error's line. A caller decoding a memory map may release the pages
	// before it (strings are then best not Shared).
	Consumed func(off int64)
	// Head, when positive, decodes only the first Head items of the
	// top-level array or object (the first Head lines of JSON Lines): the
	// decoding ends once it has them, without reading the rest, which is
	// neither checked nor made. For a document already known valid whose
	// beginning is all a caller needs (a summary's preview).
	Head int
}

// ConsumedEvery is how far DecodeWith moves between two calls of
// DecodeOptions.Consumed.
const ConsumedEvery = 4 << 20

// StopEvery is how many values DecodeWith parses between two calls of
// DecodeOptions.Stop.
const StopEvery = 1 << 12

// DecodeWith parses one JSON document in data, making its values with b;
// see [Decode] for the value semantics. Errors are *SyntaxError, or an
// error the builder returned.
func DecodeWith[V any, B Builder[V]](data []byte, b B, o DecodeOptions) (V, error) {
	d := &decoder[V, B]{
		data:     data,
		b:        b,
		py:       o.Python,
		depth:    o.MaxDepth,
		owned:    o.Shared,
		source:   o.Source,
		stop:     o.Stop,
		consumed: o.Consumed,
		head:     o.Head,
	}
	d.sized, _ = any(b).(SizedStrings[V])
	return d.document()
}

type decoder[V any, B Builder[V]] struct {
	data   []byte
	b      B
	py     bool     // Python's json.loads: its messages, lenient number ends
	depth  int      // most nesting allowed (maxDepth unless py)
	kstack []string // keys of the objects being parsed
	vstack []V      // values of the objects and arrays being parsed
	pos    int
	owned  bool
	source string
	zero   V
	sized  SizedStrings[V] // b, when it takes strings with their sizes
	stop   func() error    // see DecodeOptions.Stop
	parsed int             // values parsed, for stop
	// consumed and lastConsumed: see DecodeOptions.Consumed.
	consumed     func(off int64)
	lastConsumed int64
	// lineBase and offBase shift reported positions (JSON Lines).
	lineBase int
	offBase  int64
	head     int // see DecodeOptions.Head
}

func (d *decoder[V, B]) errorf(pos int, format string, args ...any) error {
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
	return &SyntaxError{
		Source: d.source,
		Line:   line + d.lineBase,
		Column: col,
		Offset: d.offBase + int64(pos),
		Char:   char,
		Msg:    fmt.Sprintf(format, args...),
	}
}

// fail is errorf with CPython's json.loads message py in Python mode.
func (d *decoder[V, B]) fail(pos int, py string, format string, args ...any) error {
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
	return DecodeWith[any](unsafe.Slice(unsafe.StringData(s), len(s)), goBuilder{}, DecodeOptions{Python: true, MaxDepth: maxDepth})
}

// PythonMessage is the error as CPython's json.JSONDecodeError words it:
// "Msg: line L column C (char N)".
func (e *SyntaxError) PythonMessage() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Column, e.Char)
}

func (d *decoder[V, B]) document() (V, error) {
	if d.depth == 0 {
		d.depth = maxDepth
	}
	d.skipSpace()
	if d.pos >= len(d.data) {
		return d.zero, d.fail(d.pos, "Expecting value", "expecting a JSON value, found end of input (empty file?)")
	}
	v, err := d.value(0)
	if err != nil || d.head > 0 {
		return v, err
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		return d.zero, d.fail(
			d.pos,
			"Extra data",
			"extra data after the JSON value (several documents? use a .jsonl file for one value per line)",
		)
	}
	return v, nil
}

func (d *decoder[V, B]) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder[V, B]) value(depth int) (V, error) {
	if d.consumed != nil {
		if off := d.offBase + int64(d.pos); off-d.lastConsumed >= ConsumedEvery {
			d.lastConsumed = off
			d.consumed(off)
		}
	}
	if d.stop != nil {
		if d.parsed++; d.parsed%StopEvery == 0 {
			if err := d.stop(); err != nil {
				return d.zero, err
			}
		}
	}
	if depth >= d.depth && d.pos < len(d.data) && (d.data[d.pos] == '[' || d.data[d.pos] == '{') {
		what := map[byte]string{'[': "array", '{': "object"}[d.data[d.pos]]
		err := d.fail(
			d.pos,
			"maximum recursion depth exceeded while decoding a JSON "+what+" from a unicode string",
			"nesting deeper than %d levels",
			d.depth,
		)
		if d.py {
			err.(*SyntaxError).Kind = ErrTooDeep
		}
		return d.zero, err
	}
	if d.pos >= len(d.data) {
		return d.zero, d.fail(d.pos, "Expecting value", "expecting a value, found end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		s, size, err := d.str()
		if err != nil {
			return d.zero, err
		}
		if d.sized != nil {
			return d.sized.SizedString(s, size), nil
		}
		return d.b.String(s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		if d.hasPrefix("-Infinity") {
			d.pos += len("-Infinity")
			return d.b.Float(math.Inf(-1)), nil
		}
		return d.number()
	case d.hasPrefix("true"):
		d.pos += 4
		return d.b.Bool(true), nil
	case d.hasPrefix("false"):
		d.pos += 5
		return d.b.Bool(false), nil
	case d.hasPrefix("null"):
		d.pos += 4
		return d.b.Null(), nil
	case d.hasPrefix("NaN"):
		d.pos += 3
		return d.b.Float(math.NaN()), nil
	case d.hasPrefix("Infinity"):
		d.pos += 8
		return d.b.Float(math.Inf(1)), nil
	default:
		r, _ := utf8.DecodeRune(d.data[d.pos:])
		return d.zero, d.fail(d.pos, "Expecting value", "expecting a value, found %q", r)
	}
}

func (d *decoder[V, B]) hasPrefix(s string) bool {
	return len(d.data)-d.pos >= len(s) && string(d.data[d.pos:d.pos+len(s)]) == s
}

func (d *decoder[V, B]) object(depth int) (V, error) {
	start := d.pos
	d.pos++ // {
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return d.b.Object(nil, nil)
	}
	// Entries collect on the decoder's stacks, then move to exact-size slices.
	kbase, base := len(d.kstack), len(d.vstack)
	defer func() { d.kstack, d.vstack = d.kstack[:kbase], d.vstack[:base] }()
	for {
		d.skipSpace()
		if d.pos >= len(d.data) {
			return d.zero, d.fail(
				d.pos,
				"Expecting property name enclosed in double quotes",
				"unterminated object (opened at byte %d)",
				d.offBase+int64(start),
			)
		}
		if d.data[d.pos] != '"' {
			return d.zero, d.fail(d.pos, "Expecting property name enclosed in double quotes", "expecting a property name in double quotes")
		}
		k, _, err := d.str()
		if err != nil {
			return d.zero, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.zero, d.fail(d.pos, "Expecting ':' delimiter", "expecting ':' delimiter")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return d.zero, err
		}
		d.kstack = append(d.kstack, k)
		d.push(v)
		if depth == 0 && d.head > 0 && len(d.vstack)-base == d.head {
			return d.b.Object(d.kstack[kbase:], d.vstack[base:])
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return d.zero, d.fail(d.pos, "Expecting ',' delimiter", "unterminated object (opened at byte %d)", d.offBase+int64(start))
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return d.b.Object(d.kstack[kbase:], d.vstack[base:])
		default:
			return d.zero, d.fail(d.pos, "Expecting ',' delimiter", "expecting ',' or '}' in object")
		}
	}
}

func (d *decoder[V, B]) array(depth int) (V, error) {
	start := d.pos
	d.pos++ // [
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return d.b.Array(nil)
	}
	// Items collect on the value stack.
	base := len(d.vstack)
	defer func() { d.vstack = d.vstack[:base] }()
	for {
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return d.zero, err
		}
		d.push(v)
		if depth == 0 && d.head > 0 && len(d.vstack)-base == d.head {
			return d.b.Array(d.vstack[base:])
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return d.zero, d.fail(d.pos, "Expecting ',' delimiter", "unterminated array (opened at byte %d)", d.offBase+int64(start))
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return d.b.Array(d.vstack[base:])
		default:
			return d.zero, d.fail(d.pos, "Expecting ',' delimiter", "expecting ',' or ']' in array")
		}
	}
}

// push puts v on the value stack, which doubles when full: append grows
// a large slice by a quarter at a time, and a document's longest array
// (a list of records) would leave four times its stack as garbage.
func (d *decoder[V, B]) push(v V) {
	if len(d.vstack) == cap(d.vstack) {
		d.vstack = slices.Grow(d.vstack, len(d.vstack)+1)
	}
	d.vstack = append(d.vstack, v)
}

func (d *decoder[V, B]) number() (V, error) {
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
			return d.zero, d.errorf(start, "Expecting value")
		}
		return d.zero, d.errorf(i, "invalid number")
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
			return d.zero, d.errorf(i, "invalid number: digits expected after '.'")
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
			return d.zero, d.errorf(i, "invalid number: digits expected in exponent")
		}
	}
	d.pos = i
	lit := bytesToString(d.data[start:i])
	if !isFloat {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return d.b.Int(n), nil
		}
		if n := len(strings.TrimPrefix(lit, "-")); n > MaxIntDigits {
			err := d.errorf(start, "Exceeds the limit (%d digits) for integer string conversion: value has %d digits", MaxIntDigits, n)
			err.(*SyntaxError).Kind = ErrIntTooLong
			return d.zero, err
		}
		b, ok := new(big.Int).SetString(lit, 10)
		if !ok {
			return d.zero, d.errorf(start, "invalid integer")
		}
		return d.b.BigInt(b), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return d.zero, d.errorf(start, "invalid number")
	}
	return d.b.Float(f), nil
}

// strStop marks the bytes that end a run of a string's bytes taken as they
// are: the closing quote, a backslash, a control character (an error).
var strStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str reads a string, returning it with the length of its JSON encoding
// as Encode writes it (StringSize): the length of its text, quotes
// included, but for the escapes that Encode writes otherwise (\/ as /,
// \uXXXX of a character it writes as itself or as a short escape).
func (d *decoder[V, B]) str() (string, int64, error) {
	start := d.pos
	d.pos++ // opening quote
	i := d.pos
	for i < len(d.data) && !strStop[d.data[i]] {
		i++
	}
	if i < len(d.data) && d.data[i] == '"' {
		s := d.data[d.pos:i]
		d.pos = i + 1
		size := int64(len(s)) + 2
		if d.owned {
			return bytesToString(s), size, nil
		}
		return string(s), size, nil
	}
	if i >= len(d.data) {
		return "", 0, d.fail(start, "Unterminated string starting at", "unterminated string starting here")
	}
	// Slow path: escapes (or an error). The string is never longer than
	// its text: the buffer is sized by where the text ends.
	buf := make([]byte, 0, d.strEnd(i)-d.pos)
	delta := int64(0) // the encoding's length less the text's
	for i < len(d.data) {
		// A run of bytes taken as they are, then what ended it.
		j := i
		for j < len(d.data) && !strStop[d.data[j]] {
			j++
		}
		buf = append(buf, d.data[d.pos:j]...)
		i = j
		if i >= len(d.data) {
			break
		}
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return bytesToString(buf), int64(i+1-start) + delta, nil
		case c < 0x20:
			return "", 0, d.fail(i, "Invalid control character at", "invalid control character in string (escape it as \\u%04x)", c)
		}
		if i+1 >= len(d.data) {
			break
		}
		e := d.data[i+1]
		i += 2
		switch e {
		case '"', '\\':
			buf = append(buf, e)
		case '/':
			buf = append(buf, e)
			delta-- // written as /
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
					return "", 0, d.errorf(i-1, "Invalid \\uXXXX escape")
				}
				return "", 0, d.errorf(i-2, "invalid \\uXXXX escape")
			}
			i += 4
			text := int64(6)
			if r >= 0xD800 && r < 0xDC00 {
				if r2, ok := d.hex4(i + 2); ok && i+1 < len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' && r2 >= 0xDC00 &&
					r2 < 0xE000 {
					r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
					i += 6
					text = 12
				} else {
					r = utf8.RuneError // lone surrogate: not representable in UTF-8
				}
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
			delta += runeSize(r) - text
		default:
			return "", 0, d.fail(i-2, "Invalid \\escape", "invalid escape \\%c", e)
		}
		d.pos = i // the next run starts here
	}
	return "", 0, d.fail(start, "Unterminated string starting at", "unterminated string starting here")
}

// runeSize is the length of r's JSON encoding in a string as Encode
// writes it: a short escape, \u00XX for other control characters, else
// r's UTF-8.
func runeSize(r rune) int64 {
	if r < utf8.RuneSelf {
		return int64(escExtra[r]) + 1
	}
	return int64(utf8.RuneLen(r))
}

// strEnd is where the text of the string being read ends from i on: its
// closing quote, the first one not escaped (after an even run of
// backslashes), else the end of the input.
func (d *decoder[V, B]) strEnd(i int) int {
	for {
		j := bytes.IndexByte(d.data[i:], '"')
		if j < 0 {
			return len(d.data)
		}
		j += i
		k := j
		for k > d.pos && d.data[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j
		}
		i = j + 1
	}
}

func (d *decoder[V, B]) hex4(i int) (rune, bool) {
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

// HasDupKeys reports whether keys repeats a key: by comparing pairs up to
// dictIndexMin keys, through a map beyond.
func HasDupKeys(keys []string) bool {
	if len(keys) <= dictIndexMin {
		for i := 1; i < len(keys); i++ {
			for j := 0; j < i; j++ {
				if keys[i] == keys[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		if _, ok := seen[k]; ok {
			return true
		}
		seen[k] = struct{}{}
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
	vals, err := DecodeLinesWith[any](data, goBuilder{}, DecodeOptions{Shared: true, Source: source})
	if err != nil {
		return nil, err
	}
	return vals, nil
}

// DecodeLinesWith parses JSON Lines in data, one JSON document per
// non-blank line, making each line's value with b (see [DecodeWith]); it
// returns the lines' values in order. A syntax error names its line
// ("JSON Lines record N: ...") and its position in data. The options
// apply to the whole input (Stop is called every StopEvery values across
// lines).
func DecodeLinesWith[V any, B Builder[V]](data []byte, b B, o DecodeOptions) ([]V, error) {
	d := &decoder[V, B]{b: b, py: o.Python, owned: o.Shared, source: o.Source, stop: o.Stop, consumed: o.Consumed}
	d.sized, _ = any(b).(SizedStrings[V])
	out := []V{}
	line := 0
	var off int64
	for len(data) > 0 && (o.Head <= 0 || len(out) < o.Head) {
		i := bytes.IndexByte(data, '\n')
		var ln []byte
		if i < 0 {
			ln, data = data, nil
		} else {
			ln, data = data[:i], data[i+1:]
		}
		line++
		if len(bytes.TrimSpace(ln)) > 0 {
			d.data, d.pos, d.depth, d.lineBase, d.offBase = ln, 0, o.MaxDepth, line-1, off
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

// GoBuilder returns the [Builder] of [Decode]'s Go values, for
// [DecodeWith] with other options.
func GoBuilder() Builder[any] { return goBuilder{} }

// goBuilder makes [Decode]'s Go values.
type goBuilder struct{}

func (goBuilder) Null() any             { return nil }
func (goBuilder) Bool(b bool) any       { return b }
func (goBuilder) Int(i int64) any       { return i }
func (goBuilder) BigInt(b *big.Int) any { return b }
func (goBuilder) Float(f float64) any   { return f }
func (goBuilder) String(s string) any   { return s }
func (goBuilder) Array(vals []any) (any, error) {
	arr := make([]any, len(vals))
	copy(arr, vals)
	return arr, nil
}

func (goBuilder) Object(keys []string, vals []any) (any, error) {
	n := len(keys)
	obj := &Dict{keys: make([]string, n), vals: make([]any, n)}
	copy(obj.keys, keys)
	copy(obj.vals, vals)
	if n > dictIndexMin {
		obj.reindex()
		if len(obj.idx) < n {
			obj = dedup(obj)
		}
	} else if HasDupKeys(obj.keys) {
		obj = dedup(obj)
	}
	return obj, nil
}
