package builtins

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox"
)

// unpack binds a helper's arguments to variables in one call, in the style
// of starlark.UnpackArgs: pairs alternates parameter names and pointers to
// the variables, in positional order. A name ending in "?" is optional: the
// variable keeps its value (the default) when the argument is omitted; "??"
// also takes None as omitted. A "**name" pair with a *[]starlark.Tuple
// collects the keyword arguments no parameter takes (else they are an
// error). Futures are resolved first, so helpers see plain values.
//
// The variable's type checks the argument: *starlark.Value takes any value,
// *string a str, *int an int (in int32 range), *bool True or False, and
// *intOrNone an int or None. Errors are Python TypeErrors and ValueErrors
// naming the helper and the parameter.
func unpack(thread *starlark.Thread, fn string, args starlark.Tuple, kwargs []starlark.Tuple, pairs ...any) error {
	type param struct {
		name            string
		opt, noneAbsent bool
		ptr             any
	}
	var (
		params []param
		rest   *[]starlark.Tuple
	)
	for i := 0; i+1 < len(pairs); i += 2 {
		name := pairs[i].(string)
		if kw, ok := strings.CutPrefix(name, "**"); ok && kw != "" {
			rest = pairs[i+1].(*[]starlark.Tuple)
			continue
		}
		p := param{name: name, ptr: pairs[i+1]}
		if n, ok := strings.CutSuffix(name, "??"); ok {
			p.name, p.opt, p.noneAbsent = n, true, true
		} else if n, ok := strings.CutSuffix(name, "?"); ok {
			p.name, p.opt = n, true
		}
		params = append(params, p)
	}
	if len(args) > len(params) {
		return typeErr("%s() takes at most %d positional arguments (%d given)", fn, len(params), len(args))
	}
	vals := make([]starlark.Value, len(params))
	copy(vals, args)
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		i := slices.IndexFunc(params, func(p param) bool { return p.name == k })
		if i < 0 {
			if rest != nil {
				*rest = append(*rest, kv)
				continue
			}
			return typeErr("%s() got an unexpected keyword argument '%s'", fn, k)
		}
		if vals[i] != nil {
			return typeErr("%s() got multiple values for argument '%s'", fn, k)
		}
		vals[i] = kv[1]
	}
	for i, p := range params {
		v := vals[i]
		if v == nil {
			if !p.opt {
				return typeErr("%s() missing required argument '%s'", fn, p.name)
			}
			continue
		}
		v, err := sandbox.Unproxy(thread, v)
		if err != nil {
			return err
		}
		if v == starlark.None && p.noneAbsent {
			continue
		}
		if err := setArg(fn, p.name, v, p.ptr); err != nil {
			return err
		}
	}
	return nil
}

// intOrNone is an int parameter that also takes None (for which None is
// set and N is left as it was).
type intOrNone struct {
	N    int
	None bool
}

// setArg checks v against the type of the variable ptr points to and
// stores it there.
func setArg(fn, param string, v starlark.Value, ptr any) error {
	var err error
	switch p := ptr.(type) {
	case *starlark.Value:
		*p = v
	case *string:
		*p, err = argStr(fn, param, v)
	case *int:
		*p, err = argInt(fn, param, v)
	case *bool:
		b, ok := v.(starlark.Bool)
		if !ok {
			return typeErr("%s: %s must be True or False, got %s", fn, param, pyTypeName(v))
		}
		*p = bool(b)
	case *intOrNone:
		if v == starlark.None {
			p.None = true
			return nil
		}
		p.N, err = argInt(fn, param, v)
	default:
		panic(fmt.Sprintf("builtins: unpack %s: unsupported variable type %T for %s", fn, ptr, param))
	}
	return err
}

func typeErr(format string, a ...any) error  { return sandbox.Errorf("TypeError", format, a...) }
func valueErr(format string, a ...any) error { return sandbox.Errorf("ValueError", format, a...) }

// pyTypeName is the Python type name of v, for messages.
func pyTypeName(v starlark.Value) string {
	switch v.(type) {
	case starlark.NoneType:
		return "NoneType"
	case starlark.String:
		return "str"
	case *starlark.List:
		return "list"
	case starlark.Tuple:
		return "tuple"
	case *starlark.Dict, *sandbox.LazyDict:
		return "dict"
	case starlark.Int:
		return "int"
	case starlark.Float:
		return "float"
	case starlark.Bool:
		return "bool"
	}
	return v.Type()
}

func argStr(helper, param string, v starlark.Value) (string, error) {
	s, ok := v.(starlark.String)
	if !ok {
		return "", typeErr("%s: %s must be a str, got %s", helper, param, pyTypeName(v))
	}
	return string(s), nil
}

func argInt(helper, param string, v starlark.Value) (int, error) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, typeErr("%s: %s must be an int, got %s", helper, param, pyTypeName(v))
	}
	n, ok := i.Int64()
	if !ok || n > math.MaxInt32 || n < math.MinInt32 {
		return 0, valueErr("%s: %s is out of range: %s", helper, param, i)
	}
	return int(n), nil
}

// mapping is a dict-like value (dict, Counter, defaultdict).
func asMapping(v starlark.Value) (starlark.IterableMapping, bool) {
	m, ok := v.(starlark.IterableMapping)
	return m, ok
}

// sequence is a list or tuple.
func asSequence(v starlark.Value) (starlark.Indexable, bool) {
	switch v := v.(type) {
	case *starlark.List, starlark.Tuple:
		return v.(starlark.Indexable), true
	}
	return nil, false
}

func noArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple) error {
	if len(args)+len(kwargs) > 0 {
		return typeErr("%s() takes no arguments", name)
	}
	return nil
}
