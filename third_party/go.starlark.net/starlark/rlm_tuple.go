package starlark

import "unsafe"

// rlm: a tuple made by the interpreter (MAKETUPLE) took two allocations:
// its elements and, when stored as a Value, a copy of its slice header
// (Tuple is a slice, not pointer-shaped). newTupleValue makes a short
// tuple in one: a cell holding the header and the elements it points at,
// with the Value's data word pointing at the cell's header.

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
