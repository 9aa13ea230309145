package py

import (
	"math"
	"math/big"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// PyNumber is a sandbox number beyond int and float (fractions.Fraction,
// decimal.Decimal): int(), float(), round(), abs(), ** and the math
// functions ask it.
type PyNumber interface {
	starlark.Value
	// Rat is the exact value.
	Rat() ExactRat
	Float() float64
	Round(ndigits starlark.Value) (starlark.Value, error)
	Abs() starlark.Value
	// Pow is x ** y with the receiver x (side Left) or y (side Right).
	Pow(thread *starlark.Thread, y starlark.Value, side starlark.Side) (starlark.Value, error)
}

// ExactRat is an exact rational value.
type ExactRat struct{ *big.Rat }

// trunc rounds toward zero.
func (r ExactRat) trunc() *big.Int {
	return new(big.Int).Quo(r.Num(), r.Denom())
}

// Floor rounds toward minus infinity.
func (r ExactRat) Floor() *big.Int {
	return new(big.Int).Div(r.Num(), r.Denom()) // Euclidean division with a positive divisor is floor division
}

// roundWith rounds as math.floor, math.ceil or math.trunc (name).
func (r ExactRat) roundWith(name string) *big.Int {
	switch name {
	case "floor":
		return r.Floor()
	case "ceil":
		return new(big.Int).Neg(ExactRat{new(big.Rat).Neg(r.Rat)}.Floor())
	}
	return r.trunc()
}

// RoundHalfEven rounds to the nearest integer, ties to even.
func (r ExactRat) RoundHalfEven() *big.Int {
	fl := r.Floor()
	rem := new(big.Rat).Sub(r.Rat, new(big.Rat).SetInt(fl))
	switch rem.Cmp(big.NewRat(1, 2)) {
	case 1:
		fl.Add(fl, big.NewInt(1))
	case 0:
		if fl.Bit(0) == 1 {
			fl.Add(fl, big.NewInt(1))
		}
	}
	return fl
}

// IntOf converts a pyNumber to an int as int() and math.floor/ceil/trunc
// (name) do.
func IntOf(n PyNumber, name string) (starlark.Value, error) {
	r := n.Rat()
	if r.Rat == nil {
		if f := n.Float(); math.IsNaN(f) {
			return nil, Errorf("ValueError", "cannot convert NaN to integer")
		}
		return nil, Errorf("OverflowError", "cannot convert Infinity to integer")
	}
	return starlark.MakeBigInt(r.roundWith(name)), nil
}

// RatOf converts an int, bool or pyNumber to an exact rational (ok false
// for other values, floats included).
func RatOf(v starlark.Value) (*big.Rat, bool) {
	switch x := v.(type) {
	case starlark.Int:
		return new(big.Rat).SetInt(x.BigInt()), true
	case starlark.Bool:
		return big.NewRat(int64(B2i(bool(x))), 1), true
	case PyNumber:
		r := x.Rat().Rat
		return r, r != nil
	}
	return nil, false
}

// FloatRat is the exact value of a finite float.
func FloatRat(f float64) (*big.Rat, error) {
	if math.IsNaN(f) {
		return nil, Errorf("ValueError", "cannot convert NaN to integer ratio")
	}
	if math.IsInf(f, 0) {
		return nil, Errorf("OverflowError", "cannot convert Infinity to integer ratio")
	}
	return new(big.Rat).SetFloat64(f), nil
}

// CompareRats compares exact values with the comparison op.
func CompareRats(op syntax.Token, x, y *big.Rat) bool {
	return CmpResult(op, x.Cmp(y))
}

// CompareNumber implements CompareOther for an exact number x against an
// int, bool or float y (side: whether x is the left operand).
func CompareNumber(op syntax.Token, x *big.Rat, y starlark.Value, side starlark.Side) (bool, bool, error) {
	var yr *big.Rat
	switch v := y.(type) {
	case starlark.Float:
		f := float64(v)
		if math.IsNaN(f) {
			return op == syntax.NEQ, true, nil
		}
		if math.IsInf(f, 0) {
			c := 1
			if f < 0 {
				c = -1
			}
			if side == starlark.Left {
				c = -c
			}
			return CmpResult(op, c), true, nil
		}
		yr = new(big.Rat).SetFloat64(f)
	default:
		var ok bool
		if yr, ok = RatOf(y); !ok {
			return false, false, nil
		}
	}
	if side == starlark.Right {
		return CompareRats(op, yr, x), true, nil
	}
	return CompareRats(op, x, yr), true, nil
}

// HashRat hashes an exact value so that it hashes like an equal int or
// float.
func HashRat(r *big.Rat) (uint32, error) {
	if r.IsInt() {
		return starlark.MakeBigInt(r.Num()).Hash()
	}
	if f, exact := r.Float64(); exact {
		return starlark.Float(f).Hash()
	}
	return starlark.String(r.String()).Hash()
}

// CmpResult reports whether c, the sign of a three-way comparison of x
// and y, satisfies x op y.
func CmpResult(op syntax.Token, c int) bool {
	switch op {
	case syntax.EQL:
		return c == 0
	case syntax.NEQ:
		return c != 0
	case syntax.LT:
		return c < 0
	case syntax.LE:
		return c <= 0
	case syntax.GT:
		return c > 0
	}
	return c >= 0
}

// B2i is 1 for true and 0 for false.
func B2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FloatArg is the real-number argument v of function name as a float64
// (a bool, an int, a float, a Fraction or a Decimal), else a TypeError.
func FloatArg(name string, v starlark.Value) (float64, error) {
	if b, ok := v.(starlark.Bool); ok {
		v = boolInt(b)
	}
	if n, ok := v.(PyNumber); ok {
		return n.Float(), nil
	}
	f, ok := starlark.AsFloat(v)
	if !ok || !isNumber(v) {
		return 0, Errorf("TypeError", "must be real number, not %s", PyType(v))
	}
	return f, nil
}

// Abs is |n|.
func Abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// SatMul is a*b for sizes (a, b >= 0), saturating at math.MaxInt64
// instead of overflowing: a size past it is refused by any limit.
func SatMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
