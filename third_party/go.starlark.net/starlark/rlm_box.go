package starlark

import "unsafe"

// rlm: values made in one allocation instead of two. A Tuple or a String
// stored in a Value is a copy of its header in a new allocation (neither
// is pointer-shaped), besides the allocation of its elements or bytes.
// For a short tuple (MAKETUPLE) or a short concatenation, one cell holds
// the header and what it points at, and the Value's data word points at
// the cell's header (made from the type word of the type in a Value).

// valueWords is the layout of a Value: its type word and its data word.
type valueWords struct{ tab, data unsafe.Pointer }

// tupleTab is the type word of a Tuple held in a Value.
var tupleTab = func() unsafe.Pointer {
	var v Value = Tuple(nil)
	return (*valueWords)(unsafe.Pointer(&v)).tab
}()

type (
	tupleCell2 struct {
		t Tuple
		e [2]Value
	}
	tupleCell3 struct {
		t Tuple
		e [3]Value
	}
	tupleCell4 struct {
		t Tuple
		e [4]Value
	}
)

// newTupleValue returns a new tuple of a copy of elems, as a Value.
func newTupleValue(elems []Value) Value {
	var t *Tuple
	switch len(elems) {
	case 2:
		c := new(tupleCell2)
		copy(c.e[:], elems)
		c.t, t = c.e[:], &c.t
	case 3:
		c := new(tupleCell3)
		copy(c.e[:], elems)
		c.t, t = c.e[:], &c.t
	case 4:
		c := new(tupleCell4)
		copy(c.e[:], elems)
		c.t, t = c.e[:], &c.t
	default:
		tuple := make(Tuple, len(elems))
		copy(tuple, elems)
		return tuple
	}
	var v Value
	w := (*valueWords)(unsafe.Pointer(&v))
	w.tab, w.data = tupleTab, unsafe.Pointer(t)
	return v
}

// stringTab is the type word of a String held in a Value.
var stringTab = func() unsafe.Pointer {
	var v Value = String("")
	return (*valueWords)(unsafe.Pointer(&v)).tab
}()

type (
	stringCell16 struct {
		s String
		b [16]byte
	}
	stringCell48 struct {
		s String
		b [48]byte
	}
)

// concatSmallMax is the longest concatenation concatValue makes in one
// cell.
const concatSmallMax = 48

// concatValue returns x + y, of at most concatSmallMax bytes, as a Value
// in one allocation.
func concatValue(x, y String) Value {
	var b []byte
	var s *String
	if n := len(x) + len(y); n <= 16 {
		c := new(stringCell16)
		b, s = c.b[:n], &c.s
	} else {
		c := new(stringCell48)
		b, s = c.b[:n], &c.s
	}
	copy(b[copy(b, x):], y)
	*s = String(unsafe.String(&b[0], len(b)))
	var v Value
	w := (*valueWords)(unsafe.Pointer(&v))
	w.tab, w.data = stringTab, unsafe.Pointer(s)
	return v
}

// byteStrings holds the 256 one-byte strings as Values.
var byteStrings = func() (t [256]Value) {
	for i := range t {
		t[i] = String([]byte{byte(i)})
	}
	return
}()

// ByteString returns the one-byte string of b as a Value, without an
// allocation (rlm): indexing a str, iterating its elems(), and the
// characters of Python-style str iteration.
func ByteString(b byte) Value { return byteStrings[b] }
