package pyfront

// With Options.CodePoints, every subscript read x[i] becomes
// _py_getitem(x, i) and every slice read x[a:b:c] becomes
// _py_getslice(x, a, b, c) (None for a missing part), so that the runtime
// can index str by code point as Python does. Assignment targets
// (x[i] = v, x[i] += v, for x[i] in ...) keep Starlark's own subscript;
// their sub-expressions are reads.

func routeSubscripts(stmts []Stmt) {
	for _, s := range stmts {
		routeStmt(s)
	}
}

func routeStmt(s Stmt) {
	switch s := s.(type) {
	case *AssignStmt:
		s.LHS = routeTarget(s.LHS)
		s.RHS = routeExpr(s.RHS)
	case *ExprStmt:
		s.X = routeExpr(s.X)
	case *IfStmt:
		s.Cond = routeExpr(s.Cond)
		routeSubscripts(s.True)
		routeSubscripts(s.False)
	case *WhileStmt:
		s.Cond = routeExpr(s.Cond)
		routeSubscripts(s.Body)
	case *ForStmt:
		s.Vars = routeTarget(s.Vars)
		s.X = routeExpr(s.X)
		routeSubscripts(s.Body)
	case *DefStmt:
		routeParams(s.Params)
		routeSubscripts(s.Body)
	case *ReturnStmt:
		if s.Result != nil {
			s.Result = routeExpr(s.Result)
		}
	}
}

// routeParams routes the default values of parameters.
func routeParams(params []Expr) {
	for _, p := range params {
		if b, ok := p.(*BinaryExpr); ok && b.Op == EQ {
			b.Y = routeExpr(b.Y)
		}
	}
}

// routeTarget routes the reads inside an assignment target.
func routeTarget(e Expr) Expr {
	switch e := e.(type) {
	case *IndexExpr:
		e.X = routeExpr(e.X)
		e.Y = routeExpr(e.Y)
	case *SliceExpr:
		e.X = routeExpr(e.X)
	case *DotExpr:
		e.X = routeExpr(e.X)
	case *ParenExpr:
		e.X = routeTarget(e.X)
	case *TupleExpr:
		for i, x := range e.List {
			e.List[i] = routeTarget(x)
		}
	case *ListExpr:
		for i, x := range e.List {
			e.List[i] = routeTarget(x)
		}
	}
	return e
}

func routeExpr(e Expr) Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *IndexExpr:
		return call("_py_getitem", e.Lbrack, routeExpr(e.X), routeExpr(e.Y))
	case *SliceExpr:
		none := func(x Expr) Expr {
			if x == nil {
				return ident("None", e.Lbrack)
			}
			return routeExpr(x)
		}
		return call("_py_getslice", e.Lbrack, routeExpr(e.X), none(e.Lo), none(e.Hi), none(e.Step))
	case *BinaryExpr:
		e.X = routeExpr(e.X)
		e.Y = routeExpr(e.Y)
	case *UnaryExpr:
		e.X = routeExpr(e.X)
	case *ParenExpr:
		e.X = routeExpr(e.X)
	case *DotExpr:
		e.X = routeExpr(e.X)
	case *CallExpr:
		e.Fn = routeExpr(e.Fn)
		for i, a := range e.Args {
			if b, ok := a.(*BinaryExpr); ok && b.Op == EQ {
				b.Y = routeExpr(b.Y) // keyword argument
				continue
			}
			e.Args[i] = routeExpr(a)
		}
	case *CondExpr:
		e.Cond = routeExpr(e.Cond)
		e.True = routeExpr(e.True)
		e.False = routeExpr(e.False)
	case *ListExpr:
		for i, x := range e.List {
			e.List[i] = routeExpr(x)
		}
	case *TupleExpr:
		for i, x := range e.List {
			e.List[i] = routeExpr(x)
		}
	case *DictExpr:
		for _, x := range e.List {
			if d, ok := x.(*DictEntry); ok {
				d.Key = routeExpr(d.Key)
				d.Value = routeExpr(d.Value)
			}
		}
	case *LambdaExpr:
		routeParams(e.Params)
		e.Body = routeExpr(e.Body)
	case *Comprehension:
		switch b := e.Body.(type) {
		case *DictEntry:
			b.Key = routeExpr(b.Key)
			b.Value = routeExpr(b.Value)
		case Expr:
			e.Body = routeExpr(b)
		}
		for _, c := range e.Clauses {
			switch c := c.(type) {
			case *ForClause:
				c.Vars = routeTarget(c.Vars)
				c.X = routeExpr(c.X)
			case *IfClause:
				c.Cond = routeExpr(c.Cond)
			}
		}
	}
	return e
}
