package py

import (
	"sort"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

//go:generate python3 testdata/gen_pydir.py
//go:generate gofmt -w pydir_table.go

// Introspection builtins: globals(), vars(), dir() and hasattr() as models
// use them for duck typing ('x' in globals(), hasattr(v, '__len__')).

// pyGlobals implements globals(): a read-only snapshot of the REPL's
// names (the user's variables and definitions, not the helpers).
func pyGlobals(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs("globals", args, kwargs, 0); err != nil {
		return nil, err
	}
	return globalsDict(thread), nil
}

func globalsDict(thread *starlark.Thread) *starlark.Dict {
	names, vals := StepGlobals(thread)
	d := starlark.NewDict(len(names) + 1)
	_ = d.SetKey(starlark.String("__name__"), starlark.String("__main__"))
	for _, n := range names {
		_ = d.SetKey(starlark.String(n), vals[n])
	}
	d.Freeze() // a view: assigning through it would not define a variable
	return d
}

// pyVars implements vars() (the globals) and vars(obj) (its attributes).
func pyVars(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("vars", args, kwargs, 0, &x); err != nil {
		return nil, err
	}
	if x == nil {
		return globalsDict(thread), nil
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	switch o := x.(type) {
	case *PyObject:
		d := starlark.NewDict(len(o.Names))
		for _, n := range o.Names {
			if v, ok := o.Attrs[n]; ok {
				_ = d.SetKey(starlark.String(n), v)
			}
		}
		return d, nil
	case *Module:
		d := starlark.NewDict(len(o.Members))
		for _, n := range o.AttrNames() {
			_ = d.SetKey(starlark.String(n), o.Members[n])
		}
		return d, nil
	}
	return nil, Errorf("TypeError", "vars() argument must have __dict__ attribute")
}

// pyDir implements dir(): the REPL's names, or the attributes of x as
// CPython lists them for the builtin types.
func pyDir(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("dir", args, kwargs, 0, &x); err != nil {
		return nil, err
	}
	if x == nil {
		names, _ := StepGlobals(thread)
		return sortedList(append([]string{"__builtins__", "__doc__", "__name__"}, names...)), nil
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	return sortedList(dirNames(x)), nil
}

func sortedList(names []string) *starlark.List {
	sort.Strings(names)
	out := make([]starlark.Value, 0, len(names))
	for i, n := range names {
		if i > 0 && n == names[i-1] {
			continue
		}
		out = append(out, starlark.String(n))
	}
	return starlark.NewList(out)
}

// dirNames lists the attribute names of x (unsorted, maybe repeated).
func dirNames(x starlark.Value) []string {
	switch o := x.(type) {
	case *PyObject:
		names := append(append([]string(nil), cpythonDir["instance"]...), o.Names...)
		for _, c := range o.Cls.Mro() {
			if c.Cls != nil {
				names = append(names, c.Cls.Names...)
			}
		}
		return names
	case *Module:
		return append(o.AttrNames(), "__doc__", "__name__")
	case *TypeObj:
		if o.Cls != nil {
			var names []string
			for _, c := range o.Mro() {
				if c.Cls != nil {
					names = append(names, c.Cls.Names...)
				}
			}
			return append(names, cpythonDir["instance"]...)
		}
		if names, ok := cpythonDir[o.PyName]; ok {
			return append([]string(nil), names...)
		}
	}
	if t, ok := cpythonDir[PyType(x)]; ok {
		return append([]string(nil), t...)
	}
	if h, ok := x.(starlark.HasAttrs); ok {
		return h.AttrNames()
	}
	return nil
}

// pyHasattr implements hasattr(x, name): an attribute Starlark finds, or
// one CPython's dir() lists for x (the dunders models test for duck
// typing: __len__, __iter__, __getitem__, __contains__, __call__, ...).
func pyHasattr(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("hasattr", args, kwargs, 2, &x, &name); err != nil {
		return nil, err
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	if h, ok := x.(starlark.HasAttrs); ok {
		if v, err := h.Attr(name); err == nil && v != nil {
			return starlark.True, nil
		}
	}
	if o, ok := x.(*PyObject); ok {
		if _, found := o.Cls.Lookup(name); found {
			return starlark.True, nil
		}
		if !strings.HasPrefix(name, "__") {
			return starlark.False, nil
		}
	}
	if name == "__call__" {
		_, ok := x.(starlark.Callable)
		return starlark.Bool(ok), nil
	}
	for _, n := range dirNames(x) {
		if n == name {
			return starlark.True, nil
		}
	}
	return starlark.False, nil
}

// pySetattr implements setattr(obj, name, value).
func pySetattr(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, v starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("setattr", args, kwargs, 3, &x, &name, &v); err != nil {
		return nil, err
	}
	if h, ok := x.(starlark.HasSetField); ok {
		return starlark.None, h.SetField(name, v)
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", PyType(x), name)
}
