package pyfront

import "strings"

// Python bools are ints (True + True == 2); Starlark's are not. Arithmetic
// with an operand that is syntactically a bool (a comparison, `not x`,
// True/False, bool(...), isinstance(...), s.startswith(...), ...) gets that
// operand wrapped in _py_b2i, which turns a bool into 0 or 1 and returns
// anything else unchanged. Other arithmetic is left alone, so the common
// int/float/str paths keep Starlark's speed.

// boolish reports whether e certainly (syntactically) yields a bool.
func boolish(e Expr) bool {
	switch e := e.(type) {
	case *ParenExpr:
		return boolish(e.X)
	case *Ident:
		return e.Name == "True" || e.Name == "False"
	case *UnaryExpr:
		return e.Op == NOT
	case *BinaryExpr:
		switch e.Op {
		case EQL, NEQ, LT, GT, LE, GE, IN, NOT_IN:
			return true
		case AND, OR:
			return boolish(e.X) && boolish(e.Y)
		}
	case *CallExpr:
		switch fn := e.Fn.(type) {
		case *Ident:
			switch fn.Name {
			case "bool", "isinstance", "issubclass", "callable", "hasattr", "any", "all", "_py_is", "_py_chain", "_py_eq":
				return true
			}
		case *DotExpr:
			n := fn.Name.Name
			return n == "startswith" || n == "endswith" || (strings.HasPrefix(n, "is") && len(n) > 2)
		}
	}
	return false
}

// boolToInt wraps a boolish operand in _py_b2i.
func boolToInt(e Expr) Expr {
	if !boolish(e) {
		return e
	}
	start, _ := e.Span()
	return call("_py_b2i", start, e)
}

// arithOp reports whether op's bool operands are converted (not %, which
// also formats strings: "%s" % True).
func arithOp(op Token) bool {
	switch op {
	case PLUS, MINUS, SLASH, SLASHSLASH, STAR, STARSTAR, TILDE,
		PLUS_EQ, MINUS_EQ, SLASH_EQ, SLASHSLASH_EQ, STAR_EQ, STARSTAR_EQ:
		return true
	}
	return false
}
