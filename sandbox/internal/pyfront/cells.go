package pyfront

import (
	"maps"
	"slices"
)

// Starlark closures cannot rebind a variable of the enclosing function,
// which Python's nonlocal does. A def whose nested defs declare `nonlocal
// x` keeps x in a one-element list (a cell): every use of x in its body,
// nested defs included, becomes x[0], and the body starts with
// `x = [x]` (x a parameter) or `x = [None]`.

// cellBody rewrites body for the cell names.
func cellBody(pos Position, params []Expr, body []Stmt, cells map[string]bool) []Stmt {
	isParam := map[string]bool{}
	for _, prm := range params {
		switch prm := prm.(type) {
		case *Ident:
			isParam[prm.Name] = true
		case *BinaryExpr:
			if id, ok := prm.X.(*Ident); ok {
				isParam[id.Name] = true
			}
		}
	}
	r := &rewriter{fn: func(e Expr, _ bool) Expr {
		if id, ok := e.(*Ident); ok && cells[id.Name] {
			return &IndexExpr{X: id, Lbrack: id.NamePos, Y: intLit(0, id.NamePos), Rbrack: id.NamePos}
		}
		return e
	}}
	r.stmts(body)
	var init []Stmt
	for _, name := range slices.Sorted(maps.Keys(cells)) {
		var v Expr = ident("None", pos)
		if isParam[name] {
			v = ident(name, pos)
		}
		init = append(
			init,
			&AssignStmt{OpPos: pos, Op: EQ, LHS: ident(name, pos), RHS: &ListExpr{Lbrack: pos, List: []Expr{v}, Rbrack: pos}},
		)
	}
	// Keep a docstring and the _py_enter() call first.
	n := 0
	for n < len(body) && n < 2 {
		e, ok := body[n].(*ExprStmt)
		if !ok {
			break
		}
		if _, lit := e.X.(*Literal); !lit {
			if call, ok := e.X.(*CallExpr); !ok || !isIdentNamed(call.Fn, "_py_enter") {
				break
			}
		}
		n++
	}
	out := append([]Stmt{}, body[:n]...)
	out = append(out, init...)
	return append(out, body[n:]...)
}

func isIdentNamed(e Expr, name string) bool {
	id, ok := e.(*Ident)
	return ok && id.Name == name
}
