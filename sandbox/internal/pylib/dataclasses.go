package pylib

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

var _ = py.RegisterModule("dataclasses", dataclassesModule)

// dataclassesModule builds the dataclasses module on its first import.
func dataclassesModule() *py.Module {
	return py.NewModule("dataclasses", map[string]py.BuiltinFn{"dataclass": dataclass, "field": dataclassField,
		"asdict": dataclassAsdict(false), "astuple": dataclassAsdict(true)}, nil)
}

// dataclass implements dataclasses.dataclass (with or without arguments).
func dataclass(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var frozen, order bool
	for _, kv := range kwargs {
		k, _ := starlark.AsString(kv[0])
		switch k {
		case "frozen":
			frozen = bool(kv[1].Truth())
		case "order":
			order = bool(kv[1].Truth())
		case "eq", "init", "repr", "unsafe_hash", "kw_only", "slots", "match_args":
			// accepted; the defaults are what the sandbox implements
		default:
			return nil, py.Errorf("TypeError", "dataclass() got an unexpected keyword argument '%s'", k)
		}
	}
	if len(args) == 0 {
		return py.NewBuiltin(
			"dataclass",
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				return dataclass(thread, nil, args, kwargs)
			},
		), nil
	}
	t, ok := args[0].(*py.TypeObj)
	if !ok || t.Cls == nil {
		return nil, py.Errorf("TypeError", "dataclass() should be applied to a class")
	}
	t.Cls.Frozen = frozen
	var fields []string
	for _, c := range reverseMRO(t) {
		for _, f := range c.Cls.Annotations {
			if !slices.Contains(fields, f) {
				fields = append(fields, f)
			}
		}
	}
	defaults := map[string]starlark.Value{}
	for _, f := range fields {
		if v, ok := t.Lookup(f); ok {
			defaults[f] = v
		}
	}
	// The fields __repr__ shows and the fields ==, < and hash compare.
	var reprFields, cmpFields []string
	for _, f := range fields {
		fs, _ := defaults[f].(*fieldSpec)
		if fs == nil || !fs.noRepr {
			reprFields = append(reprFields, f)
		}
		if fs == nil || !fs.noCompare {
			cmpFields = append(cmpFields, f)
		}
	}
	defaultOf := func(thread *starlark.Thread, f string) (starlark.Value, bool, error) {
		d, ok := defaults[f]
		if !ok {
			return nil, false, nil
		}
		if fs, ok := d.(*fieldSpec); ok {
			if fs.factory != nil {
				v, err := starlark.Call(thread, fs.factory, nil, nil)
				return v, true, err
			}
			if fs.dflt != nil {
				return fs.dflt, true, nil
			}
			return nil, false, nil
		}
		return d, true, nil
	}
	if _, ok := t.Attrs["__init__"]; !ok {
		t.Attrs["__init__"] = py.NewBuiltin(
			t.PyName+".__init__",
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				self := args[0].(*py.PyObject)
				pos := args[1:]
				if len(pos) > len(fields) {
					return nil, py.Errorf(
						"TypeError",
						"%s.__init__() takes %d positional arguments but %d were given",
						t.PyName,
						len(fields)+1,
						len(pos)+1,
					)
				}
				set := map[string]bool{}
				for i, v := range pos {
					self.SetAttr(fields[i], v)
					set[fields[i]] = true
				}
				for _, kv := range kwargs {
					k, _ := starlark.AsString(kv[0])
					if !slices.Contains(fields, k) {
						return nil, py.Errorf("TypeError", "%s.__init__() got an unexpected keyword argument '%s'", t.PyName, k)
					}
					self.SetAttr(k, kv[1])
					set[k] = true
				}
				for _, f := range fields {
					if set[f] {
						continue
					}
					d, ok, err := defaultOf(thread, f)
					if err != nil {
						return nil, err
					}
					if !ok {
						return nil, py.Errorf("TypeError", "%s.__init__() missing 1 required positional argument: '%s'", t.PyName, f)
					}
					self.SetAttr(f, d)
				}
				if post, ok := t.Lookup("__post_init__"); ok {
					if _, err := starlark.Call(thread, post, starlark.Tuple{self}, nil); err != nil {
						return nil, err
					}
				}
				return starlark.None, nil
			},
		)
	}
	if _, ok := t.Attrs["__repr__"]; !ok {
		t.Attrs["__repr__"] = py.NewBuiltin(
			t.PyName+".__repr__",
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				self, _, err := dcArgs(t, "__repr__", args, kwargs)
				if err != nil {
					return nil, err
				}
				parts := make([]string, len(reprFields))
				for i, f := range reprFields {
					parts[i] = f + "=" + py.Repr(self.Attrs[f])
				}
				return starlark.String(self.Cls.PyName + "(" + strings.Join(parts, ", ") + ")"), nil
			},
		)
	}
	if _, ok := t.Attrs["__eq__"]; !ok {
		t.Attrs["__eq__"] = py.NewBuiltin(
			t.PyName+".__eq__",
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				a, b, err := dcArgs(t, "__eq__", args, kwargs)
				if err != nil {
					return nil, err
				}
				bo, ok := b.(*py.PyObject)
				if !ok || bo.Cls != a.Cls {
					return starlark.False, nil
				}
				for _, f := range cmpFields {
					if eq, err := starlark.Equal(a.Attrs[f], bo.Attrs[f]); err != nil || !eq {
						return starlark.False, err
					}
				}
				return starlark.True, nil
			},
		)
	}
	t.Cls.DcFields = fields
	fieldTuple := func(o *py.PyObject) starlark.Tuple {
		tu := make(starlark.Tuple, len(cmpFields))
		for i, f := range cmpFields {
			tu[i] = o.Attrs[f]
		}
		return tu
	}
	if order {
		for name, op := range map[string]syntax.Token{"__lt__": syntax.LT, "__le__": syntax.LE, "__gt__": syntax.GT, "__ge__": syntax.GE} {
			if _, ok := t.Attrs[name]; ok {
				continue
			}
			t.Attrs[name] = py.NewBuiltin(
				t.PyName+"."+name,
				func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
					a, b, err := dcArgs(t, name, args, kwargs)
					if err != nil {
						return nil, err
					}
					bo, ok := b.(*py.PyObject)
					if !ok || bo.Cls != a.Cls {
						return nil, py.Errorf(
							"TypeError",
							"'%s' not supported between instances of '%s' and '%s'",
							op,
							a.Cls.PyName,
							py.PyType(b),
						)
					}
					r, err := starlark.Compare(op, fieldTuple(a), fieldTuple(bo))
					return starlark.Bool(r), err
				},
			)
		}
	}
	if _, ok := t.Attrs["__hash__"]; !ok && frozen {
		t.Attrs["__hash__"] = py.NewBuiltin(
			t.PyName+".__hash__",
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				self, _, err := dcArgs(t, "__hash__", args, kwargs)
				if err != nil {
					return nil, err
				}
				h, err := fieldTuple(self).Hash()
				return starlark.MakeInt64(int64(int32(h))), err
			},
		)
	}
	return t, nil
}

// dcArgs unpacks the arguments of the generated dataclass method name of
// class t: self, an instance of t, then other for the comparisons.
func dcArgs(t *py.TypeObj, name string, args starlark.Tuple, kwargs []starlark.Tuple) (*py.PyObject, starlark.Value, error) {
	var self, other starlark.Value
	want := 1
	ptrs := []any{&self}
	if name != "__repr__" && name != "__hash__" {
		want = 2
		ptrs = append(ptrs, &other)
	}
	if len(args) < want && len(kwargs) == 0 {
		missing := "'self'"
		if len(args) == 1 {
			missing = "'other'"
		} else if want == 2 {
			missing = "2 required positional arguments: 'self' and 'other'"
		}
		if !strings.HasPrefix(missing, "2") {
			missing = "1 required positional argument: " + missing
		}
		return nil, nil, py.Errorf("TypeError", "%s.%s() missing %s", t.PyName, name, missing)
	}
	if err := starlark.UnpackPositionalArgs(t.PyName+"."+name, args, kwargs, want, ptrs...); err != nil {
		return nil, nil, err
	}
	o, ok := self.(*py.PyObject)
	if !ok || !slices.Contains(o.Cls.Mro(), t) {
		return nil, nil, py.Errorf(
			"TypeError",
			"descriptor '%s' requires a '%s' object but received a '%s'",
			name,
			t.PyName,
			py.PyType(self),
		)
	}
	return o, other, nil
}

// dataclassAsdict implements dataclasses.asdict (astuple when tuple is
// true): a deep copy that turns dataclass instances into a dict (tuple)
// of their fields (see copier.asdict).
func dataclassAsdict(tuple bool) py.BuiltinFn {
	name, mode := "asdict", dcDict
	if tuple {
		name, mode = "astuple", dcTuple
	}
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := py.OneArg(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		if o, ok := x.(*py.PyObject); !ok || o.Cls.Cls == nil || o.Cls.Cls.DcFields == nil {
			return nil, py.Errorf("TypeError", "%s() should be called on dataclass instances", name)
		}
		c := &copier{thread: thread, deep: true, stop: py.NewStopPoll(thread), asdict: mode}
		return c.copy(x, 0)
	}
}

// reverseMRO is the classes defined by code in t's MRO, base first (the
// order in which a dataclass collects its fields).
func reverseMRO(t *py.TypeObj) []*py.TypeObj {
	var out []*py.TypeObj
	for _, c := range t.Mro() {
		if c.Cls != nil {
			out = append([]*py.TypeObj{c}, out...)
		}
	}
	return out
}

// fieldSpec is the value of dataclasses.field(...).
type fieldSpec struct {
	dflt, factory starlark.Value
	noRepr        bool // repr=False: left out of __repr__
	noCompare     bool // compare=False: left out of ==, < and the hash
}

func (f *fieldSpec) String() string        { return "Field()" }
func (f *fieldSpec) Type() string          { return "Field" }
func (f *fieldSpec) Freeze()               {}
func (f *fieldSpec) Truth() starlark.Bool  { return true }
func (f *fieldSpec) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 'Field'") }

// dataclassField implements dataclasses.field.
func dataclassField(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	fs := &fieldSpec{}
	for _, kv := range kwargs {
		switch k, _ := starlark.AsString(kv[0]); k {
		case "default":
			fs.dflt = kv[1]
		case "default_factory":
			fs.factory = kv[1]
		case "repr":
			fs.noRepr = !bool(kv[1].Truth())
		case "compare":
			fs.noCompare = !bool(kv[1].Truth())
		}
	}
	return fs, nil
}
