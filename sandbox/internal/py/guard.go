package py

import (
	"errors"
	"fmt"
	"math"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// NewBuiltin is starlark.NewBuiltin for the sandbox's builtins and the
// host's helpers: a Go panic inside fn (a bug, or an argument a builtin
// failed to check) becomes a Python SystemError raised by that call, with
// the line of the call, instead of ending the whole step without one.
func NewBuiltin(
	name string,
	fn func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error),
) *starlark.Builtin {
	return starlark.NewBuiltin(name, guard(name, fn))
}

// guard wraps fn so that a panic in it is returned as an error.
func guard(name string, fn BuiltinFn) BuiltinFn {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (v starlark.Value, err error) {
		defer func() {
			if r := recover(); r != nil {
				v, err = nil, panicError(name, r)
			}
		}()
		return fn(thread, b, args, kwargs)
	}
}

// panicError is the Python error for a panic recovered in builtin name.
func panicError(name string, r any) error {
	return &PyError{Kind: "SystemError", Msg: fmt.Sprintf("%s(): internal error: %v (please report this)", name, r), Err: ErrInternal}
}

// guardUniverse returns Starlark's builtin name, guarded.
func guardUniverse(name string) *starlark.Builtin {
	u := starlark.Universe[name].(*starlark.Builtin)
	return NewBuiltin(
		name,
		func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return u.CallInternal(thread, args, kwargs)
		},
	)
}

// indexArg checks that v is an integer within [lo, hi], raising CPython's
// errors for an integer argument of a C type (what names it, e.g. "int" or
// "ssize_t"): TypeError for another type, OverflowError beyond the range.
func indexArg(v starlark.Value, what string, lo, hi int64) error {
	var i starlark.Int
	switch x := v.(type) {
	case starlark.Int:
		i = x
	case starlark.Bool:
		return nil
	default:
		return &PyError{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object cannot be interpreted as an integer", PyType(v))}
	}
	if n, ok := i.Int64(); ok && n >= lo && n <= hi {
		return nil
	}
	return &PyError{Kind: "OverflowError", Msg: "Python int too large to convert to C " + what}
}

// pyChr is chr(i) with CPython's errors.
func pyChr(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("chr", args, kwargs)
	if err != nil {
		return nil, err
	}
	if b, ok := x.(starlark.Bool); ok {
		x = starlark.MakeInt(map[bool]int{true: 1, false: 0}[bool(b)])
	}
	if err := indexArg(x, "int", math.MinInt32, math.MaxInt32); err != nil {
		return nil, err
	}
	if n, _ := starlark.AsInt32(x); n < 0 || n > 0x10ffff {
		return nil, &PyError{Kind: "ValueError", Msg: "chr() arg not in range(0x110000)"}
	}
	return starlark.Universe["chr"].(*starlark.Builtin).CallInternal(thread, starlark.Tuple{x}, nil)
}

// pyGetattr is getattr(obj, name[, default]). Starlark's prefixes an
// attribute's error with "getattr: ", which turned a class's
// AttributeError into an unclassified error; this one returns a
// [*PyError] as it is, and a missing attribute is CPython's
// AttributeError.
func pyGetattr(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var object, dflt starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgsNoEscape("getattr", args, kwargs, 2, &object, &name, &dflt); err != nil {
		return nil, err
	}
	if o, ok := object.(starlark.HasAttrs); ok {
		v, err := o.Attr(name)
		if err != nil {
			if dflt != nil {
				return dflt, nil
			}
			var pe *PyError
			if errors.As(err, &pe) {
				return nil, err
			}
			return nil, fmt.Errorf("getattr: %w", err)
		}
		if v != nil {
			return v, nil
		}
	}
	if dflt != nil {
		return dflt, nil
	}
	return nil, fmt.Errorf("getattr: %s has no .%s field or method", object.Type(), name)
}
