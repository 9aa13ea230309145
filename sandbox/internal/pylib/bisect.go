package pylib

import (
	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

var _ = py.RegisterModule("bisect", bisectModule)

// bisectModule builds the bisect module on its first import.
func bisectModule() *py.Module {
	bis := func(name string, right, insert bool) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, x starlark.Value
			lo, hi := 0, -1
			var key starlark.Value = starlark.None
			if err := starlark.UnpackArgs(name, args, kwargs, "a", &a, "x", &x, "lo?", &lo, "hi?", &hi, "key?", &key); err != nil {
				return nil, err
			}
			seq, ok := a.(starlark.Indexable)
			if !ok {
				return nil, py.Errorf("TypeError", "%s: a must be a sequence", name)
			}
			if hi < 0 {
				hi = seq.Len()
			}
			kx := x
			for lo < hi {
				mid := (lo + hi) / 2
				m := seq.Index(mid)
				if key != starlark.None {
					var err error
					if m, err = starlark.Call(thread, key, starlark.Tuple{m}, nil); err != nil {
						return nil, err
					}
				}
				var goRight bool
				var err error
				if right {
					var lt bool
					lt, err = py.Less(kx, m)
					goRight = !lt
				} else {
					goRight, err = py.Less(m, kx)
				}
				if err != nil {
					return nil, err
				}
				if goRight {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			if insert {
				l, ok := a.(*starlark.List)
				if !ok {
					return nil, py.Errorf("TypeError", "%s: a must be a list", name)
				}
				_, err := starlark.Call(thread, py.MustAttr(l, "insert"), starlark.Tuple{starlark.MakeInt(lo), x}, nil)
				return starlark.None, err
			}
			return starlark.MakeInt(lo), nil
		}
	}
	return py.NewModule("bisect", map[string]py.BuiltinFn{
		"bisect":       bis("bisect", true, false),
		"bisect_right": bis("bisect_right", true, false),
		"bisect_left":  bis("bisect_left", false, false),
		"insort":       bis("insort", true, true),
		"insort_right": bis("insort_right", true, true),
		"insort_left":  bis("insort_left", false, true),
	}, nil)
}
