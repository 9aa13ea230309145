package builtins

import (
	"math"

	"go.starlark.net/starlark"

	"github.com/rlmhq/rlm/sandbox"
)

// param is one declared parameter of a helper.
type param struct {
	name string
	opt  bool           // may be omitted
	def  starlark.Value // default when omitted (nil: None)
}

// bindArgs binds positional and keyword arguments to params, Python-style,
// resolving futures so helpers see plain values. Extra keyword arguments are
// an error unless rest is non-nil, in which case they are returned in order.
func bindArgs(thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple, params []param, rest *[]starlark.Tuple) ([]starlark.Value, error) {
	out := make([]starlark.Value, len(params))
	if len(args) > len(params) {
		return nil, typeErr("%s() takes at most %d positional arguments (%d given)", name, len(params), len(args))
	}
	copy(out, args)
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		i := -1
		for j, p := range params {
			if p.name == k {
				i = j
				break
			}
		}
		if i < 0 {
			if rest != nil {
				*rest = append(*rest, kv)
				continue
			}
			return nil, typeErr("%s() got an unexpected keyword argument '%s'", name, k)
		}
		if out[i] != nil {
			return nil, typeErr("%s() got multiple values for argument '%s'", name, k)
		}
		out[i] = kv[1]
	}
	for i, p := range params {
		if out[i] == nil {
			if !p.opt {
				return nil, typeErr("%s() missing required argument '%s'", name, p.name)
			}
			out[i] = p.def
			if out[i] == nil {
				out[i] = starlark.None
			}
			continue
		}
		v, err := sandbox.Unproxy(thread, out[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
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
	case *starlark.Dict:
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

// argOptStr accepts a str or None ("" for None).
func argOptStr(helper, param string, v starlark.Value) (string, error) {
	if v == starlark.None {
		return "", nil
	}
	return argStr(helper, param, v)
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

// argOptInt accepts an int or None (def for None).
func argOptInt(helper, param string, v starlark.Value, def int) (int, error) {
	if v == starlark.None {
		return def, nil
	}
	return argInt(helper, param, v)
}

func argBool(helper, param string, v starlark.Value) (bool, error) {
	b, ok := v.(starlark.Bool)
	if !ok {
		return false, typeErr("%s: %s must be True or False, got %s", helper, param, pyTypeName(v))
	}
	return bool(b), nil
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
