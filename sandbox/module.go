package sandbox

import (
	"sort"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
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

// modules maps importable names to constructors. Each module's file
// (lib_<name>.go) adds its own with registerModule; the core names none.
var modules = map[string]func() *module{}

// registerModule makes module name importable: its first import calls
// newModule and keeps the result (importModule). It is called from the
// initializer of a package-level variable (var _ = registerModule(...)),
// so every module is registered, and none built, before code runs.
func registerModule(name string, newModule func() *module) bool {
	if _, dup := modules[name]; dup {
		panic("sandbox: module " + name + " registered twice")
	}
	modules[name] = newModule
	return true
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
	var name, attr, top string
	if err := starlark.UnpackPositionalArgs("_py_import", args, kwargs, 1, &name, &attr, &top); err != nil {
		return nil, err
	}
	m, err := importModule(name)
	if err != nil {
		return nil, err
	}
	if top != "" { // import a.b binds a
		return importModule(top)
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
		m.members[k] = NewBuiltin(name+"."+k, f)
	}
	for k, v := range values {
		m.members[k] = v
	}
	return m
}
