package py

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/internal/pylines"
	"github.com/rlmhq/rlm/internal/pyre"
)

// pyMethod implements _py_method(recv, name, *args, **kwargs).
func pyMethod(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 {
		return nil, ArgErr("_py_method", "needs a receiver and a name")
	}
	name, ok := args[1].(starlark.String)
	if !ok {
		return nil, ArgErr("_py_method", "name must be a str")
	}
	return callMethod(thread, args[0], string(name), args[2:], kwargs)
}

// pyMethodFast is _py_method's fast path (starlark.FastCallable): the
// commonest pure methods of str and dict with str arguments only
// (s.count("a"), s.split(), line.find(x), ", ".join(parts),
// d.items()) run without callSlow's argument handling, the Method
// hook's frame and its panic guard. Anything else, and any error, is
// left to the usual call, which then reports it; the methods taken here
// do not call back into Starlark code nor keep their arguments.
func pyMethodFast(thread *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
	if len(args) < 2 {
		return nil, false
	}
	name, ok := args[1].(starlark.String)
	if !ok {
		return nil, false
	}
	rest := args[2:]
	switch recv := args[0].(type) {
	case starlark.String:
		switch name {
		case "count":
			// s.count(sub), the most common: at once.
			if v, ok := strCount(string(recv), rest); ok {
				return v, true
			}
			if !allStrings(rest) {
				return nil, false
			}
		case "join":
			// A list or tuple of str, not an iterable whose iteration
			// could run code.
			if len(rest) != 1 {
				return nil, false
			}
			switch rest[0].(type) {
			case *starlark.List, starlark.Tuple:
			default:
				return nil, false
			}
		case "find", "rfind", "splitlines":
			if !allStrings(rest) {
				return nil, false
			}
		case "split", "rsplit", "replace":
			if !strsThenInt(rest) { // maxsplit, count
				return nil, false
			}
		case "format":
			// Values whose formatting runs none of the program's code.
			if !allBasic(rest) {
				return nil, false
			}
		default:
			return nil, false
		}
	case *starlark.Dict:
		if len(rest) != 0 || name != "items" && name != "keys" && name != "values" {
			return nil, false
		}
	default:
		return nil, false
	}
	v, handled, err := BuiltinMethod(thread, args[0], string(name), rest, nil)
	if !handled || err != nil {
		return nil, false
	}
	return v, true
}

// strCount is s.count(sub) of one non-empty str argument; ok is false
// for any other arguments.
func strCount(s string, args starlark.Tuple) (v starlark.Value, ok bool) {
	if len(args) != 1 {
		return nil, false
	}
	if sub, ok := args[0].(starlark.String); ok && sub != "" {
		if len(sub) == 1 && len(s) <= 32 {
			// A byte in a word (w.count("a")): a loop costs less than
			// strings.Count's setup. A one-byte str is ASCII (or a lone
			// byte, which strings.Count counts the same).
			c, n := sub[0], 0
			for i := 0; i < len(s); i++ {
				if s[i] == c {
					n++
				}
			}
			return starlark.MakeInt(n), true
		}
		return starlark.MakeInt(pyre.CountLiteral(s, string(sub))), true
	}
	return nil, false
}

// allBasic reports whether every value of args is a str, int, float,
// bool or None.
func allBasic(args starlark.Tuple) bool {
	for _, v := range args {
		switch v.(type) {
		case starlark.String, starlark.Int, starlark.Float, starlark.Bool, starlark.NoneType:
		default:
			return false
		}
	}
	return true
}

// allStrings reports whether every value of args is a str.
// strsThenInt reports whether args are strs, the last possibly an int
// (s.split(" ", 1), s.replace("a", "b", 2)): values that run none of the
// program's code.
func strsThenInt(args starlark.Tuple) bool {
	if n := len(args); n > 0 {
		if _, ok := args[n-1].(starlark.Int); ok {
			args = args[:n-1]
		}
	}
	return allStrings(args)
}

func allStrings(args starlark.Tuple) bool {
	for _, a := range args {
		if _, ok := a.(starlark.String); !ok {
			return false
		}
	}
	return true
}

// callMethod calls recv.name(*args, **kwargs) with Python semantics for
// builtin types, falling back to the value's own attribute.
func callMethod(
	thread *starlark.Thread,
	recv starlark.Value,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	if p, ok := recv.(Proxy); ok {
		if ha, ok := recv.(starlark.HasAttrs); !ok || !hasAttr(ha, name) {
			t, err := p.ProxyTarget(thread)
			if err != nil {
				return nil, err
			}
			recv = t
		}
	}
	v, handled, err := BuiltinMethod(thread, recv, name, args, kwargs)
	if handled {
		if err != nil {
			return nil, withMethodName(name, err)
		}
		return v, nil
	}
	if _, ok := recv.(starlark.String); ok && strPositionMethod(name) {
		args = clampBounds(args) // for Starlark's own method below
	}
	if dl, ok := recv.(PyDictLike); ok {
		switch name {
		case "items", "keys", "values":
			if ha, ok := recv.(starlark.HasAttrs); !ok || !hasAttr(ha, name) {
				return dictMethodValue(thread, dl.UnderlyingDict(), name, args, kwargs)
			}
		}
	}
	ha, ok := recv.(starlark.HasAttrs)
	if !ok {
		return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", PyType(recv), name)
	}
	fn, err := ha.Attr(name)
	if err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", PyType(recv), name)
	}
	// args may be the interpreter's stack (_py_method's arguments are not
	// copied): the callee may keep them.
	return starlark.Call(thread, fn, slices.Clone(args), kwargs)
}

// BuiltinMethod calls recv.name(*args, **kwargs) for the methods of
// built-in values (str, list, dict, set, tuple, bytes) whose Python
// semantics the sandbox provides; handled is false for any other value or
// method.
func BuiltinMethod(
	thread *starlark.Thread,
	recv starlark.Value,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (v starlark.Value, handled bool, err error) {
	handled = true
	switch r := recv.(type) {
	case starlark.String:
		if name == "count" && len(kwargs) == 0 {
			// s.count(sub), the common case, without unpacking.
			if v, ok := strCount(string(r), args); ok {
				return v, true, nil
			}
		}
		if strPositionMethod(name) {
			v, handled, err = strFind(thread, string(r), name, clampBounds(args), kwargs)
		} else {
			v, handled, err = strMethod(thread, string(r), name, args, kwargs)
		}
	case *starlark.List:
		v, handled, err = listMethod(thread, r, name, args, kwargs)
	case *starlark.Dict:
		v, handled, err = dictMethod(thread, r, name, args, kwargs)
	case *LazyDict:
		v, handled, err = r.method(thread, name, args, kwargs)
	case *starlark.Set:
		v, handled, err = setMethod(thread, r, name, args, kwargs)
	case starlark.Tuple:
		switch name {
		case "count":
			v, err = countEq(r, args, kwargs)
		case "index":
			v, err = seqIndex(r, "tuple", args, kwargs)
		default:
			handled = false
		}
	case starlark.Int:
		switch name {
		case "bit_length", "bit_count":
			if err := NoArgs(name, args, kwargs); err != nil {
				return nil, true, err
			}
			b := new(big.Int).Abs(r.BigInt())
			if name == "bit_length" {
				return starlark.MakeInt(b.BitLen()), true, nil
			}
			n := 0
			for _, w := range b.Bits() {
				n += bits.OnesCount(uint(w))
			}
			return starlark.MakeInt(n), true, nil
		case "conjugate":
			return r, true, NoArgs(name, args, kwargs)
		default:
			handled = false
		}
	case starlark.Float:
		switch name {
		case "is_integer":
			f := float64(r)
			return starlark.Bool(f == math.Trunc(f) && !math.IsInf(f, 0)), true, NoArgs(name, args, kwargs)
		case "conjugate":
			return r, true, NoArgs(name, args, kwargs)
		default:
			handled = false
		}
	case starlark.Bytes:
		switch name {
		case "decode":
			v, err = bytesDecode(string(r), args, kwargs)
		case "hex":
			v = starlark.String(fmt.Sprintf("%x", string(r)))
		default:
			handled = false
		}
	default:
		handled = false
	}
	return v, handled, err
}

// methodHook is the interpreter's PyOps.Method: a _py_method call on a
// built-in value runs without the helper's frame; other receivers (class
// instances, deferred values, values with attributes of their own) go to
// the helper. A panic is a SystemError, as in the helper (guard).
func methodHook(
	thread *starlark.Thread,
	recv starlark.Value,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (v starlark.Value, handled bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, handled, err = nil, true, panicError("_py_method", r)
		}
	}()
	v, handled, err = BuiltinMethod(thread, recv, name, args, kwargs)
	if handled && err != nil {
		err = withMethodName(name, err)
	}
	return v, handled, err
}

// strPositionMethod reports whether str method name takes start and end
// positions (clamped to int32 by clampBounds).
func strPositionMethod(name string) bool {
	switch name {
	case "find", "rfind", "index", "rindex", "startswith", "endswith":
		return true
	}
	return false
}

func hasAttr(ha starlark.HasAttrs, name string) bool {
	v, err := ha.Attr(name)
	return err == nil && v != nil
}

func withMethodName(name string, err error) error { return err }

func dictMethodValue(
	thread *starlark.Thread,
	d *starlark.Dict,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	v, _, err := dictMethod(thread, d, name, args, kwargs)
	return v, err
}

func NoArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple) error {
	if len(args) > 0 || len(kwargs) > 0 {
		return Errorf("TypeError", "%s() takes no arguments (%d given)", name, len(args)+len(kwargs))
	}
	return nil
}

func strMethod(thread *starlark.Thread, s, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, bool, error) {
	switch name {
	case "format":
		out, err := strFormat(thread, s, args, kwargs)
		return starlark.String(out), true, err
	case "format_map":
		var m starlark.Value
		if err := starlark.UnpackPositionalArgsNoEscape("format_map", args, kwargs, 1, &m); err != nil {
			return nil, true, err
		}
		if dl, ok := m.(PyDictLike); ok {
			m = dl.UnderlyingDict()
		}
		im, ok := m.(starlark.IterableMapping)
		if !ok {
			return nil, true, Errorf("TypeError", "format_map() argument must be a mapping")
		}
		out, err := strFormat(thread, s, nil, im.Items())
		return starlark.String(out), true, err
	case "zfill":
		var w int
		if err := starlark.UnpackPositionalArgsNoEscape("zfill", args, kwargs, 1, &w); err != nil {
			return nil, true, err
		}
		n := utf8.RuneCountInString(s)
		if n >= w {
			return starlark.String(s), true, nil
		}
		if err := CheckAlloc(thread, int64(w)); err != nil {
			return nil, true, err
		}
		sign := ""
		if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
			sign, s = s[:1], s[1:]
		}
		return starlark.String(sign + strings.Repeat("0", w-n) + s), true, nil
	case "ljust", "rjust", "center":
		var w int
		fill := " "
		if err := starlark.UnpackPositionalArgsNoEscape(name, args, kwargs, 1, &w, &fill); err != nil {
			return nil, true, err
		}
		if utf8.RuneCountInString(fill) != 1 {
			return nil, true, Errorf("TypeError", "The fill character must be exactly one character long")
		}
		if err := CheckAlloc(thread, int64(w)*int64(len(fill))); err != nil {
			return nil, true, err
		}
		n := utf8.RuneCountInString(s)
		if n >= w {
			return starlark.String(s), true, nil
		}
		padN := w - n
		switch name {
		case "ljust":
			return starlark.String(s + strings.Repeat(fill, padN)), true, nil
		case "rjust":
			return starlark.String(strings.Repeat(fill, padN) + s), true, nil
		}
		left := padN/2 + (padN & w & 1)
		return starlark.String(strings.Repeat(fill, left) + s + strings.Repeat(fill, padN-left)), true, nil
	case "casefold":
		if IsASCII(s) {
			return starlark.String(strings.ToLower(s)), true, NoArgs(name, args, kwargs)
		}
		return starlark.String(pyCasefold(s)), true, NoArgs(name, args, kwargs)
	case "swapcase":
		return starlark.String(pySwapcase(s)), true, NoArgs(name, args, kwargs)
	case "isnumeric", "isdecimal", "isdigit":
		if s == "" {
			return starlark.False, true, nil
		}
		for _, r := range s {
			ok := unicode.IsDigit(r)
			if name == "isnumeric" {
				ok = unicode.IsNumber(r)
			}
			if !ok {
				return starlark.False, true, nil
			}
		}
		return starlark.True, true, nil
	case "isidentifier":
		if s == "" {
			return starlark.False, true, nil
		}
		for i, r := range s {
			if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
				return starlark.False, true, nil
			}
		}
		return starlark.True, true, nil
	case "isprintable":
		for _, r := range s {
			if !unicode.IsPrint(r) {
				return starlark.False, true, nil
			}
		}
		return starlark.True, true, nil
	case "isascii":
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return starlark.False, true, nil
			}
		}
		return starlark.True, true, nil
	case "expandtabs":
		tab := 8
		if err := starlark.UnpackPositionalArgsNoEscape(name, args, kwargs, 0, &tab); err != nil {
			return nil, true, err
		}
		if err := CheckAlloc(thread, expandedLen(s, tab)); err != nil {
			return nil, true, err
		}
		var b strings.Builder
		col := 0
		for _, r := range s {
			switch r {
			case '\t':
				if tab > 0 {
					n := tab - col%tab
					b.WriteString(strings.Repeat(" ", n))
					col += n
				}
			case '\n', '\r':
				b.WriteRune(r)
				col = 0
			default:
				b.WriteRune(r)
				col++
			}
		}
		return starlark.String(b.String()), true, nil
	case "maketrans":
		v, err := strMaketrans(args, kwargs)
		return v, true, err
	case "translate":
		var table starlark.Value
		if err := starlark.UnpackPositionalArgsNoEscape(name, args, kwargs, 1, &table); err != nil {
			return nil, true, err
		}
		m, ok := table.(starlark.Mapping)
		if !ok {
			return nil, true, Errorf("TypeError", "translate() table must be a mapping")
		}
		var b strings.Builder
		next := SmallAlloc
		for _, r := range s {
			if b.Len() > next {
				// The builder is about to double: check that it can.
				if err := CheckAlloc(thread, 2*int64(b.Len())); err != nil {
					return nil, true, err
				}
				next = 2 * b.Len()
			}
			v, found, _ := m.Get(starlark.MakeInt(int(r)))
			if !found {
				b.WriteRune(r)
				continue
			}
			switch x := v.(type) {
			case starlark.NoneType:
			case starlark.String:
				b.WriteString(string(x))
			case starlark.Int:
				i, _ := x.Int64()
				b.WriteRune(rune(i))
			}
		}
		return starlark.String(b.String()), true, nil
	case "encode":
		v, err := strEncode(s, args, kwargs)
		return v, true, err
	case "replace":
		var old, repl string
		count := -1
		if err := starlark.UnpackPositionalArgsNoEscape(name, args, kwargs, 2, &old, &repl, &count); err != nil {
			return nil, true, err
		}
		if len(repl) > len(old) {
			n := pyre.CountLiteral(s, old)
			if count >= 0 {
				n = min(n, count)
			}
			if err := CheckAlloc(thread, int64(len(s))+int64(n)*int64(len(repl)-len(old))); err != nil {
				return nil, true, err
			}
		}
		if old == "" {
			return starlark.String(strings.Replace(s, old, repl, count)), true, nil
		}
		return starlark.String(pyre.ReplaceLiteral(s, old, repl, count)), true, nil
	case "join":
		var it starlark.Value
		if err := starlark.UnpackPositionalArgsNoEscape("join", args, kwargs, 1, &it); err != nil {
			return nil, true, err
		}
		if err := checkJoin(thread, s, it); err != nil {
			return nil, true, err
		}
		var b strings.Builder
		i := 0
		err := ForEach(thread, it, func(x starlark.Value) error {
			if p, ok := x.(Proxy); ok {
				t, err := p.ProxyTarget(thread)
				if err != nil {
					return err
				}
				x = t
			}
			str, ok := x.(starlark.String)
			if !ok {
				return Errorf("TypeError", "sequence item %d: expected str instance, %s found", i, PyType(x))
			}
			if i > 0 {
				b.WriteString(s)
			}
			b.WriteString(string(str))
			i++
			if i%GrowCheckEvery == 0 {
				return CheckAlloc(thread, int64(b.Len()))
			}
			return nil
		})
		var pe *PyError
		if i == 0 && errors.As(err, &pe) && pe.Kind == "TypeError" && strings.HasSuffix(pe.Msg, "object is not iterable") {
			err = Errorf("TypeError", "can only join an iterable") // CPython's words for ",".join(None)
		}
		return starlark.String(b.String()), true, err
	case "split", "rsplit":
		sep, maxsplit, err := splitArgs(name, args, kwargs)
		if err != nil {
			return nil, true, err
		}
		v, err := pySplit(thread, s, sep, maxsplit, name == "rsplit")
		return v, true, err
	case "splitlines":
		keep := false
		if err := starlark.UnpackArgs(name, args, kwargs, "keepends?", &keep); err != nil {
			return nil, true, err
		}
		if err := CheckAlloc(thread, SatMul(int64(lineBreaksUpTo(s))+1, PieceBytes)); err != nil {
			return nil, true, err
		}
		return splitLines(s, keep), true, nil
	case "count":
		var sub string
		var start, end starlark.Value = starlark.None, starlark.None
		if err := starlark.UnpackPositionalArgsNoEscape(name, args, kwargs, 1, &sub, &start, &end); err != nil {
			return nil, true, err
		}
		if start != starlark.None || end != starlark.None {
			v, err := pyGetSlice(thread, nil, starlark.Tuple{starlark.String(s), start, end, starlark.None}, nil)
			if err != nil {
				return nil, true, err
			}
			s = string(v.(starlark.String))
		}
		if sub == "" {
			return starlark.MakeInt(utf8.RuneCountInString(s) + 1), true, nil
		}
		return starlark.MakeInt(pyre.CountLiteral(s, sub)), true, nil
	}
	return nil, false, nil
}

// splitArgs unpacks the arguments of str.split and str.rsplit.
func splitArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple) (sep starlark.Value, maxsplit int, err error) {
	if len(args) <= 1 && len(kwargs) == 0 { // the common calls, with no variable moved to the heap
		if len(args) == 1 {
			return args[0], -1, nil
		}
		return starlark.None, -1, nil
	}
	if len(args) == 2 && len(kwargs) == 0 {
		// s.split(sep, n): a maxsplit UnpackArgs takes (an int32).
		if n, ok := args[1].(starlark.Int); ok {
			if m, ok := n.Int64(); ok && m == int64(int32(m)) {
				return args[0], int(m), nil
			}
		}
	}
	return splitArgsSlow(name, args, kwargs)
}

func splitArgsSlow(name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, int, error) {
	var sep starlark.Value = starlark.None
	maxsplit := -1
	err := starlark.UnpackArgs(name, args, kwargs, "sep?", &sep, "maxsplit?", &maxsplit)
	return sep, maxsplit, err
}

func strMaketrans(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := starlark.NewDict(0)
	switch len(args) {
	case 1:
		m, ok := args[0].(starlark.IterableMapping)
		if !ok {
			return nil, Errorf("TypeError", "if you give only one argument to maketrans it must be a dict")
		}
		for _, kv := range m.Items() {
			k := kv[0]
			if s, ok := k.(starlark.String); ok {
				r, _ := utf8.DecodeRuneInString(string(s))
				k = starlark.MakeInt(int(r))
			}
			d.SetKey(k, kv[1])
		}
	case 2, 3:
		x, ok1 := args[0].(starlark.String)
		y, ok2 := args[1].(starlark.String)
		if !ok1 || !ok2 || utf8.RuneCountInString(string(x)) != utf8.RuneCountInString(string(y)) {
			return nil, Errorf("ValueError", "the first two maketrans arguments must have equal length")
		}
		yr := []rune(string(y))
		for i, r := range []rune(string(x)) {
			d.SetKey(starlark.MakeInt(int(r)), starlark.String(string(yr[i])))
		}
		if len(args) == 3 {
			z, _ := args[2].(starlark.String)
			for _, r := range string(z) {
				d.SetKey(starlark.MakeInt(int(r)), starlark.None)
			}
		}
	default:
		return nil, Errorf("TypeError", "maketrans() takes 1 to 3 arguments")
	}
	return d, nil
}

// StringList returns a list of parts, which the caller gives up
// (starlark.StringValues).
func StringList(parts []string) *starlark.List {
	return starlark.NewList(starlark.StringValues(parts))
}

// PieceBytes is what each piece of a split string costs: its string
// header and its Value in the result list (the bytes are shared).
const PieceBytes = 32

// lineBreaksUpTo is at least the number of line breaks str.splitlines
// finds in s (every byte that can start one is counted).
func lineBreaksUpTo(s string) int {
	if !pylines.HasRare(s) {
		return strings.Count(s, "\n")
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0x1c || c == 0x1d || c == 0x1e,
			c == 0xc2 || c == 0xe2: // U+0085, U+2028, U+2029
			n++
		}
	}
	return n
}

// SplitPiecesUpTo is the number of pieces str.split(sep) makes of s, or
// more (for sep None the words between ASCII whitespace: a text split
// only by other Unicode spaces counts fewer, which the grow checks of the
// list then catch).
func SplitPiecesUpTo(s string, sep starlark.Value) int {
	if sv, ok := sep.(starlark.String); ok && len(sv) > 0 {
		return strings.Count(s, string(sv)) + 1
	}
	n, inWord := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		space := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n + 1
}

// pySplit implements str.split / str.rsplit.
// fieldClass sorts bytes for fieldsASCII: 0 in a field, fieldSpace for
// what strings.Fields takes for white space in ASCII text, fieldNonASCII
// past ASCII.
var fieldClass = func() (t [256]uint8) {
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = fieldNonASCII
	}
	for _, c := range "\t\n\v\f\r " {
		t[c] = fieldSpace
	}
	return t
}()

const (
	fieldSpace = 1 + iota
	fieldNonASCII
)

// fieldsASCIIMax is the longest str that str.split() splits with
// fieldsASCII: a line or a record. A longer one (a whole text) takes
// strings.Fields, which counts the fields first and so makes the result
// at its size once, instead of growing it.
const fieldsASCIIMax = 256

// fieldsASCII is strings.Fields(s) for an ASCII s, in one pass (Fields
// counts the fields first); ok is false when s has a byte past ASCII.
func fieldsASCII(s string) (parts []string, ok bool) {
	var buf [32]string
	found := buf[:0]
	for i := 0; i < len(s); {
		switch fieldClass[s[i]] {
		case fieldSpace:
			i++
			continue
		case fieldNonASCII:
			return nil, false
		}
		start := i
		for i < len(s) && fieldClass[s[i]] == 0 {
			i++
		}
		found = append(found, s[start:i])
	}
	parts = make([]string, len(found))
	copy(parts, found)
	return parts, true
}

func pySplit(thread *starlark.Thread, s string, sep starlark.Value, maxsplit int, right bool) (starlark.Value, error) {
	if len(s) >= 1<<20 { // a small string's pieces are small
		n := int64(SplitPiecesUpTo(s, sep))
		if maxsplit >= 0 {
			n = min(n, int64(maxsplit)+1)
		}
		if err := CheckAlloc(thread, SatMul(n, PieceBytes)); err != nil {
			return nil, err
		}
	}
	if sep == starlark.None {
		if maxsplit < 0 {
			if len(s) <= fieldsASCIIMax {
				if parts, ok := fieldsASCII(s); ok {
					return StringList(parts), nil
				}
			}
			return StringList(strings.Fields(s)), nil
		}
		var parts []string
		if !right {
			rest := strings.TrimLeftFunc(s, unicode.IsSpace)
			for rest != "" {
				if maxsplit == 0 {
					parts = append(parts, rest)
					break
				}
				i := strings.IndexFunc(rest, unicode.IsSpace)
				if i < 0 {
					parts = append(parts, rest)
					break
				}
				parts = append(parts, rest[:i])
				rest = strings.TrimLeftFunc(rest[i:], unicode.IsSpace)
				maxsplit--
			}
			return StringList(parts), nil
		}
		rest := strings.TrimRightFunc(s, unicode.IsSpace)
		for rest != "" {
			if maxsplit == 0 {
				parts = append(parts, rest)
				break
			}
			i := strings.LastIndexFunc(rest, unicode.IsSpace)
			if i < 0 {
				parts = append(parts, rest)
				break
			}
			_, n := utf8.DecodeRuneInString(rest[i:])
			parts = append(parts, rest[i+n:])
			rest = strings.TrimRightFunc(rest[:i], unicode.IsSpace)
			maxsplit--
		}
		for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
			parts[i], parts[j] = parts[j], parts[i]
		}
		return StringList(parts), nil
	}
	sp, ok := sep.(starlark.String)
	if !ok {
		return nil, Errorf("TypeError", "must be str or None, not %s", PyType(sep))
	}
	if sp == "" {
		return nil, Errorf("ValueError", "empty separator")
	}
	if maxsplit < 0 {
		if err := CheckAlloc(thread, int64(strings.Count(s, string(sp)))*32); err != nil {
			return nil, err
		}
		return StringList(strings.Split(s, string(sp))), nil
	}
	if !right {
		return StringList(strings.SplitN(s, string(sp), maxsplit+1)), nil
	}
	var parts []string
	rest := s
	for maxsplit > 0 {
		i := strings.LastIndex(rest, string(sp))
		if i < 0 {
			break
		}
		parts = append(parts, rest[i+len(sp):])
		rest = rest[:i]
		maxsplit--
	}
	parts = append(parts, rest)
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return StringList(parts), nil
}

// splitLines implements str.splitlines.
func splitLines(s string, keep bool) *starlark.List {
	var elems []starlark.Value
	if !pylines.HasRare(s) { // only \n: vectorized searches
		parts := make([]string, 0, strings.Count(s, "\n")+1)
		for len(s) > 0 {
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				parts = append(parts, s)
				break
			}
			if keep {
				parts = append(parts, s[:i+1])
			} else {
				parts = append(parts, s[:i])
			}
			s = s[i+1:]
		}
		return StringList(parts)
	}
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		brk := 0
		switch r {
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			brk = n
		case '\r':
			brk = 1
			if i+1 < len(s) && s[i+1] == '\n' {
				brk = 2
			}
		}
		if brk == 0 {
			i += n
			continue
		}
		end := i
		if keep {
			end = i + brk
		}
		elems = append(elems, starlark.String(s[start:end]))
		i += brk
		start = i
	}
	if start < len(s) {
		elems = append(elems, starlark.String(s[start:]))
	}
	return starlark.NewList(elems)
}

func countEq(seq starlark.Indexable, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("count", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	n := 0
	for i := 0; i < seq.Len(); i++ {
		if eq, err := starlark.Equal(seq.Index(i), x); err == nil && eq {
			n++
		}
	}
	return starlark.MakeInt(n), nil
}

func listMethod(
	thread *starlark.Thread,
	l *starlark.List,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, bool, error) {
	switch name {
	case "sort":
		var key starlark.Value = starlark.None
		var reverse starlark.Value = starlark.False
		if len(args) > 0 {
			return nil, true, Errorf("TypeError", "sort() takes no positional arguments")
		}
		if err := starlark.UnpackArgs("sort", nil, kwargs, "key?", &key, "reverse?", &reverse); err != nil {
			return nil, true, err
		}
		return starlark.None, true, SortList(thread, l, key, bool(reverse.Truth()))
	case "copy":
		elems := make([]starlark.Value, l.Len())
		for i := range elems {
			elems[i] = l.Index(i)
		}
		return starlark.NewList(elems), true, NoArgs(name, args, kwargs)
	case "count":
		v, err := countEq(l, args, kwargs)
		return v, true, err
	case "index":
		v, err := seqIndex(l, "list", args, kwargs)
		return v, true, err
	case "remove":
		var x starlark.Value
		if err := starlark.UnpackPositionalArgsNoEscape("remove", args, kwargs, 1, &x); err != nil {
			return nil, true, err
		}
		for i := 0; i < l.Len(); i++ {
			if eq, err := starlark.Equal(l.Index(i), x); err == nil && eq {
				_, err := starlark.Call(thread, MustAttr(l, "pop"), starlark.Tuple{starlark.MakeInt(i)}, nil)
				return starlark.None, true, err
			}
		}
		return nil, true, Errorf("ValueError", "list.remove(x): x not in list")
	case "reverse":
		n := l.Len()
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			a, b := l.Index(i), l.Index(j)
			if err := l.SetIndex(i, b); err != nil {
				return nil, true, err
			}
			l.SetIndex(j, a)
		}
		return starlark.None, true, NoArgs(name, args, kwargs)
	}
	return nil, false, nil
}

// SortList sorts l in place, stably, with Python's key/reverse semantics.
func SortList(thread *starlark.Thread, l *starlark.List, key starlark.Value, reverse bool) error {
	n := l.Len()
	if err := CheckAlloc(thread, int64(n)*(3*ListElemBytes+8)); err != nil {
		return err
	}
	elems := make([]starlark.Value, n)
	for i := range elems {
		elems[i] = l.Index(i)
	}
	keys := elems
	if key != nil && key != starlark.None {
		keys = make([]starlark.Value, n)
		for i, x := range elems {
			k, err := starlark.Call(thread, key, starlark.Tuple{x}, nil)
			if err != nil {
				return err
			}
			keys[i] = k
		}
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	less := func(a, b int) (bool, error) {
		x, y := keys[a], keys[b]
		if reverse {
			x, y = y, x
		}
		if lt, ok := fastLess(x, y); ok {
			return lt, nil
		}
		return PyCompare(syntax.LT, x, y)
	}
	// Keys that are all ints of int64, or all strs, are compared as Go
	// values (the same order, no type switch per comparison).
	if ints, ok := int64Keys(thread, keys); ok {
		less = func(a, b int) (bool, error) {
			if reverse {
				return ints[b] < ints[a], nil
			}
			return ints[a] < ints[b], nil
		}
	} else if strs, ok := stringKeys(thread, keys); ok {
		less = func(a, b int) (bool, error) {
			if reverse {
				return strs[b] < strs[a], nil
			}
			return strs[a] < strs[b], nil // UTF-8 byte order is code point order
		}
	} else if cols, ok := tupleKeys(thread, keys); ok {
		less = func(a, b int) (bool, error) {
			if reverse {
				a, b = b, a
			}
			return cols.less(a, b), nil
		}
	}
	if err := SortStable(thread, idx, less); err != nil {
		return err
	}
	sorted := make([]starlark.Value, n)
	for i, j := range idx {
		sorted[i] = elems[j]
	}
	for i, x := range sorted {
		if err := l.SetIndex(i, x); err != nil {
			return err
		}
	}
	return nil
}

// int64Keys returns keys as int64s if they are all ints that fit (false
// otherwise, or if the array would pass the memory limit).
func int64Keys(thread *starlark.Thread, keys []starlark.Value) ([]int64, bool) {
	for _, k := range keys {
		if _, ok := k.(starlark.Int); !ok {
			return nil, false
		}
	}
	if CheckAlloc(thread, int64(len(keys))*8) != nil {
		return nil, false
	}
	out := make([]int64, len(keys))
	for i, k := range keys {
		n, ok := k.(starlark.Int).Int64()
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// stringKeys returns keys as strings if they are all strs (false
// otherwise, or if the array would pass the memory limit).
func stringKeys(thread *starlark.Thread, keys []starlark.Value) ([]string, bool) {
	for _, k := range keys {
		if _, ok := k.(starlark.String); !ok {
			return nil, false
		}
	}
	if CheckAlloc(thread, int64(len(keys))*16) != nil {
		return nil, false
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = string(k.(starlark.String))
	}
	return out, true
}

// keyColumns holds sort keys that are tuples of one length by column:
// each column is all ints of int64 (ints) or all strs (strs).
type keyColumns []keyColumn

type keyColumn struct {
	ints []int64
	strs []string
}

// less is keys[a] < keys[b], comparing tuples as Python does: by their
// first differing element (equal tuples are not less).
func (cols keyColumns) less(a, b int) bool {
	for _, c := range cols {
		if c.ints != nil {
			if x, y := c.ints[a], c.ints[b]; x != y {
				return x < y
			}
		} else if x, y := c.strs[a], c.strs[b]; x != y {
			return x < y // UTF-8 byte order is code point order
		}
	}
	return false
}

// maxKeyColumns is the longest tuple key tupleKeys takes by column.
const maxKeyColumns = 4

// tupleKeys returns keys by column if they are all tuples of one length
// (1 to maxKeyColumns) whose elements at each position are all ints of
// int64 or all strs (false otherwise, or if the columns would pass the
// memory limit): sort keys such as (-count, name) then compare without a
// type switch per element.
func tupleKeys(thread *starlark.Thread, keys []starlark.Value) (keyColumns, bool) {
	if len(keys) == 0 {
		return nil, false
	}
	first, ok := keys[0].(starlark.Tuple)
	if !ok || len(first) == 0 || len(first) > maxKeyColumns {
		return nil, false
	}
	width := len(first)
	var isInt [maxKeyColumns]bool
	for c, v := range first {
		switch v.(type) {
		case starlark.Int:
			isInt[c] = true
		case starlark.String:
		default:
			return nil, false
		}
	}
	for _, k := range keys {
		t, ok := k.(starlark.Tuple)
		if !ok || len(t) != width {
			return nil, false
		}
		for c, v := range t {
			if isInt[c] {
				if i, ok := v.(starlark.Int); !ok {
					return nil, false
				} else if _, ok := i.Int64(); !ok {
					return nil, false
				}
			} else if _, ok := v.(starlark.String); !ok {
				return nil, false
			}
		}
	}
	if CheckAlloc(thread, int64(len(keys))*int64(width)*16) != nil {
		return nil, false
	}
	cols := make(keyColumns, width)
	for c := range cols {
		if isInt[c] {
			cols[c].ints = make([]int64, len(keys))
		} else {
			cols[c].strs = make([]string, len(keys))
		}
	}
	for i, k := range keys {
		for c, v := range k.(starlark.Tuple) {
			if isInt[c] {
				cols[c].ints[i], _ = v.(starlark.Int).Int64()
			} else {
				cols[c].strs[i] = string(v.(starlark.String))
			}
		}
	}
	return cols, true
}

// fastLess is x < y for the keys sort compares most: two strs, two ints,
// or two tuples whose elements are compared with these same fast paths
// up to the first that differs; ok is false for any other pair (the
// caller then uses pyCompare, whose result it would be).
func fastLess(x, y starlark.Value) (lt, ok bool) {
	switch a := x.(type) {
	case starlark.String:
		if b, ok := y.(starlark.String); ok {
			return a < b, true // UTF-8 byte order is code point order
		}
	case starlark.Int:
		if b, ok := y.(starlark.Int); ok {
			c, _ := a.Cmp(b, 0) // ints compare without error
			return c < 0, true
		}
	case starlark.Tuple:
		b, ok := y.(starlark.Tuple)
		if !ok {
			return false, false
		}
		for i := 0; i < len(a) && i < len(b); i++ {
			if eq, ok := fastEqual(a[i], b[i]); !ok {
				return false, false
			} else if !eq {
				return fastLess(a[i], b[i])
			}
		}
		return len(a) < len(b), true
	}
	return false, false
}

// fastEqual is x == y for two strs or two ints (ok false otherwise).
func fastEqual(x, y starlark.Value) (eq, ok bool) {
	switch a := x.(type) {
	case starlark.String:
		if b, ok := y.(starlark.String); ok {
			return a == b, true
		}
	case starlark.Int:
		if b, ok := y.(starlark.Int); ok {
			c, _ := a.Cmp(b, 0)
			return c == 0, true
		}
	}
	return false, false
}

func dictMethod(
	thread *starlark.Thread,
	d *starlark.Dict,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, bool, error) {
	switch name {
	case "copy":
		return d.Copy(), true, NoArgs(name, args, kwargs)
	case "fromkeys": // d.fromkeys(...) also works on an instance
		var it starlark.Value
		var v starlark.Value = starlark.None
		if err := starlark.UnpackPositionalArgsNoEscape("fromkeys", args, kwargs, 1, &it, &v); err != nil {
			return nil, true, err
		}
		if err := checkLen(thread, it, dictElemBytes); err != nil {
			return nil, true, err
		}
		out := starlark.NewDict(0)
		err := ForEach(thread, it, func(k starlark.Value) error { return out.SetKey(k, v) })
		return out, true, err
	case "items", "keys", "values":
		return &DictView{Kind: name, D: d}, true, NoArgs(name, args, kwargs)
	}
	return nil, false, nil
}

// DictView is dict.keys()/values()/items(): iterable, sized, printable as
// CPython prints it (dict_keys(['a'])), and indexable for convenience.
type DictView struct {
	Kind string
	D    *starlark.Dict
}

var (
	_ starlark.Iterable  = (*DictView)(nil)
	_ starlark.Container = (*DictView)(nil)
	_ starlark.Indexable = (*DictView)(nil)
)

func (v *DictView) String() string        { return Repr(v) }
func (v *DictView) Type() string          { return "dict_" + v.Kind }
func (v *DictView) PyTypeName() string    { return "dict_" + v.Kind }
func (v *DictView) Freeze()               {}
func (v *DictView) Truth() starlark.Bool  { return v.D.Len() > 0 }
func (v *DictView) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: '%s'", v.Type()) }
func (v *DictView) Len() int              { return v.D.Len() }
func (v *DictView) elems() []starlark.Value {
	items := v.D.Items()
	if v.Kind == "items" {
		return starlark.TupleValues(items) // items is fresh: no allocation per pair
	}
	out := make([]starlark.Value, len(items))
	for i, kv := range items {
		switch v.Kind {
		case "keys":
			out[i] = kv[0]
		case "values":
			out[i] = kv[1]
		default:
			out[i] = kv
		}
	}
	return out
}
func (v *DictView) Index(i int) starlark.Value { return v.elems()[i] }
func (v *DictView) Iterate() starlark.Iterator {
	if v.Kind == "keys" {
		return starlark.Tuple(v.D.Keys()).Iterate()
	}
	return starlark.Tuple(v.elems()).Iterate()
}
func (v *DictView) Has(x starlark.Value) (bool, error) {
	switch v.Kind {
	case "keys":
		_, found, err := v.D.Get(x)
		return found, err
	case "items":
		t, ok := x.(starlark.Tuple)
		if !ok || len(t) != 2 {
			return false, nil
		}
		y, found, err := v.D.Get(t[0])
		if err != nil || !found {
			return false, err
		}
		return starlark.Equal(y, t[1])
	}
	for _, y := range v.elems() {
		if eq, err := starlark.Equal(x, y); err == nil && eq {
			return true, nil
		}
	}
	return false, nil
}
func (v *DictView) WriteRepr(r *Renderer) {
	r.B.WriteString("dict_" + v.Kind + "(")
	r.Repr(starlark.NewList(v.elems()))
	r.B.WriteByte(')')
}

func setMethod(
	thread *starlark.Thread,
	s *starlark.Set,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, bool, error) {
	if s.Immutable() {
		return frozensetMethod(thread, s, name, args, kwargs)
	}
	others := func() ([]*starlark.Set, error) {
		var out []*starlark.Set
		for _, a := range args {
			o, err := builtinSet(thread, starlark.Tuple{a}, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, o.(*starlark.Set))
		}
		return out, nil
	}
	copySet := s.Copy
	elems := func(x *starlark.Set) []starlark.Value {
		var out []starlark.Value
		it := x.Iterate()
		defer it.Done()
		var v starlark.Value
		for it.Next(&v) {
			out = append(out, v)
		}
		return out
	}
	switch name {
	case "add":
		var x starlark.Value
		if err := starlark.UnpackPositionalArgsNoEscape("add", args, kwargs, 1, &x); err != nil {
			return nil, true, err
		}
		if err := starlark.CheckGrowSetInsert(thread, s, x); err != nil {
			return nil, true, err
		}
		return starlark.None, true, s.Insert(x)
	case "discard":
		var x starlark.Value
		if err := starlark.UnpackPositionalArgsNoEscape("discard", args, kwargs, 1, &x); err != nil {
			return nil, true, err
		}
		_, err := s.Delete(x)
		return starlark.None, true, err
	case "remove":
		// Python's KeyError names the element (Starlark's says "missing key").
		var x starlark.Value
		if err := starlark.UnpackPositionalArgsNoEscape("remove", args, kwargs, 1, &x); err != nil {
			return nil, true, err
		}
		found, err := s.Delete(x)
		if err == nil && !found {
			err = KeyErr(x)
		}
		return starlark.None, true, err
	case "update", "union":
		os, err := others()
		if err != nil {
			return nil, true, err
		}
		target := s
		if name == "union" {
			target = copySet()
		}
		for _, o := range os {
			for _, x := range elems(o) {
				if err := target.Insert(x); err != nil {
					return nil, true, err
				}
			}
		}
		if name == "update" {
			return starlark.None, true, nil
		}
		return target, true, nil
	case "intersection", "intersection_update", "difference", "difference_update", "symmetric_difference", "symmetric_difference_update":
		os, err := others()
		if err != nil {
			return nil, true, err
		}
		result := copySet()
		for _, o := range os {
			next := new(starlark.Set)
			switch {
			case strings.HasPrefix(name, "intersection"):
				for _, x := range elems(result) {
					if ok, _ := o.Has(x); ok {
						next.Insert(x)
					}
				}
			case strings.HasPrefix(name, "difference"):
				for _, x := range elems(result) {
					if ok, _ := o.Has(x); !ok {
						next.Insert(x)
					}
				}
			default:
				for _, x := range elems(result) {
					if ok, _ := o.Has(x); !ok {
						next.Insert(x)
					}
				}
				for _, x := range elems(o) {
					if ok, _ := result.Has(x); !ok {
						next.Insert(x)
					}
				}
			}
			result = next
		}
		if strings.HasSuffix(name, "_update") {
			s.Clear()
			for _, x := range elems(result) {
				s.Insert(x)
			}
			return starlark.None, true, nil
		}
		return result, true, nil
	case "issubset", "issuperset", "isdisjoint":
		os, err := others()
		if err != nil {
			return nil, true, err
		}
		if len(os) != 1 {
			return nil, true, Errorf("TypeError", "%s() takes exactly one argument", name)
		}
		o := os[0]
		switch name {
		case "issubset":
			for _, x := range elems(s) {
				if ok, _ := o.Has(x); !ok {
					return starlark.False, true, nil
				}
			}
			return starlark.True, true, nil
		case "issuperset":
			for _, x := range elems(o) {
				if ok, _ := s.Has(x); !ok {
					return starlark.False, true, nil
				}
			}
			return starlark.True, true, nil
		default:
			for _, x := range elems(o) {
				if ok, _ := s.Has(x); ok {
					return starlark.False, true, nil
				}
			}
			return starlark.True, true, nil
		}
	case "copy":
		return copySet(), true, NoArgs(name, args, kwargs)
	}
	return nil, false, nil
}

// seqIndex implements list.index / tuple.index(x[, start[, end]]).
func seqIndex(seq starlark.Indexable, typ string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	start, end := 0, seq.Len()
	if err := starlark.UnpackPositionalArgsNoEscape("index", args, kwargs, 1, &x, &start, &end); err != nil {
		return nil, err
	}
	n := seq.Len()
	if start < 0 {
		start = max(start+n, 0)
	}
	if end < 0 {
		end += n
	}
	for i := start; i < min(end, n); i++ {
		if eq, err := starlark.Equal(seq.Index(i), x); err == nil && eq {
			return starlark.MakeInt(i), nil
		}
	}
	if typ == "tuple" {
		return nil, Errorf("ValueError", "tuple.index(x): x not in tuple")
	}
	return nil, Errorf("ValueError", "%s is not in list", Repr(x))
}

// clampBounds returns args with the start and end of a str search (args 1
// and 2) clamped to the 32-bit range Starlark's methods take: CPython
// accepts any int there, and a bound beyond any string's length means the
// same as the int32 limit.
func clampBounds(args starlark.Tuple) starlark.Tuple {
	var out starlark.Tuple
	for i := 1; i < len(args) && i < 3; i++ {
		n, ok := args[i].(starlark.Int)
		if !ok {
			continue
		}
		if _, err := starlark.AsInt32(n); err == nil {
			continue
		}
		if out == nil {
			out = append(starlark.Tuple(nil), args...)
		}
		if n.Sign() < 0 {
			out[i] = starlark.MakeInt(math.MinInt32)
		} else {
			out[i] = starlark.MakeInt(math.MaxInt32)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// expandedLen is the length of s.expandtabs(tab), counted without building it.
func expandedLen(s string, tab int) int64 {
	var n, col int64
	for _, r := range s {
		switch r {
		case '\t':
			if tab > 0 {
				w := int64(tab) - col%int64(tab)
				n += w
				col += w
			}
		case '\n', '\r':
			n++
			col = 0
		default:
			n += int64(utf8.RuneLen(r))
			col++
		}
	}
	return n
}

// checkJoin checks the size of sep.join(it) before building it when it is
// a list or tuple (other iterables are checked as the result grows).
func checkJoin(thread *starlark.Thread, sep string, it starlark.Value) error {
	var elems starlark.Indexable
	switch x := it.(type) {
	case *starlark.List:
		elems = x
	case starlark.Tuple:
		elems = x
	default:
		return nil
	}
	n := int64(len(sep)) * int64(max(elems.Len()-1, 0))
	for i := range elems.Len() {
		if s, ok := elems.Index(i).(starlark.String); ok {
			n += int64(len(s))
		}
	}
	return CheckAlloc(thread, n)
}

// SortStable sorts the indices idx stably by less, stopping at the first
// comparison error and when a limit stops the step (checked every
// growCheckEvery comparisons), so that sorting a huge list cannot outlive
// the step's deadline. It is a merge sort (about n log2 n comparisons,
// n for sorted input, like CPython's timsort; sort.SliceStable's
// in-place merging makes several times more calls of less, each a Python
// comparison).
func SortStable(thread *starlark.Thread, idx []int, less func(a, b int) (bool, error)) error {
	m := &merger{thread: thread, less: less, buf: make([]int, len(idx)/2+1)}
	m.sort(idx)
	return m.err
}

type merger struct {
	thread *starlark.Thread
	less   func(a, b int) (bool, error)
	buf    []int
	calls  int
	err    error
}

// lt compares the elements a and b (false once an error is recorded).
func (m *merger) lt(a, b int) bool {
	if m.err != nil {
		return false
	}
	m.calls++
	if m.calls%GrowCheckEvery == 0 {
		if m.err = Interrupted(m.thread); m.err != nil {
			return false
		}
	}
	lt, err := m.less(a, b)
	if err != nil {
		m.err = err
	}
	return lt
}

func (m *merger) sort(s []int) {
	if len(s) <= 12 {
		for i := 1; i < len(s) && m.err == nil; i++ {
			for j := i; j > 0 && m.lt(s[j], s[j-1]); j-- {
				s[j], s[j-1] = s[j-1], s[j]
			}
		}
		return
	}
	mid := len(s) / 2
	m.sort(s[:mid])
	m.sort(s[mid:])
	if m.err != nil || !m.lt(s[mid], s[mid-1]) {
		return // already in order
	}
	left := append(m.buf[:0], s[:mid]...)
	i, j, k := 0, mid, 0
	for i < len(left) && j < len(s) {
		if m.lt(s[j], left[i]) {
			s[k] = s[j]
			j++
		} else {
			s[k] = left[i]
			i++
		}
		k++
	}
	copy(s[k:], left[i:])
}

// writeEscape writes r as Python escapes it in ascii() and
// backslashreplace: \xhh, \uhhhh or \Uhhhhhhhh.
func writeEscape(b *strings.Builder, r rune) {
	switch {
	case r < 0x100:
		fmt.Fprintf(b, "\\x%02x", r)
	case r < 0x10000:
		fmt.Fprintf(b, "\\u%04x", r)
	default:
		fmt.Fprintf(b, "\\U%08x", r)
	}
}

// strEncode implements str.encode for UTF-8, ASCII and Latin-1 with the
// strict, ignore, replace, backslashreplace and xmlcharrefreplace error
// handlers.
func strEncode(s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	encoding, errors := "utf-8", "strict"
	if err := starlark.UnpackArgs("encode", args, kwargs, "encoding?", &encoding, "errors?", &errors); err != nil {
		return nil, err
	}
	limit := rune(0)
	codec := ""
	switch strings.ReplaceAll(strings.ToLower(encoding), "_", "-") {
	case "utf-8", "utf8":
		return starlark.Bytes(s), nil
	case "ascii", "us-ascii":
		limit, codec = 0x80, "ascii"
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1", "l1":
		limit, codec = 0x100, "latin-1"
	default:
		return nil, Errorf("LookupError", "unknown encoding: %s (the sandbox encodes utf-8, ascii and latin-1)", encoding)
	}
	var b strings.Builder
	pos := 0
	for _, r := range s {
		switch {
		case r < limit:
			b.WriteByte(byte(r))
		case errors == "ignore":
		case errors == "replace":
			b.WriteByte('?')
		case errors == "backslashreplace":
			writeEscape(&b, r)
		case errors == "xmlcharrefreplace":
			fmt.Fprintf(&b, "&#%d;", r)
		case errors == "strict":
			var esc strings.Builder
			writeEscape(&esc, r)
			return nil, Errorf("UnicodeEncodeError", "'%s' codec can't encode character '%s' in position %d: ordinal not in range(%d)",
				codec, esc.String(), pos, limit)
		default:
			return nil, Errorf("LookupError", "unknown error handler name '%s'", errors)
		}
		pos++
	}
	return starlark.Bytes(b.String()), nil
}

// bytesDecode implements bytes.decode for UTF-8 (and utf-8-sig), ASCII
// and Latin-1 with the strict, ignore, replace and backslashreplace error
// handlers. Invalid UTF-8 is CPython's UnicodeDecodeError, or one U+FFFD
// per maximal invalid subpart with replace, as CPython's decoder.
func bytesDecode(s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	encoding, errors := "utf-8", "strict"
	if err := starlark.UnpackArgs("decode", args, kwargs, "encoding?", &encoding, "errors?", &errors); err != nil {
		return nil, err
	}
	codec := ""
	switch strings.ReplaceAll(strings.ToLower(encoding), "_", "-") {
	case "utf-8", "utf8":
		codec = "utf-8"
	case "utf-8-sig":
		codec, s = "utf-8", strings.TrimPrefix(s, "\xef\xbb\xbf")
	case "ascii", "us-ascii":
		codec = "ascii"
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1", "l1":
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteRune(rune(s[i]))
		}
		return starlark.String(b.String()), nil
	default:
		return nil, Errorf("LookupError", "unknown encoding: %s (the sandbox decodes utf-8, ascii and latin-1)", encoding)
	}
	if codec == "utf-8" && utf8.ValidString(s) || codec == "ascii" && isASCII(s) {
		return starlark.String(s), nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		n, reason := 1, ""
		if codec == "ascii" {
			if s[i] >= 0x80 {
				reason = "ordinal not in range(128)"
			}
		} else {
			n, reason = utf8Subpart(s[i:])
		}
		if reason == "" {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		switch errors {
		case "ignore":
		case "replace":
			b.WriteRune(utf8.RuneError)
		case "backslashreplace":
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "\\x%02x", c)
			}
		case "strict":
			if n == 1 {
				return nil, Errorf("UnicodeDecodeError", "'%s' codec can't decode byte 0x%02x in position %d: %s", codec, s[i], i, reason)
			}
			return nil, Errorf("UnicodeDecodeError", "'%s' codec can't decode bytes in position %d-%d: %s", codec, i, i+n-1, reason)
		default:
			return nil, Errorf("LookupError", "unknown error handler name '%s'", errors)
		}
		i += n
	}
	return starlark.String(b.String()), nil
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// utf8Subpart returns the length of the UTF-8 sequence at the start of s
// and "" when it is valid, else the length of its maximal invalid subpart
// (what CPython's decoder reports and replaces as one) and why it is
// invalid, in CPython's words.
func utf8Subpart(s string) (int, string) {
	c := s[0]
	if c < 0x80 {
		return 1, ""
	}
	var need int
	lo, hi := byte(0x80), byte(0xBF) // the range of the first continuation byte
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		need = 3
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
	default:
		return 1, "invalid start byte"
	}
	for k := 1; k <= need; k++ {
		if k >= len(s) {
			return k, "unexpected end of data"
		}
		if s[k] < lo || s[k] > hi {
			return k, "invalid continuation byte"
		}
		lo, hi = 0x80, 0xBF
	}
	return need + 1, ""
}

// Binary implements the set operations of keys and items views
// (d.keys() - {"x"}, a.keys() & b.keys()): a set, as in Python.
func (v *DictView) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if v.Kind == "values" {
		return nil, nil
	}
	switch op {
	case syntax.MINUS, syntax.AMP, syntax.PIPE, syntax.CIRCUMFLEX:
	default:
		return nil, nil
	}
	a := starlark.NewSet(v.Len())
	for _, e := range v.elems() {
		if err := a.Insert(e); err != nil {
			return nil, err
		}
	}
	var b starlark.Value = y
	if _, ok := y.(*starlark.Set); !ok {
		if _, ok := y.(starlark.Iterable); !ok {
			return nil, nil
		}
		s, err := builtinSet(nil, starlark.Tuple{y}, nil)
		if err != nil {
			return nil, err
		}
		b = s
	}
	if side == starlark.Right {
		return starlark.Binary(op, b, a)
	}
	return starlark.Binary(op, a, b)
}

var _ starlark.HasCompareOther = (*DictView)(nil)

// CompareSameType compares views as Python does: keys and items views as
// sets, values views by identity.
func (v *DictView) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return v.compareSet(op, y)
}

// CompareOther compares a keys or items view with a set (== and !=).
func (v *DictView) CompareOther(op syntax.Token, y starlark.Value, side starlark.Side) (bool, bool, error) {
	if _, ok := y.(*starlark.Set); !ok {
		return false, false, nil
	}
	r, err := v.compareSet(op, y)
	return r, true, err
}

// compareSet answers == and != of v and y (a view or a set).
func (v *DictView) compareSet(op syntax.Token, y starlark.Value) (bool, error) {
	if op != syntax.EQL && op != syntax.NEQ {
		return false, Errorf("TypeError", "'%s' not supported between instances of '%s' and '%s'", op, v.Type(), PyType(y))
	}
	eq := false
	if o, ok := y.(*DictView); ok && o == v {
		eq = true
	} else if v.Kind != "values" {
		if o, ok := y.(*DictView); !ok || o.Kind != "values" {
			yl := y.(interface{ Len() int }).Len()
			if yl == v.Len() {
				eq = true
				iter := starlark.Iterate(y)
				var e starlark.Value
				for iter.Next(&e) {
					if has, err := v.Has(e); err != nil || !has {
						eq = false
						break
					}
				}
				iter.Done()
			}
		}
	}
	if op == syntax.NEQ {
		return !eq, nil
	}
	return eq, nil
}

// frozensetMethod is a method of a frozenset: the set methods that make a
// new set (which is a frozenset too), no mutating ones.
func frozensetMethod(
	thread *starlark.Thread,
	s *starlark.Set,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, bool, error) {
	switch name {
	case "copy":
		return s, true, NoArgs(name, args, kwargs)
	case "union", "intersection", "difference", "symmetric_difference":
		v, handled, err := setMethod(thread, s.Copy(), name, args, kwargs)
		if r, ok := v.(*starlark.Set); ok && err == nil {
			r.MakeImmutable()
		}
		return v, handled, err
	case "isdisjoint", "issubset", "issuperset":
		return setMethod(thread, s.Copy(), name, args, kwargs)
	}
	return nil, true, Errorf("AttributeError", "'frozenset' object has no attribute '%s'", name)
}
