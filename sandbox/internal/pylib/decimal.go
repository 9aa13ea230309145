package pylib

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// The decimal module, basic: Decimal from str, int, float or Decimal;
// + - * / // % ** (integral powers), comparisons (with ints and floats
// too), str/repr, quantize, normalize, to_integral_value, sqrt, exp, ln,
// log10 (decimal_math.go), round(), int() and float(), getcontext()
// with a settable prec (default 28) and rounding (default
// ROUND_HALF_EVEN), and localcontext() for a with block, as in CPython 3.11. Results are
// rounded to the context's precision; exponents stay within ±maxDecExp.
// NaN and Infinity parse and print, but arithmetic on them is refused.

// maxDecExp bounds exponents (CPython's Emax is 999999): aligning two
// operands costs a coefficient of the difference's digits.
const maxDecExp = 100000

// decValue is a decimal.Decimal: (-1)**neg * coef * 10**exp, or a special
// value ("NaN", "Infinity"). Never modified.
type decValue struct {
	neg     bool
	coef    *big.Int // >= 0
	exp     int
	special string
	// ctx is the context of the session that made it (getcontext()):
	// operators, which get no thread, round with the context of their
	// Decimal operand.
	ctx *decContext
}

// context is the decimal context d's arithmetic uses.
func (d *decValue) context() *decContext {
	if d.ctx != nil {
		return d.ctx
	}
	return &decContext{prec: 28, rounding: roundHalfEven}
}

var (
	_ starlark.HasAttrs        = (*decValue)(nil)
	_ starlark.HasBinary       = (*decValue)(nil)
	_ starlark.HasUnary        = (*decValue)(nil)
	_ starlark.Comparable      = (*decValue)(nil)
	_ starlark.HasCompareOther = (*decValue)(nil)
	_ py.PyNumber              = (*decValue)(nil)
)

var typeDecimal, typeDecContext = new(py.TypeObj), new(py.TypeObj)

// Rounding modes, as the decimal module names them.
const (
	roundHalfEven = "ROUND_HALF_EVEN"
	roundHalfUp   = "ROUND_HALF_UP"
	roundHalfDown = "ROUND_HALF_DOWN"
	roundDown     = "ROUND_DOWN"
	roundUp       = "ROUND_UP"
	roundCeiling  = "ROUND_CEILING"
	roundFloor    = "ROUND_FLOOR"
	round05Up     = "ROUND_05UP"
)

var roundingModes = []string{roundCeiling, roundDown, roundFloor, roundHalfDown, roundHalfEven, roundHalfUp, roundUp, round05Up}

// decContext is a decimal.Context: the precision and rounding of the
// arithmetic (one per session, from getcontext()).
type decContext struct {
	prec        int
	rounding    string
	fromSession bool // a session's context, which results carry
}

var _ starlark.HasSetField = (*decContext)(nil)

func (c *decContext) Type() string           { return "Context" }
func (c *decContext) PyTypeObj() *py.TypeObj { return typeDecContext }
func (c *decContext) Freeze()                {}
func (c *decContext) Truth() starlark.Bool   { return true }
func (c *decContext) Hash() (uint32, error) {
	return 0, py.Errorf("TypeError", "unhashable type: 'decimal.Context'")
}
func (c *decContext) String() string {
	return fmt.Sprintf(
		"Context(prec=%d, rounding=%s, Emin=-999999, Emax=999999, capitals=1, clamp=0, flags=[], traps=[InvalidOperation, DivisionByZero, Overflow])",
		c.prec,
		c.rounding,
	)
}
func (c *decContext) AttrNames() []string { return []string{"Emax", "Emin", "prec", "rounding"} }
func (c *decContext) Attr(name string) (starlark.Value, error) {
	switch name {
	case "prec":
		return starlark.MakeInt(c.prec), nil
	case "rounding":
		return starlark.String(c.rounding), nil
	case "Emax":
		return starlark.MakeInt(999999), nil
	case "Emin":
		return starlark.MakeInt(-999999), nil
	}
	return nil, nil
}
func (c *decContext) SetField(name string, v starlark.Value) error {
	switch name {
	case "prec":
		n, err := starlark.AsInt32(v)
		if _, ok := v.(starlark.Int); !ok || err != nil || n < 1 || n > 10000 {
			return py.Errorf("ValueError", "valid range for prec is [1, 10000] in the sandbox")
		}
		c.prec = n
		return nil
	case "rounding":
		s, ok := v.(starlark.String)
		if !ok || slices.Index(roundingModes, string(s)) < 0 {
			return py.Errorf(
				"TypeError",
				"valid values for rounding are:\n  [ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_DOWN,\n   ROUND_HALF_UP, ROUND_HALF_DOWN, ROUND_HALF_EVEN,\n   ROUND_05UP]",
			)
		}
		c.rounding = string(s)
		return nil
	}
	return py.Errorf("AttributeError", "'decimal.Context' object attribute '%s' is read-only in the sandbox", name)
}

// decContextKey is the session's decimal context (decimal.getcontext()),
// made with the defaults on first use.
var decContextKey = &py.SessionKey[*decContext]{Init: func(*py.State) *decContext {
	return &decContext{prec: 28, rounding: roundHalfEven, fromSession: true}
}}

// decContextOf returns the decimal context of the session running on
// thread (a default one outside a session).
func decContextOf(thread *starlark.Thread) *decContext {
	if c, ok := decContextKey.Of(thread); ok {
		return c
	}
	return &decContext{prec: 28, rounding: roundHalfEven}
}

func decErr(kind, cond string) error {
	return py.Errorf("decimal."+kind, "[<class 'decimal.%s'>]", cond)
}

func (d *decValue) Type() string           { return "Decimal" }
func (d *decValue) PyTypeObj() *py.TypeObj { return typeDecimal }
func (d *decValue) PyTypeName() string     { return "decimal.Decimal" }
func (d *decValue) Freeze()                {}
func (d *decValue) Truth() starlark.Bool {
	return d.special != "" || d.coef.Sign() != 0
}
func (d *decValue) Hash() (uint32, error) {
	if d.special != "" {
		return starlark.String(d.special).Hash()
	}
	return py.HashRat(d.Rat().Rat)
}
func (d *decValue) String() string { return d.PyStr() }
func (d *decValue) WriteRepr(r *py.Renderer) {
	r.B.WriteString("Decimal('" + d.PyStr() + "')")
}

// PyStr is the decimal's to-scientific-string.
func (d *decValue) PyStr() string {
	sign := ""
	if d.neg {
		sign = "-"
	}
	if d.special != "" {
		return sign + d.special
	}
	digits := d.coef.String()
	adjusted := d.exp + len(digits) - 1
	if d.exp <= 0 && adjusted >= -6 {
		if d.exp == 0 {
			return sign + digits
		}
		point := len(digits) + d.exp
		if point > 0 {
			return sign + digits[:point] + "." + digits[point:]
		}
		return sign + "0." + strings.Repeat("0", -point) + digits
	}
	s := digits[:1]
	if len(digits) > 1 {
		s += "." + digits[1:]
	}
	e := strconv.Itoa(adjusted)
	if adjusted >= 0 {
		e = "+" + e
	}
	return sign + s + "E" + e
}

// Rat is d's exact value (a nil Rat for NaN and Infinity).
func (d *decValue) Rat() py.ExactRat {
	if d.special != "" {
		return py.ExactRat{}
	}
	r := new(big.Rat).SetInt(d.coef)
	p := new(big.Rat).SetInt(pow10(py.Abs(d.exp)))
	if d.exp >= 0 {
		r.Mul(r, p)
	} else {
		r.Quo(r, p)
	}
	if d.neg {
		r.Neg(r)
	}
	return py.ExactRat{Rat: r}
}

func (d *decValue) Float() float64 {
	if d.special != "" {
		f, _ := strconv.ParseFloat(strings.ToLower(d.PyStr()), 64)
		return f
	}
	f, _ := strconv.ParseFloat(d.PyStr(), 64) // out of range: ±Inf or 0, as CPython
	return f
}

func (d *decValue) Abs() starlark.Value {
	return &decValue{coef: d.coef, exp: d.exp, special: d.special, ctx: d.ctx}
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

func numDigits(c *big.Int) int {
	if c.Sign() == 0 {
		return 1
	}
	return len(c.String())
}

// roundCoef drops the last drop digits of coef (> 0 digits), rounding
// with mode; neg is the sign of the value.
func roundCoef(coef *big.Int, drop int, neg bool, mode string) *big.Int {
	p := pow10(drop)
	q, r := new(big.Int).QuoRem(coef, p, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	half := new(big.Int).Mul(big.NewInt(5), pow10(drop-1))
	c := r.Cmp(half)
	up := false
	switch mode {
	case roundUp:
		up = true
	case roundHalfUp:
		up = c >= 0
	case roundHalfDown:
		up = c > 0
	case roundHalfEven:
		up = c > 0 || c == 0 && q.Bit(0) == 1
	case roundCeiling:
		up = !neg
	case roundFloor:
		up = neg
	case round05Up:
		last := new(big.Int).Mod(q, big.NewInt(10)).Int64()
		up = last == 0 || last == 5
	}
	if up {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// fix rounds d to the context's precision.
func (c *decContext) fix(d *decValue) (*decValue, error) {
	if d.special != "" {
		return d, nil
	}
	if n := numDigits(d.coef); n > c.prec {
		drop := n - c.prec
		coef := roundCoef(d.coef, drop, d.neg, c.rounding)
		exp := d.exp + drop
		if numDigits(coef) > c.prec {
			coef.Quo(coef, big.NewInt(10))
			exp++
		}
		d = &decValue{neg: d.neg, coef: coef, exp: exp}
	}
	if d.ctx != c && c.fromSession {
		d = &decValue{neg: d.neg, coef: d.coef, exp: d.exp, ctx: c}
	}
	if d.exp > maxDecExp || d.exp < -maxDecExp {
		if d.coef.Sign() == 0 {
			return &decValue{neg: d.neg, coef: d.coef, exp: max(min(d.exp, maxDecExp), -maxDecExp)}, nil
		}
		return nil, decErr("Overflow", "Overflow")
	}
	return d, nil
}

// decimalRE is the syntax of a Decimal string, compiled on first use.
var decimalRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^([-+]?)(?:(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?|(inf|infinity)|(s?nan)(\d*))$`)
})

// parseDecimal parses a Decimal literal.
func parseDecimal(s string) (*decValue, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	m := decimalRE().FindStringSubmatch(t)
	bad := decErr("InvalidOperation", "ConversionSyntax")
	if m == nil || strings.Contains(s, "__") || strings.HasPrefix(strings.TrimSpace(s), "_") {
		return nil, bad
	}
	neg := m[1] == "-"
	switch {
	case m[5] != "":
		return &decValue{neg: neg, coef: new(big.Int), special: "Infinity"}, nil
	case m[6] != "":
		return &decValue{neg: neg, coef: new(big.Int), special: "NaN"}, nil
	}
	if m[2] == "" && m[3] == "" {
		return nil, bad
	}
	coef, _ := new(big.Int).SetString("0"+m[2]+m[3], 10)
	exp := -len(m[3])
	if m[4] != "" {
		e, err := strconv.Atoi(m[4])
		if err != nil || e > maxDecExp || e < -maxDecExp {
			return nil, decErr("Overflow", "Overflow")
		}
		exp += e
	}
	if exp > maxDecExp || exp < -maxDecExp {
		return nil, decErr("Overflow", "Overflow")
	}
	return &decValue{neg: neg, coef: coef, exp: exp}, nil
}

// decimalOf converts an int, bool or Decimal operand (ok false for other
// values).
func decimalOf(v starlark.Value) (*decValue, bool) {
	switch x := v.(type) {
	case *decValue:
		return x, true
	case starlark.Int:
		b := x.BigInt()
		return &decValue{neg: b.Sign() < 0, coef: new(big.Int).Abs(b)}, true
	case starlark.Bool:
		return &decValue{coef: big.NewInt(int64(py.B2i(bool(x))))}, true
	}
	return nil, false
}

// decimalFromFloat is the exact value of a float.
func decimalFromFloat(f float64) *decValue {
	switch {
	case math.IsNaN(f):
		return &decValue{coef: new(big.Int), special: "NaN"}
	case math.IsInf(f, 0):
		return &decValue{neg: f < 0, coef: new(big.Int), special: "Infinity"}
	}
	r := new(big.Rat).SetFloat64(math.Abs(f))
	k := r.Denom().BitLen() - 1 // the denominator is 2**k
	coef := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil))
	return &decValue{neg: math.Signbit(f), coef: coef, exp: -k}
}

// aligned returns the coefficients of a and b, signed, at their common
// (smaller) exponent.
func aligned(a, b *decValue) (x, y *big.Int, exp int, err error) {
	exp = min(a.exp, b.exp)
	if a.exp-exp > 2*maxDecExp/10 || b.exp-exp > 2*maxDecExp/10 {
		return nil, nil, 0, py.Errorf(
			"decimal.InvalidOperation",
			"the sandbox's decimal does not align operands whose exponents differ by more than %d",
			2*maxDecExp/10,
		)
	}
	x = new(big.Int).Mul(a.coef, pow10(a.exp-exp))
	y = new(big.Int).Mul(b.coef, pow10(b.exp-exp))
	if a.neg {
		x.Neg(x)
	}
	if b.neg {
		y.Neg(y)
	}
	return x, y, exp, nil
}

func signed(c *big.Int, exp int) *decValue {
	return &decValue{neg: c.Sign() < 0, coef: new(big.Int).Abs(c), exp: exp}
}

func (d *decValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*decValue)
	if d.special != "" || o.special != "" {
		return compareSpecial(op, d, o)
	}
	return py.CompareRats(op, d.Rat().Rat, o.Rat().Rat), nil
}

func compareSpecial(op syntax.Token, a, b *decValue) (bool, error) {
	if a.special == "NaN" || b.special == "NaN" {
		switch op {
		case syntax.EQL:
			return false, nil
		case syntax.NEQ:
			return true, nil
		}
		return false, decErr("InvalidOperation", "InvalidOperation")
	}
	key := func(d *decValue) float64 {
		if d.special != "" {
			return d.Float()
		}
		return float64(d.coef.Sign())
	}
	if a.special != "" && b.special != "" || a.special == "" && b.special == "" {
		return py.CmpResult(op, compareFloat(key(a), key(b))), nil
	}
	return py.CmpResult(op, compareFloat(key(a), key(b))*2-map[bool]int{true: 1, false: 0}[false]), nil
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (d *decValue) CompareOther(op syntax.Token, y starlark.Value, side starlark.Side) (bool, bool, error) {
	switch v := y.(type) {
	case starlark.Int, starlark.Bool, starlark.Float:
		if d.special != "" {
			o, ok := decimalOf(v)
			if !ok {
				o = decimalFromFloat(float64(v.(starlark.Float)))
			}
			a, b := d, o
			if side == starlark.Right {
				a, b = b, a
			}
			r, err := compareSpecial(op, a, b)
			return r, true, err
		}
		return py.CompareNumber(op, d.Rat().Rat, y, side)
	case *fracValue:
		return py.CompareNumber(op, d.Rat().Rat, y, side)
	}
	return false, false, nil
}

func (d *decValue) Unary(op syntax.Token) (starlark.Value, error) {
	if d.special != "" {
		if op == syntax.MINUS {
			return &decValue{neg: !d.neg, coef: d.coef, special: d.special}, nil
		}
		return d, nil
	}
	switch op {
	case syntax.MINUS:
		neg := !d.neg
		if d.coef.Sign() == 0 {
			neg = false
		}
		return d.context().fix(&decValue{neg: neg, coef: d.coef, exp: d.exp})
	case syntax.PLUS:
		return d, nil
	}
	return nil, nil
}

func (d *decValue) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	o, ok := decimalOf(y)
	if !ok {
		switch y.(type) {
		case starlark.Float, *fracValue:
			l, r := "decimal.Decimal", py.PyType(y)
			if side == starlark.Right {
				l, r = r, l
			}
			return nil, py.Errorf("TypeError", "unsupported operand type(s) for %s: '%s' and '%s'", op, l, r)
		}
		return nil, nil
	}
	a, b := d, o
	if side == starlark.Right {
		a, b = b, a
	}
	return decBinary(d.context(), op, a, b)
}

// decBinary computes a op b in the context ctx.
func decBinary(ctx *decContext, op syntax.Token, a, b *decValue) (starlark.Value, error) {
	if a.special != "" || b.special != "" {
		special := b
		if a.special != "" {
			special = a
		}
		return nil, py.Errorf("decimal.InvalidOperation", "arithmetic on %s is not supported in the sandbox", special.PyStr())
	}
	switch op {
	case syntax.PLUS, syntax.MINUS:
		x, y, exp, err := aligned(a, b)
		if err != nil {
			return nil, err
		}
		if op == syntax.MINUS {
			y.Neg(y)
		}
		sum := new(big.Int).Add(x, y)
		r := signed(sum, exp)
		if sum.Sign() == 0 {
			// The sign of an exact zero: negative only if both were (or when rounding toward -inf).
			bneg := b.neg != (op == syntax.MINUS)
			r.neg = a.neg && bneg || ctx.rounding == roundFloor && a.neg != bneg
		}
		return ctx.fix(r)
	case syntax.STAR:
		return ctx.fix(&decValue{neg: a.neg != b.neg, coef: new(big.Int).Mul(a.coef, b.coef), exp: a.exp + b.exp})
	case syntax.SLASH:
		return decDivide(ctx, a, b)
	case syntax.SLASHSLASH, syntax.PERCENT:
		if b.coef.Sign() == 0 {
			if a.coef.Sign() == 0 {
				return nil, decErr("InvalidOperation", "DivisionUndefined")
			}
			if op == syntax.PERCENT {
				return nil, decErr("InvalidOperation", "InvalidOperation")
			}
			return nil, decErr("DivisionByZero", "DivisionByZero")
		}
		x, y, exp, err := aligned(a, b)
		if err != nil {
			return nil, err
		}
		q, r := new(big.Int).QuoRem(x, y, new(big.Int)) // truncated, as Decimal
		if numDigits(q) > ctx.prec {
			return nil, decErr("InvalidOperation", "DivisionImpossible")
		}
		if op == syntax.SLASHSLASH {
			res := signed(q, 0)
			res.neg = a.neg != b.neg
			return ctx.fix(res)
		}
		res := signed(r, exp)
		if r.Sign() == 0 {
			res.neg = a.neg
		}
		return ctx.fix(res)
	}
	return nil, nil
}

// decDivide is CPython's Decimal.__truediv__.
func decDivide(ctx *decContext, a, b *decValue) (starlark.Value, error) {
	neg := a.neg != b.neg
	if b.coef.Sign() == 0 {
		if a.coef.Sign() == 0 {
			return nil, decErr("InvalidOperation", "DivisionUndefined")
		}
		return nil, decErr("DivisionByZero", "DivisionByZero")
	}
	if a.coef.Sign() == 0 {
		return ctx.fix(&decValue{neg: neg, coef: new(big.Int), exp: a.exp - b.exp})
	}
	shift := numDigits(b.coef) - numDigits(a.coef) + ctx.prec + 1
	exp := a.exp - b.exp - shift
	var q, r *big.Int
	if shift >= 0 {
		q, r = new(big.Int).QuoRem(new(big.Int).Mul(a.coef, pow10(shift)), b.coef, new(big.Int))
	} else {
		q, r = new(big.Int).QuoRem(a.coef, new(big.Int).Mul(b.coef, pow10(-shift)), new(big.Int))
	}
	if r.Sign() != 0 {
		if new(big.Int).Mod(q, big.NewInt(5)).Sign() == 0 {
			q.Add(q, big.NewInt(1))
		}
	} else {
		ideal := a.exp - b.exp
		ten := big.NewInt(10)
		m := new(big.Int)
		for exp < ideal {
			qq, mm := new(big.Int).QuoRem(q, ten, m)
			if mm.Sign() != 0 {
				break
			}
			q = qq
			exp++
		}
	}
	return ctx.fix(&decValue{neg: neg, coef: q, exp: exp})
}

// quantize is Decimal.quantize: d at exponent exp.
func (d *decValue) quantize(ctx *decContext, exp int, mode string) (*decValue, error) {
	if d.special != "" {
		return nil, decErr("InvalidOperation", "InvalidOperation")
	}
	var coef *big.Int
	switch {
	case exp > d.exp:
		coef = roundCoef(d.coef, exp-d.exp, d.neg, mode)
	case d.exp-exp > 2*maxDecExp/10:
		return nil, decErr("InvalidOperation", "InvalidOperation")
	default:
		coef = new(big.Int).Mul(d.coef, pow10(d.exp-exp))
	}
	if numDigits(coef) > ctx.prec {
		return nil, decErr("InvalidOperation", "InvalidOperation")
	}
	return &decValue{neg: d.neg, coef: coef, exp: exp, ctx: d.ctx}, nil
}

func (d *decValue) Round(nd starlark.Value) (starlark.Value, error) {
	if d.special != "" {
		if d.special == "NaN" {
			return nil, py.Errorf("ValueError", "cannot convert NaN to integer")
		}
		return nil, py.Errorf("OverflowError", "cannot convert Infinity to integer")
	}
	ctx := d.context()
	if nd == starlark.None {
		q, err := d.quantize(&decContext{prec: math.MaxInt32, rounding: roundHalfEven}, 0, roundHalfEven)
		if err != nil {
			return nil, err
		}
		c := q.coef
		if q.neg {
			c = new(big.Int).Neg(c)
		}
		return starlark.MakeBigInt(c), nil
	}
	n, err := starlark.AsInt32(nd)
	if err != nil {
		return nil, py.Errorf("TypeError", "'%s' object cannot be interpreted as an integer", py.PyType(nd))
	}
	return d.quantize(ctx, -n, roundHalfEven)
}

func (d *decValue) Pow(thread *starlark.Thread, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if side == starlark.Right {
		o, ok := decimalOf(y)
		if !ok {
			return nil, py.Errorf("TypeError", "unsupported operand type(s) for ** or pow(): '%s' and 'decimal.Decimal'", py.PyType(y))
		}
		return o.Pow(thread, d, starlark.Left)
	}
	e, ok := decimalOf(y)
	if !ok {
		return nil, py.Errorf("TypeError", "unsupported operand type(s) for ** or pow(): 'decimal.Decimal' and '%s'", py.PyType(y))
	}
	er := e.Rat()
	if e.special != "" || d.special != "" || !er.IsInt() {
		return nil, py.Errorf("decimal.InvalidOperation", "the sandbox's decimal raises only to integral powers")
	}
	if !er.Num().IsInt64() || math.Abs(float64(er.Num().Int64())) > 10000 {
		return nil, decErr("Overflow", "Overflow")
	}
	n := er.Num().Int64()
	ctx := d.context()
	if n == 0 {
		if d.coef.Sign() == 0 {
			return nil, decErr("InvalidOperation", "InvalidOperation")
		}
		return &decValue{coef: big.NewInt(1)}, nil
	}
	// Exact power, then one rounding (CPython rounds the exact result too
	// whenever it is representable; other results may differ in the last
	// digit).
	neg := d.neg && n%2 != 0
	an := n
	if an < 0 {
		an = -an
	}
	c, err := py.IntPow(thread, d.coef, an)
	if err != nil {
		return nil, err
	}
	p := &decValue{neg: neg, coef: c, exp: d.exp * int(an)}
	if n > 0 {
		return ctx.fix(p)
	}
	wide := &decContext{prec: ctx.prec + 3, rounding: roundHalfEven}
	q, err := decDivide(wide, &decValue{coef: big.NewInt(1)}, p)
	if err != nil {
		return nil, err
	}
	return ctx.fix(q.(*decValue))
}

func (d *decValue) AttrNames() []string {
	return []string{
		"adjusted",
		"as_integer_ratio",
		"copy_abs",
		"copy_negate",
		"exp",
		"is_finite",
		"is_infinite",
		"is_nan",
		"is_signed",
		"is_zero",
		"ln",
		"log10",
		"normalize",
		"quantize",
		"sqrt",
		"to_integral",
		"to_integral_value",
	}
}

func (d *decValue) Attr(name string) (starlark.Value, error) {
	method := func(fn func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) (starlark.Value, error) {
		return py.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				return fn(thread, args, kwargs)
			}).
				BindReceiver(d),
			nil
	}
	noArgs := func(fn func() starlark.Value) (starlark.Value, error) {
		return method(func(_ *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			return fn(), nil
		})
	}
	rounding := func(thread *starlark.Thread, v starlark.Value) (string, error) {
		if v == nil || v == starlark.None {
			return decContextOf(thread).rounding, nil
		}
		s, ok := v.(starlark.String)
		if !ok || slices.Index(roundingModes, string(s)) < 0 {
			return "", py.Errorf(
				"TypeError",
				"valid values for rounding are:\n  [ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_DOWN,\n   ROUND_HALF_UP, ROUND_HALF_DOWN, ROUND_HALF_EVEN,\n   ROUND_05UP]",
			)
		}
		return string(s), nil
	}
	switch name {
	case "sqrt", "exp", "ln", "log10":
		return decMathMethod(d, name), nil
	case "quantize":
		return method(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var e, mode, ctxv starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "exp", &e, "rounding?", &mode, "context?", &ctxv); err != nil {
				return nil, err
			}
			ev, ok := decimalOf(e)
			if !ok {
				return nil, py.Errorf("TypeError", "conversion from %s to Decimal is not supported", py.PyType(e))
			}
			if ev.special != "" {
				return nil, decErr("InvalidOperation", "InvalidOperation")
			}
			m, err := rounding(thread, mode)
			if err != nil {
				return nil, err
			}
			return d.quantize(decContextOf(thread), ev.exp, m)
		})
	case "to_integral_value", "to_integral":
		return method(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var mode, ctxv starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "rounding?", &mode, "context?", &ctxv); err != nil {
				return nil, err
			}
			m, err := rounding(thread, mode)
			if err != nil {
				return nil, err
			}
			if d.special != "" || d.exp >= 0 {
				return d, nil
			}
			return d.quantize(&decContext{prec: math.MaxInt32}, 0, m)
		})
	case "normalize":
		return method(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if d.special != "" {
				return d, nil
			}
			r, err := decContextOf(thread).fix(d)
			if err != nil {
				return nil, err
			}
			if r.coef.Sign() == 0 {
				return &decValue{neg: r.neg, coef: new(big.Int), ctx: d.ctx}, nil
			}
			c, exp := new(big.Int).Set(r.coef), r.exp
			ten, m := big.NewInt(10), new(big.Int)
			for {
				q, mm := new(big.Int).QuoRem(c, ten, m)
				if mm.Sign() != 0 {
					break
				}
				c, exp = q, exp+1
			}
			return &decValue{neg: r.neg, coef: c, exp: exp, ctx: d.ctx}, nil
		})
	case "adjusted":
		return noArgs(func() starlark.Value {
			if d.special != "" {
				return starlark.MakeInt(0)
			}
			return starlark.MakeInt(d.exp + numDigits(d.coef) - 1)
		})
	case "as_integer_ratio":
		return method(func(*starlark.Thread, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			if d.special != "" {
				return nil, py.Errorf("ValueError", "cannot convert %s to integer ratio", d.PyStr())
			}
			r := d.Rat()
			return starlark.Tuple{starlark.MakeBigInt(r.Num()), starlark.MakeBigInt(r.Denom())}, nil
		})
	case "copy_abs":
		return noArgs(d.Abs)
	case "copy_negate":
		return noArgs(func() starlark.Value {
			return &decValue{neg: !d.neg, coef: d.coef, exp: d.exp, special: d.special, ctx: d.ctx}
		})
	case "is_zero":
		return noArgs(func() starlark.Value { return starlark.Bool(d.special == "" && d.coef.Sign() == 0) })
	case "is_nan":
		return noArgs(func() starlark.Value { return starlark.Bool(d.special == "NaN") })
	case "is_infinite":
		return noArgs(func() starlark.Value { return starlark.Bool(d.special == "Infinity") })
	case "is_finite":
		return noArgs(func() starlark.Value { return starlark.Bool(d.special == "") })
	case "is_signed":
		return noArgs(func() starlark.Value { return starlark.Bool(d.neg) })
	}
	return nil, nil
}

// PyFormat formats d with a format spec as CPython's Decimal.__format__
// does for the f, %, and empty types (others go through float).
func (d *decValue) PyFormat(thread *starlark.Thread, s py.FmtSpec) (string, error) {
	if d.special != "" {
		return py.FormatFloat(d.Float(), s)
	}
	switch s.Typ {
	case 'f', 'F', '%':
		v := d
		if s.Typ == '%' {
			v = &decValue{neg: d.neg, coef: d.coef, exp: d.exp + 2}
		}
		prec := s.Precision
		if prec < 0 {
			prec = max(-v.exp, 0)
		}
		q, err := v.quantize(&decContext{prec: math.MaxInt32}, -prec, decContextOf(thread).rounding)
		if err != nil {
			return "", err
		}
		body := (&decValue{coef: q.coef, exp: q.exp}).plain()
		if s.Typ == '%' {
			body += "%"
		}
		return formatDecimalBody(body, q.neg, s), nil
	case 0:
		if s.Precision < 0 {
			return formatDecimalBody(strings.TrimPrefix(d.PyStr(), "-"), d.neg, s), nil
		}
	}
	return py.FormatFloat(d.Float(), s)
}

// plain renders a non-negative finite decimal without an exponent.
func (d *decValue) plain() string {
	digits := d.coef.String()
	if d.exp >= 0 {
		if d.coef.Sign() == 0 {
			return "0"
		}
		return digits + strings.Repeat("0", d.exp)
	}
	point := len(digits) + d.exp
	if point > 0 {
		return digits[:point] + "." + digits[point:]
	}
	return "0." + strings.Repeat("0", -point) + digits
}

// formatDecimalBody lays out the digits body of a decimal (no sign) with
// spec s's sign, grouping and padding: the leading integer digits are
// grouped, the rest ('.' and fraction, exponent, '%') follows them.
func formatDecimalBody(body string, neg bool, s py.FmtSpec) string {
	i := strings.IndexFunc(body, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(body)
	}
	sp := py.SignPrefix(neg, s.Sign)
	if s.FillSet {
		// Unlike int and float, Decimal inserts grouped zeros only for
		// the '0' flag, not for an explicit '0' fill.
		return py.Pad(sp+py.Group(body[:i], s.Grouping, 3)+body[i:], s, '>', len(sp))
	}
	return py.FormatNumber(sp, body[:i], body[i:], s, 3)
}

// completeDecimalTypes completes typeDecimal and typeDecContext, once, on
// the decimal module's first import.
var completeDecimalTypes = sync.OnceFunc(func() {
	*typeDecimal = py.TypeObj{PyName: "Decimal", Check: py.IsType[*decValue]}
	typeDecimal.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value = starlark.String("0")
		var ctxv starlark.Value
		if err := starlark.UnpackArgs("Decimal", args, kwargs, "value?", &v, "context?", &ctxv); err != nil {
			return nil, err
		}
		var d *decValue
		var err error
		switch x := v.(type) {
		case starlark.String:
			d, err = parseDecimal(string(x))
		case starlark.Float:
			d = decimalFromFloat(float64(x))
		default:
			var ok bool
			if d, ok = decimalOf(v); !ok {
				return nil, py.Errorf("TypeError", "conversion from %s to Decimal is not supported", py.PyType(v))
			}
		}
		if err != nil {
			return nil, err
		}
		c := *d
		c.ctx = decContextOf(thread)
		return &c, nil
	}
	typeDecimal.Attrs = starlark.StringDict{
		"from_float": py.NewBuiltin(
			"from_float",
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				v, err := py.OneArg("Decimal.from_float", args, kwargs)
				if err != nil {
					return nil, err
				}
				switch x := v.(type) {
				case starlark.Float:
					return decimalFromFloat(float64(x)), nil
				case starlark.Int:
					d, _ := decimalOf(x)
					return d, nil
				}
				return nil, py.Errorf("TypeError", "argument must be int or float")
			},
		),
	}
	*typeDecContext = py.TypeObj{PyName: "Context", Check: py.IsType[*decContext]}
})

var _ = py.RegisterModule("decimal", decimalModule)

// decimalModule builds the decimal module on its first import.
func decimalModule() *py.Module {
	completeDecimalTypes()
	vals := starlark.StringDict{
		"Decimal":          typeDecimal,
		"Context":          typeDecContext,
		"DecimalException": py.ExcTypes["decimal.DecimalException"],
		"InvalidOperation": py.ExcTypes["decimal.InvalidOperation"],
		"DivisionByZero":   py.ExcTypes["decimal.DivisionByZero"],
		"Overflow":         py.ExcTypes["decimal.Overflow"],
		"MAX_PREC":         starlark.MakeInt(10000),
	}
	for _, m := range roundingModes {
		vals[m] = starlark.String(m)
	}
	return py.NewModule("decimal", map[string]py.BuiltinFn{
		"localcontext": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ctx, prec, rounding starlark.Value
			if err := starlark.UnpackArgs("localcontext", args, kwargs, "ctx?", &ctx, "prec?", &prec, "rounding?", &rounding); err != nil {
				return nil, err
			}
			l := &decLocal{ctx: decContextOf(thread), prec: prec, rounding: rounding}
			if c, ok := ctx.(*decContext); ok {
				l.from = c
			} else if ctx != nil && ctx != starlark.None {
				return nil, py.Errorf("TypeError", "optional argument must be a context")
			}
			return l, nil
		},
		"getcontext": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs("getcontext", args, kwargs, 0); err != nil {
				return nil, err
			}
			return decContextOf(thread), nil
		},
	}, vals)
}

// decLocal is decimal.localcontext(): in the with block, the session's
// context has the given settings; the old ones come back at its end.
// (Decimals hold the session's context, so changing it in place is
// what a new thread-local context does in CPython.)
type decLocal struct {
	ctx            *decContext
	from           *decContext // localcontext(ctx): start from ctx's settings
	prec, rounding starlark.Value
	saved          decContext
}

func (l *decLocal) Type() string          { return "_ContextManager" }
func (l *decLocal) PyTypeName() string    { return "decimal.ContextManager" }
func (l *decLocal) Freeze()               {}
func (l *decLocal) Truth() starlark.Bool  { return true }
func (l *decLocal) Hash() (uint32, error) { return 0, nil }
func (l *decLocal) String() string        { return "<decimal.ContextManager object>" }

func (l *decLocal) Enter(*starlark.Thread) (starlark.Value, error) {
	l.saved = *l.ctx
	if l.from != nil {
		l.ctx.prec, l.ctx.rounding = l.from.prec, l.from.rounding
	}
	if l.prec != nil {
		if err := l.ctx.SetField("prec", l.prec); err != nil {
			*l.ctx = l.saved
			return nil, err
		}
	}
	if l.rounding != nil {
		if err := l.ctx.SetField("rounding", l.rounding); err != nil {
			*l.ctx = l.saved
			return nil, err
		}
	}
	return l.ctx, nil
}

func (l *decLocal) Exit(*starlark.Thread) error {
	l.ctx.prec, l.ctx.rounding = l.saved.prec, l.saved.rounding
	return nil
}
