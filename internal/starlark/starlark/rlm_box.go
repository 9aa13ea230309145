package starlark

import (
	"strconv"
	"unsafe"
)

// rlm: values made in one allocation instead of two. A Tuple or a String
// stored in a Value is a copy of its header in a new allocation (neither
// is pointer-shaped), besides the allocation of its elements or bytes.
// For a short tuple (MAKETUPLE) or a short concatenation, one cell holds
// the header and what it points at, and the Value's data word points at
// the cell's header (made from the type word of the type in a Value).
// Strings and tuples made together (the parts of a split, a dict's items)
// can share one array of headers in the same way (StringValues,
// TupleValues, StringBoxer). This file is the one place that builds a
// Value from its words.

// valueWords is the layout of a Value: its type word and its data word.
type valueWords struct{ tab, data unsafe.Pointer }

// boxed returns the Value of type word tab whose data word is p.
func boxed(tab, p unsafe.Pointer) Value {
	var v Value
	w := (*valueWords)(unsafe.Pointer(&v))
	w.tab, w.data = tab, p
	return v
}

// valuesOf returns items as Values of the type whose type word is tab
// (T's, held in a Value), each Value's data word pointing at its element
// of items: no allocation per item. The caller gives items up: it must
// never change them afterwards.
func valuesOf[T any](items []T, tab unsafe.Pointer) []Value {
	elems := make([]Value, len(items))
	for i := range items {
		w := (*valueWords)(unsafe.Pointer(&elems[i]))
		w.tab, w.data = tab, unsafe.Pointer(&items[i])
	}
	return elems
}

// StringValues returns parts as Values without an allocation per string
// (rlm): one array of headers, parts' own, serves them all (a split of 10
// MB into 1.7M words: 1.7M allocations fewer). The caller gives parts up
// and must never change them. A Value kept alone keeps the whole array
// alive, 16 bytes per part, besides the text the parts point into.
func StringValues(parts []string) []Value { return valuesOf(parts, stringTab) }

// TupleValues returns items as Values without an allocation per tuple,
// as StringValues does for strings (rlm).
func TupleValues(items []Tuple) []Value { return valuesOf(items, tupleTab) }

// StringBoxer boxes strings that end up together (the elements of one
// result list) from chunks of headers: one allocation per chunk instead
// of one per string (rlm). A string kept alone keeps its chunk alive, at
// most stringBoxChunk headers. The zero value is ready to use.
type StringBoxer struct{ chunk []string }

// stringBoxChunk is the largest chunk of headers a StringBoxer allocates;
// the first are smaller, so that a short result wastes little.
const stringBoxChunk = 1024

// Box returns s as a Value whose data word points into the current chunk.
func (b *StringBoxer) Box(s string) Value {
	if len(b.chunk) == cap(b.chunk) {
		b.chunk = make([]string, 0, min(max(2*cap(b.chunk), 16), stringBoxChunk))
	}
	b.chunk = append(b.chunk, s)
	return boxed(stringTab, unsafe.Pointer(&b.chunk[len(b.chunk)-1]))
}

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
	return boxed(tupleTab, unsafe.Pointer(t))
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
	stringCell24 struct {
		s String
		b [24]byte
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
	return boxed(stringTab, unsafe.Pointer(s))
}

// IntString returns str(n) as a Value in one allocation (rlm): its header
// and digits share a cell, where formatting allocates the digits and
// boxing them a header. 0 to 99 are strconv's static strings, which no
// allocation holds.
func IntString(n int64) Value {
	if n >= 0 && n < 100 {
		return String(strconv.FormatInt(n, 10))
	}
	var tmp [20]byte // an int64 in decimal: at most 19 digits and a sign
	d := strconv.AppendInt(tmp[:0], n, 10)
	c := new(stringCell24)
	b := c.b[:copy(c.b[:], d)]
	c.s = String(unsafe.String(&b[0], len(b)))
	return boxed(stringTab, unsafe.Pointer(&c.s))
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

// partitionCell holds the result of a partition: the tuple's header, its
// three elements and their strings' headers.
type partitionCell struct {
	strs  [3]string
	elems [3]Value
	hdr   Tuple
}

// partitionValue returns the tuple (a, b, c) of three strings in one
// allocation instead of five (str.partition, str.rpartition: rlm).
func partitionValue(a, b, c string) Value {
	cell := &partitionCell{strs: [3]string{a, b, c}}
	for i := range cell.strs {
		cell.elems[i] = boxed(stringTab, unsafe.Pointer(&cell.strs[i]))
	}
	cell.hdr = cell.elems[:]
	return boxed(tupleTab, unsafe.Pointer(&cell.hdr))
}
