package py

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// tupleSubtype is implemented by the values of the tuple subclasses a
// module defines (collections.namedtuple): isinstance(v, tuple) holds for
// them.
type tupleSubtype interface {
	starlark.Value
	// AsTuple returns the value's elements as a plain tuple.
	AsTuple() starlark.Tuple
}

// TypeObj is a Python type object such as int or str: callable as a
// constructor, returned by type(x), accepted by isinstance.
type TypeObj struct {
	PyName string
	Call   func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
	Check  func(v starlark.Value) bool
	Base   *TypeObj // for exception classes and bool <: int
	base2  *TypeObj // a second base: decimal.DivisionByZero <: ZeroDivisionError
	Attrs  starlark.StringDict
	Cls    *ClassInfo // non-nil for classes defined by code

	argsNotKept bool // call never keeps its argument tuple (starlark.ArgsNotKept)
	// fast answers the common calls without a frame (FastCall).
	fast func(args starlark.Tuple) (starlark.Value, bool)
	// NewBuilder, when set, makes the builder of the value the type makes
	// of a generator expression, element by element (collections.Counter;
	// see pySink).
	NewBuilder func() Builder
	// NewClass, when set, makes what a class statement whose only base is
	// this type defines, in place of a class (typing.NamedTuple: a named
	// tuple type).
	NewClass func(thread *starlark.Thread, name string, info *ClassInfo, attrs starlark.StringDict) (starlark.Value, error)
	// InitSubclass, when set, completes each class deriving from this type
	// (enum.Enum makes it an enumeration); the first one in the class's
	// MRO applies.
	InitSubclass func(t *TypeObj) error
}

// FastCall implements starlark.FastCallable: t's fast path, if it has one,
// for a call with positional arguments only.
func (t *TypeObj) FastCall(_ *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
	if t.fast == nil {
		return nil, false
	}
	return t.fast(args)
}

var (
	_ starlark.Callable   = (*TypeObj)(nil)
	_ starlark.HasAttrs   = (*TypeObj)(nil)
	_ starlark.Comparable = (*TypeObj)(nil)
)

func (t *TypeObj) String() string {
	if t.Cls != nil {
		return "<class '__main__." + t.PyName + "'>"
	}
	return "<class '" + t.PyName + "'>"
}
func (t *TypeObj) Type() string          { return "type" }
func (t *TypeObj) Freeze()               {}
func (t *TypeObj) Truth() starlark.Bool  { return true }
func (t *TypeObj) Hash() (uint32, error) { return starlark.String(t.PyName).Hash() }
func (t *TypeObj) Name() string          { return t.PyName }

// ArgsNotKept reports whether calling t never keeps the argument tuple,
// so the interpreter may pass its operand stack uncopied.
func (t *TypeObj) ArgsNotKept() bool     { return t.argsNotKept }
func (t *TypeObj) WriteRepr(r *Renderer) { r.B.WriteString(t.String()) }
func (t *TypeObj) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	u := y.(*TypeObj)
	switch op {
	case syntax.EQL:
		return t == u || t.Cls == nil && u.Cls == nil && t.PyName == u.PyName, nil
	case syntax.NEQ:
		return !(t == u || t.Cls == nil && u.Cls == nil && t.PyName == u.PyName), nil
	}
	return false, fmt.Errorf("'%s' not supported between instances of 'type' and 'type'", op)
}

func (t *TypeObj) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (v starlark.Value, err error) {
	if t.Call == nil {
		return nil, Errorf("TypeError", "cannot create '%s' instances", t.PyName)
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, panicError(t.PyName, r)
		}
	}()
	return t.Call(thread, args, kwargs)
}

func (t *TypeObj) Attr(name string) (starlark.Value, error) {
	switch name {
	case "__mro__":
		var out starlark.Tuple
		for _, c := range t.Mro() {
			if !slices.Contains(out, starlark.Value(c)) {
				out = append(out, c)
			}
		}
		if t != typeObject {
			out = append(out, typeObject)
		}
		return out, nil
	case "__name__", "__qualname__":
		if t.Cls == nil { // re.error, binascii.Error: the name without the module
			return starlark.String(t.PyName[strings.LastIndexByte(t.PyName, '.')+1:]), nil
		}
		return starlark.String(t.PyName), nil
	}
	if t.Cls != nil {
		if v, ok := t.Lookup(name); ok {
			var thread *starlark.Thread
			if t.Cls.Sess != nil {
				thread = t.Cls.Sess.Current
			}
			if thread == nil {
				thread = &starlark.Thread{Name: "class"}
			}
			return ClassAttr(thread, t, v, nil)
		}
		return nil, Errorf("AttributeError", "type object '%s' has no attribute '%s'", t.PyName, name)
	}
	if v, ok := t.Attrs[name]; ok {
		return v, nil
	}
	switch {
	case t.PyName == "dict" && name == "fromkeys":
		return NewBuiltin(
			"dict.fromkeys",
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				v, _, err := dictMethod(thread, starlark.NewDict(0), "fromkeys", args, kwargs)
				return v, err
			},
		), nil
	case t.PyName == "str" && name == "maketrans":
		return NewBuiltin(
			"str.maketrans",
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				return strMaketrans(args, kwargs)
			},
		), nil
	}
	// Unbound methods: str.lower(s), list.append(xs, v), dict.get(d, k).
	return NewBuiltin(
		t.PyName+"."+name,
		func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return nil, Errorf("TypeError", "unbound method %s.%s() needs an argument", t.PyName, name)
			}
			return callMethod(thread, args[0], name, args[1:], kwargs)
		},
	), nil
}

func (t *TypeObj) AttrNames() []string { return []string{"__name__"} }

// IsSubtype reports whether t is u or derives from u.
func (t *TypeObj) IsSubtype(u *TypeObj) bool {
	for _, x := range t.Mro() {
		if x == u || x.Cls == nil && u.Cls == nil && x.PyName == u.PyName {
			return true
		}
	}
	return false
}

var (
	typeInt, typeFloat, typeStr, typeBool, typeList, TypeDict, TypeTuple, typeSet,
	typeFrozenset, typeNone, typeType, typeObject, typeRange, typeFunction, typeBuiltin, typeBytes *TypeObj
)

func init() {
	typeObject = &TypeObj{PyName: "object", Check: func(starlark.Value) bool { return true }}
	typeInt = &TypeObj{PyName: "int", Call: builtinInt, Check: func(v starlark.Value) bool {
		switch v.(type) {
		case starlark.Int, starlark.Bool:
			return true
		}
		return false
	}}
	typeBool = &TypeObj{
		PyName: "bool",
		Base:   typeInt,
		Call: func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value = starlark.False
			if err := starlark.UnpackPositionalArgsNoEscape("bool", args, kwargs, 0, &x); err != nil {
				return nil, err
			}
			x, err := Unproxy(thread, x)
			if err != nil {
				return nil, err
			}
			return x.Truth(), nil
		},
		Check: IsType[starlark.Bool],
	}
	typeFloat = &TypeObj{PyName: "float", Call: builtinFloat, Check: IsType[starlark.Float]}
	typeStr = &TypeObj{PyName: "str", Call: builtinStr, Check: IsType[starlark.String]}
	typeList = &TypeObj{PyName: "list", Call: seqConstructor("list", func(elems []starlark.Value) starlark.Value {
		return starlark.NewList(elems)
	}), Check: IsType[*starlark.List]}
	TypeTuple = &TypeObj{PyName: "tuple", Call: seqConstructor("tuple", func(elems []starlark.Value) starlark.Value {
		return starlark.Tuple(elems)
	}), Check: func(v starlark.Value) bool {
		switch v.(type) {
		case starlark.Tuple, tupleSubtype: // a named tuple is a tuple
			return true
		}
		return false
	}}
	typeSet = &TypeObj{PyName: "set", Call: builtinSet, Check: func(v starlark.Value) bool {
		s, ok := v.(*starlark.Set)
		return ok && !s.Immutable()
	}}
	typeFrozenset = &TypeObj{
		PyName: "frozenset",
		Call: func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 1 && len(kwargs) == 0 {
				if s, ok := args[0].(*starlark.Set); ok && s.Immutable() {
					return s, nil
				}
			}
			v, err := builtinSet(thread, args, kwargs)
			if err != nil {
				return nil, err
			}
			s := v.(*starlark.Set)
			if len(args) == 1 && v == args[0] {
				s = s.Copy()
			}
			s.MakeImmutable()
			return s, nil
		},
		Check: func(v starlark.Value) bool {
			s, ok := v.(*starlark.Set)
			return ok && s.Immutable()
		},
	}
	TypeDict = &TypeObj{PyName: "dict", Call: BuiltinDict, Check: func(v starlark.Value) bool {
		switch v.(type) {
		case *starlark.Dict, PyDictLike:
			return true
		}
		return false
	}}
	typeNone = &TypeObj{
		PyName: "NoneType",
		Check:  IsType[starlark.NoneType],
		Call: func(*starlark.Thread, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.None, nil
		},
	}
	typeType = &TypeObj{PyName: "type", Call: builtinType, Check: IsType[*TypeObj]}
	typeRange = &TypeObj{
		PyName: "range",
		Call: func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			for _, a := range args {
				if err := indexArg(a, "ssize_t", math.MinInt64, math.MaxInt64); err != nil {
					return nil, err
				}
			}
			return starlark.Call(thread, starlark.Universe["range"], args, kwargs)
		},
		Check: func(v starlark.Value) bool { return v.Type() == "range" },
	}
	typeFunction = &TypeObj{PyName: "function", Check: IsType[*starlark.Function]}
	typeBuiltin = &TypeObj{PyName: "builtin_function_or_method", Check: IsType[*starlark.Builtin]}
	typeBytes = &TypeObj{
		PyName: "bytes",
		Check:  IsType[starlark.Bytes],
		Call: func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.Call(thread, starlark.Universe["bytes"], args, kwargs)
		},
	}
	typeStr.fast = strFast
	// Constructors that never keep their argument tuple (checked one by one).
	for _, t := range []*TypeObj{typeInt, typeFloat, typeStr, typeBool, typeList, TypeDict, TypeTuple, typeSet, typeFrozenset, typeRange} {
		t.argsNotKept = true
	}
	for _, t := range []*TypeObj{typeInt, typeFloat, typeStr, typeBool, typeList, TypeDict, TypeTuple, typeSet, typeNone, typeType, typeRange, typeFunction, typeBuiltin, typeBytes} {
		typeByName[t.PyName] = t
	}
}

func IsType[T starlark.Value](v starlark.Value) bool { _, ok := v.(T); return ok }

var (
	typeByName = map[string]*TypeObj{}
	typeMu     sync.Mutex
)

// typeOf returns the type object of v.
func typeOf(v starlark.Value) *TypeObj {
	switch v := v.(type) {
	case *exception:
		return v.Typ
	case typeOwner:
		return v.PyTypeObj()
	}
	name := PyType(v)
	typeMu.Lock()
	defer typeMu.Unlock()
	if t, ok := typeByName[name]; ok {
		return t
	}
	t := &TypeObj{PyName: name, Check: func(x starlark.Value) bool { return PyType(x) == name }}
	typeByName[name] = t
	return t
}

// typeOwner is implemented by sandbox values with their own type object.
type typeOwner interface {
	PyTypeObj() *TypeObj
}

func builtinType(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("type", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	return typeOf(x), nil
}

// isInstance implements isinstance(v, t) where t is a type or a tuple of types.
func isInstance(v, t starlark.Value) (bool, error) {
	switch t := t.(type) {
	case *TypeObj:
		if t.Check != nil {
			return t.Check(v), nil
		}
		return typeOf(v).IsSubtype(t), nil
	case starlark.Tuple:
		for _, x := range t {
			ok, err := isInstance(v, x)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case *starlark.Builtin:
		// Starlark universe callables used as types (e.g. a shadowed name).
		return PyType(v) == t.Name(), nil
	}
	return false, Errorf("TypeError", "isinstance() arg 2 must be a type, a tuple of types, or a union")
}

// strFast is str(x)'s fast path (starlark.FastCallable) for a str, an
// int of int64 and a float, as builtinStr answers them.
func strFast(args starlark.Tuple) (starlark.Value, bool) {
	if len(args) != 1 {
		return nil, false
	}
	switch x := args[0].(type) {
	case starlark.String:
		return x, true
	case starlark.Int:
		if n, ok := x.Int64(); ok {
			return starlark.IntString(n), true
		}
	case starlark.Float:
		var tmp [32]byte
		return starlark.String(appendFloatRepr(tmp[:0], float64(x))), true
	}
	return nil, false
}

func builtinStr(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 && len(kwargs) == 0 {
		return starlark.String(""), nil
	}
	if len(args) != 1 || len(kwargs) > 0 {
		if len(args) >= 1 {
			if b, ok := args[0].(starlark.Bytes); ok { // str(b, "utf-8") is b.decode("utf-8")
				return bytesDecode(string(b), args[1:], kwargs)
			}
		}
		return nil, Errorf("TypeError", "str() takes at most 1 argument (%d given)", len(args))
	}
	switch x := args[0].(type) {
	case starlark.String:
		return x, nil
	case starlark.Int:
		if n, ok := x.Int64(); ok {
			return starlark.IntString(n), nil
		}
	case starlark.Float:
		var tmp [32]byte
		return starlark.String(appendFloatRepr(tmp[:0], float64(x))), nil
	}
	r := Renderer{Thread: thread}
	r.str(args[0])
	if r.Err != nil {
		return nil, r.Err
	}
	return starlark.String(r.B.String()), nil
}

// asciiDigits returns s with each Unicode decimal digit (category Nd)
// beyond ASCII replaced by its ASCII digit, as CPython's int() and
// float() read them ("\u0663" is 3).
func asciiDigits(s string) string {
	if IsASCII(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= utf8.RuneSelf && unicode.Is(unicode.Nd, r) {
			b.WriteByte(byte('0' + ndValue(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ndValue returns the value of a decimal digit: Unicode's come in runs of
// ten, from 0 to 9.
func ndValue(r rune) int {
	z := r
	for z > 0 && unicode.Is(unicode.Nd, z-1) {
		z--
	}
	return int(r-z) % 10
}

// smallDecimal parses s when it is an optional sign and 1 to 18 decimal
// digits, the common int(str) (int(line[11:17])), without big.Int's
// scanner; ok is false for anything else (spaces, underscores, other
// bases, long numbers), which the general path parses.
func smallDecimal(s string) (n int64, ok bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func builtinInt(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value = starlark.MakeInt(0)
	var base starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("int", args, kwargs, 0, &x, &base); err != nil {
		return nil, err
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.String:
		if base == nil {
			if n, ok := smallDecimal(string(v)); ok {
				return starlark.MakeInt64(n), nil
			}
		}
		s := asciiDigits(strings.TrimSpace(string(v)))
		s = strings.ReplaceAll(s, "_", "")
		b := 10
		if base != nil {
			if _, ok := base.(starlark.Int); !ok {
				return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", PyType(base))
			}
			bi, err := starlark.AsInt32(base)
			if err != nil || bi != 0 && (bi < 2 || bi > 36) {
				return nil, Errorf("ValueError", "int() base must be >= 2 and <= 36, or 0")
			}
			b = bi
		}
		neg := false
		t := s
		if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
			neg = t[0] == '-'
			t = t[1:]
		}
		if b == 0 || b == 16 || b == 8 || b == 2 {
			lt := strings.ToLower(t)
			switch {
			case strings.HasPrefix(lt, "0x") && (b == 0 || b == 16):
				t, b = t[2:], 16
			case strings.HasPrefix(lt, "0o") && (b == 0 || b == 8):
				t, b = t[2:], 8
			case strings.HasPrefix(lt, "0b") && (b == 0 || b == 2):
				t, b = t[2:], 2
			case b == 0:
				b = 10
			}
		}
		if err := checkParseDigits(t, b); err != nil {
			return nil, err
		}
		n, ok := new(big.Int).SetString(t, b)
		if !ok || t == "" || strings.ContainsAny(t, "+- ") {
			return nil, Errorf("ValueError", "invalid literal for int() with base %d: %s", b, Repr(v))
		}
		if neg {
			n.Neg(n)
		}
		return starlark.MakeBigInt(n), nil
	case starlark.Float:
		f := float64(v)
		if math.IsNaN(f) {
			return nil, Errorf("ValueError", "cannot convert float NaN to integer")
		}
		if math.IsInf(f, 0) {
			return nil, Errorf("OverflowError", "cannot convert float infinity to integer")
		}
		return starlark.NumberToInt(v)
	case starlark.Int:
		return v, nil
	case PyNumber:
		return IntOf(v, "trunc")
	case starlark.Bool:
		if v {
			return starlark.MakeInt(1), nil
		}
		return starlark.MakeInt(0), nil
	}
	return nil, Errorf("TypeError", "int() argument must be a string, a bytes-like object or a real number, not '%s'", PyType(x))
}

func builtinFloat(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value = starlark.Float(0)
	if err := starlark.UnpackPositionalArgsNoEscape("float", args, kwargs, 0, &x); err != nil {
		return nil, err
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case PyNumber:
		return starlark.Float(v.Float()), nil
	case starlark.String:
		s := strings.ToLower(asciiDigits(strings.TrimSpace(string(v))))
		s = strings.ReplaceAll(s, "_", "")
		switch strings.TrimLeft(s, "+-") {
		case "inf", "infinity":
			if strings.HasPrefix(s, "-") {
				return starlark.Float(math.Inf(-1)), nil
			}
			return starlark.Float(math.Inf(1)), nil
		case "nan":
			return starlark.Float(math.NaN()), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !strings.Contains(err.Error(), "range") || strings.HasPrefix(s, "0x") {
			return nil, Errorf("ValueError", "could not convert string to float: %s", Repr(v))
		}
		return starlark.Float(f), nil
	case starlark.Float:
		return v, nil
	case starlark.Int:
		f, ok := starlark.AsFloat(v)
		if !ok || math.IsInf(f, 0) { // AsFloat gives ±Inf past the float range
			return nil, Errorf("OverflowError", "int too large to convert to float")
		}
		return starlark.Float(f), nil
	case starlark.Bool:
		if v {
			return starlark.Float(1), nil
		}
		return starlark.Float(0), nil
	}
	return nil, Errorf("TypeError", "float() argument must be a string or a real number, not '%s'", PyType(x))
}

func builtinSet(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("set", args, kwargs, 0, &x); err != nil {
		return nil, err
	}
	s := new(starlark.Set)
	if x == nil {
		return s, nil
	}
	if err := checkLen(thread, x, dictElemBytes); err != nil {
		return nil, err
	}
	err := ForEach(thread, x, func(v starlark.Value) error { return s.Insert(v) })
	if err != nil {
		return nil, err
	}
	return s, nil
}

func BuiltinDict(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 1 {
		return nil, Errorf("TypeError", "dict expected at most 1 argument, got %d", len(args))
	}
	d := starlark.NewDict(len(kwargs))
	if len(args) == 1 {
		x, err := Unproxy(thread, args[0])
		if err != nil {
			return nil, err
		}
		if dl, ok := x.(PyDictLike); ok {
			x = dl.UnderlyingDict()
		}
		if m, ok := x.(starlark.IterableMapping); ok {
			for _, kv := range m.Items() {
				if err := d.SetKey(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
		} else {
			if err := checkLen(thread, x, dictElemBytes); err != nil {
				return nil, err
			}
			i := 0
			err := ForEach(thread, x, func(v starlark.Value) error {
				i++
				return setDictPair(thread, d, i-1, v)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	for _, kv := range kwargs {
		if err := d.SetKey(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// setDictPair sets the key and value that element #i of dict()'s
// argument, a pair, holds.
func setDictPair(thread *starlark.Thread, d *starlark.Dict, i int, v starlark.Value) error {
	pair, err := Collect(thread, v)
	if err != nil {
		if _, ierr := iterable(thread, v); ierr != nil {
			return Errorf("TypeError", "cannot convert dictionary update sequence element #%d to a sequence", i)
		}
		return err
	}
	if len(pair) != 2 {
		return Errorf("ValueError", "dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
	}
	return d.SetKey(pair[0], pair[1])
}

// strChars is a Python-style iterable over the characters of a string.
type strChars struct{ s string }

func (c strChars) String() string        { return "<str_iterator>" }
func (c strChars) Type() string          { return "str_iterator" }
func (c strChars) Freeze()               {}
func (c strChars) Truth() starlark.Bool  { return c.s != "" }
func (c strChars) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: str_iterator") }
func (c strChars) Iterate() starlark.Iterator {
	return &strCharsIter{s: c.s}
}

type strCharsIter struct{ s string }

func (it *strCharsIter) Next(p *starlark.Value) bool {
	if it.s == "" {
		return false
	}
	if c := it.s[0]; c < utf8.RuneSelf {
		*p = starlark.ByteString(c) // no allocation
		it.s = it.s[1:]
		return true
	}
	_, n := utf8.DecodeRuneInString(it.s)
	*p = starlark.String(it.s[:n])
	it.s = it.s[n:]
	return true
}
func (it *strCharsIter) Done() {}

// iterable returns v as a Python-style iterable (strings iterate by
// character, proxies by their target).
func iterable(thread *starlark.Thread, v starlark.Value) (starlark.Iterable, error) {
	v, err := Unproxy(thread, v)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case starlark.String:
		return strChars{string(x)}, nil
	case *PyObject:
		if _, ok := x.Cls.Lookup("__iter__"); !ok {
			return nil, Errorf("TypeError", "'%s' object is not iterable", x.Cls.PyName)
		}
		return x, nil
	case starlark.Bytes:
		ints := make(starlark.Tuple, len(x))
		for i := 0; i < len(x); i++ {
			ints[i] = starlark.MakeInt(int(x[i]))
		}
		return ints, nil
	case starlark.Iterable:
		return x, nil
	case *TypeObj:
		if m := metaOf(x); m != nil {
			return m.ClassMembers(), nil
		}
	}
	return nil, Errorf("TypeError", "'%s' object is not iterable", PyType(v))
}

// ForEach calls fn on each element of the Python iterable v.
func ForEach(thread *starlark.Thread, v starlark.Value, fn func(starlark.Value) error) error {
	it, err := iterable(thread, v)
	if err != nil {
		return err
	}
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for i := 1; iter.Next(&x); i++ {
		if err := fn(x); err != nil {
			return err
		}
		if i%GrowCheckEvery == 0 {
			if err := Interrupted(thread); err != nil {
				return err
			}
		}
	}
	return nil
}

// Estimated bytes per element of the values builtins build, for the
// checks made before allocating (see checkAlloc).
const (
	ListElemBytes = 16 // an interface value
	dictElemBytes = 64 // a hash-table entry with its key and value
)

// checkLen fails with a MemoryError when v has a known length and a value
// of that many elements of elemBytes each would not fit in the step's
// memory allowance (e.g. list(range(10**9))).
func checkLen(thread *starlark.Thread, v starlark.Value, elemBytes int64) error {
	if s, ok := v.(starlark.Sequence); ok {
		return CheckAlloc(thread, int64(s.Len())*elemBytes)
	}
	return nil
}

// seqConstructor returns the call of a sequence type such as list or tuple:
// with no argument it wraps nil, otherwise the collected elements of its
// one iterable argument.
func seqConstructor(
	name string,
	wrap func([]starlark.Value) starlark.Value,
) func(*starlark.Thread, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgsNoEscape(name, args, kwargs, 0, &x); err != nil {
			return nil, err
		}
		if x == nil {
			return wrap(nil), nil
		}
		elems, err := Collect(thread, x)
		if err != nil {
			return nil, err
		}
		return wrap(elems), nil
	}
}

// Collect returns the elements of the Python iterable v.
func Collect(thread *starlark.Thread, v starlark.Value) ([]starlark.Value, error) {
	v, err := Unproxy(thread, v)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case starlark.Tuple:
		return append([]starlark.Value(nil), x...), nil
	case *starlark.List:
		out := make([]starlark.Value, x.Len())
		for i := range out {
			out[i] = x.Index(i)
		}
		return out, nil
	case starlark.String:
		if err := CheckAlloc(thread, int64(len(x))*16); err != nil {
			return nil, err
		}
		out := make([]starlark.Value, 0, len(x))
		for _, r := range string(x) {
			out = append(out, starlark.String(string(r)))
		}
		return out, nil
	}
	if err := checkLen(thread, v, ListElemBytes); err != nil {
		return nil, err
	}
	var out []starlark.Value
	if s, ok := v.(starlark.Sequence); ok && s.Len() > 0 {
		out = make([]starlark.Value, 0, s.Len())
	}
	err = ForEach(thread, v, func(x starlark.Value) error {
		out = append(out, x)
		return nil
	})
	return out, err
}
