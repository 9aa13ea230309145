package pylib

import (
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

var _ = py.RegisterModule("operator", operatorModule)

// operatorModule builds the operator module on its first import.
func operatorModule() *py.Module {
	getter := func(name string, attr bool) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return nil, py.ArgErr(name, "expected at least 1 argument")
			}
			keys := append(starlark.Tuple(nil), args...)
			get := func(v starlark.Value, k starlark.Value) (starlark.Value, error) {
				if attr {
					s, _ := starlark.AsString(k)
					cur := v
					for _, part := range strings.Split(s, ".") {
						ha, ok := cur.(starlark.HasAttrs)
						if !ok {
							return nil, py.Errorf("AttributeError", "'%s' object has no attribute '%s'", py.PyType(cur), part)
						}
						x, err := ha.Attr(part)
						if err != nil || x == nil {
							return nil, py.Errorf("AttributeError", "'%s' object has no attribute '%s'", py.PyType(cur), part)
						}
						cur = x
					}
					return cur, nil
				}
				return py.GetItem(v, k)
			}
			return py.NewBuiltin(
				name,
				func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
					v, err := py.OneArg(name, args, kwargs)
					if err != nil {
						return nil, err
					}
					if len(keys) == 1 {
						return get(v, keys[0])
					}
					out := make(starlark.Tuple, len(keys))
					for i, k := range keys {
						if out[i], err = get(v, k); err != nil {
							return nil, err
						}
					}
					return out, nil
				},
			), nil
		}
	}
	bin := func(op syntax.Token) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, b starlark.Value
			if err := starlark.UnpackPositionalArgs(op.String(), args, kwargs, 2, &a, &b); err != nil {
				return nil, err
			}
			return py.Binary(op, a, b)
		}
	}
	return py.NewModule("operator", map[string]py.BuiltinFn{
		"itemgetter": getter("itemgetter", false),
		"attrgetter": getter("attrgetter", true),
		"add":        bin(syntax.PLUS),
		"sub":        bin(syntax.MINUS),
		"mul":        bin(syntax.STAR),
		"truediv":    bin(syntax.SLASH),
		"floordiv":   bin(syntax.SLASHSLASH),
		"mod":        bin(syntax.PERCENT),
	}, nil)
}
