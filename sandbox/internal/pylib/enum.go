package pylib

import (
	"fmt"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// The enum module: Enum, IntEnum, StrEnum and auto(). A class deriving
// from one of them (class Color(Enum): RED = 1) has one member per plain
// class attribute, in order: Color.RED, Color(1) (by value), Color["RED"]
// (by name), iteration, len() and `in` over the members; members have
// .name and .value, print as Color.RED and repr as <Color.RED: 1>.

// typeEnum, typeIntEnum and typeStrEnum are the base classes; a class
// deriving from them becomes an enumeration (typeEnum.initSubclass is
// makeEnum).
var typeEnum, typeIntEnum, typeStrEnum = new(py.TypeObj), new(py.TypeObj), new(py.TypeObj)

// enumInfo holds an enumeration's members, in definition order; it is
// the enumeration's classMeta.
type enumInfo struct {
	cls     *py.TypeObj
	members []*enumMember
}

var _ py.ClassMeta = (*enumInfo)(nil)

// enumMember is a member of an enumeration.
type enumMember struct {
	cls   *py.TypeObj
	name  string
	value starlark.Value
}

var _ starlark.HasAttrs = (*enumMember)(nil)

func (m *enumMember) Type() string           { return m.cls.PyName }
func (m *enumMember) PyTypeObj() *py.TypeObj { return m.cls }
func (m *enumMember) PyTypeName() string     { return m.cls.PyName }
func (m *enumMember) Freeze()                {}
func (m *enumMember) Truth() starlark.Bool   { return true }
func (m *enumMember) Hash() (uint32, error) {
	return starlark.String(m.cls.PyName + "." + m.name).Hash()
}
func (m *enumMember) String() string { return m.PyStr() }
func (m *enumMember) PyStr() string {
	if m.cls.IsSubtype(typeIntEnum) || m.cls.IsSubtype(typeStrEnum) {
		return py.Str(m.value) // 3.11: str() of an IntEnum or StrEnum member is its value's
	}
	return m.cls.PyName + "." + m.name
}
func (m *enumMember) WriteRepr(r *py.Renderer) {
	fmt.Fprintf(&r.B, "<%s.%s: ", m.cls.PyName, m.name)
	r.Repr(m.value)
	r.B.WriteByte('>')
}

// AttrNames lists name, value and the class's attributes.
func (m *enumMember) AttrNames() []string { return []string{"name", "value"} }

// Attr returns name, value, another member, or a method bound to m.
func (m *enumMember) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name", "_name_":
		return starlark.String(m.name), nil
	case "value", "_value_":
		return m.value, nil
	}
	if v, ok := m.cls.Lookup(name); ok {
		return py.ClassAttr(m.cls.Cls.SessThread(), m.cls, v, m)
	}
	return nil, py.Errorf("AttributeError", "'%s' object has no attribute '%s'", m.cls.PyName, name)
}

// makeEnum turns the class t (deriving from Enum) into an enumeration.
func makeEnum(t *py.TypeObj) error {
	info := &enumInfo{cls: t}
	t.Cls.Meta = info
	isInt, isStr := t.IsSubtype(typeIntEnum), t.IsSubtype(typeStrEnum)
	next := 1
	for _, name := range t.Cls.Names {
		v := t.Attrs[name]
		if len(name) > 1 && name[0] == '_' {
			continue
		}
		switch v.(type) {
		case *starlark.Function, *py.MemberWrapper, *starlark.Builtin, *memoized:
			continue
		case *enumAuto:
			if isStr {
				v = starlark.String(toLowerASCII(name))
			} else {
				v = starlark.MakeInt(next)
			}
		}
		if i, ok := v.(starlark.Int); ok {
			if n, ok := i.Int64(); ok {
				next = int(n) + 1
			}
		}
		if isInt {
			if _, ok := v.(starlark.Int); !ok {
				return py.Errorf("ValueError", "invalid literal for int() with base 10: %s", py.Repr(v))
			}
		}
		// A repeated value makes an alias of the first member.
		var mem *enumMember
		for _, o := range info.members {
			if eq, _ := starlark.Equal(o.value, v); eq {
				mem = o
				break
			}
		}
		if mem == nil {
			mem = &enumMember{cls: t, name: name, value: v}
			info.members = append(info.members, mem)
		}
		t.Attrs[name] = mem
	}
	t.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs(t.PyName, args, kwargs, 1, &v); err != nil {
			return nil, err
		}
		if m, ok := v.(*enumMember); ok && m.cls == t {
			return m, nil
		}
		for _, m := range info.members {
			if eq, _ := starlark.Equal(m.value, v); eq {
				return m, nil
			}
		}
		return nil, py.Errorf("ValueError", "%s is not a valid %s", py.Repr(v), t.PyName)
	}
	t.Check = func(v starlark.Value) bool {
		m, ok := v.(*enumMember)
		return ok && m.cls.IsSubtype(t)
	}
	return nil
}

// ClassLen is len(Color): the number of members (aliases not counted).
func (info *enumInfo) ClassLen() int { return len(info.members) }

// ClassItem is Color["RED"].
func (info *enumInfo) ClassItem(key starlark.Value) (starlark.Value, error) {
	t := info.cls
	name, _ := starlark.AsString(key)
	for _, n := range t.Cls.Names {
		if n == name {
			if m, ok := t.Attrs[n].(*enumMember); ok {
				return m, nil
			}
		}
	}
	return nil, &py.PyError{Kind: "KeyError", Msg: py.Repr(key)}
}

// ClassMembers is the tuple of an enumeration's members.
func (info *enumInfo) ClassMembers() starlark.Tuple {
	out := make(starlark.Tuple, len(info.members))
	for i, m := range info.members {
		out[i] = m
	}
	return out
}

// enumAuto is the value of enum.auto().
type enumAuto struct{}

func (a *enumAuto) String() string        { return "auto()" }
func (a *enumAuto) Type() string          { return "auto" }
func (a *enumAuto) Freeze()               {}
func (a *enumAuto) Truth() starlark.Bool  { return true }
func (a *enumAuto) Hash() (uint32, error) { return 0, nil }

func toLowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

var _ = py.RegisterModule("enum", enumModule)

// enumModule builds the enum module on its first import.
func enumModule() *py.Module {
	completeEnumTypes()
	return py.NewModule("enum", map[string]py.BuiltinFn{
		"auto": func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs("auto", args, kwargs, 0); err != nil {
				return nil, err
			}
			return &enumAuto{}, nil
		},
	}, starlark.StringDict{"Enum": typeEnum, "IntEnum": typeIntEnum, "StrEnum": typeStrEnum})
}

// completeEnumTypes completes typeEnum, typeIntEnum and typeStrEnum, once,
// on the enum module's first import.
var completeEnumTypes = sync.OnceFunc(func() {
	*typeEnum = py.TypeObj{PyName: "Enum", Check: func(v starlark.Value) bool { return py.IsType[*enumMember](v) }, InitSubclass: makeEnum}
	*typeIntEnum = py.TypeObj{PyName: "IntEnum", Base: typeEnum, Check: func(v starlark.Value) bool {
		m, ok := v.(*enumMember)
		return ok && m.cls.IsSubtype(typeIntEnum)
	}}
	*typeStrEnum = py.TypeObj{PyName: "StrEnum", Base: typeEnum, Check: func(v starlark.Value) bool {
		m, ok := v.(*enumMember)
		return ok && m.cls.IsSubtype(typeStrEnum)
	}}
})
