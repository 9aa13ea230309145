package pylib

import (
	"math/big"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// Decimal.sqrt, exp, ln and log10, correctly rounded (ROUND_HALF_EVEN)
// to the context's precision: ports of CPython's _pydecimal, which
// libmpdec (the C decimal module) agrees with.

// decMaxMathPrec bounds the working precision of exp, ln and log10
// (their cost grows with its square).
const decMaxMathPrec = 2000

var bigOne, bigTen = big.NewInt(1), big.NewInt(10)

// divNearest is the integer closest to a/b (b > 0), ties to even.
func divNearest(a, b *big.Int) *big.Int {
	q, r := new(big.Int).DivMod(a, b, new(big.Int)) // floor, as b > 0
	r.Lsh(r, 1)
	c := r.Add(r, big.NewInt(int64(q.Bit(0)))).Cmp(b)
	if c > 0 {
		q.Add(q, bigOne)
	}
	return q
}

// rshiftNearest is the integer closest to x / 2**shift, ties to even.
func rshiftNearest(x *big.Int, shift uint) *big.Int {
	b := new(big.Int).Lsh(bigOne, shift)
	q := new(big.Int).Rsh(x, shift)
	low := new(big.Int).And(x, new(big.Int).Sub(b, bigOne))
	low.Lsh(low, 1).Add(low, big.NewInt(int64(q.Bit(0))))
	if low.Cmp(b) > 0 {
		q.Add(q, bigOne)
	}
	return q
}

// sqrtNearest is the integer closest to the square root of n > 0,
// starting from the approximation a > 0.
func sqrtNearest(n, a *big.Int) *big.Int {
	a = new(big.Int).Set(a)
	b := new(big.Int)
	for a.Cmp(b) != 0 {
		// b, a = a, a - -n//a >> 1
		b.Set(a)
		t := new(big.Int).Neg(n)
		t.Div(t, a) // floor division (a > 0)
		a = new(big.Int).Sub(a, t)
		a.Rsh(a, 1)
	}
	return a
}

// digitLen is len(str(abs(x))).
func digitLen(x *big.Int) int {
	return len(new(big.Int).Abs(x).String())
}

// ilog is an integer approximation to M*log(x/M) (_pydecimal._ilog, L=8).
func ilog(x, M *big.Int) *big.Int {
	const L = 8
	y := new(big.Int).Sub(x, M)
	R := 0
	for {
		ay := new(big.Int).Abs(y)
		var cond bool
		if R <= L {
			cond = ay.Lsh(ay, uint(L-R)).Cmp(M) >= 0
		} else {
			cond = ay.Rsh(ay, uint(R-L)).Cmp(M) >= 0
		}
		if !cond {
			break
		}
		num := new(big.Int).Mul(M, y)
		num.Lsh(num, 1)
		inner := new(big.Int).Add(M, rshiftNearest(y, uint(R)))
		inner.Mul(inner, M)
		den := new(big.Int).Add(M, sqrtNearest(inner, M))
		y = divNearest(num, den)
		R++
	}
	T := ceilDiv(10*digitLen(M), 3*L)
	yshift := rshiftNearest(y, uint(R))
	w := divNearest(M, big.NewInt(int64(T)))
	for k := T - 1; k > 0; k-- {
		w = new(big.Int).Sub(divNearest(M, big.NewInt(int64(k))), divNearest(new(big.Int).Mul(yshift, w), M))
	}
	return divNearest(new(big.Int).Mul(w, y), M)
}

// ceilDiv is -(-a // b) for b > 0.
func ceilDiv(a, b int) int {
	return -floorDivInt(-a, b)
}

func floorDivInt(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// log10Digits memoizes the digits of log(10).
var log10Digits = struct {
	sync.Mutex
	digits string
}{digits: "23025850929940456840179914546843642076011014886"}

// log10DigitsOf is floor(10**p * log(10)) (p >= 0).
func log10DigitsOf(p int) *big.Int {
	log10Digits.Lock()
	defer log10Digits.Unlock()
	if p >= len(log10Digits.digits) {
		extra := 3
		var digits string
		for {
			M := pow10(p + extra + 2)
			digits = divNearest(ilog(new(big.Int).Mul(bigTen, M), M), big.NewInt(100)).String()
			tail := digits[len(digits)-extra:]
			allZero := true
			for i := 0; i < len(tail); i++ {
				if tail[i] != '0' {
					allZero = false
				}
			}
			if !allZero {
				break
			}
			extra += 3
		}
		i := len(digits)
		for i > 0 && digits[i-1] == '0' {
			i--
		}
		log10Digits.digits = digits[:i-1]
	}
	n, _ := new(big.Int).SetString(log10Digits.digits[:p+1], 10)
	return n
}

// tenShift is c * 10**k, or c rounded to nearest / 10**-k for k < 0.
func tenShift(c *big.Int, k int) *big.Int {
	if k >= 0 {
		return new(big.Int).Mul(c, pow10(k))
	}
	return divNearest(c, pow10(-k))
}

// dlog is an approximation to 10**p * log(c*10**e) with an error of at
// most 1 (c > 0, c*10**e != 1).
func dlog(c *big.Int, e, p int) *big.Int {
	p += 2
	l := digitLen(c)
	f := e + l
	if e+l >= 1 {
		f--
	}
	logD := new(big.Int)
	if p > 0 {
		logD = ilog(tenShift(c, e+p-f), pow10(p))
	}
	fLogTen := new(big.Int)
	if f != 0 {
		extra := len(big.NewInt(int64(py.Abs(f))).String()) - 1
		if p+extra >= 0 {
			fLogTen = divNearest(new(big.Int).Mul(big.NewInt(int64(f)), log10DigitsOf(p+extra)), pow10(extra))
		}
	}
	return divNearest(fLogTen.Add(fLogTen, logD), big.NewInt(100))
}

// dlog10 is an approximation to 10**p * log10(c*10**e) with an error of
// at most 1 (c > 0, c*10**e != 1).
func dlog10(c *big.Int, e, p int) *big.Int {
	p += 2
	l := digitLen(c)
	f := e + l
	if e+l >= 1 {
		f--
	}
	var logD, logTenPower *big.Int
	if p > 0 {
		M := pow10(p)
		logD = ilog(tenShift(c, e+p-f), M)
		logD = divNearest(logD.Mul(logD, M), log10DigitsOf(p))
		logTenPower = new(big.Int).Mul(big.NewInt(int64(f)), M)
	} else {
		logD = new(big.Int)
		logTenPower = divNearest(big.NewInt(int64(f)), pow10(-p))
	}
	return divNearest(logTenPower.Add(logTenPower, logD), big.NewInt(100))
}

// iexp is an integer approximation to M*exp(x/M) for small x/M.
func iexp(x, M *big.Int) *big.Int {
	const L = 8
	t := new(big.Int).Lsh(x, L)
	t.Div(t, M) // floor
	R := uint(t.BitLen())
	T := ceilDiv(10*digitLen(M), 3*L)
	y := divNearest(x, big.NewInt(int64(T)))
	Mshift := new(big.Int).Lsh(M, R)
	for i := T - 1; i > 0; i-- {
		num := new(big.Int).Mul(x, new(big.Int).Add(Mshift, y))
		y = divNearest(num, new(big.Int).Mul(Mshift, big.NewInt(int64(i))))
	}
	for k := int(R) - 1; k >= 0; k-- {
		Mshift = new(big.Int).Lsh(M, uint(k+2))
		y = divNearest(new(big.Int).Mul(y, new(big.Int).Add(y, Mshift)), Mshift)
	}
	return y.Add(y, M)
}

// dexp approximates exp(c*10**e) as d*10**f with p digits.
func dexp(c *big.Int, e, p int) (*big.Int, int) {
	p += 2
	extra := max(0, e+digitLen(c)-1)
	q := p + extra
	shift := e + q
	var cshift *big.Int
	if shift >= 0 {
		cshift = new(big.Int).Mul(c, pow10(shift))
	} else {
		cshift = new(big.Int).Div(c, pow10(-shift)) // floor
	}
	quot, rem := new(big.Int).DivMod(cshift, log10DigitsOf(q), new(big.Int))
	rem = divNearest(rem, pow10(extra))
	d := divNearest(iexp(rem, pow10(p)), big.NewInt(1000))
	return d, int(quot.Int64()) - p + 3
}

// roundable reports whether coeff, an approximation with an error of at
// most 1, rounds unambiguously to p digits: coeff % (5*10**(len-p-1)) != 0.
func roundable(coeff *big.Int, p int) bool {
	n := digitLen(coeff) - p - 1
	if n < 0 {
		return true
	}
	m := new(big.Int).Mul(big.NewInt(5), pow10(n))
	return new(big.Int).Mod(new(big.Int).Abs(coeff), m).Sign() != 0
}

// halfEven rounds d to ctx's precision with ROUND_HALF_EVEN (the result
// carries ctx, as the results of operators do).
func halfEven(ctx *decContext, d *decValue) (*decValue, error) {
	c := decContext{prec: ctx.prec, rounding: roundHalfEven}
	r, err := c.fix(d)
	if err != nil {
		return nil, err
	}
	if ctx.fromSession {
		r = &decValue{neg: r.neg, coef: r.coef, exp: r.exp, ctx: ctx}
	}
	return r, nil
}

// decSqrt is Decimal.sqrt.
func decSqrt(ctx *decContext, d *decValue) (*decValue, error) {
	if d.special != "" {
		if d.special == "Infinity" && !d.neg {
			return d, nil
		}
		return nil, decErr("InvalidOperation", "InvalidOperation")
	}
	if d.coef.Sign() == 0 {
		return halfEven(ctx, &decValue{neg: d.neg, coef: new(big.Int), exp: floorDivInt(d.exp, 2)})
	}
	if d.neg {
		return nil, decErr("InvalidOperation", "InvalidOperation")
	}
	prec := ctx.prec + 1
	e := floorDivInt(d.exp, 2)
	var c *big.Int
	var l int
	nd := numDigits(d.coef)
	if d.exp&1 != 0 {
		c = new(big.Int).Mul(d.coef, bigTen)
		l = nd>>1 + 1
	} else {
		c = new(big.Int).Set(d.coef)
		l = (nd + 1) >> 1
	}
	shift := prec - l
	exact := true
	if shift >= 0 {
		c.Mul(c, pow10(2*shift))
	} else {
		var rem *big.Int
		c, rem = new(big.Int).DivMod(c, pow10(-2*shift), new(big.Int))
		exact = rem.Sign() == 0
	}
	e -= shift
	n := new(big.Int).Sqrt(c)
	exact = exact && new(big.Int).Mul(n, n).Cmp(c) == 0
	if exact {
		if shift >= 0 {
			n.Div(n, pow10(shift))
		} else {
			n.Mul(n, pow10(-shift))
		}
		e += shift
	} else if new(big.Int).Mod(n, big.NewInt(5)).Sign() == 0 {
		n.Add(n, bigOne)
	}
	return halfEven(ctx, &decValue{coef: n, exp: e})
}

// decExp is Decimal.exp.
func decExp(ctx *decContext, d *decValue) (*decValue, error) {
	if d.special == "NaN" {
		return nil, decErr("InvalidOperation", "InvalidOperation")
	}
	if d.special == "Infinity" {
		if d.neg {
			return &decValue{coef: new(big.Int)}, nil
		}
		return d, nil
	}
	if d.coef.Sign() == 0 {
		return &decValue{coef: big.NewInt(1)}, nil
	}
	p := ctx.prec
	if p > decMaxMathPrec {
		return nil, py.Errorf("decimal.InvalidOperation", "the sandbox's decimal computes exp at a precision of at most %d", decMaxMathPrec)
	}
	adj := d.exp + numDigits(d.coef) - 1
	var ans *decValue
	switch {
	case !d.neg && adj > 7: // far past Emax
		return nil, decErr("Overflow", "Overflow")
	case d.neg && adj > 7: // far below Etiny
		return halfEven(ctx, &decValue{coef: new(big.Int), exp: -maxDecExp})
	case !d.neg && adj < -p:
		c, _ := new(big.Int).SetString("1"+zeros(p-1)+"1", 10)
		ans = &decValue{coef: c, exp: -p}
	case d.neg && adj < -p-1:
		c := new(big.Int).Sub(pow10(p+1), bigOne)
		ans = &decValue{coef: c, exp: -p - 1}
	default:
		c := new(big.Int).Set(d.coef)
		if d.neg {
			c.Neg(c)
		}
		extra := 3
		for {
			coeff, exp := dexp(c, d.exp, p+extra)
			if roundable(coeff, p) {
				ans = &decValue{coef: coeff, exp: exp}
				break
			}
			extra += 3
		}
		if ans.exp < -maxDecExp {
			// Underflow: CPython's result is 0 at Etiny; the sandbox's
			// exponents stop at -maxDecExp.
			return halfEven(ctx, &decValue{coef: new(big.Int), exp: -maxDecExp})
		}
	}
	return halfEven(ctx, ans)
}

func zeros(n int) string {
	b := make([]byte, max(n, 0))
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

// lnExpBound is a lower bound for the adjusted exponent of ln(d).
func lnExpBound(d *decValue) int {
	nd := numDigits(d.coef)
	adj := d.exp + nd - 1
	if adj >= 1 {
		return len(big.NewInt(int64(adj*23/10)).String()) - 1
	}
	if adj <= -2 {
		return len(big.NewInt(int64((-1-adj)*23/10)).String()) - 1
	}
	c, e := d.coef, d.exp
	if adj == 0 {
		num := new(big.Int).Sub(c, pow10(-e)).String()
		den := c.String()
		return len(num) - len(den) - py.B2i(num < den)
	}
	return e + len(new(big.Int).Sub(pow10(-e), c).String()) - 1
}

// log10ExpBound is a lower bound for the adjusted exponent of log10(d).
func log10ExpBound(d *decValue) int {
	nd := numDigits(d.coef)
	adj := d.exp + nd - 1
	if adj >= 1 {
		return len(big.NewInt(int64(adj)).String()) - 1
	}
	if adj <= -2 {
		return len(big.NewInt(int64(-1-adj)).String()) - 1
	}
	c, e := d.coef, d.exp
	if adj == 0 {
		num := new(big.Int).Sub(c, pow10(-e)).String()
		den := new(big.Int).Mul(big.NewInt(231), c).String()
		return len(num) - len(den) - py.B2i(num < den) + 2
	}
	num := new(big.Int).Sub(pow10(-e), c).String()
	return len(num) + e - py.B2i(num < "231") - 1
}

// decLog is Decimal.ln (base10 false) and Decimal.log10 (true).
func decLog(ctx *decContext, d *decValue, base10 bool) (*decValue, error) {
	name := "ln"
	if base10 {
		name = "log10"
	}
	switch {
	case d.special == "NaN":
		return nil, decErr("InvalidOperation", "InvalidOperation")
	case d.special == "Infinity" && !d.neg:
		return d, nil
	case d.special == "" && d.coef.Sign() == 0:
		return &decValue{neg: true, special: "Infinity"}, nil
	case d.neg:
		return nil, decErr("InvalidOperation", "InvalidOperation")
	}
	p := ctx.prec
	if p > decMaxMathPrec {
		return nil, py.Errorf(
			"decimal.InvalidOperation",
			"the sandbox's decimal computes %s at a precision of at most %d",
			name,
			decMaxMathPrec,
		)
	}
	c, e := d.coef, d.exp
	// A power of ten: log10 is exact, ln(1) is 0.
	s := c.String()
	if s[0] == '1' && s[1:] == zeros(len(s)-1) {
		n := e + len(s) - 1
		if base10 {
			return halfEven(ctx, signed(big.NewInt(int64(n)), 0))
		}
		if n == 0 {
			return &decValue{coef: new(big.Int)}, nil
		}
	}
	var places int
	if base10 {
		places = p - log10ExpBound(d) + 2
	} else {
		places = p - lnExpBound(d) + 2
	}
	for {
		var coeff *big.Int
		if base10 {
			coeff = dlog10(c, e, places)
		} else {
			coeff = dlog(c, e, places)
		}
		if roundable(coeff, p) {
			return halfEven(ctx, signed(coeff, -places))
		}
		places += 3
	}
}

// decMathMethod returns the bound method sqrt, exp, ln or log10 of d.
func decMathMethod(d *decValue, name string) starlark.Value {
	return py.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var ctxv starlark.Value
		if err := starlark.UnpackArgs(name, args, kwargs, "context?", &ctxv); err != nil {
			return nil, err
		}
		ctx := decContextOf(thread)
		if c, ok := ctxv.(*decContext); ok {
			ctx = c
		}
		var r *decValue
		var err error
		switch name {
		case "sqrt":
			r, err = decSqrt(ctx, d)
		case "exp":
			r, err = decExp(ctx, d)
		default:
			r, err = decLog(ctx, d, name == "log10")
		}
		if err != nil {
			return nil, err
		}
		return r, nil
	}).
		BindReceiver(d)
}
