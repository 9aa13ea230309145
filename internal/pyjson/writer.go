package pyjson

import (
	"io"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TextWriter is what a [Writer] writes to: *strings.Builder,
// *bytes.Buffer and *bufio.Writer are ones.
type TextWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// EncodeOptions are the layout parameters of Python's json.dumps.
type EncodeOptions struct {
	// Pretty puts each item on its own line, indented by Indent per level
	// (json.dumps with indent not None; a negative indent is "").
	Pretty bool
	Indent string
	// ItemSep and KeySep are json.dumps' separators: ", " and ": " by
	// default ("," and ": " when Pretty).
	ItemSep, KeySep string
	// EnsureASCII escapes every non-ASCII character (and DEL) as \uXXXX,
	// as json.dumps does by default.
	EnsureASCII bool
}

// PythonOptions returns json.dumps' default options: compact with ", "
// and ": " separators and ensure_ascii, or, with pretty, "," and ": "
// separators and newlines indented by indent.
func PythonOptions(pretty bool, indent string) EncodeOptions {
	if pretty {
		return EncodeOptions{Pretty: true, Indent: indent, ItemSep: ",", KeySep: ": ", EnsureASCII: true}
	}
	return EncodeOptions{ItemSep: ", ", KeySep: ": ", EnsureASCII: true}
}

// compact is the layout of [Encode]: json.dumps(ensure_ascii=False).
var compact = EncodeOptions{ItemSep: ", ", KeySep: ": "}

// Writer writes one JSON document token by token in the layout of its
// options: callers walk their own values (the sandbox walks Python
// values) and the Writer does separators, indentation, string escapes and
// number forms exactly as Python's json module. The first write error is
// kept (see Err) and later calls do nothing.
type Writer struct {
	w        TextWriter
	o        EncodeOptions
	depth    int
	empty    bool // the open container has no item yet
	afterKey bool // a key was written: the next value follows it
	err      error
}

// NewWriter returns a Writer to w with options o.
func NewWriter(w TextWriter, o EncodeOptions) *Writer { return &Writer{w: w, o: o} }

// Err returns the first error the underlying writer returned.
func (w *Writer) Err() error { return w.err }

// Depth is the number of open arrays and objects.
func (w *Writer) Depth() int { return w.depth }

func (w *Writer) ws(s string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

func (w *Writer) wb(c byte) {
	if w.err == nil {
		w.err = w.w.WriteByte(c)
	}
}

// item writes what goes before a value or key: the item separator and,
// when pretty, the newline and indentation.
func (w *Writer) item() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if w.depth == 0 {
		return
	}
	if !w.empty {
		w.ws(w.o.ItemSep)
	}
	w.empty = false
	if w.o.Pretty {
		w.newline()
	}
}

func (w *Writer) newline() {
	w.wb('\n')
	if w.o.Indent != "" {
		for i := 0; i < w.depth; i++ {
			w.ws(w.o.Indent)
		}
	}
}

// BeginArray opens an array.
func (w *Writer) BeginArray() { w.open('[') }

// EndArray closes the open array.
func (w *Writer) EndArray() { w.close(']') }

// BeginObject opens an object.
func (w *Writer) BeginObject() { w.open('{') }

// EndObject closes the open object.
func (w *Writer) EndObject() { w.close('}') }

func (w *Writer) open(c byte) {
	w.item()
	w.wb(c)
	w.depth++
	w.empty = true
}

func (w *Writer) close(c byte) {
	w.depth--
	if !w.empty && w.o.Pretty {
		w.newline()
	}
	w.wb(c)
	w.empty = false
}

// Key writes an object key and the key separator; the value follows.
func (w *Writer) Key(k string) {
	w.item()
	w.string(k)
	w.ws(w.o.KeySep)
	w.afterKey = true
}

// String writes a string value.
func (w *Writer) String(s string) {
	w.item()
	w.string(s)
}

func (w *Writer) string(s string) {
	if w.err == nil {
		w.err = encodeString(w.w, s, w.o.EnsureASCII)
	}
}

// Null writes null.
func (w *Writer) Null() { w.item(); w.ws("null") }

// Bool writes true or false.
func (w *Writer) Bool(b bool) {
	w.item()
	if b {
		w.ws("true")
	} else {
		w.ws("false")
	}
}

// Int writes an integer.
func (w *Writer) Int(i int64) {
	w.item()
	if w.err == nil {
		var buf [24]byte
		_, w.err = w.w.Write(strconv.AppendInt(buf[:0], i, 10))
	}
}

// BigInt writes an integer of any size.
func (w *Writer) BigInt(i *big.Int) {
	w.item()
	w.ws(i.String())
}

// Float writes a float as Python's repr does (NaN, Infinity and
// -Infinity as Python's json module writes them).
func (w *Writer) Float(f float64) {
	w.item()
	w.ws(formatFloat(f))
}

// KeyString is the object key Python's json.dumps writes for a key that is
// not a string: true, false, null, an int, or a float's repr.
func KeyString(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "null", true
	case bool:
		if x {
			return "true", true
		}
		return "false", true
	case int64:
		return strconv.FormatInt(x, 10), true
	case *big.Int:
		return x.String(), true
	case float64:
		return formatFloat(x), true
	}
	return "", false
}

// value writes a Go value of the variable value kinds (see [Normalize]).
func (w *Writer) value(v any, depth int) {
	if w.err != nil {
		return
	}
	if depth > maxDepth {
		w.err = errDepth
		return
	}
	switch x := v.(type) {
	case nil:
		w.Null()
	case bool:
		w.Bool(x)
	case string:
		w.String(x)
	case int64:
		w.Int(x)
	case int:
		w.Int(int64(x))
	case *big.Int:
		w.BigInt(x)
	case float64:
		w.Float(x)
	case []any:
		w.BeginArray()
		for _, it := range x {
			if w.err != nil {
				return
			}
			w.value(it, depth+1)
		}
		w.EndArray()
	case *Dict:
		w.BeginObject()
		for i, k := range x.keys {
			if w.err != nil {
				return
			}
			w.Key(k)
			w.value(x.vals[i], depth+1)
		}
		w.EndObject()
	default:
		n, err := Normalize(v)
		if err != nil {
			w.err = err
			return
		}
		w.value(n, depth)
	}
}

// hexDigits are the lower-case hexadecimal digits.
const hexDigits = "0123456789abcdef"

// encodeString writes s as a JSON string the way Python's json module
// does: '"', '\\' and control characters escaped (\n, \r, \t, \b, \f by
// name), and with ascii every character from DEL up as \uXXXX (a UTF-16
// surrogate pair beyond U+FFFF). Invalid UTF-8 is written as U+FFFD.
func encodeString(w TextWriter, s string, ascii bool) error {
	if err := w.WriteByte('"'); err != nil {
		return err
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
			i++
			continue
		}
		if c >= 0x7f && !ascii {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		if _, err := w.WriteString(s[start:i]); err != nil {
			return err
		}
		var esc string
		size := 1
		switch c {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\r':
			esc = `\r`
		case '\t':
			esc = `\t`
		case '\b':
			esc = `\b`
		case '\f':
			esc = `\f`
		default:
			var r rune
			if c < 0x7f {
				r = rune(c)
			} else {
				r, size = utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && size == 1 {
					r = 0xfffd
				}
			}
			esc = uEscape(r)
		}
		if _, err := w.WriteString(esc); err != nil {
			return err
		}
		i += size
		start = i
	}
	if _, err := w.WriteString(s[start:]); err != nil {
		return err
	}
	return w.WriteByte('"')
}

// uEscape is r as \uXXXX, or a surrogate pair of them beyond U+FFFF.
func uEscape(r rune) string {
	var b strings.Builder
	one := func(u rune) {
		b.WriteString(`\u`)
		b.WriteByte(hexDigits[u>>12&15])
		b.WriteByte(hexDigits[u>>8&15])
		b.WriteByte(hexDigits[u>>4&15])
		b.WriteByte(hexDigits[u&15])
	}
	if r > 0xffff {
		r -= 0x10000
		one(0xd800 + r>>10)
		one(0xdc00 + r&0x3ff)
	} else {
		one(r)
	}
	return b.String()
}
