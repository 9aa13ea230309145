package pylib

import (
	"math"
	"math/big"
	"regexp"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// The fractions module: Fraction, an exact rational on math/big, with
// CPython 3.11's constructors, arithmetic (a float operand gives a
// float), comparisons, hashing, str/repr and limit_denominator.

// fracValue is a fractions.Fraction (r is never modified).
type fracValue struct{ r *big.Rat }

var (
	_ starlark.HasAttrs        = (*fracValue)(nil)
	_ starlark.HasBinary       = (*fracValue)(nil)
	_ starlark.HasUnary        = (*fracValue)(nil)
	_ starlark.Comparable      = (*fracValue)(nil)
	_ starlark.HasCompareOther = (*fracValue)(nil)
	_ py.PyNumber              = (*fracValue)(nil)
)

var typeFraction = new(py.TypeObj)

func (f *fracValue) Type() string           { return "Fraction" }
func (f *fracValue) PyTypeObj() *py.TypeObj { return typeFraction }
func (f *fracValue) Freeze()                {}
func (f *fracValue) Truth() starlark.Bool   { return f.r.Sign() != 0 }
func (f *fracValue) Hash() (uint32, error)  { return py.HashRat(f.r) }
func (f *fracValue) String() string         { return f.PyStr() }
func (f *fracValue) PyStr() string {
	if f.r.IsInt() {
		return f.r.Num().String()
	}
	return f.r.Num().String() + "/" + f.r.Denom().String()
}
func (f *fracValue) WriteRepr(r *py.Renderer) {
	r.B.WriteString("Fraction(" + f.r.Num().String() + ", " + f.r.Denom().String() + ")")
}
func (f *fracValue) Rat() py.ExactRat { return py.ExactRat{Rat: f.r} }
func (f *fracValue) Float() float64   { v, _ := f.r.Float64(); return v }
func (f *fracValue) Abs() starlark.Value {
	return &fracValue{new(big.Rat).Abs(f.r)}
}

func (f *fracValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return py.CompareRats(op, f.r, y.(*fracValue).r), nil
}

func (f *fracValue) CompareOther(op syntax.Token, y starlark.Value, side starlark.Side) (bool, bool, error) {
	if _, ok := y.(*decValue); ok {
		return false, false, nil
	}
	return py.CompareNumber(op, f.r, y, side)
}

func (f *fracValue) Unary(op syntax.Token) (starlark.Value, error) {
	switch op {
	case syntax.MINUS:
		return &fracValue{new(big.Rat).Neg(f.r)}, nil
	case syntax.PLUS:
		return f, nil
	}
	return nil, nil
}

func (f *fracValue) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if fl, ok := y.(starlark.Float); ok {
		x := starlark.Float(f.Float())
		if side == starlark.Left {
			return starlark.Binary(op, x, fl)
		}
		return starlark.Binary(op, fl, x)
	}
	if _, ok := y.(*decValue); ok {
		return nil, nil
	}
	yr, ok := py.RatOf(y)
	if !ok {
		return nil, nil
	}
	a, b := f.r, yr
	if side == starlark.Right {
		a, b = b, a
	}
	return fracBinary(op, a, b)
}

// fracBinary computes a op b for Fractions.
func fracBinary(op syntax.Token, a, b *big.Rat) (starlark.Value, error) {
	divZero := func() error {
		return py.Errorf("ZeroDivisionError", "Fraction(%s, 0)", a.Num().String())
	}
	switch op {
	case syntax.PLUS:
		return &fracValue{new(big.Rat).Add(a, b)}, nil
	case syntax.MINUS:
		return &fracValue{new(big.Rat).Sub(a, b)}, nil
	case syntax.STAR:
		return &fracValue{new(big.Rat).Mul(a, b)}, nil
	case syntax.SLASH:
		if b.Sign() == 0 {
			return nil, divZero()
		}
		return &fracValue{new(big.Rat).Quo(a, b)}, nil
	case syntax.SLASHSLASH, syntax.PERCENT:
		if b.Sign() == 0 {
			return nil, py.Errorf("ZeroDivisionError", "division by zero")
		}
		q := py.ExactRat{Rat: new(big.Rat).Quo(a, b)}.Floor()
		if op == syntax.SLASHSLASH {
			return starlark.MakeBigInt(q), nil
		}
		return &fracValue{new(big.Rat).Sub(a, new(big.Rat).Mul(b, new(big.Rat).SetInt(q)))}, nil
	}
	return nil, nil
}

func (f *fracValue) Round(nd starlark.Value) (starlark.Value, error) {
	if nd == starlark.None {
		return starlark.MakeBigInt(f.Rat().RoundHalfEven()), nil
	}
	n, err := starlark.AsInt32(nd)
	if err != nil {
		return nil, py.Errorf("TypeError", "'%s' object cannot be interpreted as an integer", py.PyType(nd))
	}
	shift := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(py.Abs(n))), nil))
	x := new(big.Rat).Set(f.r)
	if n >= 0 {
		x.Mul(x, shift)
	} else {
		x.Quo(x, shift)
	}
	q := new(big.Rat).SetInt(py.ExactRat{Rat: x}.RoundHalfEven())
	if n >= 0 {
		q.Quo(q, shift)
	} else {
		q.Mul(q, shift)
	}
	return &fracValue{q}, nil
}

func (f *fracValue) Pow(thread *starlark.Thread, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if side == starlark.Right {
		// y ** f, as Fraction.__rpow__: a non-negative integral f raises
		// y to an int power, an int y is taken as a Fraction, then an
		// integral f is an int power and any other a float one.
		if f.r.IsInt() && f.r.Sign() >= 0 {
			return py.PyPow(thread, y, starlark.MakeBigInt(f.r.Num()))
		}
		if b, ok := y.(starlark.Bool); ok {
			y = starlark.MakeInt(0)
			if b {
				y = starlark.MakeInt(1)
			}
		}
		if v, ok := y.(starlark.Int); ok {
			return (&fracValue{new(big.Rat).SetInt(v.BigInt())}).Pow(thread, f, starlark.Left)
		}
		if f.r.IsInt() {
			return py.PyPow(thread, y, starlark.MakeBigInt(f.r.Num()))
		}
		if _, ok := y.(*decValue); ok {
			return nil, py.Errorf("TypeError", "unsupported operand type(s) for ** or pow(): 'decimal.Decimal' and 'Fraction'")
		}
		return py.PyPow(thread, y, starlark.Float(f.Float()))
	}
	var e *big.Int
	switch v := y.(type) {
	case starlark.Int:
		e = v.BigInt()
	case *fracValue:
		if v.r.IsInt() {
			e = v.r.Num()
		} else {
			return py.PyPow(thread, starlark.Float(f.Float()), starlark.Float(v.Float()))
		}
	case starlark.Float:
		return py.PyPow(thread, starlark.Float(f.Float()), v)
	default:
		return nil, py.Errorf("TypeError", "unsupported operand type(s) for ** or pow(): 'Fraction' and '%s'", py.PyType(y))
	}
	if !e.IsInt64() || math.Abs(float64(e.Int64())) > 1e6 {
		return nil, py.Errorf("OverflowError", "exponent too large")
	}
	n := e.Int64()
	num, den := f.r.Num(), f.r.Denom()
	if n < 0 {
		if num.Sign() == 0 {
			return nil, py.Errorf("ZeroDivisionError", "Fraction(%s, 0)", new(big.Int).Exp(den, big.NewInt(-n), nil).String())
		}
		num, den, n = den, num, -n
	}
	pn, err := py.IntPow(thread, num, n)
	if err != nil {
		return nil, err
	}
	pd, err := py.IntPow(thread, den, n)
	if err != nil {
		return nil, err
	}
	return &fracValue{new(big.Rat).SetFrac(pn, pd)}, nil
}

func (f *fracValue) AttrNames() []string {
	return []string{"as_integer_ratio", "denominator", "limit_denominator", "numerator"}
}

func (f *fracValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "numerator":
		return starlark.MakeBigInt(f.r.Num()), nil
	case "denominator":
		return starlark.MakeBigInt(f.r.Denom()), nil
	case "as_integer_ratio":
		return py.NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Tuple{starlark.MakeBigInt(f.r.Num()), starlark.MakeBigInt(f.r.Denom())}, nil
		}).BindReceiver(f), nil
	case "limit_denominator":
		return py.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var maxDen starlark.Value = starlark.MakeInt(1000000)
				if err := starlark.UnpackArgs(name, args, kwargs, "max_denominator?", &maxDen); err != nil {
					return nil, err
				}
				md, ok := maxDen.(starlark.Int)
				if !ok || md.Sign() < 1 {
					return nil, py.Errorf("ValueError", "max_denominator should be at least 1")
				}
				return &fracValue{limitDenominator(f.r, md.BigInt())}, nil
			}).
				BindReceiver(f),
			nil
	}
	return nil, nil
}

// limitDenominator is CPython's Fraction.limit_denominator: the closest
// fraction to r with a denominator at most maxDen.
func limitDenominator(r *big.Rat, maxDen *big.Int) *big.Rat {
	if r.Denom().Cmp(maxDen) <= 0 {
		return new(big.Rat).Set(r)
	}
	p0, q0, p1, q1 := big.NewInt(0), big.NewInt(1), big.NewInt(1), big.NewInt(0)
	n, d := new(big.Int).Set(r.Num()), new(big.Int).Set(r.Denom())
	for {
		a := new(big.Int).Div(n, d) // floor (d > 0)
		q2 := new(big.Int).Add(q0, new(big.Int).Mul(a, q1))
		if q2.Cmp(maxDen) > 0 {
			break
		}
		p0, q0, p1, q1 = p1, q1, new(big.Int).Add(p0, new(big.Int).Mul(a, p1)), q2
		n, d = d, new(big.Int).Sub(n, new(big.Int).Mul(a, d))
	}
	k := new(big.Int).Div(new(big.Int).Sub(maxDen, q0), q1)
	bound1 := new(big.Rat).SetFrac(new(big.Int).Add(p0, new(big.Int).Mul(k, p1)), new(big.Int).Add(q0, new(big.Int).Mul(k, q1)))
	bound2 := new(big.Rat).SetFrac(p1, q1)
	d2 := new(big.Rat).Abs(new(big.Rat).Sub(bound2, r))
	d1 := new(big.Rat).Abs(new(big.Rat).Sub(bound1, r))
	if d2.Cmp(d1) <= 0 {
		return bound2
	}
	return bound1
}

// fractionRE is CPython's _RATIONAL_FORMAT, compiled on first use.
var fractionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(
		`(?i)^\s*([-+]?)(\d*|\d+(?:_\d+)*)(?:(?:/(\d+(?:_\d+)*))?|(?:\.(\d*|\d+(?:_\d+)*))?(?:E([-+]?\d+(?:_\d+)*))?)\s*$`,
	)
})

// parseFraction parses a Fraction literal ("3/4", "-1.5e3", " 7 ").
func parseFraction(s string) (*big.Rat, error) {
	bad := py.Errorf("ValueError", "Invalid literal for Fraction: %s", py.Repr(starlark.String(s)))
	m := fractionRE().FindStringSubmatch(s)
	t := strings.TrimLeft(strings.TrimSpace(s), "+-")
	if m == nil || !(strings.HasPrefix(t, ".") && len(t) > 1 && t[1] >= '0' && t[1] <= '9' || len(t) > 0 && t[0] >= '0' && t[0] <= '9') {
		return nil, bad
	}
	clean := func(x string) string { return strings.ReplaceAll(x, "_", "") }
	num, ok := new(big.Int).SetString("0"+clean(m[2]), 10)
	if !ok {
		return nil, bad
	}
	den := big.NewInt(1)
	if m[3] != "" {
		den.SetString(clean(m[3]), 10)
		if den.Sign() == 0 {
			return nil, py.Errorf("ZeroDivisionError", "Fraction(%s, 0)", num.String())
		}
	} else {
		if m[4] != "" {
			dec := clean(m[4])
			scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(dec))), nil)
			dv, _ := new(big.Int).SetString("0"+dec, 10)
			num.Mul(num, scale).Add(num, dv)
			den.Mul(den, scale)
		}
		if m[5] != "" {
			e, ok := new(big.Int).SetString(clean(m[5]), 10)
			if !ok || !e.IsInt64() || math.Abs(float64(e.Int64())) > 10000 {
				return nil, bad
			}
			p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(math.Abs(float64(e.Int64())))), nil)
			if e.Sign() >= 0 {
				num.Mul(num, p)
			} else {
				den.Mul(den, p)
			}
		}
	}
	if m[1] == "-" {
		num.Neg(num)
	}
	return new(big.Rat).SetFrac(num, den), nil
}

// fractionArg converts a Fraction() argument to an exact rational.
func fractionArg(v starlark.Value, alone bool) (*big.Rat, error) {
	switch x := v.(type) {
	case starlark.Int, starlark.Bool, *fracValue:
		r, _ := py.RatOf(x)
		return r, nil
	}
	if !alone {
		return nil, py.Errorf("TypeError", "both arguments should be Rational instances")
	}
	switch x := v.(type) {
	case starlark.Float:
		return py.FloatRat(float64(x))
	case *decValue:
		if x.special != "" {
			return nil, py.Errorf("ValueError", "cannot convert %s to integer ratio", x.PyStr())
		}
		return x.Rat().Rat, nil
	case starlark.String:
		return parseFraction(string(x))
	}
	return nil, py.Errorf("TypeError", "argument should be a string or a Rational instance")
}

// completeFractionType completes typeFraction, once, on the fractions
// module's first import.
var completeFractionType = sync.OnceFunc(func() {
	*typeFraction = py.TypeObj{PyName: "Fraction", Check: py.IsType[*fracValue]}
	typeFraction.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var num starlark.Value = starlark.MakeInt(0)
		var den starlark.Value = starlark.None
		if err := starlark.UnpackArgs("Fraction", args, kwargs, "numerator?", &num, "denominator?", &den); err != nil {
			return nil, err
		}
		n, err := fractionArg(num, den == starlark.None)
		if err != nil {
			return nil, err
		}
		if den == starlark.None {
			return &fracValue{n}, nil
		}
		d, err := fractionArg(den, false)
		if err != nil {
			return nil, err
		}
		if d.Sign() == 0 {
			return nil, py.Errorf("ZeroDivisionError", "Fraction(%s, 0)", n.RatString())
		}
		return &fracValue{new(big.Rat).Quo(n, d)}, nil
	}
	from := func(name string, check func(starlark.Value) bool, what string) starlark.Value {
		return py.NewBuiltin(
			name,
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				v, err := py.OneArg("Fraction."+name, args, kwargs)
				if err != nil {
					return nil, err
				}
				if !check(v) {
					return nil, py.Errorf("TypeError", "Fraction.%s() only takes %s (%s given)", name, what, py.Repr(v))
				}
				r, err := fractionArg(v, true)
				if err != nil {
					return nil, err
				}
				return &fracValue{r}, nil
			},
		)
	}
	typeFraction.Attrs = starlark.StringDict{
		"from_float": from("from_float", func(v starlark.Value) bool {
			_, ok := v.(starlark.Float)
			_, isInt := v.(starlark.Int)
			return ok || isInt
		}, "floats"),
		"from_decimal": from("from_decimal", func(v starlark.Value) bool {
			_, ok := v.(*decValue)
			_, isInt := v.(starlark.Int)
			return ok || isInt
		}, "Decimals"),
	}
})

var _ = py.RegisterModule("fractions", fractionsModule)

// fractionsModule builds the fractions module on its first import.
func fractionsModule() *py.Module {
	completeFractionType()
	return py.NewModule("fractions", nil, starlark.StringDict{"Fraction": typeFraction})
}
