package py

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// Python classes (pyfront Options.Classes): a class is a *typeObj whose
// cls field holds its members; instances are *pyObject.

// ClassInfo is the class part of a typeObj.
type ClassInfo struct {
	bases       []*TypeObj
	Names       []string // member names in definition order
	Annotations []string
	Sess        *State

	// Set by @dataclass: the fields in order, and frozen=True.
	DcFields []string
	Frozen   bool

	Meta ClassMeta // set by a module on the classes it makes (an enumeration)
}

// ClassMeta is the behaviour a module gives a class object itself, as a
// Python metaclass does (enum's, for an enumeration): len(C), iteration
// over C and C[key].
type ClassMeta interface {
	// ClassLen is len(C).
	ClassLen() int
	// ClassMembers is what iterating over C yields.
	ClassMembers() starlark.Tuple
	// ClassItem is C[key].
	ClassItem(key starlark.Value) (starlark.Value, error)
}

// metaOf returns the classMeta of t (nil: t is not a class or has none).
func metaOf(t *TypeObj) ClassMeta {
	if t == nil || t.Cls == nil {
		return nil
	}
	return t.Cls.Meta
}

// SessThread is a thread to call methods from attribute reads.
func (c *ClassInfo) SessThread() *starlark.Thread {
	if c != nil && c.Sess != nil && c.Sess.Current != nil {
		return c.Sess.Current
	}
	return &starlark.Thread{Name: "class"}
}

// hasMembers reports whether a class defined by code, or one of its bases
// defined by code, has members (methods or class attributes).
func (t *TypeObj) hasMembers() bool {
	for _, c := range t.Mro() {
		if c.Cls != nil && len(c.Cls.Names) > 0 {
			return true
		}
	}
	return false
}

// Mro returns the class and its bases, depth-first, left to right.
func (t *TypeObj) Mro() []*TypeObj {
	out := []*TypeObj{t}
	if t.Cls != nil {
		for _, b := range t.Cls.bases {
			out = append(out, b.Mro()...)
		}
	} else if t.Base != nil {
		out = append(out, t.Base.Mro()...)
		if t.base2 != nil {
			out = append(out, t.base2.Mro()...)
		}
	}
	return out
}

// Lookup finds a class member through the MRO.
func (t *TypeObj) Lookup(name string) (starlark.Value, bool) {
	for _, c := range t.Mro() {
		if c.Cls == nil {
			continue
		}
		if v, ok := c.Attrs[name]; ok {
			return v, true
		}
	}
	return nil, false
}

// isException reports whether t derives from BaseException.
func (t *TypeObj) isException() bool {
	for _, c := range t.Mro() {
		if ExcTypes[c.PyName] == c {
			return true
		}
	}
	return false
}

func (t *TypeObj) SetField(name string, v starlark.Value) error {
	if t.Cls == nil {
		return Errorf("TypeError", "cannot set '%s' attribute of immutable type '%s'", name, t.PyName)
	}
	if _, ok := t.Attrs[name]; !ok {
		t.Cls.Names = append(t.Cls.Names, name)
	}
	t.Attrs[name] = v
	return nil
}

// staticMethod, classMethod and property wrap class members.
type MemberWrapper struct {
	kind string // "staticmethod", "classmethod", "property"
	fn   starlark.Value
}

func (w *MemberWrapper) String() string        { return "<" + w.kind + " object>" }
func (w *MemberWrapper) Type() string          { return w.kind }
func (w *MemberWrapper) Freeze()               {}
func (w *MemberWrapper) Truth() starlark.Bool  { return true }
func (w *MemberWrapper) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: '%s'", w.kind) }

func wrapperBuiltin(kind string) BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		fn, err := OneArg(kind, args, kwargs)
		if err != nil {
			return nil, err
		}
		return &MemberWrapper{kind: kind, fn: fn}, nil
	}
}

// bound is a method bound to a receiver.
func bindMethod(fn, self starlark.Value) starlark.Value {
	name := "method"
	if c, ok := fn.(starlark.Callable); ok {
		name = c.Name()
	}
	return NewBuiltin(
		name,
		func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.Call(thread, fn, append(starlark.Tuple{self}, args...), kwargs)
		},
	)
}

// MethodFunc is implemented by the callables a module defines that bind
// to the instance they are read through, as functions do (the wrapper of
// functools.lru_cache on a method).
type MethodFunc interface {
	starlark.Callable
	// BindsAsMethod marks the type; it is never called.
	BindsAsMethod()
}

// ClassAttr resolves a member found on a class for access through recv
// (an instance, or nil for access on the class itself).
func ClassAttr(thread *starlark.Thread, cls *TypeObj, v starlark.Value, recv starlark.Value) (starlark.Value, error) {
	switch x := v.(type) {
	case *MemberWrapper:
		switch x.kind {
		case "staticmethod":
			return x.fn, nil
		case "classmethod":
			return bindMethod(x.fn, cls), nil
		case "property":
			if recv == nil {
				return x, nil
			}
			return starlark.Call(thread, x.fn, starlark.Tuple{recv}, nil)
		}
	case *starlark.Function, MethodFunc:
		if recv != nil {
			return bindMethod(v, recv), nil
		}
	}
	return v, nil
}

// PyObject is an instance of a Python class.
type PyObject struct {
	Cls   *TypeObj
	Names []string
	Attrs map[string]starlark.Value
	cause starlark.Value // __cause__ of an exception instance (raise ... from C); nil is None
	// context is __context__ of an exception instance (the exception
	// being handled when it was raised); nil is None.
	context starlark.Value
}

var (
	_ starlark.HasAttrs    = (*PyObject)(nil)
	_ starlark.HasSetField = (*PyObject)(nil)
	_ starlark.Comparable  = (*PyObject)(nil)
	_ starlark.HasBinary   = (*PyObject)(nil)
	_ starlark.Mapping     = (*PyObject)(nil)
	_ starlark.Container   = (*PyObject)(nil)
	_ starlark.Sequence    = (*PyObject)(nil)
	_ starlark.Callable    = (*PyObject)(nil)
)

func (o *PyObject) thread() *starlark.Thread {
	if o.Cls.Cls != nil && o.Cls.Cls.Sess != nil && o.Cls.Cls.Sess.Current != nil {
		return o.Cls.Cls.Sess.Current
	}
	return &starlark.Thread{Name: "dunder"}
}

// dunder calls a special method if the class defines it.
func (o *PyObject) dunder(name string, args ...starlark.Value) (starlark.Value, bool, error) {
	fn, ok := o.Cls.Lookup(name)
	if !ok {
		return nil, false, nil
	}
	v, err := starlark.Call(o.thread(), fn, append(starlark.Tuple{o}, args...), nil)
	return v, true, err
}

func (o *PyObject) String() string      { return Repr(o) }
func (o *PyObject) Type() string        { return o.Cls.PyName }
func (o *PyObject) PyTypeObj() *TypeObj { return o.Cls }
func (o *PyObject) PyTypeName() string  { return o.Cls.PyName }
func (o *PyObject) Freeze()             {}
func (o *PyObject) Name() string        { return o.Cls.PyName }
func (o *PyObject) Truth() starlark.Bool {
	if v, ok, err := o.dunder("__bool__"); ok && err == nil {
		return v.Truth()
	}
	if v, ok, err := o.dunder("__len__"); ok && err == nil {
		return v.Truth()
	}
	return true
}

func (o *PyObject) Hash() (uint32, error) {
	if v, ok, err := o.dunder("__hash__"); ok {
		if err != nil {
			return 0, err
		}
		i, err := starlark.AsInt32(v)
		return uint32(i), err
	}
	return starlark.String(fmt.Sprintf("%p", o)).Hash()
}

func (o *PyObject) WriteRepr(r *Renderer) {
	if v, ok, err := o.dunder("__repr__"); ok {
		if err != nil {
			r.fail(err)
			return
		}
		r.B.WriteString(Str(v))
		return
	}
	if o.Cls.isException() {
		args, _ := o.Attrs["args"].(starlark.Tuple)
		(&exception{Typ: o.Cls, args: args}).WriteRepr(r)
		return
	}
	fmt.Fprintf(&r.B, "<__main__.%s object at %p>", o.Cls.PyName, o)
}

// writeStr renders str(o); an exception raised by __str__ stops the
// rendering (print, str, f-strings raise it, as in Python).
func (o *PyObject) writeStr(r *Renderer) {
	if v, ok, err := o.dunder("__str__"); ok {
		if err != nil {
			r.fail(err)
			return
		}
		r.B.WriteString(Str(v))
		return
	}
	r.B.WriteString(o.PyStr())
}

func (o *PyObject) PyStr() string {
	if v, ok, err := o.dunder("__str__"); ok && err == nil {
		return Str(v)
	}
	if o.Cls.isException() {
		args, _ := o.Attrs["args"].(starlark.Tuple)
		return (&exception{Typ: o.Cls, args: args}).msg()
	}
	return Repr(o)
}

func (o *PyObject) Attr(name string) (starlark.Value, error) {
	if v, ok := o.Attrs[name]; ok {
		return v, nil
	}
	if name == "__class__" {
		return o.Cls, nil
	}
	if (name == "__cause__" || name == "__context__") && o.Cls.isException() {
		if name == "__cause__" && o.cause != nil {
			return o.cause, nil
		}
		if name == "__context__" && o.context != nil {
			return o.context, nil
		}
		return starlark.None, nil
	}
	if name == "__dict__" {
		d := starlark.NewDict(len(o.Names))
		for _, n := range o.Names {
			d.SetKey(starlark.String(n), o.Attrs[n])
		}
		return d, nil
	}
	if v, ok := o.Cls.Lookup(name); ok {
		return ClassAttr(o.thread(), o.Cls, v, o)
	}
	if _, ok, _ := o.dunder("__getattr__"); ok {
		v, _, err := o.dunder("__getattr__", starlark.String(name))
		return v, err
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", o.Cls.PyName, name)
}

func (o *PyObject) AttrNames() []string { return o.Names }

// frozen reports whether setting or deleting the attribute name of o is
// refused by a frozen dataclass: as in CPython, the nearest frozen
// dataclass in the MRO refuses every name on its own instances and its
// fields on instances of subclasses.
func (o *PyObject) frozen(name string) bool {
	for _, c := range o.Cls.Mro() {
		if c.Cls != nil && c.Cls.Frozen {
			return c == o.Cls || slices.Contains(c.Cls.DcFields, name)
		}
	}
	return false
}

func (o *PyObject) SetField(name string, v starlark.Value) error {
	if o.frozen(name) {
		return Errorf("FrozenInstanceError", "cannot assign to field '%s'", name)
	}
	return o.SetAttr(name, v)
}

// SetAttr sets an attribute without the frozen check (a dataclass's
// __init__ sets the fields of a frozen instance).
func (o *PyObject) SetAttr(name string, v starlark.Value) error {
	if w, ok := o.Cls.Lookup(name); ok {
		if mw, ok := w.(*MemberWrapper); ok && mw.kind == "property" {
			return Errorf("AttributeError", "property '%s' of '%s' object has no setter", name, o.Cls.PyName)
		}
	}
	if _, ok := o.Attrs[name]; !ok {
		o.Names = append(o.Names, name)
	}
	o.Attrs[name] = v
	return nil
}

func (o *PyObject) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	names := map[syntax.Token]string{
		syntax.EQL: "__eq__",
		syntax.NEQ: "__ne__",
		syntax.LT:  "__lt__",
		syntax.LE:  "__le__",
		syntax.GT:  "__gt__",
		syntax.GE:  "__ge__",
	}
	if v, ok, err := o.dunder(names[op], y); ok {
		if err != nil {
			return false, err
		}
		return bool(v.Truth()), nil
	}
	switch op {
	case syntax.EQL:
		return o == y, nil
	case syntax.NEQ:
		if v, ok, err := o.dunder("__eq__", y); ok {
			return !bool(v.Truth()), err
		}
		return o != y, nil
	case syntax.GT, syntax.GE:
		// Python reflects: a > b is b < a.
		if yo, ok := y.(*PyObject); ok {
			rev := map[syntax.Token]string{syntax.GT: "__lt__", syntax.GE: "__le__"}[op]
			if v, ok, err := yo.dunder(rev, o); ok {
				return bool(v.Truth()), err
			}
		}
	}
	return false, Errorf("TypeError", "'%s' not supported between instances of '%s' and '%s'", op, o.Cls.PyName, PyType(y))
}

var binaryDunders = map[syntax.Token][2]string{
	syntax.PLUS: {"__add__", "__radd__"}, syntax.MINUS: {"__sub__", "__rsub__"}, syntax.STAR: {"__mul__", "__rmul__"},
	syntax.SLASH: {"__truediv__", "__rtruediv__"}, syntax.SLASHSLASH: {"__floordiv__", "__rfloordiv__"},
	syntax.PERCENT: {"__mod__", "__rmod__"}, syntax.AMP: {"__and__", "__rand__"}, syntax.PIPE: {"__or__", "__ror__"},
}

func (o *PyObject) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	names, ok := binaryDunders[op]
	if !ok {
		return nil, nil
	}
	name := names[0]
	if side == starlark.Right {
		name = names[1]
	}
	v, ok, err := o.dunder(name, y)
	if !ok {
		return nil, nil
	}
	return v, err
}

func (o *PyObject) Get(k starlark.Value) (starlark.Value, bool, error) {
	v, ok, err := o.dunder("__getitem__", k)
	if !ok {
		return nil, false, Errorf("TypeError", "'%s' object is not subscriptable", o.Cls.PyName)
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

func (o *PyObject) Has(k starlark.Value) (bool, error) {
	if v, ok, err := o.dunder("__contains__", k); ok {
		return bool(v.Truth()), err
	}
	return false, Errorf("TypeError", "argument of type '%s' is not iterable", o.Cls.PyName)
}

func (o *PyObject) Len() int {
	v, ok, err := o.dunder("__len__")
	if !ok || err != nil {
		return -1
	}
	n, _ := starlark.AsInt32(v)
	return n
}

func (o *PyObject) Iterate() starlark.Iterator {
	v, ok, err := o.dunder("__iter__")
	if !ok || err != nil {
		return starlark.Tuple(nil).Iterate()
	}
	elems, err := Collect(o.thread(), v)
	if err != nil {
		return starlark.Tuple(nil).Iterate()
	}
	return starlark.Tuple(elems).Iterate()
}

func (o *PyObject) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	fn, ok := o.Cls.Lookup("__call__")
	if !ok {
		return nil, Errorf("TypeError", "'%s' object is not callable", o.Cls.PyName)
	}
	return starlark.Call(thread, fn, append(starlark.Tuple{o}, args...), kwargs)
}

// pyClassHelper implements _py_class(name, bases, members).
func pyClassHelper(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var basesV, membersV starlark.Value
	if err := starlark.UnpackPositionalArgs("_py_class", args, kwargs, 3, &name, &basesV, &membersV); err != nil {
		return nil, err
	}
	info := &ClassInfo{}
	if st := StepOf(thread); st != nil {
		info.Sess = st.State
	}
	t := &TypeObj{PyName: name, Cls: info, Attrs: starlark.StringDict{}}
	baseVals, err := Collect(thread, basesV)
	if err != nil {
		return nil, err
	}
	for _, b := range baseVals {
		bt, ok := b.(*TypeObj)
		if !ok {
			return nil, Errorf("TypeError", "class %s: base %s is not a class", name, Repr(b))
		}
		if bt == typeObject {
			continue
		}
		info.bases = append(info.bases, bt)
	}
	if len(info.bases) > 0 {
		t.Base = info.bases[0]
	}
	members, ok := membersV.(*starlark.Dict)
	if !ok {
		return nil, Errorf("TypeError", "_py_class: members must be a dict")
	}
	for _, kv := range members.Items() {
		k, _ := starlark.AsString(kv[0])
		if k == "__annotations__" {
			anns, _ := Collect(thread, kv[1])
			for _, a := range anns {
				s, _ := starlark.AsString(a)
				info.Annotations = append(info.Annotations, s)
			}
			continue
		}
		info.Names = append(info.Names, k)
		t.Attrs[k] = kv[1]
	}
	if len(info.bases) == 1 && info.bases[0].NewClass != nil {
		return info.bases[0].NewClass(thread, name, info, t.Attrs)
	}
	t.Check = func(v starlark.Value) bool {
		var vt *TypeObj
		switch x := v.(type) {
		case *PyObject:
			vt = x.Cls
		case *exception:
			vt = x.Typ
		default:
			return false
		}
		for _, c := range vt.Mro() {
			if c == t {
				return true
			}
		}
		return false
	}
	t.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if t.isException() && !t.hasMembers() {
			// A plain subclass (class E(Exception): pass) makes a plain
			// exception; one with methods (__init__, __str__, ...) an
			// object that has them.
			return &exception{Typ: t, args: append(starlark.Tuple(nil), args...)}, nil
		}
		o := &PyObject{Cls: t, Attrs: map[string]starlark.Value{}}
		if t.isException() {
			o.SetField("args", append(starlark.Tuple(nil), args...))
		}
		if init, ok := t.Lookup("__init__"); ok {
			if _, err := starlark.Call(thread, init, append(starlark.Tuple{o}, args...), kwargs); err != nil {
				return nil, err
			}
		} else if t.isException() && len(kwargs) > 0 {
			return nil, Errorf("TypeError", "%s() takes no keyword arguments", name)
		} else if !t.isException() && (len(args) > 0 || len(kwargs) > 0) {
			return nil, Errorf("TypeError", "%s() takes no arguments", name)
		}
		return o, nil
	}
	for _, b := range t.Mro()[1:] {
		if b.InitSubclass != nil {
			if err := b.InitSubclass(t); err != nil {
				return nil, err
			}
			break
		}
	}
	return t, nil
}

// superProxy is the value of super() in a method.
type superProxy struct {
	cls  *TypeObj
	self starlark.Value
}

func (s *superProxy) String() string        { return "<super: <class '" + s.cls.PyName + "'>>" }
func (s *superProxy) Type() string          { return "super" }
func (s *superProxy) Freeze()               {}
func (s *superProxy) Truth() starlark.Bool  { return true }
func (s *superProxy) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 'super'") }
func (s *superProxy) AttrNames() []string   { return nil }
func (s *superProxy) Attr(name string) (starlark.Value, error) {
	var mro []*TypeObj
	switch x := s.self.(type) {
	case *PyObject:
		mro = x.Cls.Mro()
	case *TypeObj:
		mro = x.Mro()
	}
	after := false
	for _, c := range mro {
		if after && c.Cls != nil {
			if v, ok := c.Attrs[name]; ok {
				return ClassAttr(&starlark.Thread{Name: "super"}, c, v, s.self)
			}
		}
		if c == s.cls {
			after = true
		}
	}
	if name == "__init__" {
		// object.__init__ / Exception.__init__: an exception keeps its args.
		return NewBuiltin(
			"__init__",
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				if o, ok := s.self.(*PyObject); ok && o.Cls.isException() {
					o.SetField("args", append(starlark.Tuple(nil), args...))
				}
				return starlark.None, nil
			},
		), nil
	}
	return nil, Errorf("AttributeError", "'super' object has no attribute '%s'", name)
}

func pySuper(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, Errorf("RuntimeError", "super(): use super() inside a method")
	}
	cls, ok := args[0].(*TypeObj)
	if !ok {
		return nil, Errorf("TypeError", "super() argument 1 must be a type")
	}
	return &superProxy{cls: cls, self: args[1]}, nil
}

// pyDelAttr implements delattr(obj, name) and the statement del obj.name
// (named after the builtin b in errors).
func pyDelAttr(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var obj starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &obj, &name); err != nil {
		return nil, err
	}
	o, ok := obj.(*PyObject)
	if !ok {
		if has, err := pyHasattr(thread, nil, starlark.Tuple{obj, starlark.String(name)}, nil); err == nil && has == starlark.True {
			return nil, Errorf("AttributeError", "attribute '%s' of '%s' objects is not writable", name, PyType(obj))
		}
		return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", PyType(obj), name)
	}
	if o.frozen(name) {
		return nil, Errorf("FrozenInstanceError", "cannot delete field '%s'", name)
	}
	if _, ok := o.Attrs[name]; !ok {
		return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", o.Cls.PyName, name)
	}
	delete(o.Attrs, name)
	o.Names = slices.DeleteFunc(o.Names, func(n string) bool { return n == name })
	return starlark.None, nil
}

// pyDunder implements reads of x.__class__, x.__name__, x.__qualname__ and
// x.__doc__ (the front-end routes those attribute reads here): the value's
// own attribute when it has one, else what Python gives for functions,
// builtins and values of builtin types.
func pyDunder(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("_py_dunder", args, kwargs, 2, &x, &name); err != nil {
		return nil, err
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	if h, ok := x.(starlark.HasAttrs); ok {
		if v, err := h.Attr(name); err == nil && v != nil {
			return v, nil
		}
	}
	switch name {
	case "__class__":
		return typeOf(x), nil
	case "__name__", "__qualname__":
		switch f := x.(type) {
		case *starlark.Function:
			return starlark.String(f.Name()), nil
		case *starlark.Builtin:
			n := f.Name()
			return starlark.String(n[strings.LastIndexByte(n, '.')+1:]), nil
		}
	case "__doc__":
		switch f := x.(type) {
		case *starlark.Function:
			if d := f.Doc(); d != "" {
				return starlark.String(d), nil
			}
		case *starlark.Builtin:
			if st := StepOf(thread); st != nil && st.State.Doc != nil && st.State.Predeclared[f.Name()] == x {
				if d := st.State.Doc(f.Name()); d != "" {
					return starlark.String(d), nil
				}
			}
		}
		return starlark.None, nil
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", PyType(x), name)
}
