package pyfront

import (
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/starlarkstruct"
	"github.com/stretchr/testify/require"
)

// fakePrelude defines minimal stand-ins for the runtime's _py_* helpers,
// enough to check the lowering by evaluation.
const fakePrelude = `
def _py_enter():
    pass
def iter(x):
    return x
def _py_iter(x):
    if type(x) == "string":
        return list(x.elems())
    return x
def _py_pow(a, b):
    if type(b) == "float" or type(a) == "float":
        return fpow(a, b)
    r = 1
    for _ in range(b):
        r *= a
    return r
def _py_mod(a, b):
    return a % b
def _py_eq(a, b):
    return a == b
def _py_b2i(x):
    if type(x) == "bool":
        return 1 if x else 0
    return x
def _py_mul(a, b):
    return a * b
def _py_is(a, b):
    return a == b and type(a) == type(b)
def _py_chain(x, *rest):
    for i in range(0, len(rest), 2):
        op, y = rest[i], rest[i+1]()
        ok = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
        if not ok:
            return False
        x = y
    return True
def _py_method(r, name, *args, **kw):
    if name == "sort":
        s = sorted(r, **kw)
        r.clear()
        r.extend(s)
        return None
    if name == "count" and type(r) == "list":
        return len([x for x in r if x == args[0]])
    if name == "zfill":
        return "0" * (args[0] - len(r)) + r
    if name == "items":
        return r.items()
    return getattr(r, name)(*args, **kw)
def _py_format(v, spec):
    if spec == "":
        return str(v)
    return "<%s|%s>" % (v, spec)
def _py_repr(v):
    return repr(v)
def _py_str(v):
    return str(v)
def _py_ascii(v):
    return repr(v)
def _py_raise(*a):
    fail("raise", *a)
def ValueError(msg):
    return "ValueError: " + msg
def KeyError(msg):
    return "KeyError: " + msg
def _py_assert_fail(msg=None):
    fail("AssertionError", msg)
def _py_del(c, k):
    c.pop(k)
def _py_delslice(c, lo, hi, step):
    fail("delslice")
def _py_setslice(c, lo, hi, step, v):
    new = c[:lo] + v + c[hi:]
    c.clear()
    c.extend(new)
def sum(xs):
    t = 0
    for x in xs:
        t += x
    return t
def _py_unpack(seq, before, after):
    seq = list(_py_iter(seq))
    return tuple(seq[:before] + [seq[before:len(seq)-after]] + seq[len(seq)-after:])
def _py_dict_merge(*ds):
    r = {}
    for d in ds:
        r.update(d)
    return r
_py_list = list
_py_tuple = tuple
_py_set = set
`

func fakeGlobals(t *testing.T) starlark.StringDict {
	t.Helper()
	pre := starlark.StringDict{
		"fpow": starlark.NewBuiltin(
			"fpow",
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				a, _ := starlark.AsFloat(args[0])
				b, _ := starlark.AsFloat(args[1])
				r := 1.0
				for i := 0; i < int(b); i++ {
					r *= a
				}
				return starlark.Float(r), nil
			},
		),
		"_py_try": starlark.NewBuiltin(
			"_py_try",
			func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				v, err := starlark.Call(th, args[0], nil, nil)
				if err == nil {
					return starlark.Tuple{starlark.MakeInt(-1), v}, nil
				}
				msg := err.Error()
				if ee, ok := err.(*starlark.EvalError); ok {
					msg = ee.Msg
				}
				msg = strings.TrimPrefix(msg, "fail: raise ")
				switch {
				case strings.Contains(msg, "invalid literal"):
					msg = "ValueError: " + msg
				case strings.Contains(msg, "not in dict"):
					msg = "KeyError: " + msg
				case strings.Contains(msg, "division by zero"):
					msg = "ZeroDivisionError: " + msg
				}
				for i, h := range args[1:] {
					list := h.(*starlark.List)
					if list.Len() == 0 {
						return starlark.Tuple{starlark.MakeInt(i), starlark.String(msg)}, nil
					}
					for j := 0; j < list.Len(); j++ {
						name := string(list.Index(j).(starlark.String))
						if name == "Exception" || strings.Contains(msg, name) {
							return starlark.Tuple{starlark.MakeInt(i), starlark.String(msg)}, nil
						}
					}
				}
				return starlark.Tuple{starlark.MakeInt(-2), starlark.String(msg)}, nil
			},
		),
		"_py_import": starlark.NewBuiltin(
			"_py_import",
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				mod := &starlarkstruct.Module{Name: string(args[0].(starlark.String)), Members: starlark.StringDict{
					"answer": starlark.MakeInt(42),
					"name":   args[0],
				}}
				if len(args) == 2 {
					return args[1], nil
				}
				return mod, nil
			},
		),
	}
	g, err := starlark.ExecFileOptions(FileOptions, &starlark.Thread{}, "prelude", fakePrelude, pre)
	require.NoError(t, err)
	for k, v := range pre {
		g[k] = v
	}
	return g
}

// run compiles src and executes it with the fake helpers, returning the
// printed output. Top-level try chunks run their first handler on error.
func run(t *testing.T, src string) (string, error) {
	t.Helper()
	return runOpts(t, src, Options{})
}

func runOpts(t *testing.T, src string, opts Options) (string, error) {
	t.Helper()
	prog, err := Compile("test.py", src, opts)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	thread := &starlark.Thread{Print: func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }}
	globals := fakeGlobals(t)
	err = execChunks(thread, prog.Chunks, globals)
	return out.String(), err
}

func execChunks(thread *starlark.Thread, chunks []Chunk, globals starlark.StringDict) error {
	for _, c := range chunks {
		if c.File != nil {
			if err := starlark.ExecREPLChunk(c.File, thread, globals); err != nil {
				return err
			}
			continue
		}
		err := execChunks(thread, c.Try.Body, globals)
		if err != nil && len(c.Try.Handlers) > 0 {
			h := c.Try.Handlers[0]
			if h.Name != "" {
				globals[h.Name] = starlark.String(err.Error())
			}
			err = execChunks(thread, h.Body, globals)
		} else if err == nil {
			err = execChunks(thread, c.Try.Else, globals)
		}
		if ferr := execChunks(thread, c.Try.Finally, globals); ferr != nil {
			return ferr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
