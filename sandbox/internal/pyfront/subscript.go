package pyfront

// With Options.CodePoints, every subscript read x[i] becomes
// _py_getitem(x, i) and every slice read x[a:b:c] becomes
// _py_getslice(x, a, b, c) (None for a missing part), so that the runtime
// can index str by code point as Python does. Assignment targets
// (x[i] = v, x[i] += v, for x[i] in ...) keep Starlark's own subscript;
// their sub-expressions are reads.
func routeSubscripts(stmts []Stmt) {
	r := &rewriter{fn: func(e Expr, target bool) Expr {
		if target {
			return e
		}
		switch e := e.(type) {
		case *IndexExpr:
			return call("_py_getitem", e.Lbrack, e.X, e.Y)
		case *SliceExpr:
			none := func(x Expr) Expr {
				if x == nil {
					return ident("None", e.Lbrack)
				}
				return x
			}
			return call("_py_getslice", e.Lbrack, e.X, none(e.Lo), none(e.Hi), none(e.Step))
		}
		return e
	}}
	r.stmts(stmts)
}
