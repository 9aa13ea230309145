package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// Python classes (pyfront Options.Classes): a class is a *typeObj whose
// cls field holds its members; instances are *pyObject.

// classInfo is the class part of a typeObj.
type classInfo struct {
	bases       []*typeObj
	names       []string // member names in definition order
	annotations []string
	sess        *State

	// Set by @dataclass: the fields in order, and frozen=True.
	dcFields []string
	frozen   bool

	meta classMeta // set by a module on the classes it makes (an enumeration)
}

// classMeta is the behaviour a module gives a class object itself, as a
// Python metaclass does (enum's, for an enumeration): len(C), iteration
// over C and C[key].
type classMeta interface {
	// classLen is len(C).
	classLen() int
	// classMembers is what iterating over C yields.
	classMembers() starlark.Tuple
	// classItem is C[key].
	classItem(key starlark.Value) (starlark.Value, error)
}

// metaOf returns the classMeta of t (nil: t is not a class or has none).
func metaOf(t *typeObj) classMeta {
	if t == nil || t.cls == nil {
		return nil
	}
	return t.cls.meta
}

// sessThread is a thread to call methods from attribute reads.
func (c *classInfo) sessThread() *starlark.Thread {
	if c != nil && c.sess != nil && c.sess.Current != nil {
		return c.sess.Current
	}
	return &starlark.Thread{Name: "class"}
}

// hasMembers reports whether a class defined by code, or one of its bases
// defined by code, has members (methods or class attributes).
func (t *typeObj) hasMembers() bool {
	for _, c := range t.mro() {
		if c.cls != nil && len(c.cls.names) > 0 {
			return true
		}
	}
	return false
}

// mro returns the class and its bases, depth-first, left to right.
func (t *typeObj) mro() []*typeObj {
	out := []*typeObj{t}
	if t.cls != nil {
		for _, b := range t.cls.bases {
			out = append(out, b.mro()...)
		}
	} else if t.base != nil {
		out = append(out, t.base.mro()...)
		if t.base2 != nil {
			out = append(out, t.base2.mro()...)
		}
	}
	return out
}

// lookup finds a class member through the MRO.
func (t *typeObj) lookup(name string) (starlark.Value, bool) {
	for _, c := range t.mro() {
		if c.cls == nil {
			continue
		}
		if v, ok := c.attrs[name]; ok {
			return v, true
		}
	}
	return nil, false
}

// isException reports whether t derives from BaseException.
func (t *typeObj) isException() bool {
	for _, c := range t.mro() {
		if excTypes[c.name] == c {
			return true
		}
	}
	return false
}

func (t *typeObj) SetField(name string, v starlark.Value) error {
	if t.cls == nil {
		return Errorf("TypeError", "cannot set '%s' attribute of immutable type '%s'", name, t.name)
	}
	if _, ok := t.attrs[name]; !ok {
		t.cls.names = append(t.cls.names, name)
	}
	t.attrs[name] = v
	return nil
}

// staticMethod, classMethod and property wrap class members.
type memberWrapper struct {
	kind string // "staticmethod", "classmethod", "property"
	fn   starlark.Value
}

func (w *memberWrapper) String() string        { return "<" + w.kind + " object>" }
func (w *memberWrapper) Type() string          { return w.kind }
func (w *memberWrapper) Freeze()               {}
func (w *memberWrapper) Truth() starlark.Bool  { return true }
func (w *memberWrapper) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: '%s'", w.kind) }

func wrapperBuiltin(kind string) builtinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		fn, err := oneArg(kind, args, kwargs)
		if err != nil {
			return nil, err
		}
		return &memberWrapper{kind: kind, fn: fn}, nil
	}
}

// bound is a method bound to a receiver.
func bindMethod(fn, self starlark.Value) starlark.Value {
	name := "method"
	if c, ok := fn.(starlark.Callable); ok {
		name = c.Name()
	}
	return NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.Call(thread, fn, append(starlark.Tuple{self}, args...), kwargs)
	})
}

// methodFunc is implemented by the callables a module defines that bind
// to the instance they are read through, as functions do (the wrapper of
// functools.lru_cache on a method).
type methodFunc interface {
	starlark.Callable
	// bindsAsMethod marks the type; it is never called.
	bindsAsMethod()
}

// classAttr resolves a member found on a class for access through recv
// (an instance, or nil for access on the class itself).
func classAttr(thread *starlark.Thread, cls *typeObj, v starlark.Value, recv starlark.Value) (starlark.Value, error) {
	switch x := v.(type) {
	case *memberWrapper:
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
	case *starlark.Function, methodFunc:
		if recv != nil {
			return bindMethod(v, recv), nil
		}
	}
	return v, nil
}

// pyObject is an instance of a Python class.
type pyObject struct {
	cls   *typeObj
	names []string
	attrs map[string]starlark.Value
	cause starlark.Value // __cause__ of an exception instance (raise ... from C); nil is None
	// context is __context__ of an exception instance (the exception
	// being handled when it was raised); nil is None.
	context starlark.Value
}

var (
	_ starlark.HasAttrs    = (*pyObject)(nil)
	_ starlark.HasSetField = (*pyObject)(nil)
	_ starlark.Comparable  = (*pyObject)(nil)
	_ starlark.HasBinary   = (*pyObject)(nil)
	_ starlark.Mapping     = (*pyObject)(nil)
	_ starlark.Container   = (*pyObject)(nil)
	_ starlark.Sequence    = (*pyObject)(nil)
	_ starlark.Callable    = (*pyObject)(nil)
)

func (o *pyObject) thread() *starlark.Thread {
	if o.cls.cls != nil && o.cls.cls.sess != nil && o.cls.cls.sess.Current != nil {
		return o.cls.cls.sess.Current
	}
	return &starlark.Thread{Name: "dunder"}
}

// dunder calls a special method if the class defines it.
func (o *pyObject) dunder(name string, args ...starlark.Value) (starlark.Value, bool, error) {
	fn, ok := o.cls.lookup(name)
	if !ok {
		return nil, false, nil
	}
	v, err := starlark.Call(o.thread(), fn, append(starlark.Tuple{o}, args...), nil)
	return v, true, err
}

func (o *pyObject) String() string      { return Repr(o) }
func (o *pyObject) Type() string        { return o.cls.name }
func (o *pyObject) pyTypeObj() *typeObj { return o.cls }
func (o *pyObject) pyTypeName() string  { return o.cls.name }
func (o *pyObject) Freeze()             {}
func (o *pyObject) Name() string        { return o.cls.name }
func (o *pyObject) Truth() starlark.Bool {
	if v, ok, err := o.dunder("__bool__"); ok && err == nil {
		return v.Truth()
	}
	if v, ok, err := o.dunder("__len__"); ok && err == nil {
		return v.Truth()
	}
	return true
}

func (o *pyObject) Hash() (uint32, error) {
	if v, ok, err := o.dunder("__hash__"); ok {
		if err != nil {
			return 0, err
		}
		i, err := starlark.AsInt32(v)
		return uint32(i), err
	}
	return starlark.String(fmt.Sprintf("%p", o)).Hash()
}

func (o *pyObject) writeRepr(r *renderer) {
	if v, ok, err := o.dunder("__repr__"); ok {
		if err != nil {
			r.fail(err)
			return
		}
		r.b.WriteString(Str(v))
		return
	}
	if o.cls.isException() {
		args, _ := o.attrs["args"].(starlark.Tuple)
		(&exception{typ: o.cls, args: args}).writeRepr(r)
		return
	}
	fmt.Fprintf(&r.b, "<__main__.%s object at %p>", o.cls.name, o)
}

// writeStr renders str(o); an exception raised by __str__ stops the
// rendering (print, str, f-strings raise it, as in Python).
func (o *pyObject) writeStr(r *renderer) {
	if v, ok, err := o.dunder("__str__"); ok {
		if err != nil {
			r.fail(err)
			return
		}
		r.b.WriteString(Str(v))
		return
	}
	r.b.WriteString(o.pyStr())
}

func (o *pyObject) pyStr() string {
	if v, ok, err := o.dunder("__str__"); ok && err == nil {
		return Str(v)
	}
	if o.cls.isException() {
		args, _ := o.attrs["args"].(starlark.Tuple)
		return (&exception{typ: o.cls, args: args}).msg()
	}
	return Repr(o)
}

func (o *pyObject) Attr(name string) (starlark.Value, error) {
	if v, ok := o.attrs[name]; ok {
		return v, nil
	}
	if name == "__class__" {
		return o.cls, nil
	}
	if (name == "__cause__" || name == "__context__") && o.cls.isException() {
		if name == "__cause__" && o.cause != nil {
			return o.cause, nil
		}
		if name == "__context__" && o.context != nil {
			return o.context, nil
		}
		return starlark.None, nil
	}
	if name == "__dict__" {
		d := starlark.NewDict(len(o.names))
		for _, n := range o.names {
			d.SetKey(starlark.String(n), o.attrs[n])
		}
		return d, nil
	}
	if v, ok := o.cls.lookup(name); ok {
		return classAttr(o.thread(), o.cls, v, o)
	}
	if _, ok, _ := o.dunder("__getattr__"); ok {
		v, _, err := o.dunder("__getattr__", starlark.String(name))
		return v, err
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", o.cls.name, name)
}

func (o *pyObject) AttrNames() []string { return o.names }

// frozen reports whether setting or deleting the attribute name of o is
// refused by a frozen dataclass: as in CPython, the nearest frozen
// dataclass in the MRO refuses every name on its own instances and its
// fields on instances of subclasses.
func (o *pyObject) frozen(name string) bool {
	for _, c := range o.cls.mro() {
		if c.cls != nil && c.cls.frozen {
			return c == o.cls || slices.Contains(c.cls.dcFields, name)
		}
	}
	return false
}

func (o *pyObject) SetField(name string, v starlark.Value) error {
	if o.frozen(name) {
		return Errorf("FrozenInstanceError", "cannot assign to field '%s'", name)
	}
	return o.setAttr(name, v)
}

// setAttr sets an attribute without the frozen check (a dataclass's
// __init__ sets the fields of a frozen instance).
func (o *pyObject) setAttr(name string, v starlark.Value) error {
	if w, ok := o.cls.lookup(name); ok {
		if mw, ok := w.(*memberWrapper); ok && mw.kind == "property" {
			return Errorf("AttributeError", "property '%s' of '%s' object has no setter", name, o.cls.name)
		}
	}
	if _, ok := o.attrs[name]; !ok {
		o.names = append(o.names, name)
	}
	o.attrs[name] = v
	return nil
}

func (o *pyObject) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	names := map[syntax.Token]string{syntax.EQL: "__eq__", syntax.NEQ: "__ne__", syntax.LT: "__lt__", syntax.LE: "__le__", syntax.GT: "__gt__", syntax.GE: "__ge__"}
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
		if yo, ok := y.(*pyObject); ok {
			rev := map[syntax.Token]string{syntax.GT: "__lt__", syntax.GE: "__le__"}[op]
			if v, ok, err := yo.dunder(rev, o); ok {
				return bool(v.Truth()), err
			}
		}
	}
	return false, Errorf("TypeError", "'%s' not supported between instances of '%s' and '%s'", op, o.cls.name, pyType(y))
}

var binaryDunders = map[syntax.Token][2]string{
	syntax.PLUS: {"__add__", "__radd__"}, syntax.MINUS: {"__sub__", "__rsub__"}, syntax.STAR: {"__mul__", "__rmul__"},
	syntax.SLASH: {"__truediv__", "__rtruediv__"}, syntax.SLASHSLASH: {"__floordiv__", "__rfloordiv__"},
	syntax.PERCENT: {"__mod__", "__rmod__"}, syntax.AMP: {"__and__", "__rand__"}, syntax.PIPE: {"__or__", "__ror__"},
}

func (o *pyObject) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
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

func (o *pyObject) Get(k starlark.Value) (starlark.Value, bool, error) {
	v, ok, err := o.dunder("__getitem__", k)
	if !ok {
		return nil, false, Errorf("TypeError", "'%s' object is not subscriptable", o.cls.name)
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

func (o *pyObject) Has(k starlark.Value) (bool, error) {
	if v, ok, err := o.dunder("__contains__", k); ok {
		return bool(v.Truth()), err
	}
	return false, Errorf("TypeError", "argument of type '%s' is not iterable", o.cls.name)
}

func (o *pyObject) Len() int {
	v, ok, err := o.dunder("__len__")
	if !ok || err != nil {
		return -1
	}
	n, _ := starlark.AsInt32(v)
	return n
}

func (o *pyObject) Iterate() starlark.Iterator {
	v, ok, err := o.dunder("__iter__")
	if !ok || err != nil {
		return starlark.Tuple(nil).Iterate()
	}
	elems, err := collect(o.thread(), v)
	if err != nil {
		return starlark.Tuple(nil).Iterate()
	}
	return starlark.Tuple(elems).Iterate()
}

func (o *pyObject) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	fn, ok := o.cls.lookup("__call__")
	if !ok {
		return nil, Errorf("TypeError", "'%s' object is not callable", o.cls.name)
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
	info := &classInfo{}
	if st := stepOf(thread); st != nil {
		info.sess = st.State
	}
	t := &typeObj{name: name, cls: info, attrs: starlark.StringDict{}}
	baseVals, err := collect(thread, basesV)
	if err != nil {
		return nil, err
	}
	for _, b := range baseVals {
		bt, ok := b.(*typeObj)
		if !ok {
			return nil, Errorf("TypeError", "class %s: base %s is not a class", name, Repr(b))
		}
		if bt == typeObject {
			continue
		}
		info.bases = append(info.bases, bt)
	}
	if len(info.bases) > 0 {
		t.base = info.bases[0]
	}
	members, ok := membersV.(*starlark.Dict)
	if !ok {
		return nil, Errorf("TypeError", "_py_class: members must be a dict")
	}
	for _, kv := range members.Items() {
		k, _ := starlark.AsString(kv[0])
		if k == "__annotations__" {
			anns, _ := collect(thread, kv[1])
			for _, a := range anns {
				s, _ := starlark.AsString(a)
				info.annotations = append(info.annotations, s)
			}
			continue
		}
		info.names = append(info.names, k)
		t.attrs[k] = kv[1]
	}
	if len(info.bases) == 1 && info.bases[0].newClass != nil {
		return info.bases[0].newClass(thread, name, info, t.attrs)
	}
	t.check = func(v starlark.Value) bool {
		var vt *typeObj
		switch x := v.(type) {
		case *pyObject:
			vt = x.cls
		case *exception:
			vt = x.typ
		default:
			return false
		}
		for _, c := range vt.mro() {
			if c == t {
				return true
			}
		}
		return false
	}
	t.call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if t.isException() && !t.hasMembers() {
			// A plain subclass (class E(Exception): pass) makes a plain
			// exception; one with methods (__init__, __str__, ...) an
			// object that has them.
			return &exception{typ: t, args: append(starlark.Tuple(nil), args...)}, nil
		}
		o := &pyObject{cls: t, attrs: map[string]starlark.Value{}}
		if t.isException() {
			o.SetField("args", append(starlark.Tuple(nil), args...))
		}
		if init, ok := t.lookup("__init__"); ok {
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
	for _, b := range t.mro()[1:] {
		if b.initSubclass != nil {
			if err := b.initSubclass(t); err != nil {
				return nil, err
			}
			break
		}
	}
	return t, nil
}

// superProxy is the value of super() in a method.
type superProxy struct {
	cls  *typeObj
	self starlark.Value
}

func (s *superProxy) String() string        { return "<super: <class '" + s.cls.name + "'>>" }
func (s *superProxy) Type() string          { return "super" }
func (s *superProxy) Freeze()               {}
func (s *superProxy) Truth() starlark.Bool  { return true }
func (s *superProxy) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 'super'") }
func (s *superProxy) AttrNames() []string   { return nil }
func (s *superProxy) Attr(name string) (starlark.Value, error) {
	var mro []*typeObj
	switch x := s.self.(type) {
	case *pyObject:
		mro = x.cls.mro()
	case *typeObj:
		mro = x.mro()
	}
	after := false
	for _, c := range mro {
		if after && c.cls != nil {
			if v, ok := c.attrs[name]; ok {
				return classAttr(&starlark.Thread{Name: "super"}, c, v, s.self)
			}
		}
		if c == s.cls {
			after = true
		}
	}
	if name == "__init__" {
		// object.__init__ / Exception.__init__: an exception keeps its args.
		return NewBuiltin("__init__", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			if o, ok := s.self.(*pyObject); ok && o.cls.isException() {
				o.SetField("args", append(starlark.Tuple(nil), args...))
			}
			return starlark.None, nil
		}), nil
	}
	return nil, Errorf("AttributeError", "'super' object has no attribute '%s'", name)
}

func pySuper(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, Errorf("RuntimeError", "super(): use super() inside a method")
	}
	cls, ok := args[0].(*typeObj)
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
	o, ok := obj.(*pyObject)
	if !ok {
		if has, err := pyHasattr(thread, nil, starlark.Tuple{obj, starlark.String(name)}, nil); err == nil && has == starlark.True {
			return nil, Errorf("AttributeError", "attribute '%s' of '%s' objects is not writable", name, pyType(obj))
		}
		return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", pyType(obj), name)
	}
	if o.frozen(name) {
		return nil, Errorf("FrozenInstanceError", "cannot delete field '%s'", name)
	}
	if _, ok := o.attrs[name]; !ok {
		return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", o.cls.name, name)
	}
	delete(o.attrs, name)
	o.names = slices.DeleteFunc(o.names, func(n string) bool { return n == name })
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
			if st := stepOf(thread); st != nil && st.State.Doc != nil && st.State.Predeclared[f.Name()] == x {
				if d := st.State.Doc(f.Name()); d != "" {
					return starlark.String(d), nil
				}
			}
		}
		return starlark.None, nil
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", pyType(x), name)
}
