package starlark

// rlm: appending to a string in place (PATCHES.md: "String concatenation
// in place"). A loop of s += t copies s at each step, quadratic in the
// final length, where CPython appends in place when s has one reference.
// A Go string cannot be known to have one reference, but a string that is
// a prefix of a larger buffer can be extended in place without changing
// any string already made from the buffer: each is a prefix, and the
// bytes past the longest one are seen by none. concatCache remembers the
// buffers of recent large concatenations and the length of their longest
// string, in a slot chosen by the buffer's address (so that strings built
// in alternation, or by two threads at once, each keep theirs); a
// concatenation whose left operand is exactly such a string writes the
// right operand past it. The first concatenation of a string makes an
// exact-size result (a one-off x + y costs what it did); appending a
// small piece (at most an eighth) onto that result leaves room to grow
// by a quarter, so a loop's copying is linear in the final length.

import (
	"sync/atomic"
	"unsafe"
	"weak"
)

// concatMin is the result length from which a concatenation uses or
// starts an in-place buffer; below it copying is cheap.
const concatMin = 4 << 10

// concatBuf is a buffer strings were made from: data[:n] is its longest
// string, cap its capacity. The pointer is weak, so that a dropped buffer
// is not kept alive by concatCache.
type concatBuf struct {
	data weak.Pointer[byte]
	n    int
	cap  int
}

// concatSlotBits is the log2 of the number of buffers concatCache
// remembers. A buffer is only ever in the slot of its address, put there
// when it is made: one evicted by another is never extended again.
const concatSlotBits = 6

var concatCache [1 << concatSlotBits]atomic.Pointer[concatBuf]

// concatSlot returns the slot of concatCache for a buffer at p
// (Fibonacci hashing of the address).
func concatSlot(p *byte) *atomic.Pointer[concatBuf] {
	h := uint64(uintptr(unsafe.Pointer(p))) * 0x9E3779B97F4A7C15
	return &concatCache[h>>(64-concatSlotBits)]
}

// concatStrings returns x + y.
func concatStrings(x, y String) String {
	n := len(x) + len(y)
	if n < concatMin || len(y) == 0 || len(x) == 0 {
		return x + y
	}
	xp := unsafe.StringData(string(x))
	slot := concatSlot(xp)
	last := slot.Load()
	if last != nil && last.n == len(x) {
		if p := last.data.Value(); p == xp {
			if last.cap >= n {
				// Claim the bytes past x before writing them: a
				// concurrent concatenation onto x then finds n changed
				// and copies.
				next := &concatBuf{data: last.data, n: n, cap: last.cap}
				if slot.CompareAndSwap(last, next) {
					buf := unsafe.Slice(p, last.cap)
					copy(buf[len(x):n], y)
					return String(unsafe.String(p, n))
				}
			} else if len(y) <= len(x)/8 {
				// x is a buffer's longest string and a small piece is
				// appended to it again: room to grow (not for a
				// doubling, which would only waste it).
				return newConcat(x, y, n+n/4)
			}
		}
	}
	return newConcat(x, y, n)
}

// newConcat makes x + y in a buffer of capacity c and remembers it.
func newConcat(x, y String, c int) String {
	n := len(x) + len(y)
	buf := make([]byte, n, c)
	copy(buf, x)
	copy(buf[len(x):], y)
	p := unsafe.SliceData(buf)
	concatSlot(p).Store(&concatBuf{data: weak.Make(p), n: n, cap: c})
	return String(unsafe.String(p, n))
}
