//go:build (linux || darwin || dragonfly || freebsd || netbsd || solaris) && (amd64 || arm64 || mips64x || ppc64 || ppc64le || loong64 || s390x) && !starlark_genericint

package starlark

// This file defines an optimized Int implementation for 64-bit machines
// running POSIX. It reserves a 4GB portion of the address space using
// mmap and represents int32 values as addresses within that range. This
// disambiguates int32 values from *big.Int pointers, letting all Int
// values be represented as an unsafe.Pointer, so that Int-to-Value
// interface conversion need not allocate.

// Although iOS (which, like macOS, appears as darwin/arm64) is
// POSIX-compliant, it limits each process to about 700MB of virtual
// address space, which defeats the optimization.  Similarly,
// OpenBSD's default ulimit for virtual memory is a measly GB or so.
// On both those platforms the attempted optimization will fail and
// fall back to the slow implementation.

// An alternative approach to this optimization would be to embed the
// int32 values in pointers using odd values, which can be distinguished
// from (even) *big.Int pointers. However, the Go runtime does not allow
// user programs to manufacture pointers to arbitrary locations such as
// within the zero page, or non-span, non-mmap, non-stack locations,
// and it may panic if it encounters them; see Issue #382.

import (
	"log"
	"math"
	"math/big"
	"unsafe"

	"golang.org/x/sys/unix"
)

// intImpl represents a union of (int32, int64, *big.Int) in a single
// pointer, so that Int-to-Value conversions need not allocate.
//
// The pointer is either a pointer into a reserved portion of the address
// space (smallints), if the value is small and the address space
// allocation succeeded; or, rlm: one past the address of an int64 cell
// (an odd address, inside the cell's 8 bytes, so the garbage collector
// keeps the cell alive), if the value fits in int64 but not in int32;
// or a *big.Int (always 8-byte aligned), if the value is bigger.
//
// See int_generic.go for the basic representation concepts.
type intImpl unsafe.Pointer

// get returns the (small, big) arms of the union: big is nil when the
// value fits in int64 (rlm: not only int32), and small is then the value.
// rlm: the int32 case is inlined; the others are in getSlow.
func (i Int) get() (int64, *big.Int) {
	if d := uintptr(i.impl) - smallints; d < 1<<32 && smallints != 0 {
		return math.MinInt32 + int64(d), nil
	}
	return i.getSlow()
}

// rlm: small32 returns the value of i and true if i is in the inline
// int32 form (a cheaper, inlined test for the interpreter's fast paths).
func (i Int) small32() (int64, bool) {
	d := uintptr(i.impl) - smallints
	return math.MinInt32 + int64(d), d < 1<<32 && smallints != 0
}

// rlm: small32Pair returns the values of x and y and true if both are in
// the inline int32 form: one range test of the two offsets, whose result
// the compiler keeps in the flags for the branch, where two small32
// calls and && stored two bools and reloaded them.
func small32Pair(x, y Int) (int64, int64, bool) {
	dx, dy := uintptr(x.impl)-smallints, uintptr(y.impl)-smallints
	return math.MinInt32 + int64(dx), math.MinInt32 + int64(dy), (dx|dy) < 1<<32 && smallints != 0
}

func (i Int) getSlow() (int64, *big.Int) {
	if uintptr(i.impl)&1 != 0 { // rlm: an int64 cell
		return *(*int64)(unsafe.Pointer(uintptr(i.impl) - 1)), nil
	}
	if smallints == 0 {
		// optimization disabled: int32 values are *big.Int too
		if x := (*big.Int)(i.impl); isSmall(x) {
			return x.Int64(), nil
		}
	}
	return 0, (*big.Int)(i.impl)
}

// Precondition: math.MinInt32 <= x && x <= math.MaxInt32
func makeSmallInt(x int64) Int {
	if smallints == 0 {
		// optimization disabled
		return makeSmallBigInt(x) // rlm: out of line, so this inlines
	}

	return Int{intImpl(uintptr(x-math.MinInt32) + smallints)}
}

func makeSmallBigInt(x int64) Int { return Int{intImpl(big.NewInt(x))} }

// MakeInt returns a Starlark int for the specified signed integer.
// rlm: its int32 case written out, so that it is inlined as MakeInt64
// is (as MakeInt64(int64(x)) it cost 84, past the inliner's budget of
// 80, and was a call wherever the value layer makes an int: len,
// str.count, str.find, ...).
func MakeInt(x int) Int {
	if x == int(int32(x)) && smallints != 0 {
		return Int{intImpl(uintptr(x-math.MinInt32) + smallints)}
	}
	return makeInt64Slow(int64(x))
}

// MakeInt64 returns a Starlark int for the specified int64.
func MakeInt64(x int64) Int {
	if x == int64(int32(x)) && smallints != 0 { // rlm: inlined
		return Int{intImpl(uintptr(x-math.MinInt32) + smallints)}
	}
	return makeInt64Slow(x)
}

func makeInt64Slow(x int64) Int {
	if x == int64(int32(x)) {
		return makeSmallInt(x)
	}
	return makeInt64(x)
}

// rlm: makeInt64 returns x in an int64 cell: one allocation of 8 bytes
// without pointers (the runtime's tiny allocator packs two in 16 bytes),
// where a big.Int cost one of 48 bytes that the collector scans.
//
// Precondition: x cannot be represented as int32.
func makeInt64(x int64) Int {
	c := new(int64)
	*c = x
	return Int{intImpl(unsafe.Pointer(uintptr(unsafe.Pointer(c)) + 1))}
}

// Precondition: x cannot be represented as int64 (rlm: not only int32).
func makeBigInt(x *big.Int) Int { return Int{intImpl(x)} }

// smallints is the base address of a 2^32 byte memory region.
// Pointers to addresses in this region represent int32 values.
// We assume smallints is not at the very top of the address space.
//
// Zero means the optimization is disabled and all Ints allocate a big.Int.
var smallints = reserveAddresses(1 << 32)

func reserveAddresses(len int) uintptr {
	b, err := unix.Mmap(-1, 0, len, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		log.Printf("Starlark failed to allocate 4GB address space: %v. Integer performance may suffer.", err)
		return 0 // optimization disabled
	}
	return uintptr(unsafe.Pointer(&b[0]))
}

// smallInt returns x as an Int in the inline int32 form and true, or
// false when x is out of the int32 range (or the form is off). rlm: cheap
// enough to be inlined into Function.run, where the compiler inlines
// only the smallest functions (MakeInt64 is called there).
func smallInt(x int64) (Int, bool) {
	return Int{intImpl(uintptr(x-math.MinInt32) + smallints)}, x == int64(int32(x)) && smallints != 0
}
