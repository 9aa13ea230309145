package starlark

// rlm: the interpreter's fast paths for arithmetic and comparisons of
// ints that fit in int64, floats and strings (interp.go: the binary
// operator, INPLACE_ADD and comparison cases). They compute what Binary
// and Compare compute for these operands, without their interface
// dispatch, type switches and (for % and *) the PyOps hook, whose
// Python semantics agree with Starlark's for them (% and // of ints are
// floored in both). Every other case (a zero divisor, an overflow of
// int64, big ints, mixed types) reports !ok and takes the general path,
// which gives the errors.

import (
	"math"
	"math/big"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/internal/compile"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// fastBinary returns x op y for op one of the binary arithmetic opcodes
// (PLUS ... GTGT) when both are ints that fit in int64 or both floats
// and the result needs no error or big.Int; ok is false otherwise.
func fastBinary(op compile.Opcode, x, y Value) (z Value, ok bool) {
	switch x := x.(type) {
	case Int:
		y, ok := y.(Int)
		if !ok {
			return nil, false
		}
		a, b, both := small32Pair(x, y)
		if !both {
			if a, b, ok = int64Operands(x, y); !ok {
				return nil, false
			}
		}
		switch op {
		case compile.PLUS:
			if s, ok := add64(a, b); ok {
				return MakeInt64(s), true
			}
		case compile.MINUS:
			if d, ok := sub64(a, b); ok {
				return MakeInt64(d), true
			}
		case compile.STAR:
			if p, ok := mul64(a, b); ok {
				return MakeInt64(p), true
			}
		case compile.PERCENT:
			if b > 0 || b < -1 {
				r := a % b
				if r != 0 && (r < 0) != (b < 0) {
					r += b
				}
				return MakeInt64(r), true
			}
		case compile.SLASHSLASH:
			if b > 0 || b < -1 {
				q := a / b
				if (a%b != 0) && (a < 0) != (b < 0) {
					q--
				}
				return MakeInt64(q), true
			}
		case compile.AMP:
			return MakeInt64(a & b), true
		case compile.PIPE:
			return MakeInt64(a | b), true
		case compile.CIRCUMFLEX:
			return MakeInt64(a ^ b), true
		case compile.GTGT:
			if b >= 0 && b <= math.MaxInt32 {
				return MakeInt64(a >> min(b, 63)), true
			}
		case compile.LTLT:
			if b >= 0 && b < 63 {
				if z := a << b; z>>b == a {
					return MakeInt64(z), true
				}
			}
		}
	case Float:
		y, ok := y.(Float)
		if !ok {
			return nil, false
		}
		switch op {
		case compile.PLUS:
			return x + y, true
		case compile.MINUS:
			return x - y, true
		case compile.STAR:
			return x * y, true
		case compile.SLASH:
			if y != 0 {
				return x / y, true
			}
		}
	}
	return nil, false
}

// fastCompare returns the comparison op (EQL ... GE) of x and y when
// both are ints that fit in int64, both floats or both strings; ok is
// false otherwise.
func fastCompare(op syntax.Token, x, y Value) (res, ok bool) {
	var c int
	switch x := x.(type) {
	case Int:
		y, ok := y.(Int)
		if !ok {
			return false, false
		}
		a, b, both := small32Pair(x, y)
		if !both {
			if a, b, ok = int64Operands(x, y); !ok {
				return false, false
			}
		}
		switch {
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
	case Float:
		y, ok := y.(Float)
		if !ok {
			return false, false
		}
		if (x != x || y != y) && op != syntax.EQL && op != syntax.NEQ {
			return false, true // as Python: an ordered comparison with NaN is false
		}
		c = floatCmp(x, y)
	case String:
		y, ok := y.(String)
		if !ok {
			return false, false
		}
		if op == syntax.EQL || op == syntax.NEQ {
			return (x == y) == (op == syntax.EQL), true
		}
		c = strings.Compare(string(x), string(y))
	default:
		return false, false
	}
	return threeway(op, c), true
}

// int64Operands returns x and y as int64s, or false if one does not fit.
func int64Operands(x, y Int) (a, b int64, ok bool) {
	var xb, yb *big.Int
	a, xb = x.get()
	b, yb = y.get()
	return a, b, xb == nil && yb == nil
}
