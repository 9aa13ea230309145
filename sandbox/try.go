package sandbox

import (
	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// pyTry implements _py_try(fn, types0, types1, ...): call fn(); on
// success return (-1, value); on a catchable error return (i, exc) for the
// first handler whose type list matches (an empty list matches all), else
// (-2, exc).
func pyTry(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 1 {
		return nil, py.ArgErr("_py_try", "needs a function")
	}
	v, err := starlark.Call(thread, args[0], nil, nil)
	if err == nil {
		return starlark.Tuple{starlark.MakeInt(-1), v}, nil
	}
	st := runningStep(thread)
	if st == nil || !st.catchable(err) {
		return nil, err
	}
	se := st.scriptError(err, "")
	exc := py.ExceptionFromError(se.Kind, se.Msg, se.Err, se)
	exc.SetCause(se, se.Err != nil)
	for i, tl := range args[1:] {
		types, err := py.Collect(thread, tl)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(types))
		for _, t := range types {
			if s, ok := t.(starlark.String); ok {
				names = append(names, string(s))
			}
		}
		if py.HandlerMatches(names, exc.Typ, func(name string) *py.TypeObj { return st.sess.lookupClass(thread, name) }) {
			return starlark.Tuple{starlark.MakeInt(i), exc.Value()}, nil
		}
	}
	return starlark.Tuple{starlark.MakeInt(-2), exc.Value()}, nil
}
