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

// StringSize is the length of s's JSON encoding as [Encode] writes it:
// quoted, with escapes. It counts without writing, by a table of what
// each byte adds ([escExtra]); only a string with invalid UTF-8, whose bad
// bytes are written as \ufffd, is measured by encoding it.
func StringSize(s string) int64 {
	var n uint
	var high byte // every byte ORed: non-ASCII from 0x80
	for i := 0; i < len(s); i++ {
		c := s[i]
		n += uint(escExtra[c])
		high |= c
	}
	if high >= utf8.RuneSelf && !utf8.ValidString(s) {
		var c countWriter
		_ = encodeString(&c, s, false)
		return c.n
	}
	return int64(len(s)) + 2 + int64(n)
}

// escExtra is how many bytes more than itself a byte's JSON encoding takes
// in a valid UTF-8 string (encodeString without ascii): \" \\ \n \r \t \b
// \f one, the other control characters (\u00XX) five, all others none.
var escExtra = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = 5
	}
	for _, c := range []byte{'"', '\\', '\n', '\r', '\t', '\b', '\f'} {
		t[c] = 1
	}
	return t
}()

// FloatSize is the length of f's JSON encoding as [Encode] writes it
// (formatFloat's), written into a buffer of its own in the common case
// (a plain decimal) so that measuring allocates nothing.
func FloatSize(f float64) int64 {
	if abs := math.Abs(f); abs != 0 && (abs < 1e-4 || abs >= 1e16) || math.IsNaN(f) || math.IsInf(f, 0) {
		return int64(len(formatFloat(f)))
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, 'f', -1, 64)
	if bytes.IndexByte(b, '.') < 0 {
		return int64(len(b)) + 2 // ".0"
	}
	return int64(len(b))
}
