package pyfront

// rewriter rebuilds the expressions of lowered statements bottom-up: fn is
// called on each expression after its sub-expressions were rewritten, with
// target true when the expression is (part of) an assignment or loop
// target (the sub-expressions of a target x[i] or x.f are reads). Names
// that are not expressions (parameters, keyword-argument names, attribute
// names) are left alone.
type rewriter struct {
	fn func(e Expr, target bool) Expr
}

func (r *rewriter) stmts(stmts []Stmt) {
	for _, s := range stmts {
		switch s := s.(type) {
		case *AssignStmt:
			s.LHS = r.expr(s.LHS, true)
			s.RHS = r.expr(s.RHS, false)
		case *ExprStmt:
			s.X = r.expr(s.X, false)
		case *IfStmt:
			s.Cond = r.expr(s.Cond, false)
			r.stmts(s.True)
			r.stmts(s.False)
		case *WhileStmt:
			s.Cond = r.expr(s.Cond, false)
			r.stmts(s.Body)
		case *ForStmt:
			s.Vars = r.expr(s.Vars, true)
			s.X = r.expr(s.X, false)
			r.stmts(s.Body)
		case *DefStmt:
			r.params(s.Params)
			r.stmts(s.Body)
		case *ReturnStmt:
			if s.Result != nil {
				s.Result = r.expr(s.Result, false)
			}
		}
	}
}

// params rewrites the default values of parameters.
func (r *rewriter) params(params []Expr) {
	for _, p := range params {
		if b, ok := p.(*BinaryExpr); ok && b.Op == EQ {
			b.Y = r.expr(b.Y, false)
		}
	}
}

func (r *rewriter) expr(e Expr, target bool) Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *IndexExpr:
		e.X, e.Y = r.expr(e.X, false), r.expr(e.Y, false)
	case *SliceExpr:
		e.X = r.expr(e.X, false)
		e.Lo, e.Hi, e.Step = r.expr(e.Lo, false), r.expr(e.Hi, false), r.expr(e.Step, false)
	case *DotExpr:
		e.X = r.expr(e.X, false)
	case *ParenExpr:
		e.X = r.expr(e.X, target)
	case *TupleExpr:
		for i, x := range e.List {
			e.List[i] = r.expr(x, target)
		}
	case *ListExpr:
		for i, x := range e.List {
			e.List[i] = r.expr(x, target)
		}
	case *BinaryExpr:
		e.X, e.Y = r.expr(e.X, false), r.expr(e.Y, false)
	case *UnaryExpr:
		e.X = r.expr(e.X, false)
	case *CallExpr:
		e.Fn = r.expr(e.Fn, false)
		for i, a := range e.Args {
			if b, ok := a.(*BinaryExpr); ok && b.Op == EQ {
				b.Y = r.expr(b.Y, false) // keyword argument
				continue
			}
			e.Args[i] = r.expr(a, false)
		}
	case *CondExpr:
		e.Cond, e.True, e.False = r.expr(e.Cond, false), r.expr(e.True, false), r.expr(e.False, false)
	case *DictExpr:
		for _, x := range e.List {
			if d, ok := x.(*DictEntry); ok {
				d.Key, d.Value = r.expr(d.Key, false), r.expr(d.Value, false)
			}
		}
	case *LambdaExpr:
		r.params(e.Params)
		e.Body = r.expr(e.Body, false)
	case *Comprehension:
		e.Acc = r.expr(e.Acc, false)
		switch b := e.Body.(type) {
		case *DictEntry:
			b.Key, b.Value = r.expr(b.Key, false), r.expr(b.Value, false)
		case Expr:
			e.Body = r.expr(b, false)
		}
		for _, c := range e.Clauses {
			switch c := c.(type) {
			case *ForClause:
				c.Vars, c.X = r.expr(c.Vars, true), r.expr(c.X, false)
			case *IfClause:
				c.Cond = r.expr(c.Cond, false)
			}
		}
	}
	return r.fn(e, target)
}
