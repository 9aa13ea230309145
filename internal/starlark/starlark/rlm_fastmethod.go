package starlark

// rlm: fast paths for the commonest methods of built-in values. A method
// call (ATTR left unbound, then CALL) normally goes through callSlow,
// callNativeMethod and callBuiltin: a bound-method slot, a frame pushed
// and popped, argument decoding, then the method. For a call with
// positional arguments only, the interpreter first tries the method's
// fastMethod, which answers the common cases (w.lower() of an ASCII
// word, line.strip(), s.startswith("x"), out.append(v) with room,
// counts.get(w, 0), by.setdefault(k, []) of a present k)
// directly, or returns false to leave the call to the usual path, which
// then also reports any error. A fastMethod must not fail, call back into
// Starlark code, look at the thread's call stack or keep args (the
// interpreter's operand stack); its result must equal the method's.

import (
	"strings"
	"unsafe"
)

func init() {
	for name, fast := range map[string]func(*Builtin, Value, Tuple) (Value, bool){
		"lower":      fastLower,
		"upper":      fastUpper,
		"strip":      fastStrip,
		"lstrip":     fastStrip,
		"rstrip":     fastStrip,
		"startswith": fastStartsWith,
		"endswith":   fastStartsWith,
		"partition":  fastPartition,
		"rpartition": fastPartition,
	} {
		stringMethods[name].fastMethod = fast
	}
	listMethods["append"].fastMethod = fastAppend
	dictMethods["get"].fastMethod = fastDictGet
	dictMethods["setdefault"].fastMethod = fastDictGet
}

// fastDictGet is dict.get of a str or int key, with or without a default,
// and dict.setdefault of such a key that is present: looking such a key
// up compares it only with keys of its own type, which runs no code of
// the program's (no __eq__ or __hash__ of a class). setdefault of a new
// key (an insertion, with its grow check) takes the usual path.
func fastDictGet(m *Builtin, recv Value, args Tuple) (Value, bool) {
	d, ok := recv.(*Dict)
	if !ok || len(args) == 0 || len(args) > 2 {
		return nil, false
	}
	switch args[0].(type) {
	case String, Int:
	default:
		return nil, false
	}
	v, found, err := d.Get(args[0])
	if err != nil {
		return nil, false
	}
	if found {
		return v, true
	}
	if m.name[0] == 's' { // setdefault
		return nil, false
	}
	if len(args) == 2 {
		return args[1], true
	}
	return None, true
}

// fastLower is str.lower of an ASCII str (non-ASCII text takes Python's
// full case mapping on the usual path); a str with no upper case letter
// is its own result.
func fastLower(_ *Builtin, recv Value, args Tuple) (Value, bool) {
	return fastCase(recv, args, 'A', 'Z')
}

// fastUpper is str.upper of an ASCII str, as fastLower.
func fastUpper(_ *Builtin, recv Value, args Tuple) (Value, bool) {
	return fastCase(recv, args, 'a', 'z')
}

// fastCase returns an ASCII str with its letters from lo to hi (A-Z or
// a-z) switched to the other case, in one pass; recv itself when it has
// none.
func fastCase(recv Value, args Tuple, lo, hi byte) (Value, bool) {
	s, ok := recv.(String)
	if !ok || len(args) != 0 {
		return nil, false
	}
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return nil, false
		}
		if lo <= c && c <= hi {
			break
		}
	}
	if i == len(s) {
		return recv, true
	}
	b := make([]byte, len(s))
	copy(b, s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return nil, false
		}
		if lo <= c && c <= hi {
			c ^= 0x20 // the other case
		}
		b[i] = c
	}
	return String(unsafe.String(unsafe.SliceData(b), len(b))), true // b is not changed again
}

// asciiSpace is the ASCII white space that string_strip's unicode.IsSpace
// takes.
func asciiSpace(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r'
}

// fastStrip is str.strip, lstrip and rstrip with no argument or an ASCII
// str of characters, which can be trimmed byte by byte (UTF-8 never
// encodes other characters with ASCII bytes). Without an argument, a
// non-ASCII byte where trimming stops leaves the call to the usual path
// (it may be Unicode white space).
func fastStrip(m *Builtin, recv Value, args Tuple) (Value, bool) {
	s, ok := recv.(String)
	if !ok || len(args) > 1 {
		return nil, false
	}
	var chars string
	if len(args) == 1 {
		c, ok := args[0].(String)
		if !ok {
			return nil, false
		}
		for i := 0; i < len(c); i++ {
			if c[i] >= 0x80 {
				return nil, false
			}
		}
		chars = string(c)
	}
	trim := func(c byte) bool {
		if chars == "" {
			return asciiSpace(c)
		}
		return strings.IndexByte(chars, c) >= 0
	}
	i, j := 0, len(s)
	if m.name[0] != 'r' { // strip, lstrip
		for i < j && trim(s[i]) {
			i++
		}
		if chars == "" && i < j && s[i] >= 0x80 {
			return nil, false
		}
	}
	if m.name[0] != 'l' { // strip, rstrip
		for j > i && trim(s[j-1]) {
			j--
		}
		if chars == "" && j > i && s[j-1] >= 0x80 {
			return nil, false
		}
	}
	if i == 0 && j == len(s) {
		return recv, true
	}
	return s[i:j], true
}

// fastStartsWith is str.startswith and str.endswith of one str or of a
// tuple of strs (true if any is a prefix, or suffix).
func fastStartsWith(m *Builtin, recv Value, args Tuple) (Value, bool) {
	s, ok := recv.(String)
	if !ok || len(args) != 1 {
		return nil, false
	}
	has := strings.HasPrefix
	if m.name[0] == 'e' { // endswith
		has = strings.HasSuffix
	}
	switch x := args[0].(type) {
	case String:
		return Bool(has(string(s), string(x))), true
	case Tuple:
		for _, e := range x { // all strs first: a TypeError otherwise
			if _, ok := e.(String); !ok {
				return nil, false
			}
		}
		for _, e := range x {
			if has(string(s), string(e.(String))) {
				return True, true
			}
		}
		return False, true
	}
	return nil, false
}

// fastPartition is str.partition and str.rpartition of a non-empty str,
// as string_partition.
func fastPartition(m *Builtin, recv Value, args Tuple) (Value, bool) {
	s, ok := recv.(String)
	if !ok || len(args) != 1 {
		return nil, false
	}
	sep, ok := args[0].(String)
	if !ok || sep == "" {
		return nil, false
	}
	if m.name[0] == 'p' {
		if i := strings.Index(string(s), string(sep)); i >= 0 {
			return partitionValue(string(s[:i]), string(sep), string(s[i+len(sep):])), true
		}
		return partitionValue(string(s), "", ""), true
	}
	if i := strings.LastIndex(string(s), string(sep)); i >= 0 {
		return partitionValue(string(s[:i]), string(sep), string(s[i+len(sep):])), true
	}
	return partitionValue("", "", string(s)), true
}

// fastAppend is list.append of a list that is mutable and not due for a
// grow check (checkGrowList).
func fastAppend(_ *Builtin, recv Value, args Tuple) (Value, bool) {
	l, ok := recv.(*List)
	if !ok || len(args) != 1 || l.frozen || l.itercount > 0 {
		return nil, false
	}
	n := len(l.elems)
	if n == cap(l.elems) && n >= GrowCheckEvery || n%GrowCheckEvery == GrowCheckEvery-1 {
		return nil, false
	}
	l.elems = append(l.elems, args[0])
	return None, true
}
