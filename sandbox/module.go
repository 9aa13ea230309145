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
	"time":        timeModule,
	"fractions":   fractionsModule,
	"decimal":     decimalModule,
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
				return (&copier{thread: thread, stop: newStopPoll(thread)}).copy(x, 0)
			},
			"deepcopy": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				x, err := oneArg("copy.deepcopy", args, kwargs)
				if err != nil {
					return nil, err
				}
				return (&copier{thread: thread, deep: true, memo: map[starlark.Value]starlark.Value{}, stop: newStopPoll(thread)}).copy(x, 0)
			},
		}, nil)
	},
	"dataclasses": func() *module {
		return newModule("dataclasses", map[string]builtinFn{"dataclass": dataclass, "field": dataclassField,
			"asdict": dataclassAsdict(false), "astuple": dataclassAsdict(true)}, nil)
	},
	"random":       randomModule,
	"sys":          sysModule,
	"hashlib":      hashlibModule,
	"uuid":         uuidModule,
	"unicodedata":  unicodedataModule,
	"io":           ioModule,
	"csv":          csvModule,
	"base64":       base64Module,
	"html":         htmlModule,
	"urllib":       urllibModule,
	"urllib.parse": urllibParse,
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
