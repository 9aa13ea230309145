package pylib

import (
	"slices"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// The names of typing that code uses at run time (the front end drops the
// rest with the annotations): NamedTuple and TypedDict as base classes,
// and cast.

// typeTypingNamedTuple and typeTypedDict are typing.NamedTuple and
// typing.TypedDict; a class deriving from them is made by their newClass
// (namedTupleClass, typedDictClass).
var typeTypingNamedTuple, typeTypedDict = new(py.TypeObj), new(py.TypeObj)

var (
	_ = py.RegisterModule("typing", typingModule)
	_ = py.RegisterModule("typing_extensions", typingModule)
)

// typingModule builds the typing module (imported as typing or
// typing_extensions) on its first import.
func typingModule() *py.Module {
	completeTypingTypes()
	return py.NewModule("typing", map[string]py.BuiltinFn{
		"cast": func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var typ, v starlark.Value
			if err := starlark.UnpackPositionalArgs("cast", args, kwargs, 2, &typ, &v); err != nil {
				return nil, err
			}
			return v, nil
		},
	}, starlark.StringDict{"NamedTuple": typeTypingNamedTuple, "TypedDict": typeTypedDict})
}

// completeTypingTypes completes typeTypingNamedTuple and typeTypedDict,
// once, on the typing module's first import.
var completeTypingTypes = sync.OnceFunc(func() {
	*typeTypingNamedTuple = py.TypeObj{PyName: "NamedTuple", Check: func(starlark.Value) bool { return false }}
	typeTypingNamedTuple.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		// NamedTuple("P", [("x", int), ("y", int)])
		var name string
		var fieldsV starlark.Value
		if err := starlark.UnpackArgs("NamedTuple", args, kwargs, "typename", &name, "fields", &fieldsV); err != nil {
			return nil, err
		}
		pairs, err := py.Collect(thread, fieldsV)
		if err != nil {
			return nil, err
		}
		var names starlark.Tuple
		for _, p := range pairs {
			t, ok := p.(starlark.Tuple)
			if !ok || len(t) != 2 {
				return nil, py.Errorf("TypeError", "NamedTuple('Name', [(f0, t0), (f1, t1), ...]); each t must be a type")
			}
			names = append(names, t[0])
		}
		return namedtuple(thread, nil, starlark.Tuple{starlark.String(name), names}, nil)
	}
	typeTypingNamedTuple.NewClass = namedTupleClass
	*typeTypedDict = py.TypeObj{PyName: "TypedDict", Check: func(starlark.Value) bool { return false }, NewClass: typedDictClass}
})

// typedDictClass makes a class deriving from typing.TypedDict: a type
// whose constructor is dict's.
func typedDictClass(_ *starlark.Thread, name string, _ *py.ClassInfo, _ starlark.StringDict) (starlark.Value, error) {
	return &py.TypeObj{PyName: name, Base: py.TypeDict, Attrs: starlark.StringDict{}, Call: py.TypeDict.Call, Check: py.TypeDict.Check}, nil
}

// namedTupleClass makes a class deriving from typing.NamedTuple: a named
// tuple type with the annotated fields, the class's values as defaults
// and its functions as methods.
func namedTupleClass(thread *starlark.Thread, name string, info *py.ClassInfo, attrs starlark.StringDict) (starlark.Value, error) {
	fields := make(starlark.Tuple, len(info.Annotations))
	var defaults starlark.Tuple
	for i, f := range info.Annotations {
		fields[i] = starlark.String(f)
		if v, ok := attrs[f]; ok {
			defaults = append(defaults, v)
		} else if len(defaults) > 0 {
			return nil, py.Errorf("TypeError", "Non-default namedtuple field %s cannot follow default field %s", f, info.Annotations[i-1])
		}
	}
	v, err := namedtuple(
		thread,
		nil,
		starlark.Tuple{starlark.String(name), fields},
		[]starlark.Tuple{{starlark.String("defaults"), defaults}},
	)
	if err != nil {
		return nil, err
	}
	t := v.(*py.TypeObj)
	for _, k := range info.Names {
		if !slices.Contains(info.Annotations, k) {
			t.Attrs[k] = attrs[k]
		}
	}
	t.Cls.Sess = info.Sess
	return t, nil
}
