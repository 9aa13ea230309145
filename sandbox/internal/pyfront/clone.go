package pyfront

import (
	"reflect"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

var syntaxPkg = reflect.TypeFor[syntax.Ident]().PkgPath()

// cloneExpr returns a deep copy of the unresolved syntax tree x: every
// node of package syntax that x reaches is new (literal values, which
// are not changed, are shared), so that the copy can be lowered and
// resolved apart from x.
func cloneExpr(x Expr) Expr {
	return cloneValue(reflect.ValueOf(x)).Interface().(Expr)
}

func cloneValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Type().Elem().PkgPath() != syntaxPkg {
			return v
		}
		n := reflect.New(v.Type().Elem())
		n.Elem().Set(v.Elem())
		cloneFields(n.Elem())
		return n
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type()).Elem()
		n.Set(cloneValue(v.Elem()))
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			n.Index(i).Set(cloneValue(v.Index(i)))
		}
		return n
	case reflect.Struct:
		n := reflect.New(v.Type()).Elem()
		n.Set(v)
		cloneFields(n)
		return n
	}
	return v
}

// cloneFields replaces the exported fields of the settable struct s
// with copies.
func cloneFields(s reflect.Value) {
	t := s.Type()
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			s.Field(i).Set(cloneValue(s.Field(i)))
		}
	}
}
