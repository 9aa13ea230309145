package sandbox

import (
	"math"
	"math/big"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// The statistics module's means and spreads computed as CPython computes
// them: exactly, on the fractions the data's floats stand for, with one
// rounding at the end (mean([0.1] * 10) is 0.1, not 0.09999999999999999),
// and an int result when all the data are ints and the result is whole.

// statData is the data of a statistics call as exact fractions.
type statData struct {
	xs     []*big.Rat
	allInt bool
}

// statRats reads the one iterable argument of fn as exact fractions.
func statRats(thread *starlark.Thread, fn string, args starlark.Tuple, kwargs []starlark.Tuple) (statData, error) {
	x, err := oneArg(fn, args, kwargs)
	if err != nil {
		return statData{}, err
	}
	d := statData{allInt: true}
	err = forEach(thread, x, func(v starlark.Value) error {
		r := new(big.Rat)
		switch n := v.(type) {
		case starlark.Int:
			r.SetInt(n.BigInt())
		case starlark.Bool:
			r.SetInt64(int64(b2i(bool(n))))
		case starlark.Float:
			if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
				return Errorf("ValueError", "the sandbox's statistics needs finite numbers")
			}
			r.SetFloat64(float64(n))
			d.allInt = false
		case *fracValue:
			r.Set(n.r)
			d.allInt = false
		case *decValue:
			if n.special != "" {
				return Errorf("ValueError", "the sandbox's statistics needs finite numbers")
			}
			r.Set(n.rat().Rat)
			d.allInt = false
		default:
			return Errorf("TypeError", "can't convert type '%s' to numerator/denominator", pyType(v))
		}
		d.xs = append(d.xs, r)
		return nil
	})
	return d, err
}

// convert is CPython's statistics._convert for int or float data: an int
// when all the data are ints and r is whole, else the nearest float.
func (d statData) convert(r *big.Rat) starlark.Value {
	if d.allInt && r.IsInt() {
		return starlark.MakeBigInt(new(big.Int).Set(r.Num()))
	}
	f, _ := r.Float64()
	return starlark.Float(f)
}

// mean is the exact mean.
func (d statData) mean() *big.Rat {
	s := new(big.Rat)
	for _, x := range d.xs {
		s.Add(s, x)
	}
	return s.Quo(s, new(big.Rat).SetInt64(int64(len(d.xs))))
}

// ss is the exact sum of squared deviations from the mean.
func (d statData) ss() *big.Rat {
	m := d.mean()
	s := new(big.Rat)
	t := new(big.Rat)
	for _, x := range d.xs {
		t.Sub(x, m)
		s.Add(s, t.Mul(t, t))
	}
	return s
}

// sqrtRat is the float nearest the square root of r >= 0.
func sqrtRat(r *big.Rat) float64 {
	f := new(big.Float).SetPrec(256).SetRat(r)
	f.Sqrt(f)
	v, _ := f.Float64()
	return v
}

// statisticsMean implements statistics.mean.
func statisticsMean(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d, err := statRats(thread, "mean", args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(d.xs) == 0 {
		return nil, &PyError{Kind: "StatisticsError", Msg: "mean requires at least one data point"}
	}
	return d.convert(d.mean()), nil
}

// statisticsFmean implements statistics.fmean.
func statisticsFmean(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d, err := statRats(thread, "fmean", args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(d.xs) == 0 {
		return nil, &PyError{Kind: "StatisticsError", Msg: "fmean requires at least one data point"}
	}
	f, _ := d.mean().Float64()
	return starlark.Float(f), nil
}

// statisticsSpread implements variance, pvariance, stdev and pstdev.
func statisticsSpread(name string, sample, root bool) builtinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		d, err := statRats(thread, name, args, kwargs)
		if err != nil {
			return nil, err
		}
		n := len(d.xs)
		if sample && n < 2 {
			return nil, &PyError{Kind: "StatisticsError", Msg: name + " requires at least two data points"}
		}
		if !sample && n < 1 {
			return nil, &PyError{Kind: "StatisticsError", Msg: name + " requires at least one data point"}
		}
		if sample {
			n--
		}
		v := d.ss()
		v.Quo(v, new(big.Rat).SetInt64(int64(n)))
		if root {
			return starlark.Float(sqrtRat(v)), nil
		}
		return d.convert(v), nil
	}
}

// statisticsHarmonicMean implements statistics.harmonic_mean.
func statisticsHarmonicMean(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d, err := statRats(thread, "harmonic_mean", args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(d.xs) == 0 {
		return nil, &PyError{Kind: "StatisticsError", Msg: "harmonic_mean requires at least one data point"}
	}
	s := new(big.Rat)
	for _, x := range d.xs {
		if x.Sign() < 0 {
			return nil, &PyError{Kind: "StatisticsError", Msg: "harmonic mean does not support negative values"}
		}
		if x.Sign() == 0 {
			return starlark.MakeInt(0), nil
		}
		s.Add(s, new(big.Rat).Inv(x))
	}
	return d.convert(new(big.Rat).Quo(new(big.Rat).SetInt64(int64(len(d.xs))), s)), nil
}

// statisticsMedianLowHigh implements median_low (high false) and median_high.
func statisticsMedianLowHigh(name string, high bool) builtinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		l, err := sortedData(thread, name, args, kwargs)
		if err != nil {
			return nil, err
		}
		n := l.Len()
		if n%2 == 1 || high {
			return l.Index(n / 2), nil
		}
		return l.Index(n/2 - 1), nil
	}
}

// statisticsMultimode implements statistics.multimode.
func statisticsMultimode(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	items, err := counted(thread, "multimode", args, kwargs)
	if err != nil {
		return nil, err
	}
	out := starlark.NewList(nil)
	for _, kv := range items {
		if eq, _ := starlark.Equal(kv[1], items[0][1]); !eq {
			break
		}
		if err := out.Append(kv[0]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
