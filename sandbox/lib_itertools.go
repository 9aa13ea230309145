package sandbox

import (
	"errors"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

func chainLists(thread *starlark.Thread, args starlark.Tuple) (starlark.Value, error) {
	var out []starlark.Value
	for _, a := range args {
		elems, err := collect(thread, a)
		if err != nil {
			return nil, err
		}
		out = append(out, elems...)
		if err := checkAlloc(thread, int64(len(out))*16); err != nil {
			return nil, err
		}
	}
	return starlark.NewList(out), nil
}

func itertoolsModule() *module {
	chain := &typeObj{name: "chain", call: func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return chainLists(thread, args)
	}}
	chain.attrs = starlark.StringDict{
		"from_iterable": NewBuiltin("chain.from_iterable", func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, err := oneArg("chain.from_iterable", args, kwargs)
			if err != nil {
				return nil, err
			}
			parts, err := collect(thread, x)
			if err != nil {
				return nil, err
			}
			return chainLists(thread, parts)
		}),
	}
	return newModule("itertools", map[string]builtinFn{
		"count":        itertoolsCount,
		"permutations": itertoolsPermutations,
		"product":      itertoolsProduct,
		"zip_longest":  itertoolsZipLongest,
		"islice":       itertoolsIslice,
		"groupby":      itertoolsGroupby,
		"combinations": itertoolsCombinations,
		"accumulate":   itertoolsAccumulate,
		"takewhile":    itertoolsWhile("takewhile", true),
		"dropwhile":    itertoolsWhile("dropwhile", false),
		"pairwise":     itertoolsPairwise,
		"starmap":      itertoolsStarmap,
		"repeat":       itertoolsRepeat,
		"compress":     itertoolsCompress,
		"filterfalse":  itertoolsFilterfalse,
	}, starlark.StringDict{"chain": chain})
}

// itertoolsCount implements itertools.count.
func itertoolsCount(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var start, step starlark.Value = starlark.MakeInt(0), starlark.MakeInt(1)
	if err := starlark.UnpackArgs("count", args, kwargs, "start?", &start, "step?", &step); err != nil {
		return nil, err
	}
	return &countObj{start: start, cur: start, step: step}, nil
}

// itertoolsPermutations implements itertools.permutations.
func itertoolsPermutations(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it, rv starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("permutations", args, kwargs, "iterable", &it, "r?", &rv); err != nil {
		return nil, err
	}
	elems, err := collect(thread, it)
	if err != nil {
		return nil, err
	}
	r := len(elems)
	if rv != starlark.None {
		if r, err = starlark.AsInt32(rv); err != nil {
			return nil, err
		}
		if r < 0 {
			return nil, &PyError{Kind: "ValueError", Msg: "r must be non-negative"}
		}
	}
	var out []starlark.Value
	used := make([]bool, len(elems))
	cur := make([]starlark.Value, 0, r)
	var rec func() error
	rec = func() error {
		if len(cur) == r {
			out = append(out, append(starlark.Tuple(nil), cur...))
			return checkAlloc(thread, int64(len(out))*int64(16*r+32))
		}
		for i, e := range elems {
			if used[i] {
				continue
			}
			used[i] = true
			cur = append(cur, e)
			if err := rec(); err != nil {
				return err
			}
			cur = cur[:len(cur)-1]
			used[i] = false
		}
		return nil
	}
	if r <= len(elems) {
		if err := rec(); err != nil {
			return nil, err
		}
	}
	return starlark.NewList(out), nil
}

// itertoolsProduct implements itertools.product.
func itertoolsProduct(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	repeat := 1
	if err := starlark.UnpackArgs("product", nil, kwargs, "repeat?", &repeat); err != nil {
		return nil, err
	}
	var pools [][]starlark.Value
	for k := 0; k < repeat; k++ {
		for _, a := range args {
			elems, err := collect(thread, a)
			if err != nil {
				return nil, err
			}
			pools = append(pools, elems)
		}
	}
	out := []starlark.Value{starlark.Tuple{}}
	for _, pool := range pools {
		var next []starlark.Value
		for _, t := range out {
			for _, e := range pool {
				next = append(next, append(append(starlark.Tuple(nil), t.(starlark.Tuple)...), e))
			}
		}
		if err := checkAlloc(thread, int64(len(next))*int64(16*len(pools)+32)); err != nil {
			return nil, err
		}
		out = next
	}
	return starlark.NewList(out), nil
}

// itertoolsZipLongest implements itertools.zip_longest.
func itertoolsZipLongest(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fill starlark.Value = starlark.None
	if err := starlark.UnpackArgs("zip_longest", nil, kwargs, "fillvalue?", &fill); err != nil {
		return nil, err
	}
	lists := make([][]starlark.Value, len(args))
	n := 0
	for i, a := range args {
		elems, err := collect(thread, a)
		if err != nil {
			return nil, err
		}
		lists[i] = elems
		n = max(n, len(elems))
	}
	out := make([]starlark.Value, n)
	for i := range out {
		t := make(starlark.Tuple, len(lists))
		for j, l := range lists {
			if i < len(l) {
				t[j] = l[i]
			} else {
				t[j] = fill
			}
		}
		out[i] = t
	}
	return starlark.NewList(out), nil
}

// itertoolsIslice implements itertools.islice.
func itertoolsIslice(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 || len(args) > 4 {
		return nil, argErr("islice", "expected 2 to 4 arguments")
	}
	start, stop, step := 0, -1, 1
	ints := make([]int, 0, 3)
	for _, a := range args[1:] {
		if a == starlark.None {
			ints = append(ints, -1)
			continue
		}
		n, err := starlark.AsInt32(a)
		if err != nil {
			return nil, err
		}
		ints = append(ints, n)
	}
	if len(ints) == 1 {
		stop = ints[0]
	} else {
		start, stop = max(ints[0], 0), ints[1]
		if len(ints) == 3 && ints[2] > 0 {
			step = ints[2]
		}
	}
	var out []starlark.Value
	i := 0
	stopErr := errStop
	err := forEach(thread, args[0], func(x starlark.Value) error {
		if stop >= 0 && i >= stop {
			return stopErr
		}
		if i >= start && (i-start)%step == 0 {
			out = append(out, x)
		}
		i++
		return nil
	})
	if err != nil && err != stopErr {
		return nil, err
	}
	return starlark.NewList(out), nil
}

// itertoolsGroupby implements itertools.groupby.
func itertoolsGroupby(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it, key starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("groupby", args, kwargs, "iterable", &it, "key?", &key); err != nil {
		return nil, err
	}
	elems, err := collect(thread, it)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	var curKey starlark.Value
	var cur []starlark.Value
	flush := func() {
		if cur != nil {
			out = append(out, starlark.Tuple{curKey, starlark.NewList(cur)})
		}
	}
	for _, x := range elems {
		k := x
		if key != starlark.None {
			if k, err = starlark.Call(thread, key, starlark.Tuple{x}, nil); err != nil {
				return nil, err
			}
		}
		if cur != nil {
			if eq, _ := starlark.Equal(k, curKey); eq {
				cur = append(cur, x)
				continue
			}
		}
		flush()
		curKey, cur = k, []starlark.Value{x}
	}
	flush()
	return starlark.NewList(out), nil
}

// itertoolsCombinations implements itertools.combinations.
func itertoolsCombinations(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var r int
	if err := starlark.UnpackPositionalArgs("combinations", args, kwargs, 2, &it, &r); err != nil {
		return nil, err
	}
	if r < 0 {
		return nil, &PyError{Kind: "ValueError", Msg: "r must be non-negative"}
	}
	elems, err := collect(thread, it)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	idx := make([]int, r)
	var rec func(start, depth int) error
	rec = func(start, depth int) error {
		if depth == r {
			t := make(starlark.Tuple, r)
			for i, j := range idx {
				t[i] = elems[j]
			}
			out = append(out, t)
			return checkAlloc(thread, int64(len(out))*int64(16*r+32))
		}
		for i := start; i < len(elems); i++ {
			idx[depth] = i
			if err := rec(i+1, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if r <= len(elems) {
		if err := rec(0, 0); err != nil {
			return nil, err
		}
	}
	return starlark.NewList(out), nil
}

// itertoolsAccumulate implements itertools.accumulate.
func itertoolsAccumulate(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var fn starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs("accumulate", args, kwargs, 1, &it, &fn); err != nil {
		return nil, err
	}
	var out []starlark.Value
	var acc starlark.Value
	err := forEach(thread, it, func(x starlark.Value) error {
		var err error
		switch {
		case acc == nil:
			acc = x
		case fn == starlark.None:
			acc, err = add(acc, x)
		default:
			acc, err = starlark.Call(thread, fn, starlark.Tuple{acc, x}, nil)
		}
		out = append(out, acc)
		return err
	})
	if err != nil {
		return nil, err
	}
	return starlark.NewList(out), nil
}

// countObj is itertools.count: an infinite arithmetic sequence; it is its
// own iterator (next() and loops consume it).
type countObj struct{ start, cur, step starlark.Value }

func (c *countObj) next() starlark.Value {
	v := c.cur
	if n, err := add(c.cur, c.step); err == nil {
		c.cur = n
	}
	return v
}

func (c *countObj) String() string             { return "count(" + Repr(c.start) + ")" }
func (c *countObj) Type() string               { return "itertools.count" }
func (c *countObj) Freeze()                    {}
func (c *countObj) Truth() starlark.Bool       { return true }
func (c *countObj) Hash() (uint32, error)      { return 0, errors.New("unhashable type: 'itertools.count'") }
func (c *countObj) Iterate() starlark.Iterator { return countIter{c} }

type countIter struct{ c *countObj }

func (it countIter) Next(p *starlark.Value) bool {
	*p = it.c.next()
	return true
}
func (it countIter) Done() {}

var errStop = &PyError{Kind: "StopIteration"}

func stringModule() *module {
	return newModule("string", map[string]builtinFn{"capwords": stringCapwords, "Template": stringTemplate}, starlark.StringDict{
		"ascii_letters":   starlark.String("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
		"ascii_lowercase": starlark.String("abcdefghijklmnopqrstuvwxyz"),
		"ascii_uppercase": starlark.String("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
		"digits":          starlark.String("0123456789"),
		"hexdigits":       starlark.String("0123456789abcdefABCDEF"),
		"octdigits":       starlark.String("01234567"),
		"punctuation":     starlark.String("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
		"whitespace":      starlark.String(" \t\n\r\x0b\x0c"),
		"printable":       starlark.String("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\n\r\x0b\x0c"),
	})
}

func numbers(thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) ([]float64, bool, error) {
	x, err := oneArg(name, args, kwargs)
	if err != nil {
		return nil, false, err
	}
	var out []float64
	allInt := true
	err = forEach(thread, x, func(v starlark.Value) error {
		if _, ok := v.(starlark.Int); !ok {
			allInt = false
		}
		f, err := floatArg(name, v)
		out = append(out, f)
		return err
	})
	if err == nil && len(out) == 0 {
		err = &PyError{Kind: "StatisticsError", Msg: name + " requires at least one data point"}
	}
	return out, allInt, err
}

func statisticsModule() *module {
	return newModule("statistics", map[string]builtinFn{
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
	}, starlark.StringDict{"StatisticsError": excTypes["StatisticsError"]})
}

// sortedData is the one argument of a median function, collected and
// sorted; empty data is CPython's StatisticsError.
func sortedData(thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (*starlark.List, error) {
	x, err := oneArg(name, args, kwargs)
	if err != nil {
		return nil, err
	}
	elems, err := collect(thread, x)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, &PyError{Kind: "StatisticsError", Msg: "no median for empty data"}
	}
	l := starlark.NewList(elems)
	if err := sortList(thread, l, starlark.None, false); err != nil {
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
	s, err := add(l.Index(n/2-1), l.Index(n/2))
	if err != nil {
		return nil, err
	}
	return binary(syntax.SLASH, s, starlark.MakeInt(2))
}

// counted is the one argument of a mode function counted, most common
// first (ties in first-seen order).
func counted(thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) ([]starlark.Tuple, error) {
	x, err := oneArg(name, args, kwargs)
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
		return nil, &PyError{Kind: "StatisticsError", Msg: "no mode for empty data"}
	}
	return items[0][0], nil
}

func functoolsModule() *module {
	return newModule("functools", map[string]builtinFn{
		"reduce": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var fn, it, init starlark.Value
			if err := starlark.UnpackPositionalArgs("reduce", args, kwargs, 2, &fn, &it, &init); err != nil {
				return nil, err
			}
			acc := init
			err := forEach(thread, it, func(x starlark.Value) error {
				if acc == nil {
					acc = x
					return nil
				}
				var err error
				acc, err = starlark.Call(thread, fn, starlark.Tuple{acc, x}, nil)
				return err
			})
			if err != nil {
				return nil, err
			}
			if acc == nil {
				return nil, Errorf("TypeError", "reduce() of empty iterable with no initial value")
			}
			return acc, nil
		},
		"lru_cache": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			// @lru_cache and @lru_cache(maxsize=...) both work.
			if len(args) == 1 {
				if _, ok := args[0].(starlark.Callable); ok {
					return &memoized{fn: args[0], cache: starlark.NewDict(0), maxsize: 128}, nil
				}
			}
			var maxsize starlark.Value = starlark.MakeInt(128)
			var typed starlark.Value
			if err := starlark.UnpackArgs("lru_cache", args, kwargs, "maxsize?", &maxsize, "typed?", &typed); err != nil {
				return nil, err
			}
			size := -1
			if maxsize != starlark.None {
				n, err := starlark.AsInt32(maxsize)
				if err != nil {
					return nil, Errorf("TypeError", "Expected first argument to be an integer, a callable, or None")
				}
				size = max(n, 0)
			}
			return NewBuiltin("lru_cache", func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if len(args) != 1 {
					return nil, argErr("lru_cache", "decorator takes one function")
				}
				return &memoized{fn: args[0], cache: starlark.NewDict(0), maxsize: size}, nil
			}), nil
		},
		"cache": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) != 1 {
				return nil, argErr("cache", "takes one function")
			}
			return &memoized{fn: args[0], cache: starlark.NewDict(0), maxsize: -1}, nil
		},
		"partial": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) < 1 {
				return nil, Errorf("TypeError", "type 'partial' takes at least one argument")
			}
			if _, ok := args[0].(starlark.Callable); !ok {
				return nil, Errorf("TypeError", "the first argument must be callable")
			}
			kw := starlark.NewDict(len(kwargs))
			for _, kv := range kwargs {
				if err := kw.SetKey(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
			return &partialFn{fn: args[0], args: append(starlark.Tuple(nil), args[1:]...), kw: kw}, nil
		},
		"cmp_to_key": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var cmp starlark.Value
			if err := starlark.UnpackArgs("cmp_to_key", args, kwargs, "mycmp", &cmp); err != nil {
				return nil, err
			}
			return NewBuiltin("functools.KeyWrapper", func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var obj starlark.Value
				if err := starlark.UnpackPositionalArgs("K", args, kwargs, 1, &obj); err != nil {
					return nil, err
				}
				return &cmpKey{obj: obj, cmp: cmp, thread: thread}, nil
			}), nil
		},
	}, nil)
}

// memoized is a function wrapped by functools.lru_cache / functools.cache.
type memoized struct {
	fn           starlark.Value
	cache        *starlark.Dict // least recently used first
	maxsize      int            // -1: unbounded
	hits, misses int
}

var _ starlark.HasAttrs = (*memoized)(nil)

// AttrNames lists the lru_cache wrapper's methods.
func (m *memoized) AttrNames() []string { return []string{"cache_clear", "cache_info"} }

// Attr returns cache_info or cache_clear.
func (m *memoized) Attr(name string) (starlark.Value, error) {
	switch name {
	case "cache_info":
		return NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			var size starlark.Value = starlark.None
			if m.maxsize >= 0 {
				size = starlark.MakeInt(m.maxsize)
			}
			return typeCacheInfo.call(nil, starlark.Tuple{starlark.MakeInt(m.hits), starlark.MakeInt(m.misses), size, starlark.MakeInt(m.cache.Len())}, nil)
		}), nil
	case "cache_clear":
		return NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			m.cache = starlark.NewDict(0)
			m.hits, m.misses = 0, 0
			return starlark.None, nil
		}), nil
	}
	return nil, nil
}

// typeCacheInfo is functools._CacheInfo.
var typeCacheInfo = func() *typeObj {
	t, err := namedtuple(nil, nil, starlark.Tuple{starlark.String("CacheInfo"), starlark.String("hits misses maxsize currsize")}, nil)
	if err != nil {
		panic(err)
	}
	return t.(*typeObj)
}()

func (m *memoized) String() string       { return Repr(m.fn) }
func (m *memoized) Type() string         { return "function" }
func (m *memoized) Freeze()              {}
func (m *memoized) Truth() starlark.Bool { return true }
func (m *memoized) Hash() (uint32, error) {
	return 0, errors.New("unhashable type: 'functools._lru_cache_wrapper'")
}
func (m *memoized) Name() string {
	if c, ok := m.fn.(starlark.Callable); ok {
		return c.Name()
	}
	return "memoized"
}

func (m *memoized) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var key starlark.Value = args
	if len(kwargs) > 0 {
		key = starlark.Tuple{args, starlark.String(Repr(starlark.Tuple(func() []starlark.Value {
			out := make([]starlark.Value, len(kwargs))
			for i, kv := range kwargs {
				out[i] = kv
			}
			return out
		}())))}
	}
	if v, found, err := m.cache.Get(key); err == nil && found {
		m.hits++
		if m.maxsize >= 0 && m.cache.Len() > 1 { // most recently used last
			m.cache.Delete(key)
			m.cache.SetKey(key, v)
		}
		return v, nil
	} else if err != nil {
		return nil, err // unhashable arguments, as in Python
	}
	m.misses++
	v, err := starlark.Call(thread, m.fn, args, kwargs)
	if err != nil {
		return nil, err
	}
	if err := checkAlloc(thread, int64(m.cache.Len())*64); err != nil {
		return nil, err
	}
	if m.maxsize == 0 {
		return v, nil
	}
	if m.maxsize > 0 && m.cache.Len() >= m.maxsize {
		if oldest, _, ok := firstItem(m.cache); ok {
			m.cache.Delete(oldest)
		}
	}
	m.cache.SetKey(key, v)
	return v, nil
}

// itertoolsWhile implements itertools.takewhile (take true) and dropwhile.
func itertoolsWhile(name string, take bool) builtinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var pred, it starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 2, &pred, &it); err != nil {
			return nil, err
		}
		var out []starlark.Value
		dropping := true
		err := forEach(thread, it, func(x starlark.Value) error {
			if take || dropping {
				ok, err := starlark.Call(thread, pred, starlark.Tuple{x}, nil)
				if err != nil {
					return err
				}
				if take && !bool(ok.Truth()) {
					return errStop
				}
				if !take && bool(ok.Truth()) {
					return nil
				}
				dropping = false
			}
			out = append(out, x)
			return checkAlloc(thread, int64(len(out))*listElemBytes)
		})
		if err != nil && err != errStop {
			return nil, err
		}
		return starlark.NewList(out), nil
	}
}

// itertoolsPairwise implements itertools.pairwise.
func itertoolsPairwise(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("pairwise", args, kwargs)
	if err != nil {
		return nil, err
	}
	elems, err := collect(thread, x)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	for i := 0; i+1 < len(elems); i++ {
		out = append(out, starlark.Tuple{elems[i], elems[i+1]})
	}
	return starlark.NewList(out), checkAlloc(thread, int64(len(out))*64)
}

// itertoolsStarmap implements itertools.starmap.
func itertoolsStarmap(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn, it starlark.Value
	if err := starlark.UnpackPositionalArgs("starmap", args, kwargs, 2, &fn, &it); err != nil {
		return nil, err
	}
	var out []starlark.Value
	err := forEach(thread, it, func(x starlark.Value) error {
		a, err := collect(thread, x)
		if err != nil {
			return err
		}
		v, err := starlark.Call(thread, fn, starlark.Tuple(a), nil)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return starlark.NewList(out), nil
}

// itertoolsRepeat implements itertools.repeat with a count (without one
// it is infinite, which the eager sandbox cannot build).
func itertoolsRepeat(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var times starlark.Value = starlark.None
	if err := starlark.UnpackArgs("repeat", args, kwargs, "object", &x, "times?", &times); err != nil {
		return nil, err
	}
	if times == starlark.None {
		return nil, Errorf("ValueError", "itertools.repeat() without times is infinite, which is not supported here: pass times (repeat(x, n)) or use [x] * n")
	}
	n, err := starlark.AsInt32(times)
	if err != nil {
		return nil, err
	}
	n = max(n, 0)
	if err := checkAlloc(thread, int64(n)*listElemBytes); err != nil {
		return nil, err
	}
	out := make([]starlark.Value, n)
	for i := range out {
		out[i] = x
	}
	return starlark.NewList(out), nil
}

// itertoolsCompress implements itertools.compress.
func itertoolsCompress(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data, sel starlark.Value
	if err := starlark.UnpackArgs("compress", args, kwargs, "data", &data, "selectors", &sel); err != nil {
		return nil, err
	}
	d, err := collect(thread, data)
	if err != nil {
		return nil, err
	}
	s, err := collect(thread, sel)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	for i := 0; i < len(d) && i < len(s); i++ {
		if s[i].Truth() {
			out = append(out, d[i])
		}
	}
	return starlark.NewList(out), nil
}

// itertoolsFilterfalse implements itertools.filterfalse.
func itertoolsFilterfalse(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pred, it starlark.Value
	if err := starlark.UnpackPositionalArgs("filterfalse", args, kwargs, 2, &pred, &it); err != nil {
		return nil, err
	}
	return filterBy(thread, pred, it, false)
}

// stringCapwords implements string.capwords.
func stringCapwords(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	var sep starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs("capwords", args, kwargs, 1, &s, &sep); err != nil {
		return nil, err
	}
	var words []string
	joiner := " "
	if sep == starlark.None {
		words = strings.Fields(s)
	} else {
		sp, ok := starlark.AsString(sep)
		if !ok {
			return nil, Errorf("TypeError", "capwords() argument 2 must be str or None")
		}
		words, joiner = strings.Split(s, sp), sp
	}
	for i, w := range words {
		r := []rune(w)
		if len(r) > 0 {
			words[i] = strings.ToUpper(string(r[:1])) + strings.ToLower(string(r[1:]))
		}
	}
	return starlark.String(strings.Join(words, joiner)), nil
}

// statisticsQuantiles implements statistics.quantiles (method
// 'exclusive', the default, or 'inclusive').
func statisticsQuantiles(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data starlark.Value
	n := 4
	method := "exclusive"
	if err := starlark.UnpackArgs("quantiles", args, kwargs, "data", &data, "n?", &n, "method?", &method); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, &PyError{Kind: "StatisticsError", Msg: "n must be at least 1"}
	}
	if starlark.Len(data) == 0 {
		return nil, &PyError{Kind: "StatisticsError", Msg: "must have at least two data points"}
	}
	xs, _, err := numbers(thread, "quantiles", starlark.Tuple{data}, nil)
	if err != nil {
		return nil, err
	}
	m := len(xs)
	if m < 2 {
		return nil, &PyError{Kind: "StatisticsError", Msg: "must have at least two data points"}
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
		return nil, Errorf("ValueError", "Unknown method: %s", Repr(starlark.String(method)))
	}
	return starlark.NewList(out), nil
}

// templateObj is string.Template.
type templateObj struct{ tmpl string }

var templatePattern = regexp.MustCompile(`\$(?:(\$)|([_a-zA-Z][_a-zA-Z0-9]*)|\{([_a-zA-Z][_a-zA-Z0-9]*)\}|())`)

func (t *templateObj) String() string        { return "<string.Template object>" }
func (t *templateObj) Type() string          { return "Template" }
func (t *templateObj) Freeze()               {}
func (t *templateObj) Truth() starlark.Bool  { return true }
func (t *templateObj) Hash() (uint32, error) { return starlark.String(t.tmpl).Hash() }
func (t *templateObj) AttrNames() []string {
	return []string{"safe_substitute", "substitute", "template"}
}

func (t *templateObj) Attr(name string) (starlark.Value, error) {
	switch name {
	case "template":
		return starlark.String(t.tmpl), nil
	case "substitute", "safe_substitute":
		safe := name == "safe_substitute"
		return NewBuiltin("Template."+name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) > 1 {
				return nil, Errorf("TypeError", "Too many positional arguments")
			}
			lookup := func(k string) (starlark.Value, bool, error) {
				for _, kv := range kwargs {
					if s, _ := starlark.AsString(kv[0]); s == k {
						return kv[1], true, nil
					}
				}
				if len(args) == 1 {
					m, ok := args[0].(starlark.Mapping)
					if !ok {
						return nil, false, Errorf("TypeError", "'%s' object is not subscriptable", pyType(args[0]))
					}
					v, found, err := m.Get(starlark.String(k))
					return v, found, err
				}
				return nil, false, nil
			}
			var b strings.Builder
			last := 0
			for _, m := range templatePattern.FindAllStringSubmatchIndex(t.tmpl, -1) {
				b.WriteString(t.tmpl[last:m[0]])
				last = m[1]
				switch {
				case m[2] >= 0:
					b.WriteByte('$')
				case m[4] >= 0 || m[6] >= 0:
					var k string
					if m[4] >= 0 {
						k = t.tmpl[m[4]:m[5]]
					} else {
						k = t.tmpl[m[6]:m[7]]
					}
					v, ok, err := lookup(k)
					if err != nil {
						return nil, err
					}
					if !ok {
						if safe {
							b.WriteString(t.tmpl[m[0]:m[1]])
							continue
						}
						return nil, &PyError{Kind: "KeyError", Msg: Repr(starlark.String(k))}
					}
					b.WriteString(Str(v))
				default:
					if safe {
						b.WriteString(t.tmpl[m[0]:m[1]])
						continue
					}
					line := 1 + strings.Count(t.tmpl[:m[0]], "\n")
					col := utf8.RuneCountInString(t.tmpl[strings.LastIndexByte(t.tmpl[:m[0]], '\n')+1:m[0]]) + 1
					return nil, Errorf("ValueError", "Invalid placeholder in string: line %d, col %d", line, col)
				}
			}
			b.WriteString(t.tmpl[last:])
			return starlark.String(b.String()), nil
		}), nil
	}
	return nil, nil
}

// stringTemplate implements string.Template(template).
func stringTemplate(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs("Template", args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	return &templateObj{tmpl: s}, nil
}

// firstItem returns d's first key (insertion order).
func firstItem(d *starlark.Dict) (starlark.Value, starlark.Value, bool) {
	for k, v := range d.Entries() {
		return k, v, true
	}
	return nil, nil, false
}

// partialFn is functools.partial(fn, *args, **keywords).
type partialFn struct {
	fn   starlark.Value
	args starlark.Tuple
	kw   *starlark.Dict
}

var (
	_ starlark.Callable = (*partialFn)(nil)
	_ starlark.HasAttrs = (*partialFn)(nil)
)

func (p *partialFn) String() string        { return Repr(p) }
func (p *partialFn) Type() string          { return "functools.partial" }
func (p *partialFn) Freeze()               {}
func (p *partialFn) Truth() starlark.Bool  { return true }
func (p *partialFn) Hash() (uint32, error) { return uint32(uintptr(unsafe.Pointer(p))), nil }
func (p *partialFn) Name() string          { return "partial" }
func (p *partialFn) writeRepr(r *renderer) {
	r.b.WriteString("functools.partial(")
	r.repr(p.fn)
	for _, a := range p.args {
		r.b.WriteString(", ")
		r.repr(a)
	}
	for _, kv := range p.kw.Items() {
		k, _ := starlark.AsString(kv[0])
		r.b.WriteString(", " + k + "=")
		r.repr(kv[1])
	}
	r.b.WriteByte(')')
}

// CallInternal calls fn with the bound arguments first; keywords of the
// call override the bound ones.
func (p *partialFn) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	kw := starlark.NewDict(p.kw.Len() + len(kwargs))
	for _, kv := range p.kw.Items() {
		kw.SetKey(kv[0], kv[1])
	}
	for _, kv := range kwargs {
		if err := kw.SetKey(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	all := append(append(starlark.Tuple(nil), p.args...), args...)
	return starlark.Call(thread, p.fn, all, kw.Items())
}

// AttrNames lists func, args and keywords.
func (p *partialFn) AttrNames() []string { return []string{"args", "func", "keywords"} }

// Attr returns func, args or keywords.
func (p *partialFn) Attr(name string) (starlark.Value, error) {
	switch name {
	case "func":
		return p.fn, nil
	case "args":
		return p.args, nil
	case "keywords":
		return p.kw.Copy(), nil
	}
	return nil, nil
}

// cmpKey is a key of functools.cmp_to_key: it orders by the cmp function.
type cmpKey struct {
	obj, cmp starlark.Value
	thread   *starlark.Thread
}

var _ starlark.Comparable = (*cmpKey)(nil)

func (k *cmpKey) String() string       { return "<functools.KeyWrapper object>" }
func (k *cmpKey) Type() string         { return "functools.KeyWrapper" }
func (k *cmpKey) Freeze()              {}
func (k *cmpKey) Truth() starlark.Bool { return true }
func (k *cmpKey) Hash() (uint32, error) {
	return 0, Errorf("TypeError", "unhashable type: 'functools.KeyWrapper'")
}

// CompareSameType orders keys by the sign of cmp(a, b).
func (k *cmpKey) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	v, err := starlark.Call(k.thread, k.cmp, starlark.Tuple{k.obj, y.(*cmpKey).obj}, nil)
	if err != nil {
		return false, err
	}
	c, err := starlark.Compare(op, v, starlark.MakeInt(0))
	if err != nil {
		return false, Errorf("TypeError", "the comparison function must return a number, not '%s'", pyType(v))
	}
	return c, nil
}
