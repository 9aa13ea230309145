package pylib

import (
	"math"
	"math/big"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// mathFloatArg unpacks the one real-number argument of math.name.
func mathFloatArg(name string, args starlark.Tuple, kwargs []starlark.Tuple) (float64, error) {
	x, err := py.OneArg("math."+name, args, kwargs)
	if err != nil {
		return 0, err
	}
	return py.FloatArg(name, x)
}

func math1(name string, fn func(float64) (float64, error)) py.BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f, err := mathFloatArg(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		r, err := fn(f)
		if err != nil {
			return nil, err
		}
		return starlark.Float(r), nil
	}
}

// math2 is math1 for functions of two floats.
func math2(name string, fn func(x, y float64) (float64, error)) py.BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var xv, yv starlark.Value
		if err := starlark.UnpackPositionalArgs("math."+name, args, kwargs, 2, &xv, &yv); err != nil {
			return nil, err
		}
		x, err := py.FloatArg(name, xv)
		if err != nil {
			return nil, err
		}
		y, err := py.FloatArg(name, yv)
		if err != nil {
			return nil, err
		}
		r, err := fn(x, y)
		if err != nil {
			return nil, err
		}
		return starlark.Float(r), nil
	}
}

func domain(f float64, ok bool) (float64, error) {
	if !ok {
		return 0, errMathDomain()
	}
	return f, nil
}

// errMathDomain is CPython's error of a math function outside its domain.
func errMathDomain() error { return py.Errorf("ValueError", "math domain error") }

// errMathRange is CPython's error of a math function whose result
// overflows a float.
func errMathRange() error { return py.Errorf("OverflowError", "math range error") }

// ranged wraps fn with CPython's overflow check: an infinite result of a
// finite argument is an OverflowError (math.exp(1000)), not inf.
func ranged(fn func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		r := fn(x)
		if math.IsInf(r, 0) && !math.IsInf(x, 0) {
			return 0, errMathRange()
		}
		return r, nil
	}
}

var _ = py.RegisterModule("math", mathModule)

// mathModule builds the math module on its first import.
func mathModule() *py.Module {
	plain := func(fn func(float64) float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) { return fn(x), nil }
	}
	fns := map[string]py.BuiltinFn{
		"sqrt":    math1("sqrt", func(x float64) (float64, error) { return domain(math.Sqrt(x), x >= 0) }),
		"exp":     math1("exp", ranged(math.Exp)),
		"log2":    math1("log2", func(x float64) (float64, error) { return domain(math.Log2(x), x > 0) }),
		"log10":   math1("log10", func(x float64) (float64, error) { return domain(math.Log10(x), x > 0) }),
		"log1p":   math1("log1p", func(x float64) (float64, error) { return domain(math.Log1p(x), x > -1) }),
		"sin":     math1("sin", plain(math.Sin)),
		"cos":     math1("cos", plain(math.Cos)),
		"tan":     math1("tan", plain(math.Tan)),
		"asin":    math1("asin", func(x float64) (float64, error) { return domain(math.Asin(x), x >= -1 && x <= 1) }),
		"acos":    math1("acos", func(x float64) (float64, error) { return domain(math.Acos(x), x >= -1 && x <= 1) }),
		"atan":    math1("atan", plain(math.Atan)),
		"sinh":    math1("sinh", ranged(math.Sinh)),
		"cosh":    math1("cosh", ranged(math.Cosh)),
		"tanh":    math1("tanh", plain(math.Tanh)),
		"fabs":    math1("fabs", plain(math.Abs)),
		"degrees": math1("degrees", func(x float64) (float64, error) { return x * 180 / math.Pi, nil }),
		"radians": math1("radians", func(x float64) (float64, error) { return x * math.Pi / 180, nil }),
		"log":     mathLog,
		"pow": math2("pow", func(x, y float64) (float64, error) {
			r := math.Pow(x, y)
			if x == 0 && y < 0 && !math.IsInf(y, 0) {
				return 0, errMathDomain() // CPython: 0.0 to a negative power is a domain error, not inf
			}
			if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
				return 0, errMathRange()
			}
			return domain(r, !math.IsNaN(r) || math.IsNaN(x) || math.IsNaN(y))
		}),
		"atan2":     math2("atan2", func(y, x float64) (float64, error) { return math.Atan2(y, x), nil }),
		"hypot":     mathHypot,
		"floor":     mathRound("floor", math.Floor),
		"ceil":      mathRound("ceil", math.Ceil),
		"trunc":     mathRound("trunc", math.Trunc),
		"isnan":     mathPred("isnan", math.IsNaN),
		"isinf":     mathPred("isinf", func(f float64) bool { return math.IsInf(f, 0) }),
		"isfinite":  mathPred("isfinite", func(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }),
		"isclose":   mathIsclose,
		"fsum":      mathFsum,
		"gcd":       mathGcdLcm(true),
		"lcm":       mathGcdLcm(false),
		"factorial": mathFactorial,
		"comb":      mathComb,
		"prod":      mathProd,
	}
	for k, f := range mathExtras() {
		fns[k] = f
	}
	return py.NewModule("math", fns, starlark.StringDict{
		"pi":  starlark.Float(math.Pi),
		"e":   starlark.Float(math.E),
		"tau": starlark.Float(2 * math.Pi),
		"inf": starlark.Float(math.Inf(1)),
		"nan": starlark.Float(math.NaN()),
	})
}

// mathLog implements math.log.
func mathLog(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, base starlark.Value
	if err := starlark.UnpackPositionalArgs("math.log", args, kwargs, 1, &x, &base); err != nil {
		return nil, err
	}
	var f float64
	if i, ok := x.(starlark.Int); ok && i.Sign() > 0 {
		// Exact for big ints: log(m * 2**e) = log(m) + e*log(2).
		b := i.BigInt()
		e := b.BitLen() - 53
		if e < 0 {
			e = 0
		}
		m, _ := new(big.Float).SetInt(new(big.Int).Rsh(b, uint(e))).Float64()
		f = math.Log(m) + float64(e)*math.Ln2
	} else {
		v, err := py.FloatArg("log", x)
		if err != nil {
			return nil, err
		}
		if v <= 0 {
			return nil, py.Errorf("ValueError", "math domain error")
		}
		f = math.Log(v)
	}
	if base != nil {
		b, err := py.FloatArg("log", base)
		if err != nil {
			return nil, err
		}
		if b <= 0 {
			return nil, errMathDomain()
		}
		if b == 1 {
			return nil, py.Errorf("ZeroDivisionError", "float division by zero") // log(x) / log(1), as CPython
		}
		return starlark.Float(f / math.Log(b)), nil
	}
	return starlark.Float(f), nil
}

// mathHypot implements math.hypot.
func mathHypot(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	s := 0.0
	for _, a := range args {
		f, err := py.FloatArg("hypot", a)
		if err != nil {
			return nil, err
		}
		s = math.Hypot(s, f)
	}
	return starlark.Float(s), nil
}

// mathIsclose implements math.isclose.
func mathIsclose(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, b starlark.Value
	relTol, absTol := 1e-9, 0.0
	if err := starlark.UnpackArgs("math.isclose", args, kwargs, "a", &a, "b", &b, "rel_tol?", &relTol, "abs_tol?", &absTol); err != nil {
		return nil, err
	}
	x, err := py.FloatArg("isclose", a)
	if err != nil {
		return nil, err
	}
	y, err := py.FloatArg("isclose", b)
	if err != nil {
		return nil, err
	}
	if x == y {
		return starlark.True, nil
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return starlark.False, nil
	}
	d := math.Abs(x - y)
	return starlark.Bool(d <= math.Abs(relTol*y) || d <= math.Abs(relTol*x) || d <= absTol), nil
}

// mathFsum implements math.fsum.
func mathFsum(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := py.OneArg("math.fsum", args, kwargs)
	if err != nil {
		return nil, err
	}
	// Shewchuk's algorithm (as CPython) for an exactly rounded sum; an
	// infinite or NaN item is summed apart, and a finite sum that
	// overflows is an OverflowError, as CPython's.
	var partials []float64
	special, infSum := 0.0, 0.0
	err = py.ForEach(thread, x, func(v starlark.Value) error {
		f, err := py.FloatArg("fsum", v)
		if err != nil {
			return err
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			special += f
			if math.IsInf(f, 0) {
				infSum += f
			}
			return nil
		}
		i := 0
		for _, y := range partials {
			if math.Abs(f) < math.Abs(y) {
				f, y = y, f
			}
			hi := f + y
			lo := y - (hi - f)
			if lo != 0 {
				partials[i] = lo
				i++
			}
			f = hi
		}
		if math.IsInf(f, 0) {
			return py.Errorf("OverflowError", "intermediate overflow in fsum")
		}
		partials = append(partials[:i], f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if special != 0 { // true for NaN too
		if math.IsNaN(infSum) {
			return nil, py.Errorf("ValueError", "-inf + inf in fsum")
		}
		return starlark.Float(special), nil
	}
	sum := 0.0
	for _, p := range partials {
		sum += p
	}
	return starlark.Float(sum), nil
}

// mathFactorial implements math.factorial.
func mathFactorial(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n int
	if err := starlark.UnpackPositionalArgs("math.factorial", args, kwargs, 1, &n); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, py.Errorf("ValueError", "factorial() not defined for negative values")
	}
	r, err := py.IntFactorial(thread, int64(n))
	if err != nil {
		return nil, err
	}
	return starlark.MakeBigInt(r), nil
}

// mathComb implements math.comb.
func mathComb(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n, k int
	if err := starlark.UnpackPositionalArgs("math.comb", args, kwargs, 2, &n, &k); err != nil {
		return nil, err
	}
	if n < 0 || k < 0 {
		return nil, py.Errorf("ValueError", "n and k must be non-negative integers")
	}
	if k > n {
		return starlark.MakeInt(0), nil
	}
	r, err := py.IntComb(thread, int64(n), int64(k))
	if err != nil {
		return nil, err
	}
	return starlark.MakeBigInt(r), nil
}

// mathProd implements math.prod.
func mathProd(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var start starlark.Value = starlark.MakeInt(1)
	if err := starlark.UnpackArgs("math.prod", args, kwargs, "iterable", &it, "start?", &start); err != nil {
		return nil, err
	}
	acc := start
	err := py.ForEach(thread, it, func(v starlark.Value) error {
		var err error
		acc, err = py.PyMulHelper(thread, nil, starlark.Tuple{acc, v}, nil)
		return err
	})
	return acc, err
}

func mathRound(name string, fn func(float64) float64) py.BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := py.OneArg("math."+name, args, kwargs)
		if err != nil {
			return nil, err
		}
		if i, ok := x.(starlark.Int); ok {
			return i, nil
		}
		if n, ok := x.(py.PyNumber); ok {
			return py.IntOf(n, name)
		}
		f, err := py.FloatArg(name, x)
		if err != nil {
			return nil, err
		}
		if math.IsInf(f, 0) {
			return nil, py.Errorf("OverflowError", "cannot convert float infinity to integer")
		}
		if math.IsNaN(f) {
			return nil, py.Errorf("ValueError", "cannot convert float NaN to integer")
		}
		return starlark.NumberToInt(starlark.Float(fn(f)))
	}
}

func mathPred(name string, fn func(float64) bool) py.BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f, err := mathFloatArg(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		return starlark.Bool(fn(f)), nil
	}
}

func mathGcdLcm(gcd bool) py.BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var acc *big.Int
		for _, a := range args {
			i, ok := a.(starlark.Int)
			if !ok {
				return nil, py.Errorf("TypeError", "'%s' object cannot be interpreted as an integer", py.PyType(a))
			}
			b := new(big.Int).Abs(i.BigInt())
			switch {
			case acc == nil:
				acc = b
			case gcd:
				acc = new(big.Int).GCD(nil, nil, acc, b)
			default:
				if acc.Sign() == 0 || b.Sign() == 0 {
					acc = big.NewInt(0)
				} else {
					g := new(big.Int).GCD(nil, nil, acc, b)
					acc = new(big.Int).Mul(acc, new(big.Int).Quo(b, g))
				}
			}
		}
		if acc == nil {
			if gcd {
				return starlark.MakeInt(0), nil
			}
			return starlark.MakeInt(1), nil
		}
		return starlark.MakeBigInt(acc), nil
	}
}

// mathExtras are math functions added to the math module.
func mathExtras() map[string]py.BuiltinFn {
	return map[string]py.BuiltinFn{
		"perm": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			var kv starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("math.perm", args, kwargs, 1, &n, &kv); err != nil {
				return nil, err
			}
			k := n
			if kv != starlark.None {
				var err error
				if k, err = starlark.AsInt32(kv); err != nil {
					return nil, err
				}
			}
			if n < 0 || k < 0 {
				return nil, py.Errorf("ValueError", "n and k must be non-negative integers")
			}
			if k > n {
				return starlark.MakeInt(0), nil
			}
			r, err := py.IntPerm(thread, int64(n), int64(k))
			if err != nil {
				return nil, err
			}
			return starlark.MakeBigInt(r), nil
		},
		"isqrt": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, err := py.OneArg("math.isqrt", args, kwargs)
			if err != nil {
				return nil, err
			}
			i, ok := x.(starlark.Int)
			if !ok || i.Sign() < 0 {
				return nil, py.Errorf("ValueError", "isqrt() argument must be a non-negative integer")
			}
			return starlark.MakeBigInt(new(big.Int).Sqrt(i.BigInt())), nil
		},
		"copysign": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, b starlark.Value
			if err := starlark.UnpackPositionalArgs("math.copysign", args, kwargs, 2, &a, &b); err != nil {
				return nil, err
			}
			x, err := py.FloatArg("copysign", a)
			if err != nil {
				return nil, err
			}
			y, err := py.FloatArg("copysign", b)
			if err != nil {
				return nil, err
			}
			return starlark.Float(math.Copysign(x, y)), nil
		},
		"dist": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var p, q starlark.Value
			if err := starlark.UnpackPositionalArgs("math.dist", args, kwargs, 2, &p, &q); err != nil {
				return nil, err
			}
			ps, err := py.Collect(thread, p)
			if err != nil {
				return nil, err
			}
			qs, err := py.Collect(thread, q)
			if err != nil {
				return nil, err
			}
			if len(ps) != len(qs) {
				return nil, py.Errorf("ValueError", "both points must have the same number of dimensions")
			}
			s := 0.0
			for i := range ps {
				a, err := py.FloatArg("dist", ps[i])
				if err != nil {
					return nil, err
				}
				b, err := py.FloatArg("dist", qs[i])
				if err != nil {
					return nil, err
				}
				s = math.Hypot(s, a-b)
			}
			return starlark.Float(s), nil
		},
	}
}
