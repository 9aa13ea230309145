package sandbox

import (
	"strconv"
	"unsafe"

	"go.starlark.net/starlark"
)

// iface is the layout of a non-empty interface value such as
// starlark.Value: its type word and its data word.
type iface struct{ tab, data unsafe.Pointer }

// strTab is the type word of a starlark.String held in a starlark.Value.
var strTab = func() unsafe.Pointer {
	var v starlark.Value = starlark.String("")
	return (*iface)(unsafe.Pointer(&v)).tab
}()

// boxStrings returns parts as Values without an allocation per string.
// Converting a string to an interface copies its 16-byte header into a
// new allocation; here each Value's data word points at its element of
// parts instead, so the caller must never change parts afterwards (it
// gives the array up). One array of headers then serves all the strings
// (a split of a 10 MB text into 1.7M words: 1.7M allocations fewer); a
// Value kept alone keeps the whole array alive, 16 bytes per part, next
// to the text the parts point into anyway.
func boxStrings(parts []string) []starlark.Value { return boxInPlace(parts, strTab) }

// boxInPlace returns items as Values of the type whose type word is tab
// (T's, as a starlark.Value), each Value's data word pointing at its
// element of items.
func boxInPlace[T any](items []T, tab unsafe.Pointer) []starlark.Value {
	elems := make([]starlark.Value, len(items))
	for i := range items {
		v := (*iface)(unsafe.Pointer(&elems[i]))
		v.tab = tab
		v.data = unsafe.Pointer(&items[i])
	}
	return elems
}

// intStrCell holds a str(int) and its header: boxInt's one allocation.
// 24 bytes hold any int64 in decimal (20 digits and a sign).
type intStrCell struct {
	s string
	b [24]byte
}

// boxInt returns str(n) as a Value. Formatting the int allocates its
// digits and boxing them a 16-byte header; here the header and the
// digits share one allocation, the header pointing into it. 0 to 99 are
// strconv's static strings, which no allocation holds.
func boxInt(n int64) starlark.Value {
	if n >= 0 && n < 100 {
		return starlark.String(strconv.FormatInt(n, 10))
	}
	c := new(intStrCell)
	d := strconv.AppendInt(c.b[:0], n, 10)
	c.s = unsafe.String(&c.b[0], len(d))
	var v starlark.Value
	p := (*iface)(unsafe.Pointer(&v))
	p.tab = strTab
	p.data = unsafe.Pointer(&c.s)
	return v
}

// tupleTab is the type word of a starlark.Tuple held in a starlark.Value.
var tupleTab = func() unsafe.Pointer {
	var v starlark.Value = starlark.Tuple(nil)
	return (*iface)(unsafe.Pointer(&v)).tab
}()

// boxTuples returns items as Values without an allocation per tuple,
// as boxStrings does for strings: each Value's data word points at its
// element of items, which the caller gives up.
func boxTuples(items []starlark.Tuple) []starlark.Value { return boxInPlace(items, tupleTab) }

// strBoxer boxes strings that end up together (the elements of one
// result list) from chunks of headers: one allocation per chunk instead
// of one per string. A string kept alone keeps its chunk alive, at most
// strBoxChunk headers.
type strBoxer struct{ chunk []string }

// strBoxChunk is the largest chunk of headers a strBoxer allocates; the
// first are smaller, so that a short result wastes little.
const strBoxChunk = 1024

// box returns s as a Value whose data word points into the current chunk.
func (b *strBoxer) box(s string) starlark.Value {
	if len(b.chunk) == cap(b.chunk) {
		b.chunk = make([]string, 0, min(max(2*cap(b.chunk), 16), strBoxChunk))
	}
	b.chunk = append(b.chunk, s)
	var v starlark.Value
	w := (*iface)(unsafe.Pointer(&v))
	w.tab, w.data = strTab, unsafe.Pointer(&b.chunk[len(b.chunk)-1])
	return v
}
