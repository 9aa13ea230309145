package sandbox

import (
	"fmt"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// The enum module: Enum, IntEnum, StrEnum and auto(). A class deriving
// from one of them (class Color(Enum): RED = 1) has one member per plain
// class attribute, in order: Color.RED, Color(1) (by value), Color["RED"]
// (by name), iteration, len() and `in` over the members; members have
// .name and .value, print as Color.RED and repr as <Color.RED: 1>.

// typeEnum, typeIntEnum and typeStrEnum are the base classes; a class
// deriving from them becomes an enumeration (typeEnum.initSubclass is
// makeEnum).
var typeEnum, typeIntEnum, typeStrEnum = new(typeObj), new(typeObj), new(typeObj)

// enumInfo holds an enumeration's members, in definition order; it is
// the enumeration's classMeta.
type enumInfo struct {
	cls     *typeObj
	members []*enumMember
}

var _ classMeta = (*enumInfo)(nil)

// enumMember is a member of an enumeration.
type enumMember struct {
	cls   *typeObj
	name  string
	value starlark.Value
}

var _ starlark.HasAttrs = (*enumMember)(nil)

func (m *enumMember) Type() string          { return m.cls.name }
func (m *enumMember) pyTypeObj() *typeObj   { return m.cls }
func (m *enumMember) pyTypeName() string    { return m.cls.name }
func (m *enumMember) Freeze()               {}
func (m *enumMember) Truth() starlark.Bool  { return true }
func (m *enumMember) Hash() (uint32, error) { return starlark.String(m.cls.name + "." + m.name).Hash() }
func (m *enumMember) String() string        { return m.pyStr() }
func (m *enumMember) pyStr() string {
	if m.cls.isSubtype(typeIntEnum) || m.cls.isSubtype(typeStrEnum) {
		return Str(m.value) // 3.11: str() of an IntEnum or StrEnum member is its value's
	}
	return m.cls.name + "." + m.name
}
func (m *enumMember) writeRepr(r *renderer) {
	fmt.Fprintf(&r.b, "<%s.%s: ", m.cls.name, m.name)
	r.repr(m.value)
	r.b.WriteByte('>')
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
	if v, ok := m.cls.lookup(name); ok {
		return classAttr(m.cls.cls.sessThread(), m.cls, v, m)
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", m.cls.name, name)
}

// makeEnum turns the class t (deriving from Enum) into an enumeration.
func makeEnum(t *typeObj) error {
	info := &enumInfo{cls: t}
	t.cls.meta = info
	isInt, isStr := t.isSubtype(typeIntEnum), t.isSubtype(typeStrEnum)
	next := 1
	for _, name := range t.cls.names {
		v := t.attrs[name]
		if len(name) > 1 && name[0] == '_' {
			continue
		}
		switch v.(type) {
		case *starlark.Function, *memberWrapper, *starlark.Builtin, *memoized:
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
				return Errorf("ValueError", "invalid literal for int() with base 10: %s", Repr(v))
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
		t.attrs[name] = mem
	}
	t.call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs(t.name, args, kwargs, 1, &v); err != nil {
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
		return nil, Errorf("ValueError", "%s is not a valid %s", Repr(v), t.name)
	}
	t.check = func(v starlark.Value) bool {
		m, ok := v.(*enumMember)
		return ok && m.cls.isSubtype(t)
	}
	return nil
}

// classLen is len(Color): the number of members (aliases not counted).
func (info *enumInfo) classLen() int { return len(info.members) }

// classItem is Color["RED"].
func (info *enumInfo) classItem(key starlark.Value) (starlark.Value, error) {
	t := info.cls
	name, _ := starlark.AsString(key)
	for _, n := range t.cls.names {
		if n == name {
			if m, ok := t.attrs[n].(*enumMember); ok {
				return m, nil
			}
		}
	}
	return nil, &PyError{Kind: "KeyError", Msg: Repr(key)}
}

// classMembers is the tuple of an enumeration's members.
func (info *enumInfo) classMembers() starlark.Tuple {
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

var _ = registerModule("enum", enumModule)

// enumModule builds the enum module on its first import.
func enumModule() *module {
	completeEnumTypes()
	return newModule("enum", map[string]builtinFn{
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
	*typeEnum = typeObj{name: "Enum", check: func(v starlark.Value) bool { return isType[*enumMember](v) }, initSubclass: makeEnum}
	*typeIntEnum = typeObj{name: "IntEnum", base: typeEnum, check: func(v starlark.Value) bool {
		m, ok := v.(*enumMember)
		return ok && m.cls.isSubtype(typeIntEnum)
	}}
	*typeStrEnum = typeObj{name: "StrEnum", base: typeEnum, check: func(v starlark.Value) bool {
		m, ok := v.(*enumMember)
		return ok && m.cls.isSubtype(typeStrEnum)
	}}
})
