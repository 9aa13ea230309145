//go:build (!linux && !darwin && !dragonfly && !freebsd && !netbsd && !solaris) || (!amd64 && !arm64 && !mips64x && !ppc64 && !ppc64le && !loong64 && !s390x) || starlark_genericint

package starlark

// generic Int implementation as a union

import "math/big"

type intImpl struct {
	// rlm: small holds any int64 (arithmetic checks for overflow).
	small_ int64    // the value, if big is nil
	big_   *big.Int // big != nil <=> value is not representable as int64
}

// --- low-level accessors ---

// get returns the small and big components of the Int.
// small is defined only if big is nil.
func (i Int) get() (small int64, big *big.Int) {
	return i.impl.small_, i.impl.big_
}

// Precondition: math.MinInt32 <= x && x <= math.MaxInt32
func makeSmallInt(x int64) Int {
	return Int{intImpl{small_: x}}
}

// MakeInt returns a Starlark int for the specified signed integer.
func MakeInt(x int) Int { return MakeInt64(int64(x)) }

// MakeInt64 returns a Starlark int for the specified int64.
func MakeInt64(x int64) Int {
	return Int{intImpl{small_: x}} // rlm: any int64
}

// rlm: small32 returns the value of i and true if it fits in int32, as
// the 64-bit version: the interpreter adds and subtracts two such values
// without an overflow check.
func (i Int) small32() (int64, bool) {
	v := i.impl.small_
	return v, i.impl.big_ == nil && v == int64(int32(v))
}

// rlm: small32Pair returns the values of x and y and true if both fit in
// int32, as the 64-bit version.
func small32Pair(x, y Int) (int64, int64, bool) {
	a, aok := x.small32()
	b, bok := y.small32()
	return a, b, aok && bok
}

// Precondition: x cannot be represented as int64.
func makeBigInt(x *big.Int) Int {
	return Int{intImpl{big_: x}}
}

// smallInt returns x as an Int and true: every int64 is held inline here
// (rlm; see int_posix64.go).
func smallInt(x int64) (Int, bool) { return MakeInt64(x), true }
