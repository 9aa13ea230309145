package py

import (
	"errors"
	"math/big"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// exception is a Python exception instance, e.g. ValueError("bad").
type exception struct {
	Typ     *TypeObj
	args    starlark.Tuple
	cause   error          // the Go error it was built from, if any
	reraise bool           // raising e again raises cause (a caught step error)
	obj     *PyObject      // the instance raised, for classes with their own __init__
	from    starlark.Value // __cause__ (raise ... from C); nil is None
	// context is __context__: the exception being handled when this one
	// was raised; nil is None.
	context starlark.Value
}

// Value is what `except E as e` binds.
func (e *exception) Value() starlark.Value {
	if e.obj != nil {
		return e.obj
	}
	return e
}

var (
	_ starlark.HasAttrs = (*exception)(nil)
	_ PyReprer          = (*exception)(nil)
)

func (e *exception) String() string        { return e.msg() }
func (e *exception) Type() string          { return e.Typ.PyName }
func (e *exception) Freeze()               {}
func (e *exception) Truth() starlark.Bool  { return true }
func (e *exception) Hash() (uint32, error) { return starlark.String(e.Typ.PyName).Hash() }
func (e *exception) PyTypeObj() *TypeObj   { return e.Typ }
func (e *exception) PyTypeName() string    { return e.Typ.PyName }
func (e *exception) PyStr() string         { return e.msg() }

func (e *exception) msg() string {
	switch len(e.args) {
	case 0:
		return ""
	case 1:
		if e.Typ.IsSubtype(ExcTypes["KeyError"]) {
			return Repr(e.args[0])
		}
		return Str(e.args[0])
	}
	return Repr(e.args)
}

func (e *exception) WriteRepr(r *Renderer) {
	r.B.WriteString(e.Typ.PyName)
	if len(e.args) == 1 {
		r.B.WriteByte('(')
		r.Repr(e.args[0])
		r.B.WriteByte(')')
		return
	}
	r.Repr(e.args)
}

func (e *exception) Attr(name string) (starlark.Value, error) {
	switch name {
	case "args":
		return e.args, nil
	case "msg", "message":
		if se := e.jsonSyntaxError(); se != nil {
			return starlark.String(se.Msg), nil
		}
		return starlark.String(e.msg()), nil
	case "__cause__":
		if e.from != nil {
			return e.from, nil
		}
		return starlark.None, nil
	case "__context__":
		if e.context != nil {
			return e.context, nil
		}
		return starlark.None, nil
	case "pos", "lineno", "colno":
		// json.JSONDecodeError's position (CPython counts characters).
		if se := e.jsonSyntaxError(); se != nil {
			n := se.Char
			switch name {
			case "lineno":
				n = se.Line
			case "colno":
				n = se.Column
			}
			return starlark.MakeInt(n), nil
		}
	}
	return nil, nil
}

// jsonSyntaxError returns the json decoder's error behind a
// JSONDecodeError, or nil.
func (e *exception) jsonSyntaxError() *pyjson.SyntaxError {
	var se *pyjson.SyntaxError
	if e.Typ != ExcTypes["JSONDecodeError"] || e.cause == nil || !errors.As(e.cause, &se) {
		return nil
	}
	return se
}

func (e *exception) AttrNames() []string { return []string{"args"} }

// ExcTypes holds the exception classes by name.
var ExcTypes = map[string]*TypeObj{}

// exceptionHierarchy lists each exception class with its base.
var exceptionHierarchy = [][2]string{
	{"BaseException", ""},
	{"Exception", "BaseException"},
	{"KeyboardInterrupt", "BaseException"},
	{"ArithmeticError", "Exception"},
	{"ZeroDivisionError", "ArithmeticError"},
	{"OverflowError", "ArithmeticError"},
	{"LookupError", "Exception"},
	{"KeyError", "LookupError"},
	{"IndexError", "LookupError"},
	{"ValueError", "Exception"},
	{"UnicodeError", "ValueError"},
	{"UnicodeDecodeError", "UnicodeError"},
	{"UnicodeEncodeError", "UnicodeError"},
	{"JSONDecodeError", "ValueError"},
	{"TypeError", "Exception"},
	{"AttributeError", "Exception"},
	{"FrozenInstanceError", "AttributeError"},
	{"NameError", "Exception"},
	{"UnboundLocalError", "NameError"},
	{"RuntimeError", "Exception"},
	{"RecursionError", "RuntimeError"},
	{"NotImplementedError", "RuntimeError"},
	{"AssertionError", "Exception"},
	{"StopIteration", "Exception"},
	{"ImportError", "Exception"},
	{"ModuleNotFoundError", "ImportError"},
	{"MemoryError", "Exception"},
	{"OSError", "Exception"},
	{"TimeoutError", "OSError"},
	{"FileNotFoundError", "OSError"},
	{"PermissionError", "OSError"},
	{"SyntaxError", "Exception"},
	{"SystemError", "Exception"},
	{"re.error", "Exception"},
	{"StatisticsError", "ValueError"},
	{"binascii.Error", "ValueError"},
	{"csv.Error", "Exception"},
	{"decimal.DecimalException", "ArithmeticError"},
	{"decimal.InvalidOperation", "decimal.DecimalException"},
	{"decimal.DivisionByZero", "decimal.DecimalException"}, // and ZeroDivisionError, below
	{"decimal.Overflow", "decimal.DecimalException"},
	{"Error", "Exception"}, // unclassified interpreter errors
}

func init() {
	for _, h := range exceptionHierarchy {
		t := &TypeObj{PyName: h[0]}
		if h[1] != "" {
			t.Base = ExcTypes[h[1]]
		}
		t.Check = func(v starlark.Value) bool {
			if o, ok := v.(*PyObject); ok {
				return o.Cls.IsSubtype(t) // an instance of a subclass with methods
			}
			e, ok := v.(*exception)
			return ok && e.Typ.IsSubtype(t)
		}
		t.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return &exception{Typ: t, args: append(starlark.Tuple(nil), args...)}, nil
		}
		ExcTypes[h[0]] = t
	}
	ExcTypes["decimal.DivisionByZero"].base2 = ExcTypes["ZeroDivisionError"]
}

// ExceptionFromError returns the Python exception value for a step error
// of kind with msg, err the error behind it and cause the step's error
// (its traceback), which re-raising the exception keeps when err is set.
func ExceptionFromError(kind, msg string, err, cause error) *exception {
	var pe *PyError
	if errors.As(err, &pe) && pe.exc != nil {
		return pe.exc
	}
	t := ExcTypes[kind]
	if t == nil {
		t = ExcTypes["Error"]
	}
	var arg starlark.Value = starlark.String(msg)
	if kind == "KeyError" {
		arg = keyErrorArg(msg, err)
	}
	return &exception{Typ: t, args: starlark.Tuple{arg}, cause: cause, reraise: err != nil}
}

// keyErrorArg returns the key of a KeyError: the one KeyErr recorded, or
// else the key read back from msg, its repr (a string, an int, None or a
// bool; any other key stays its repr as a str).
func keyErrorArg(msg string, err error) starlark.Value {
	var pe *PyError
	if errors.As(err, &pe) && pe.key != nil {
		return pe.key
	}
	if k, ok := unquotePy(msg); ok {
		return starlark.String(k)
	}
	switch msg {
	case "None":
		return starlark.None
	case "True":
		return starlark.True
	case "False":
		return starlark.False
	}
	if i, ok := new(big.Int).SetString(msg, 10); ok {
		return starlark.MakeBigInt(i)
	}
	return starlark.String(msg)
}

// SetCause sets the step error an exception was caught as; re-raising
// the exception raises it again when reraise is set.
func (e *exception) SetCause(cause error, reraise bool) {
	e.cause, e.reraise = cause, reraise
}

// unquotePy undoes a simple Python string repr ('abc').
func unquotePy(s string) (string, bool) {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] && !strings.Contains(s, "\\") {
		return s[1 : len(s)-1], true
	}
	return "", false
}

// excMatches reports whether an exception of type t matches a handler
// type name as written in Python ("ValueError", "json.JSONDecodeError",
// "re.error", or a class defined by the code, found with lookup).
func excMatches(t *TypeObj, handler string, lookup func(string) *TypeObj) bool {
	var h *TypeObj
	if lookup != nil {
		h = lookup(handler)
	}
	if h == nil {
		h = ExcTypes[handler] // a module's exception, e.g. decimal.InvalidOperation
	}
	// A module's class reached through another module or a submodule:
	// base64.binascii.Error is binascii.Error, json.decoder.JSONDecodeError
	// is JSONDecodeError.
	for name := handler; h == nil; {
		i := strings.IndexByte(name, '.')
		if i < 0 {
			break
		}
		name = name[i+1:]
		h = ExcTypes[name]
	}
	if h == nil {
		return false
	}
	return t.IsSubtype(h)
}

// raiseValue turns the argument of raise into an error.
func raiseValue(v starlark.Value) error {
	switch x := v.(type) {
	case *TypeObj:
		if ExcTypes[x.PyName] == x {
			v = &exception{Typ: x}
		} else if x.Cls != nil && x.isException() {
			v = &exception{Typ: x}
		}
	case *PyObject:
		if x.Cls.isException() {
			args, _ := x.Attrs["args"].(starlark.Tuple)
			v = &exception{Typ: x.Cls, args: args, obj: x}
		}
	}
	e, ok := v.(*exception)
	if !ok {
		return Errorf("TypeError", "exceptions must derive from BaseException")
	}
	if e.obj != nil {
		return &PyError{Kind: e.Typ.PyName, Msg: e.obj.PyStr(), exc: e}
	}
	if e.reraise {
		// Re-raising a caught error keeps its chain, line and traceback.
		return e.cause
	}
	return &PyError{Kind: e.Typ.PyName, Msg: e.msg(), exc: e}
}

func HandlerMatches(types []string, t *TypeObj, lookup func(string) *TypeObj) bool {
	if len(types) == 0 {
		return true
	}
	for _, h := range types {
		if excMatches(t, h, lookup) {
			return true
		}
	}
	return false
}
