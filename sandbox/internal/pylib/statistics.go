package pylib

import (
	"sort"

	"math"
	"math/big"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
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
	x, err := py.OneArg(fn, args, kwargs)
	if err != nil {
		return statData{}, err
	}
	d := statData{allInt: true}
	err = py.ForEach(thread, x, func(v starlark.Value) error {
		r := new(big.Rat)
		switch n := v.(type) {
		case starlark.Int:
			r.SetInt(n.BigInt())
		case starlark.Bool:
			r.SetInt64(int64(py.B2i(bool(n))))
		case starlark.Float:
			if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
				return py.Errorf("ValueError", "the sandbox's statistics needs finite numbers")
			}
			r.SetFloat64(float64(n))
			d.allInt = false
		case *fracValue:
			r.Set(n.r)
			d.allInt = false
		case *decValue:
			if n.special != "" {
				return py.Errorf("ValueError", "the sandbox's statistics needs finite numbers")
			}
			r.Set(n.Rat().Rat)
			d.allInt = false
		default:
			return py.Errorf("TypeError", "can't convert type '%s' to numerator/denominator", py.PyType(v))
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
		return nil, &py.PyError{Kind: "StatisticsError", Msg: "mean requires at least one data point"}
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
		return nil, &py.PyError{Kind: "StatisticsError", Msg: "fmean requires at least one data point"}
	}
	f, _ := d.mean().Float64()
	return starlark.Float(f), nil
}

// statisticsSpread implements variance, pvariance, stdev and pstdev.
func statisticsSpread(name string, sample, root bool) py.BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		d, err := statRats(thread, name, args, kwargs)
		if err != nil {
			return nil, err
		}
		n := len(d.xs)
		if sample && n < 2 {
			return nil, &py.PyError{Kind: "StatisticsError", Msg: name + " requires at least two data points"}
		}
		if !sample && n < 1 {
			return nil, &py.PyError{Kind: "StatisticsError", Msg: name + " requires at least one data point"}
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
func statisticsHarmonicMean(
	thread *starlark.Thread,
	_ *starlark.Builtin,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	d, err := statRats(thread, "harmonic_mean", args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(d.xs) == 0 {
		return nil, &py.PyError{Kind: "StatisticsError", Msg: "harmonic_mean requires at least one data point"}
	}
	s := new(big.Rat)
	for _, x := range d.xs {
		if x.Sign() < 0 {
			return nil, &py.PyError{Kind: "StatisticsError", Msg: "harmonic mean does not support negative values"}
		}
		if x.Sign() == 0 {
			return starlark.MakeInt(0), nil
		}
		s.Add(s, new(big.Rat).Inv(x))
	}
	return d.convert(new(big.Rat).Quo(new(big.Rat).SetInt64(int64(len(d.xs))), s)), nil
}

// statisticsMedianLowHigh implements median_low (high false) and median_high.
func statisticsMedianLowHigh(name string, high bool) py.BuiltinFn {
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
func statisticsMultimode(
	thread *starlark.Thread,
	_ *starlark.Builtin,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
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

func numbers(thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) ([]float64, bool, error) {
	x, err := py.OneArg(name, args, kwargs)
	if err != nil {
		return nil, false, err
	}
	var out []float64
	allInt := true
	err = py.ForEach(thread, x, func(v starlark.Value) error {
		if _, ok := v.(starlark.Int); !ok {
			allInt = false
		}
		f, err := py.FloatArg(name, v)
		out = append(out, f)
		return err
	})
	if err == nil && len(out) == 0 {
		err = &py.PyError{Kind: "StatisticsError", Msg: name + " requires at least one data point"}
	}
	return out, allInt, err
}

var _ = py.RegisterModule("statistics", statisticsModule)

// statisticsModule builds the statistics module on its first import.
func statisticsModule() *py.Module {
	return py.NewModule("statistics", map[string]py.BuiltinFn{
		"mean":          statisticsMean,
		"fmean":         statisticsFmean,
		"median":        statisticsMedian,
		"median_low":    statisticsMedianLowHigh("median_low", false),
		"median_high":   statisticsMedianLowHigh("median_high", true),
		"stdev":         statisticsSpread("stdev", true, true),
		"pstdev":        statisticsSpread("pstdev", false, true),
		"variance":      statisticsSpread("variance", true, false),
		"pvariance":     statisticsSpread("pvariance", false, false),
		"harmonic_mean": statisticsHarmonicMean,
		"mode":          statisticsMode,
		"multimode":     statisticsMultimode,
		"quantiles":     statisticsQuantiles,
	}, starlark.StringDict{"StatisticsError": py.ExcTypes["StatisticsError"]})
}

// sortedData is the one argument of a median function, collected and
// sorted; empty data is CPython's StatisticsError.
func sortedData(thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (*starlark.List, error) {
	x, err := py.OneArg(name, args, kwargs)
	if err != nil {
		return nil, err
	}
	elems, err := py.Collect(thread, x)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, &py.PyError{Kind: "StatisticsError", Msg: "no median for empty data"}
	}
	l := starlark.NewList(elems)
	if err := py.SortList(thread, l, starlark.None, false); err != nil {
		return nil, err
	}
	return l, nil
}

// statisticsMedian implements statistics.median.
func statisticsMedian(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	l, err := sortedData(thread, "median", args, kwargs)
	if err != nil {
		return nil, err
	}
	n := l.Len()
	if n%2 == 1 {
		return l.Index(n / 2), nil
	}
	s, err := py.Add(l.Index(n/2-1), l.Index(n/2))
	if err != nil {
		return nil, err
	}
	return py.Binary(syntax.SLASH, s, starlark.MakeInt(2))
}

// counted is the one argument of a mode function counted, most common
// first (ties in first-seen order).
func counted(thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) ([]starlark.Tuple, error) {
	x, err := py.OneArg(name, args, kwargs)
	if err != nil {
		return nil, err
	}
	c, err := newCounter(thread, starlark.Tuple{x}, nil)
	if err != nil {
		return nil, err
	}
	return c.(*dictSub).mostCommon(), nil
}

// statisticsMode implements statistics.mode.
func statisticsMode(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	items, err := counted(thread, "mode", args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, &py.PyError{Kind: "StatisticsError", Msg: "no mode for empty data"}
	}
	return items[0][0], nil
}

// statisticsQuantiles implements statistics.quantiles (method
// 'exclusive', the default, or 'inclusive').
func statisticsQuantiles(
	thread *starlark.Thread,
	_ *starlark.Builtin,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	var data starlark.Value
	n := 4
	method := "exclusive"
	if err := starlark.UnpackArgs("quantiles", args, kwargs, "data", &data, "n?", &n, "method?", &method); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, &py.PyError{Kind: "StatisticsError", Msg: "n must be at least 1"}
	}
	if starlark.Len(data) == 0 {
		return nil, &py.PyError{Kind: "StatisticsError", Msg: "must have at least two data points"}
	}
	xs, _, err := numbers(thread, "quantiles", starlark.Tuple{data}, nil)
	if err != nil {
		return nil, err
	}
	m := len(xs)
	if m < 2 {
		return nil, &py.PyError{Kind: "StatisticsError", Msg: "must have at least two data points"}
	}
	sort.Float64s(xs)
	out := make([]starlark.Value, 0, n-1)
	switch method {
	case "inclusive":
		mm := m - 1
		for i := 1; i < n; i++ {
			j := i * mm / n
			delta := i*mm - j*n
			out = append(out, starlark.Float((xs[j]*float64(n-delta)+xs[j+1]*float64(delta))/float64(n)))
		}
	case "exclusive":
		mm := m + 1
		for i := 1; i < n; i++ {
			j := i * mm / n
			j = min(max(j, 1), m-1)
			delta := i*mm - j*n
			out = append(out, starlark.Float((xs[j-1]*float64(n-delta)+xs[j]*float64(delta))/float64(n)))
		}
	default:
		return nil, py.Errorf("ValueError", "Unknown method: %s", py.Repr(starlark.String(method)))
	}
	return starlark.NewList(out), nil
}
