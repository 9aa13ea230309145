package py

import (
	"sort"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// Module is an importable Python module.
type Module struct {
	Name    string
	Members starlark.StringDict
}

var _ starlark.HasAttrs = (*Module)(nil)

func (m *Module) String() string        { return "<module '" + m.Name + "'>" }
func (m *Module) Type() string          { return "module" }
func (m *Module) Freeze()               {}
func (m *Module) Truth() starlark.Bool  { return true }
func (m *Module) Hash() (uint32, error) { return starlark.String(m.Name).Hash() }
func (m *Module) Attr(name string) (starlark.Value, error) {
	if v, ok := m.Members[name]; ok {
		return v, nil
	}
	return nil, Errorf("AttributeError", "module '%s' has no attribute '%s'", m.Name, name)
}
func (m *Module) AttrNames() []string { return m.Members.Keys() }

// Modules maps importable names to constructors. Each module's file
// (lib_<name>.go) adds its own with registerModule; the core names none.
var Modules = map[string]func() *Module{}

// RegisterModule makes module name importable: its first import calls
// newModule and keeps the result (importModule). It is called from the
// initializer of a package-level variable (var _ = registerModule(...)),
// so every module is registered, and none built, before code runs.
func RegisterModule(name string, newModule func() *Module) bool {
	if _, dup := Modules[name]; dup {
		panic("sandbox: module " + name + " registered twice")
	}
	Modules[name] = newModule
	return true
}

var moduleCache = map[string]*Module{}

func AvailableModules() string {
	var names []string
	for n, f := range Modules {
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
	m, err := ImportModule(name)
	if err != nil {
		return nil, err
	}
	if top != "" { // import a.b binds a
		return ImportModule(top)
	}
	if attr == "" {
		return m, nil
	}
	if v, ok := m.Members[attr]; ok {
		return v, nil
	}
	return nil, &PyError{
		Kind: "ImportError",
		Msg:  "cannot import name '" + attr + "' from '" + name + "' (available: " + strings.Join(m.Members.Keys(), ", ") + ")",
		Err:  ErrUnsupported,
	}
}

var moduleMu = make(chan struct{}, 1)

func ImportModule(name string) (*Module, error) {
	moduleMu <- struct{}{}
	defer func() { <-moduleMu }()
	if m, ok := moduleCache[name]; ok {
		return m, nil
	}
	f := Modules[name]
	if f == nil {
		return nil, &PyError{
			Kind: "ModuleNotFoundError",
			Msg:  "No module named '" + name + "' in the sandbox (available modules: " + AvailableModules() + "; no file, network or process access)",
			Err:  ErrUnsupported,
		}
	}
	m := f()
	moduleCache[name] = m
	return m, nil
}

func NewModule(name string, fns map[string]BuiltinFn, values starlark.StringDict) *Module {
	m := &Module{Name: name, Members: starlark.StringDict{}}
	for k, f := range fns {
		m.Members[k] = NewBuiltin(name+"."+k, f)
	}
	for k, v := range values {
		m.Members[k] = v
	}
	return m
}
