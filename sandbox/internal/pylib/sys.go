package pylib

import (
	"math"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// nsObj is a plain object with fixed attributes (sys.stdout,
// sys.version_info's friends): its repr is given, its attributes are
// read-only.
type nsObj struct {
	repr  string
	typ   string
	attrs starlark.StringDict
}

var _ starlark.HasAttrs = (*nsObj)(nil)

func (o *nsObj) String() string        { return o.repr }
func (o *nsObj) Type() string          { return o.typ }
func (o *nsObj) Freeze()               {}
func (o *nsObj) Truth() starlark.Bool  { return true }
func (o *nsObj) Hash() (uint32, error) { return starlark.String(o.repr).Hash() }
func (o *nsObj) AttrNames() []string   { return o.attrs.Keys() }
func (o *nsObj) Attr(name string) (starlark.Value, error) {
	if v, ok := o.attrs[name]; ok {
		return v, nil
	}
	return nil, py.Errorf("AttributeError", "'%s' object has no attribute '%s'", o.typ, name)
}

// sandboxPyVersion is the CPython version the sandbox follows.
var sandboxPyVersion = []int{3, 11, 0}

// writeOut writes s to the step's output as print does.
func writeOut(thread *starlark.Thread, s string) error {
	st := py.StepOf(thread)
	if st == nil {
		if thread.Print != nil {
			thread.Print(thread, strings.TrimSuffix(s, "\n"))
		}
		return nil
	}
	if err := st.Host.WriteOutput(s); err != nil {
		return &py.PyError{Kind: "OutputLimitError", Msg: strings.TrimPrefix(err.Error(), py.ErrOutputLimit.Error()+": "), Err: err}
	}
	return nil
}

func stdStream(name string) *nsObj {
	write := func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := py.OneArg(name+".write", args, kwargs)
		if err != nil {
			return nil, err
		}
		s, ok := x.(starlark.String)
		if !ok {
			return nil, py.Errorf("TypeError", "write() argument must be str, not %s", py.PyType(x))
		}
		if err := writeOut(thread, string(s)); err != nil {
			return nil, err
		}
		return starlark.MakeInt(py.Rlen(string(s))), nil
	}
	writelines := func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := py.OneArg(name+".writelines", args, kwargs)
		if err != nil {
			return nil, err
		}
		elems, err := py.Collect(thread, x)
		if err != nil {
			return nil, err
		}
		for _, e := range elems {
			s, ok := e.(starlark.String)
			if !ok {
				return nil, py.Errorf("TypeError", "write() argument must be str, not %s", py.PyType(e))
			}
			if err := writeOut(thread, string(s)); err != nil {
				return nil, err
			}
		}
		return starlark.None, nil
	}
	noop := func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return starlark.None, nil
	}
	return &nsObj{
		repr: "<_io.TextIOWrapper name='<" + name + ">' mode='w' encoding='utf-8'>",
		typ:  "TextIOWrapper",
		attrs: starlark.StringDict{
			"write":      py.NewBuiltin("write", write),
			"writelines": py.NewBuiltin("writelines", writelines),
			"flush":      py.NewBuiltin("flush", noop),
			"encoding":   starlark.String("utf-8"),
			"name":       starlark.String("<" + name + ">"),
			"isatty": py.NewBuiltin(
				"isatty",
				func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
					return starlark.False, nil
				},
			),
		},
	}
}

// getsizeof approximates CPython 3.11's sys.getsizeof on 64-bit builds.
func getsizeof(v starlark.Value) int64 {
	switch x := v.(type) {
	case starlark.NoneType:
		return 16
	case starlark.Bool:
		return 28
	case starlark.Int:
		if x.Sign() == 0 {
			return 28
		}
		bits := x.BigInt().BitLen()
		return 24 + 4*int64((bits+29)/30)
	case starlark.Float:
		return 24
	case starlark.String:
		s := string(x)
		n := int64(py.Rlen(s))
		maxr := rune(0)
		for _, r := range s {
			maxr = max(maxr, r)
		}
		switch {
		case maxr < 0x80:
			return 49 + n
		case maxr < 0x100:
			return 73 + n
		case maxr < 0x10000:
			return 74 + 2*n
		default:
			return 76 + 4*n
		}
	case starlark.Bytes:
		return 33 + int64(len(x))
	case starlark.Tuple:
		return 40 + 8*int64(len(x))
	case *starlark.List:
		n := int64(x.Len())
		if n == 0 {
			return 56
		}
		return 56 + 8*n
	case *starlark.Dict:
		return dictSizeof(x)
	case *dictSub:
		return dictSizeof(x.d)
	case *starlark.Set:
		// CPython's set grows its table (8 slots inline) when 3/5 full,
		// to 4x the entries (2x past 50,000).
		table, used := int64(8), int64(0)
		for i := 0; i < x.Len(); i++ {
			used++
			if used*5 >= (table-1)*3 {
				want := used * 4
				if used > 50000 {
					want = used * 2
				}
				for table <= want {
					table *= 2
				}
			}
		}
		if table == 8 {
			return 216
		}
		return 216 + 16*table
	}
	return 48
}

// dictSizeof approximates a dict built by insertion: a compact table of
// a power-of-two size whose usable 2/3 hold the entries (16 bytes each
// when all keys are str, 24 otherwise), plus 1-, 2- or 4-byte indices.
func dictSizeof(d *starlark.Dict) int64 {
	n := int64(d.Len())
	if n == 0 {
		return 64
	}
	size := int64(8)
	for size*2/3 < n {
		size *= 2
	}
	idx := int64(1)
	if size > 128 {
		idx = 2
	}
	if size > 1<<15 {
		idx = 4
	}
	entry := int64(16)
	for _, k := range d.Keys() {
		if _, ok := k.(starlark.String); !ok {
			entry = 24
			break
		}
	}
	return 64 + 32 + size*idx + (size*2/3)*entry
}

var _ = py.RegisterModule("sys", sysModule)

// sysModule builds the sys module on its first import.
func sysModule() *py.Module {
	vi, _ := versionInfo()
	m := py.NewModule("sys", map[string]py.BuiltinFn{
		"getsizeof": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, dflt starlark.Value
			if err := starlark.UnpackPositionalArgs("getsizeof", args, kwargs, 1, &x, &dflt); err != nil {
				return nil, err
			}
			return starlark.MakeInt64(getsizeof(x)), nil
		},
		"getrecursionlimit": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs("getrecursionlimit", args, kwargs, 0); err != nil {
				return nil, err
			}
			return starlark.MakeInt(recursionLimit(thread)), nil
		},
		// setrecursionlimit accepts the call and changes nothing: the
		// sandbox's recursion limit is the host's (Limits.MaxRecursion).
		"setrecursionlimit": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			if err := starlark.UnpackPositionalArgs("setrecursionlimit", args, kwargs, 1, &n); err != nil {
				return nil, err
			}
			if n < 1 {
				return nil, py.Errorf("ValueError", "recursion limit must be greater or equal than 1")
			}
			return starlark.None, nil
		},
		"intern": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s starlark.String
			if err := starlark.UnpackPositionalArgs("intern", args, kwargs, 1, &s); err != nil {
				return nil, err
			}
			return s, nil
		},
		"exit": py.Unavailable("sys.exit", "sys.exit() is not available; end the run with SUBMIT(...)"),
	}, starlark.StringDict{
		"version": starlark.String(
			"3.11.0 (rlm sandbox: a Python 3.11 dialect on Starlark, no file, network, process or clock access)",
		),
		"version_info": vi,
		"hexversion":   starlark.MakeInt(0x030b00f0),
		"maxsize":      starlark.MakeInt64(math.MaxInt64),
		"maxunicode":   starlark.MakeInt(0x10ffff),
		"byteorder":    starlark.String("little"),
		"platform":     starlark.String("linux"),
		"argv":         starlark.NewList(nil),
		"path":         starlark.NewList(nil),
		"modules":      starlark.NewDict(0),
		"stdout":       stdStream("stdout"),
		"stderr":       stdStream("stderr"),
		"float_info": &nsObj{repr: "sys.float_info", typ: "sys.float_info", attrs: starlark.StringDict{
			"max": starlark.Float(math.MaxFloat64), "min": starlark.Float(2.2250738585072014e-308),
			"epsilon": starlark.Float(2.220446049250313e-16), "dig": starlark.MakeInt(15), "mant_dig": starlark.MakeInt(53),
		}},
		"implementation": &nsObj{
			repr:  "namespace(name='rlm')",
			typ:   "types.SimpleNamespace",
			attrs: starlark.StringDict{"name": starlark.String("rlm")},
		},
	})
	// Modules are shared by all sessions: their values must be immutable.
	m.Members.Freeze()
	return m
}

// recursionLimit is the recursion limit in force on thread.
func recursionLimit(thread *starlark.Thread) int {
	if st := py.StepOf(thread); st != nil {
		return st.Depth
	}
	return py.DefaultMaxRecursion
}

// versionInfo builds sys.version_info as a named tuple, so that both
// sys.version_info >= (3, 8) and sys.version_info.major work.
func versionInfo() (starlark.Value, error) {
	cls, err := namedtuple(
		nil,
		nil,
		starlark.Tuple{starlark.String("sys.version_info"), starlark.String("major minor micro releaselevel serial")},
		nil,
	)
	if err != nil {
		return nil, err
	}
	return cls.(*py.TypeObj).Call(
		nil,
		starlark.Tuple{
			starlark.MakeInt(sandboxPyVersion[0]),
			starlark.MakeInt(sandboxPyVersion[1]),
			starlark.MakeInt(sandboxPyVersion[2]),
			starlark.String("final"),
			starlark.MakeInt(0),
		},
		nil,
	)
}
