package pylib

import (
	"errors"
	"math"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// chainLists is the items of the iterables args, one after the other, as a
// list (itertools.chain and chain.from_iterable).
func chainLists(thread *starlark.Thread, args starlark.Tuple) (starlark.Value, error) {
	var out []starlark.Value
	for _, a := range args {
		elems, err := py.Collect(thread, a)
		if err != nil {
			return nil, err
		}
		out = append(out, elems...)
		if err := py.CheckAlloc(thread, int64(len(out))*16); err != nil {
			return nil, err
		}
	}
	return starlark.NewList(out), nil
}

var _ = py.RegisterModule("itertools", itertoolsModule)

// itertoolsModule builds the itertools module on its first import.
func itertoolsModule() *py.Module {
	chain := &py.TypeObj{
		PyName: "chain",
		Call: func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return chainLists(thread, args)
		},
	}
	chain.Attrs = starlark.StringDict{
		"from_iterable": py.NewBuiltin(
			"chain.from_iterable",
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				x, err := py.OneArg("chain.from_iterable", args, kwargs)
				if err != nil {
					return nil, err
				}
				parts, err := py.Collect(thread, x)
				if err != nil {
					return nil, err
				}
				return chainLists(thread, parts)
			},
		),
	}
	return py.NewModule("itertools", map[string]py.BuiltinFn{
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
func itertoolsPermutations(
	thread *starlark.Thread,
	_ *starlark.Builtin,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	var it, rv starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("permutations", args, kwargs, "iterable", &it, "r?", &rv); err != nil {
		return nil, err
	}
	elems, err := py.Collect(thread, it)
	if err != nil {
		return nil, err
	}
	r := len(elems)
	if rv != starlark.None {
		if r, err = starlark.AsInt32(rv); err != nil {
			return nil, err
		}
		if r < 0 {
			return nil, &py.PyError{Kind: "ValueError", Msg: "r must be non-negative"}
		}
	}
	var out []starlark.Value
	used := make([]bool, len(elems))
	cur := make([]starlark.Value, 0, r)
	var rec func() error
	rec = func() error {
		if len(cur) == r {
			out = append(out, append(starlark.Tuple(nil), cur...))
			return py.CheckAlloc(thread, int64(len(out))*int64(16*r+32))
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
			elems, err := py.Collect(thread, a)
			if err != nil {
				return nil, err
			}
			pools = append(pools, elems)
		}
	}
	// The result's size before building any of it: len(pools[0]) * ...
	// tuples of len(pools) elements (saturating).
	total := int64(1)
	for _, pool := range pools {
		if total = py.SatMul(total, int64(len(pool))); total == 0 {
			break
		}
	}
	if err := py.CheckAlloc(thread, py.SatMul(total, int64(16*len(pools)+32))); err != nil {
		return nil, err
	}
	out := []starlark.Value{starlark.Tuple{}}
	for _, pool := range pools {
		var next []starlark.Value
		for _, t := range out {
			for _, e := range pool {
				next = append(next, append(append(starlark.Tuple(nil), t.(starlark.Tuple)...), e))
			}
		}
		if err := py.CheckAlloc(thread, int64(len(next))*int64(16*len(pools)+32)); err != nil {
			return nil, err
		}
		out = next
	}
	return starlark.NewList(out), nil
}

// itertoolsZipLongest implements itertools.zip_longest.
func itertoolsZipLongest(
	thread *starlark.Thread,
	_ *starlark.Builtin,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	var fill starlark.Value = starlark.None
	if err := starlark.UnpackArgs("zip_longest", nil, kwargs, "fillvalue?", &fill); err != nil {
		return nil, err
	}
	lists := make([][]starlark.Value, len(args))
	n := 0
	for i, a := range args {
		elems, err := py.Collect(thread, a)
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
		return nil, py.ArgErr("islice", "expected 2 to 4 arguments")
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
	err := py.ForEach(thread, args[0], func(x starlark.Value) error {
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
	elems, err := py.Collect(thread, it)
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
func itertoolsCombinations(
	thread *starlark.Thread,
	_ *starlark.Builtin,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	var it starlark.Value
	var r int
	if err := starlark.UnpackPositionalArgs("combinations", args, kwargs, 2, &it, &r); err != nil {
		return nil, err
	}
	if r < 0 {
		return nil, &py.PyError{Kind: "ValueError", Msg: "r must be non-negative"}
	}
	elems, err := py.Collect(thread, it)
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
			return py.CheckAlloc(thread, int64(len(out))*int64(16*r+32))
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
func itertoolsAccumulate(
	thread *starlark.Thread,
	_ *starlark.Builtin,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	var it starlark.Value
	var fn starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs("accumulate", args, kwargs, 1, &it, &fn); err != nil {
		return nil, err
	}
	var out []starlark.Value
	var acc starlark.Value
	err := py.ForEach(thread, it, func(x starlark.Value) error {
		var err error
		switch {
		case acc == nil:
			acc = x
		case fn == starlark.None:
			acc, err = py.Add(acc, x)
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

func (c *countObj) Next() starlark.Value {
	v := c.cur
	if n, err := py.Add(c.cur, c.step); err == nil {
		c.cur = n
	}
	return v
}

func (c *countObj) String() string             { return "count(" + py.Repr(c.start) + ")" }
func (c *countObj) Type() string               { return "itertools.count" }
func (c *countObj) Freeze()                    {}
func (c *countObj) Truth() starlark.Bool       { return true }
func (c *countObj) Hash() (uint32, error)      { return 0, errors.New("unhashable type: 'itertools.count'") }
func (c *countObj) Iterate() starlark.Iterator { return countIter{c} }

// countIter iterates a countObj.
type countIter struct{ c *countObj }

func (it countIter) Next(p *starlark.Value) bool {
	*p = it.c.Next()
	return true
}
func (it countIter) Done() {}

// errStop ends an iteration early (a StopIteration inside a callback).
var errStop = &py.PyError{Kind: "StopIteration"}

// itertoolsWhile implements itertools.takewhile (take true) and dropwhile.
func itertoolsWhile(name string, take bool) py.BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var pred, it starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 2, &pred, &it); err != nil {
			return nil, err
		}
		var out []starlark.Value
		dropping := true
		err := py.ForEach(thread, it, func(x starlark.Value) error {
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
			return py.CheckAlloc(thread, int64(len(out))*py.ListElemBytes)
		})
		if err != nil && err != errStop {
			return nil, err
		}
		return starlark.NewList(out), nil
	}
}

// itertoolsPairwise implements itertools.pairwise.
func itertoolsPairwise(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := py.OneArg("pairwise", args, kwargs)
	if err != nil {
		return nil, err
	}
	elems, err := py.Collect(thread, x)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	for i := 0; i+1 < len(elems); i++ {
		out = append(out, starlark.Tuple{elems[i], elems[i+1]})
	}
	return starlark.NewList(out), py.CheckAlloc(thread, int64(len(out))*64)
}

// itertoolsStarmap implements itertools.starmap.
func itertoolsStarmap(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn, it starlark.Value
	if err := starlark.UnpackPositionalArgs("starmap", args, kwargs, 2, &fn, &it); err != nil {
		return nil, err
	}
	var out []starlark.Value
	err := py.ForEach(thread, it, func(x starlark.Value) error {
		a, err := py.Collect(thread, x)
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
		return nil, py.Errorf(
			"ValueError",
			"itertools.repeat() without times is infinite, which is not supported here: pass times (repeat(x, n)) or use [x] * n",
		)
	}
	var n64 int64
	if err := starlark.AsInt(times, &n64); err != nil {
		if _, isInt := times.(starlark.Int); !isInt {
			return nil, err
		}
		n64 = math.MaxInt64 // an int past int64: more than any memory holds
	}
	n64 = max(n64, 0)
	if err := py.CheckAlloc(thread, py.SatMul(n64, py.ListElemBytes)); err != nil {
		return nil, err
	}
	n := int(n64)
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
	d, err := py.Collect(thread, data)
	if err != nil {
		return nil, err
	}
	s, err := py.Collect(thread, sel)
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
func itertoolsFilterfalse(
	thread *starlark.Thread,
	_ *starlark.Builtin,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, error) {
	var pred, it starlark.Value
	if err := starlark.UnpackPositionalArgs("filterfalse", args, kwargs, 2, &pred, &it); err != nil {
		return nil, err
	}
	return py.FilterBy(thread, pred, it, false)
}
