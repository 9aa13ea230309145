package sandbox

import (
	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// pyTry implements _py_try(fn, types0, types1, ...): call fn(); on
// success return (-1, value); on a catchable error return (i, exc) for the
// first handler whose type list matches (an empty list matches all), else
// (-2, exc).
func pyTry(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 1 {
		return nil, argErr("_py_try", "needs a function")
	}
	v, err := starlark.Call(thread, args[0], nil, nil)
	if err == nil {
		return starlark.Tuple{starlark.MakeInt(-1), v}, nil
	}
	st := stepOf(thread)
	if st == nil || !st.catchable(err) {
		return nil, err
	}
	se := st.scriptError(err, "")
	exc := exceptionFromError(se)
	exc.cause = se
	for i, tl := range args[1:] {
		types, err := collect(thread, tl)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(types))
		for _, t := range types {
			if s, ok := t.(starlark.String); ok {
				names = append(names, string(s))
			}
		}
		if handlerMatches(names, exc.typ, func(name string) *typeObj { return st.sess.lookupClass(thread, name) }) {
			return starlark.Tuple{starlark.MakeInt(i), exc.value()}, nil
		}
	}
	return starlark.Tuple{starlark.MakeInt(-2), exc.value()}, nil
}

// pySetSlice implements _py_setslice(container, lo, hi, step, value).
func pySetSlice(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 5 {
		return nil, argErr("_py_setslice", "takes 5 arguments")
	}
	l, ok := args[0].(*starlark.List)
	if !ok {
		return nil, Errorf("TypeError", "'%s' object does not support slice assignment", pyType(args[0]))
	}
	vals, err := collect(thread, args[4])
	if err != nil {
		return nil, err
	}
	n := l.Len()
	idx := make([]starlark.Value, n)
	for i := range idx {
		idx[i] = starlark.MakeInt(i)
	}
	sel, err := sliceValue(starlark.NewList(idx), args[1], args[2], args[3])
	if err != nil {
		return nil, err
	}
	picked, _ := collect(thread, sel)
	elems := make([]starlark.Value, n)
	for i := range elems {
		elems[i] = l.Index(i)
	}
	step := 1
	if args[3] != starlark.None {
		step, _ = starlark.AsInt32(args[3])
	}
	var out []starlark.Value
	if step == 1 {
		lo, hi := 0, 0
		if len(picked) > 0 {
			a, _ := starlark.AsInt32(picked[0])
			b, _ := starlark.AsInt32(picked[len(picked)-1])
			lo, hi = a, b+1
		} else {
			// Empty selection: insert at the clamped start.
			v, err := sliceValue(starlark.NewList(append(idx, starlark.MakeInt(n))), args[1], starlark.None, starlark.None)
			if err != nil {
				return nil, err
			}
			first, _ := collect(thread, v)
			lo = n
			if len(first) > 0 {
				lo, _ = starlark.AsInt32(first[0])
			}
			hi = lo
		}
		out = append(append(append(out, elems[:lo]...), vals...), elems[hi:]...)
	} else {
		if len(picked) != len(vals) {
			return nil, Errorf("ValueError", "attempt to assign sequence of size %d to extended slice of size %d", len(vals), len(picked))
		}
		out = elems
		for k, p := range picked {
			i, _ := starlark.AsInt32(p)
			out[i] = vals[k]
		}
	}
	if _, err := starlark.Call(thread, mustAttr(l, "clear"), nil, nil); err != nil {
		return nil, err
	}
	for _, x := range out {
		if err := l.Append(x); err != nil {
			return nil, err
		}
	}
	return starlark.None, nil
}
