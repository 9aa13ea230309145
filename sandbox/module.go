package sandbox

import (
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// module is an importable Python module.
type module struct {
	name    string
	members starlark.StringDict
}

var _ starlark.HasAttrs = (*module)(nil)

func (m *module) String() string        { return "<module '" + m.name + "'>" }
func (m *module) Type() string          { return "module" }
func (m *module) Freeze()               {}
func (m *module) Truth() starlark.Bool  { return true }
func (m *module) Hash() (uint32, error) { return starlark.String(m.name).Hash() }
func (m *module) Attr(name string) (starlark.Value, error) {
	if v, ok := m.members[name]; ok {
		return v, nil
	}
	return nil, Errorf("AttributeError", "module '%s' has no attribute '%s'", m.name, name)
}
func (m *module) AttrNames() []string { return m.members.Keys() }

// modules maps importable names to constructors.
var modules = map[string]func() *module{
	"re":          reModule,
	"json":        jsonModule,
	"math":        mathModule,
	"collections": collectionsModule,
	"itertools":   itertoolsModule,
	"string":      stringModule,
	"statistics":  statisticsModule,
	"functools":   functoolsModule,
	"heapq":       heapqModule,
	"datetime":    datetimeModule,
	"bisect":      bisectModule,
	"operator":    operatorModule,
	"textwrap":    textwrapModule,
	"copy": func() *module {
		return newModule("copy", map[string]builtinFn{
			"copy": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				x, err := oneArg("copy.copy", args, kwargs)
				if err != nil {
					return nil, err
				}
				return copyValue(thread, x, false, 0)
			},
			"deepcopy": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				x, err := oneArg("copy.deepcopy", args, kwargs)
				if err != nil {
					return nil, err
				}
				return copyValue(thread, x, true, 0)
			},
		}, nil)
	},
	"dataclasses": func() *module {
		return newModule("dataclasses", map[string]builtinFn{"dataclass": dataclass, "field": dataclassField}, nil)
	},
	"random": nil, // listed as unavailable below
}

var moduleCache = map[string]*module{}

func availableModules() string {
	var names []string
	for n, f := range modules {
		if f != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// pyImport implements _py_import(module) and _py_import(module, name).
func pyImport(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, attr string
	if err := starlark.UnpackPositionalArgs("_py_import", args, kwargs, 1, &name, &attr); err != nil {
		return nil, err
	}
	m, err := importModule(name)
	if err != nil {
		return nil, err
	}
	if attr == "" {
		return m, nil
	}
	if v, ok := m.members[attr]; ok {
		return v, nil
	}
	return nil, &PyError{Kind: "ImportError", Msg: "cannot import name '" + attr + "' from '" + name + "' (available: " + strings.Join(m.members.Keys(), ", ") + ")", Err: ErrUnsupported}
}

var moduleMu = make(chan struct{}, 1)

func importModule(name string) (*module, error) {
	moduleMu <- struct{}{}
	defer func() { <-moduleMu }()
	if m, ok := moduleCache[name]; ok {
		return m, nil
	}
	f := modules[name]
	if f == nil {
		return nil, &PyError{Kind: "ModuleNotFoundError", Msg: "No module named '" + name + "' in the sandbox (available modules: " + availableModules() + "; no file, network or process access)", Err: ErrUnsupported}
	}
	m := f()
	moduleCache[name] = m
	return m, nil
}

func newModule(name string, fns map[string]builtinFn, values starlark.StringDict) *module {
	m := &module{name: name, members: starlark.StringDict{}}
	for k, f := range fns {
		m.members[k] = starlark.NewBuiltin(name+"."+k, f)
	}
	for k, v := range values {
		m.members[k] = v
	}
	return m
}

// copyValue implements copy.copy (deep=false) and copy.deepcopy.
func copyValue(thread *starlark.Thread, v starlark.Value, deep bool, depth int) (starlark.Value, error) {
	if depth > 500 {
		return nil, Errorf("RecursionError", "maximum recursion depth exceeded while copying")
	}
	elem := func(x starlark.Value) (starlark.Value, error) {
		if !deep {
			return x, nil
		}
		return copyValue(thread, x, true, depth+1)
	}
	switch x := v.(type) {
	case *starlark.List:
		out := make([]starlark.Value, x.Len())
		for i := range out {
			e, err := elem(x.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return starlark.NewList(out), nil
	case starlark.Tuple:
		if !deep {
			return x, nil
		}
		out := make(starlark.Tuple, len(x))
		for i, y := range x {
			e, err := elem(y)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case *starlark.Dict:
		d := starlark.NewDict(x.Len())
		for _, kv := range x.Items() {
			e, err := elem(kv[1])
			if err != nil {
				return nil, err
			}
			d.SetKey(kv[0], e)
		}
		return d, nil
	case *dictSub:
		c := x.copy()
		if deep {
			for _, kv := range c.d.Items() {
				e, err := elem(kv[1])
				if err != nil {
					return nil, err
				}
				c.d.SetKey(kv[0], e)
			}
		}
		return c, nil
	case *starlark.Set:
		s := new(starlark.Set)
		it := x.Iterate()
		defer it.Done()
		var y starlark.Value
		for it.Next(&y) {
			s.Insert(y)
		}
		return s, nil
	case *pyObject:
		o := &pyObject{cls: x.cls, names: append([]string(nil), x.names...), attrs: map[string]starlark.Value{}}
		for k, y := range x.attrs {
			e, err := elem(y)
			if err != nil {
				return nil, err
			}
			o.attrs[k] = e
		}
		return o, nil
	case *deque:
		return &deque{elems: append([]starlark.Value(nil), x.items()...), maxlen: x.maxlen}, nil
	}
	return v, nil
}
