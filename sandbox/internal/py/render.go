package py

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// Repr returns the CPython repr() of v: strings in single quotes with
// CPython's escapes, floats in shortest round-trip form, containers
// rendered recursively ([1, 'a'], {'k': (1,)}, True, None). Proxies render
// their target, waiting for it if pending.
//
// Containers nested deeper than [MaxRenderDepth] render as "...", so the
// rendering of any value is bounded in depth (Python code gets a
// RecursionError there instead). It is bounded in time too: past about
// sixteen million values (a value shared at every level of its nesting
// counts each time it appears) the rendering stops and ends with "...".
func Repr(v starlark.Value) string {
	r := Renderer{lenient: true}
	r.Repr(v)
	return r.cut()
}

// Str returns the CPython str() of v: strings unquoted, other values as
// Repr, bounded as Repr is.
func Str(v starlark.Value) string {
	r := Renderer{lenient: true}
	r.str(v)
	return r.cut()
}

// cut returns what a lenient rendering wrote, marked with "..." when a
// limit stopped it.
func (r *Renderer) cut() string {
	if r.Err != nil {
		r.B.WriteString("...")
	}
	return r.B.String()
}

// StrOn is Str(v) rendered for the step running on thread: when the step
// is stopped (time or memory limit, cancellation) the rendering stops too
// and StrOn returns what it has, so rendering a huge or exponentially
// shared value cannot outlive its step.
func StrOn(thread *starlark.Thread, v starlark.Value) string {
	r := Renderer{lenient: true, Thread: thread}
	r.str(v)
	return r.B.String()
}

// StrLimit returns Str(v) cut to at most max bytes (at a UTF-8 boundary),
// without rendering much more of a large container than it keeps.
func StrLimit(v starlark.Value, max int) string { return renderLimit(v, max, false) }

// ReprLimit returns Repr(v) cut as [StrLimit] cuts Str(v).
func ReprLimit(v starlark.Value, max int) string { return renderLimit(v, max, true) }

func renderLimit(v starlark.Value, max int, repr bool) string {
	r := Renderer{lenient: true, max: max}
	if repr {
		r.Repr(v)
	} else {
		r.str(v)
	}
	s := r.B.String()
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// Renderer writes CPython renderings, detecting cycles and bounding depth.
type Renderer struct {
	B       strings.Builder
	Thread  *starlark.Thread
	path    []starlark.Value
	onPath  map[starlark.Value]bool // path as a set, once it is long
	depth   int
	max     int   // stop rendering containers beyond this many bytes (0 = no limit)
	lenient bool  // write "..." beyond the depth limit instead of failing
	Err     error // set when the depth limit or the step's end stopped the rendering
	poll    StopPoll
	polling bool // poll is set up
}

// checkSize notices, every growCheckEvery values, that a limit stopped
// the step or that the rendering outgrew the step's memory allowance (and,
// with no step, that the rendering went past the walk budget: see
// stopPoll).
func (r *Renderer) checkSize() {
	if r.Err != nil {
		return
	}
	if !r.polling {
		r.poll, r.polling = NewStopPoll(r.Thread), true
	}
	if err := r.poll.Stopped(); err != nil {
		r.Err = err
		return
	}
	if r.poll.N%GrowCheckEvery == 0 && r.poll.thread != nil {
		if err := CheckAlloc(r.Thread, int64(r.B.Len())); err != nil {
			r.Err = err
		}
	}
}

// full reports whether the rendering has reached its size limit or failed.
func (r *Renderer) full() bool { return r.Err != nil || r.max > 0 && r.B.Len() > r.max }

// errReprDepth is CPython's error for a repr nested beyond the recursion limit.
func errReprDepth() error {
	return ErrDepth("while getting the repr of an object")
}

// descend enters one level of nesting; false means the depth limit is
// reached (then "..." was written, or r.err set) and the caller writes
// nothing more for this value.
func (r *Renderer) descend() bool {
	if r.Err != nil {
		return false
	}

	if r.depth >= ValueDepthLimit(r.Thread) {
		if r.lenient {
			r.B.WriteString("...")
		} else {
			r.Err = errReprDepth()
		}
		return false
	}
	r.depth++
	return true
}

func (r *Renderer) ascend() { r.depth-- }

// PyReprer is implemented by sandbox values with their own Python repr.
type PyReprer interface {
	starlark.Value
	WriteRepr(r *Renderer)
}

// pyStrer is implemented by sandbox values whose str() differs from repr().
type pyStrer interface {
	PyStr() string
}

func (r *Renderer) str(v starlark.Value) {
	v = r.resolve(v)
	switch v := v.(type) {
	case starlark.String:
		r.B.WriteString(string(v))
		return
	case *PyObject:
		v.writeStr(r)
		return
	case pyStrer:
		r.B.WriteString(v.PyStr())
		return
	}
	r.Repr(v)
}

// fail records err, an exception raised while rendering (by __str__ or
// __repr__), as the rendering's error, unless one is already recorded.
func (r *Renderer) fail(err error) {
	if r.Err == nil {
		r.Err = err
	}
}

func (r *Renderer) resolve(v starlark.Value) starlark.Value {
	for i := 0; i < 10; i++ {
		p, ok := v.(Proxy)
		if !ok {
			return v
		}
		t, err := p.ProxyTarget(r.Thread)
		if err != nil || t == nil {
			return v
		}
		v = t
	}
	return v
}

// Enter pushes the mutable container v on the path; false means v is
// already on it (a cycle). Membership is a set lookup once the path is
// long, so deep values render in linear time.
func (r *Renderer) Enter(v starlark.Value) bool {
	if r.onPath != nil {
		if r.onPath[v] {
			return false
		}
		r.onPath[v] = true
	} else {
		for _, p := range r.path {
			if p == v {
				return false
			}
		}
		if len(r.path) >= 16 {
			r.onPath = make(map[starlark.Value]bool, 64)
			for _, p := range r.path {
				r.onPath[p] = true
			}
			r.onPath[v] = true
		}
	}
	r.path = append(r.path, v)
	return true
}

func (r *Renderer) leave() {
	if r.onPath != nil {
		delete(r.onPath, r.path[len(r.path)-1])
	}
	r.path = r.path[:len(r.path)-1]
}

func (r *Renderer) Repr(v starlark.Value) {
	r.checkSize()
	v = r.resolve(v)
	if v != nil && v.Type() == "range" {
		// Starlark writes range(3); Python range(0, 3).
		s := v.String()
		if !strings.Contains(s, ",") {
			s = "range(0, " + strings.TrimPrefix(s, "range(")
		}
		r.B.WriteString(s)
		return
	}
	switch v := v.(type) {
	case nil:
		r.B.WriteString("None")
	case starlark.NoneType:
		r.B.WriteString("None")
	case starlark.Bool:
		if v {
			r.B.WriteString("True")
		} else {
			r.B.WriteString("False")
		}
	case starlark.Int:
		r.writeInt(v)
	case starlark.Float:
		r.B.WriteString(formatFloatRepr(float64(v)))
	case starlark.String:
		WriteStringRepr(&r.B, string(v))
	case starlark.Bytes:
		writeBytesRepr(&r.B, string(v))
	case *starlark.List:
		if !r.Enter(v) {
			r.B.WriteString("[...]")
			return
		}
		if !r.descend() {
			r.leave()
			return
		}
		defer r.ascend()
		r.B.WriteByte('[')
		for i := 0; i < v.Len() && !r.full(); i++ {
			if i > 0 {
				r.B.WriteString(", ")
			}
			r.Repr(v.Index(i))
		}
		r.B.WriteByte(']')
		r.leave()
	case starlark.Tuple:
		if !r.descend() {
			return
		}
		defer r.ascend()
		r.B.WriteByte('(')
		for i, x := range v {
			if r.full() {
				break
			}
			if i > 0 {
				r.B.WriteString(", ")
			}
			r.Repr(x)
		}
		if len(v) == 1 {
			r.B.WriteByte(',')
		}
		r.B.WriteByte(')')
	case *starlark.Dict:
		if !r.Enter(v) {
			r.B.WriteString("{...}")
			return
		}
		if !r.descend() {
			r.leave()
			return
		}
		defer r.ascend()
		r.WriteDictItems(v)
		r.leave()
	case *starlark.Set:
		if v.Len() == 0 {
			r.B.WriteString(v.Type() + "()")
			return
		}
		if !r.descend() {
			return
		}
		defer r.ascend()
		if v.Immutable() {
			r.B.WriteString("frozenset(")
			defer r.B.WriteByte(')')
		}
		r.B.WriteByte('{')
		for i, x := range setOrder(v) {
			if r.full() {
				break
			}
			if i > 0 {
				r.B.WriteString(", ")
			}
			r.Repr(x)
		}
		r.B.WriteByte('}')
	case PyReprer:
		if !r.Enter(v) {
			r.B.WriteString("...")
			return
		}
		if !r.descend() {
			r.leave()
			return
		}
		defer r.ascend()
		v.WriteRepr(r)
		r.leave()
	case *starlark.Function:
		r.B.WriteString("<function ")
		r.B.WriteString(v.Name())
		r.B.WriteByte('>')
	case *starlark.Builtin:
		if v.Receiver() != nil {
			r.B.WriteString("<built-in method ")
			r.B.WriteString(v.Name())
			r.B.WriteString(" of ")
			r.B.WriteString(PyType(v.Receiver()))
			r.B.WriteString(" object>")
			return
		}
		r.B.WriteString("<built-in function ")
		r.B.WriteString(v.Name())
		r.B.WriteByte('>')
	default:
		r.B.WriteString(v.String())
	}
}

func (r *Renderer) WriteDictItems(d *starlark.Dict) {
	r.B.WriteByte('{')
	for i, kv := range d.Items() {
		if r.full() {
			break
		}
		if i > 0 {
			r.B.WriteString(", ")
		}
		r.Repr(kv[0])
		r.B.WriteString(": ")
		r.Repr(kv[1])
	}
	r.B.WriteByte('}')
}

// setOrder approximates CPython's iteration order for sets: small
// non-negative ints come out sorted (they hash to themselves); other
// elements keep insertion order.
func setOrder(s *starlark.Set) []starlark.Value {
	elems := make([]starlark.Value, 0, s.Len())
	allInts := true
	it := s.Iterate()
	defer it.Done()
	var x starlark.Value
	for it.Next(&x) {
		elems = append(elems, x)
		if i, ok := x.(starlark.Int); !ok || i.Sign() < 0 {
			allInts = false
		} else if _, ok := i.Int64(); !ok {
			allInts = false
		}
	}
	if allInts {
		slices.SortFunc(elems, func(a, b starlark.Value) int {
			x, _ := a.(starlark.Int).Int64()
			y, _ := b.(starlark.Int).Int64()
			return int(x - y)
		})
	}
	return elems
}

// formatFloatRepr formats f as CPython's repr(float).
func formatFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if exp < -4 || exp >= 16 {
		b.WriteByte(digits[0])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if exp < 0 {
			b.WriteByte('-')
			exp = -exp
		} else {
			b.WriteByte('+')
		}
		if exp < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(exp))
		return b.String()
	}
	if exp < 0 {
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -exp-1))
		b.WriteString(digits)
		return b.String()
	}
	if len(digits) <= exp+1 {
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp+1-len(digits)))
		b.WriteString(".0")
		return b.String()
	}
	b.WriteString(digits[:exp+1])
	b.WriteByte('.')
	b.WriteString(digits[exp+1:])
	return b.String()
}

// WriteStringRepr writes CPython's repr of s.
func WriteStringRepr(b *strings.Builder, s string) {
	quote := reprQuote(s)
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			writeReprByte(b, c, quote)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+size])
		case r <= 0xff:
			b.WriteString(`\x`)
			b.WriteString(leftPad(strconv.FormatInt(int64(r), 16), 2))
		case r <= 0xffff:
			b.WriteString(`\u`)
			b.WriteString(leftPad(strconv.FormatInt(int64(r), 16), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(leftPad(strconv.FormatInt(int64(r), 16), 8))
		}
		i += size
	}
	b.WriteByte(quote)
}

const hexDigits = "0123456789abcdef"

func leftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// TypeName returns the Python type name of v, as type(v).__name__ gives it.
func TypeName(v starlark.Value) string { return PyType(v) }

// PyType returns the Python type name of v.
func PyType(v starlark.Value) string {
	switch v := v.(type) {
	case starlark.String:
		return "str"
	case starlark.NoneType:
		return "NoneType"
	case *starlark.Builtin:
		return "builtin_function_or_method"
	case *starlark.Function:
		return "function"
	case pyTyped:
		return v.PyTypeName()
	}
	return v.Type()
}

// pyTyped is implemented by sandbox values with a Python type name.
type pyTyped interface {
	PyTypeName() string
}

// writeBytesRepr writes CPython's repr of a bytes value.
func writeBytesRepr(b *strings.Builder, s string) {
	quote := reprQuote(s)
	b.WriteByte('b')
	b.WriteByte(quote)
	for i := 0; i < len(s); i++ {
		writeReprByte(b, s[i], quote)
	}
	b.WriteByte(quote)
}

// reprQuote returns the quote CPython's repr uses for s: a single quote
// unless s holds a single quote and no double quote.
func reprQuote(s string) byte {
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		return '"'
	}
	return '\''
}

// writeReprByte writes the single byte c as it appears inside a str or bytes
// repr delimited by quote: escaped when it is the quote, a backslash, a
// control character or outside printable ASCII.
func writeReprByte(b *strings.Builder, c, quote byte) {
	switch {
	case c == quote || c == '\\':
		b.WriteByte('\\')
		b.WriteByte(c)
	case c == '\n':
		b.WriteString(`\n`)
	case c == '\r':
		b.WriteString(`\r`)
	case c == '\t':
		b.WriteString(`\t`)
	case c < 0x20 || c >= 0x7f:
		b.WriteString(`\x`)
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	default:
		b.WriteByte(c)
	}
}

// writeInt writes the decimal digits of v: past CPython's 4,300 digits
// Python code gets CPython's ValueError, Go callers (lenient) a short
// placeholder instead of a conversion that can take seconds.
func (r *Renderer) writeInt(v starlark.Int) {
	if _, ok := v.Int64(); ok {
		r.B.WriteString(v.String())
		return
	}
	digits, err := intDecimal(v.BigInt())
	switch {
	case err == nil:
		r.B.WriteString(digits)
	case r.lenient:
		r.B.WriteString("<int of about " + strconv.Itoa(int(float64(v.BigInt().BitLen())*math.Log10(2))+1) + " digits>")
	default:
		r.Err = err
	}
}
