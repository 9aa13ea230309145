package pyfront

import (
	"strconv"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// Node constructors. Generated nodes carry the position of the source
// construct they come from, so errors name the model's line.

func ident(name string, pos Position) *Ident { return &Ident{NamePos: pos, Name: name} }

func call(fn string, pos Position, args ...Expr) *CallExpr {
	return &CallExpr{Fn: ident(fn, pos), Lparen: pos, Args: args, Rparen: pos}
}

func strLit(s string, pos Position) *Literal {
	return &Literal{Token: STRING, TokenPos: pos, Raw: strconv.Quote(s), Value: s}
}

func intLit(n int64, pos Position) *Literal {
	return &Literal{Token: INT, TokenPos: pos, Raw: strconv.FormatInt(n, 10), Value: n}
}

func paren(e Expr) Expr {
	switch e.(type) {
	case *Ident, *Literal, *CallExpr, *ParenExpr, *IndexExpr, *DotExpr:
		return e
	}
	start, end := e.Span()
	return &ParenExpr{Lparen: start, X: e, Rparen: end}
}

func hasWalrus(e Expr) bool {
	found := false
	syntax.Walk(e, func(n syntax.Node) bool {
		if found {
			return false
		}
		if b, ok := n.(*BinaryExpr); ok && b.Op == COLONEQ {
			found = true
			return false
		}
		return true
	})
	return found
}

// lowerWalrus hoists assignment expressions out of e into statements
// that run before it, in evaluation order. Walruses on the right of
// and/or become nested ifs with a temporary; in other conditionally
// evaluated places (conditional expressions, lambdas, comprehensions)
// they are left for validate to report.
func (p *parser) lowerWalrus(e Expr) ([]Stmt, Expr) {
	if e == nil || !hasWalrus(e) {
		return nil, e
	}
	switch x := e.(type) {
	case *BinaryExpr:
		switch x.Op {
		case COLONEQ:
			pre, v := p.lowerWalrus(x.Y)
			id := x.X.(*Ident)
			pre = append(pre, &AssignStmt{OpPos: x.OpPos, Op: EQ, LHS: id, RHS: v})
			return pre, ident(id.Name, id.NamePos)
		case AND, OR:
			pre, a := p.lowerWalrus(x.X)
			if !hasWalrus(x.Y) {
				x.X = a
				return pre, x
			}
			t := p.newTemp()
			pre = append(pre, &AssignStmt{OpPos: x.OpPos, Op: EQ, LHS: ident(t, x.OpPos), RHS: a})
			inner, b := p.lowerWalrus(x.Y)
			inner = append(inner, &AssignStmt{OpPos: x.OpPos, Op: EQ, LHS: ident(t, x.OpPos), RHS: b})
			var cond Expr = ident(t, x.OpPos)
			if x.Op == OR {
				cond = &UnaryExpr{OpPos: x.OpPos, Op: NOT, X: cond}
			}
			pre = append(pre, &IfStmt{If: x.OpPos, Cond: cond, True: inner})
			return pre, ident(t, x.OpPos)
		}
		pre, a := p.lowerWalrus(x.X)
		pre2, b := p.lowerWalrus(x.Y)
		x.X, x.Y = a, b
		return append(pre, pre2...), x
	case *ParenExpr:
		pre, v := p.lowerWalrus(x.X)
		if _, ok := v.(*TupleExpr); ok {
			x.X = v
			return pre, x
		}
		return pre, paren(v)
	case *UnaryExpr:
		pre, v := p.lowerWalrus(x.X)
		x.X = v
		return pre, x
	case *CallExpr:
		pre, fn := p.lowerWalrus(x.Fn)
		x.Fn = fn
		return p.lowerWalrusList(pre, x.Args), x
	case *TupleExpr:
		return p.lowerWalrusList(nil, x.List), x
	case *ListExpr:
		return p.lowerWalrusList(nil, x.List), x
	case *IndexExpr:
		pre, a := p.lowerWalrus(x.X)
		pre2, b := p.lowerWalrus(x.Y)
		x.X, x.Y = a, b
		return append(pre, pre2...), x
	case *DotExpr:
		pre, a := p.lowerWalrus(x.X)
		x.X = a
		return pre, x
	}
	// CondExpr, LambdaExpr, Comprehension, ...: left for validate.
	return nil, e
}

// lowerWalrusList lowers each expression of list in place, appending the
// statements they need to pre.
func (p *parser) lowerWalrusList(pre []Stmt, list []Expr) []Stmt {
	for i, a := range list {
		s, v := p.lowerWalrus(a)
		pre = append(pre, s...)
		list[i] = v
	}
	return pre
}
