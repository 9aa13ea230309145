package pyfront

import "github.com/rlmhq/rlm/internal/starlark/syntax"

// Lowering of try statements that are not at module level (inside a
// def, loop or if), used when Options.CatchInner is set.
//
// Starlark has no exception handling, so each simple statement of the
// try body runs its expression through the runtime helper _py_try:
//
//	r = _py_try(lambda: EXPR, ["ValueError"], [])   # one list of names per handler
//
// r is (-1, value) on success, (i, exc) when handler i matches and
// (-2, exc) when no handler matches. Control flow (return, break,
// continue) stays inline; later statements of the body are guarded by
// `if r[0] == -1:`; loops in the body stop at the first error.

type innerHandler struct {
	pos   Position
	types []string
	name  string
	body  []Stmt
}

type tryLowering struct {
	p     *parser
	pos   Position
	r     string
	types []string // the temporaries holding each handler's list of names
	// funcs are the guarded expressions' lambdas, made once before the
	// body (see guarded).
	funcs []Stmt
}

func (p *parser) lowerInnerTry(pos Position, body []Stmt, handlers []innerHandler, elseBody, finallyBody []Stmt) []Stmt {
	tw := &tryLowering{p: p, pos: pos, r: p.newTemp()}
	// Each handler's list of exception names is made once, before the
	// body, not at every guarded statement (two allocations each, per
	// iteration of a loop in the body).
	var out []Stmt
	for _, h := range handlers {
		var names []Expr
		for _, t := range h.types {
			names = append(names, strLit(t, h.pos))
		}
		name := p.newTemp()
		out = append(out, &AssignStmt{OpPos: h.pos, Op: EQ, LHS: ident(name, h.pos), RHS: &ListExpr{Lbrack: h.pos, List: names, Rbrack: h.pos}})
		tw.types = append(tw.types, name)
	}
	init := &AssignStmt{OpPos: pos, Op: EQ, LHS: ident(tw.r, pos),
		RHS: &TupleExpr{Lparen: pos, List: []Expr{intLit(-1, pos), ident("None", pos)}, Rparen: pos}}
	out = append(out, init)
	lowered := tw.stmts(body, false)
	out = append(out, tw.funcs...)
	out = append(out, lowered...)

	// Dispatch: else body on success, handler i on match.
	var chain, tail *IfStmt
	add := func(cond Expr, body []Stmt) {
		if len(body) == 0 {
			body = []Stmt{&BranchStmt{Token: PASS, TokenPos: pos}}
		}
		s := &IfStmt{If: pos, Cond: cond, True: body}
		if chain == nil {
			chain = s
		} else {
			tail.ElsePos = pos
			tail.False = []Stmt{s}
		}
		tail = s
	}
	if len(elseBody) > 0 {
		add(tw.is(-1), elseBody)
	}
	for i, h := range handlers {
		var hb []Stmt
		if h.name != "" {
			hb = append(hb, &AssignStmt{OpPos: h.pos, Op: EQ, LHS: ident(h.name, h.pos), RHS: tw.value()})
		}
		tw.bareRaise(h.body)
		add(tw.is(int64(i)), append(hb, h.body...))
	}
	if chain != nil {
		out = append(out, chain)
	}
	if len(finallyBody) > 0 && shareable(finallyBody) {
		out = withFinally(out, finallyBody, false, p.newTemp)
	}
	out = append(out, finallyBody...)
	reraise := &ExprStmt{X: call("_py_raise", pos, tw.value())}
	return append(out, &IfStmt{If: pos, Cond: tw.is(-2), True: []Stmt{reraise}})
}

// is returns the expression r[0] == n.
func (tw *tryLowering) is(n int64) Expr {
	return &BinaryExpr{OpPos: tw.pos, Op: EQL, X: tw.index(0), Y: intLit(n, tw.pos)}
}

func (tw *tryLowering) index(i int64) Expr {
	return &IndexExpr{X: ident(tw.r, tw.pos), Lbrack: tw.pos, Y: intLit(i, tw.pos), Rbrack: tw.pos}
}

func (tw *tryLowering) value() Expr { return tw.index(1) }

// guarded runs expression x under the handlers: r = _py_try(f, types...)
// with f = lambda: x made once before the try's body (tw.funcs), not at
// each run of the statement (an allocation per loop iteration): a lambda
// reads the variables it names when it is called, so it may be made
// before they are assigned.
func (tw *tryLowering) guarded(x Expr) Stmt {
	start, _ := x.Span()
	f := tw.p.newTemp()
	tw.funcs = append(tw.funcs, &AssignStmt{OpPos: start, Op: EQ, LHS: ident(f, start), RHS: &LambdaExpr{Lambda: start, Body: x}})
	args := []Expr{ident(f, start)}
	for _, t := range tw.types {
		args = append(args, ident(t, start)) // a new Ident at each use: the resolver binds each
	}
	return &AssignStmt{OpPos: start, Op: EQ, LHS: ident(tw.r, start), RHS: call("_py_try", start, args...)}
}

// stmts lowers a statement list of the try body.
func (tw *tryLowering) stmts(list []Stmt, inLoop bool) []Stmt {
	var out []Stmt
	for i, s := range list {
		ts := tw.stmt(s, inLoop)
		if i == 0 {
			out = append(out, ts...)
		} else {
			out = append(out, &IfStmt{If: tw.pos, Cond: tw.is(-1), True: ts})
		}
		if inLoop {
			if _, ok := s.(*BranchStmt); !ok {
				brk := &BranchStmt{Token: BREAK, TokenPos: tw.pos}
				out = append(out, &IfStmt{If: tw.pos, Cond: &UnaryExpr{OpPos: tw.pos, Op: NOT, X: paren(tw.is(-1))}, True: []Stmt{brk}})
			}
		}
	}
	if len(out) == 0 {
		out = []Stmt{&BranchStmt{Token: PASS, TokenPos: tw.pos}}
	}
	return out
}

func (tw *tryLowering) stmt(s Stmt, inLoop bool) []Stmt {
	ok := func(body ...Stmt) Stmt { return &IfStmt{If: tw.pos, Cond: tw.is(-1), True: body} }
	switch s := s.(type) {
	case *ExprStmt:
		return []Stmt{tw.guarded(s.X)}
	case *AssignStmt:
		rhs := s.RHS
		if n, ok := unpackTargets(s); ok {
			// a, b = v: the unpacking runs inside the guard, so that its
			// ValueError or TypeError reaches the handlers.
			rhs = call("_py_unpack", s.OpPos, rhs, intLit(int64(n), s.OpPos), intLit(-1, s.OpPos))
		}
		return []Stmt{tw.guarded(rhs), ok(&AssignStmt{OpPos: s.OpPos, Op: s.Op, LHS: s.LHS, RHS: tw.value()})}
	case *ReturnStmt:
		if s.Result == nil {
			return []Stmt{s}
		}
		return []Stmt{tw.guarded(s.Result), ok(&ReturnStmt{Return: s.Return, Result: tw.value()})}
	case *IfStmt:
		inner := &IfStmt{If: s.If, Cond: tw.value(), True: tw.stmts(s.True, inLoop), ElsePos: s.ElsePos}
		if len(s.False) > 0 {
			inner.False = tw.stmts(s.False, inLoop)
		}
		return []Stmt{tw.guarded(s.Cond), ok(inner)}
	case *ForStmt:
		if shape, unpacks := targetShape(s.Vars); unpacks {
			// for a, (b, c) in xs: the loop iterates
			// _py_forunpack(xs, [0, [0, 0]]), items unpacked to the
			// targets' shape, and the item that does not unpack ends it
			// and is raised after it under the handlers (a _py_try per
			// iteration would cost 2.4x the CPU time of a two-statement
			// loop).
			g := tw.p.newTemp() // a new Ident at each use: the resolver binds each
			loop := &ForStmt{For: s.For, Vars: s.Vars, X: ident(g, s.For), Body: tw.stmts(s.Body, true)}
			raise := &IfStmt{If: s.For, Cond: tw.is(-1), True: []Stmt{tw.guarded(call("_py_forunpack_err", s.For, ident(g, s.For)))}}
			return []Stmt{
				tw.guarded(call("_py_forunpack", s.For, s.X, shape)),
				ok(&AssignStmt{OpPos: s.For, Op: EQ, LHS: ident(g, s.For), RHS: tw.value()}, loop, raise),
			}
		}
		loop := &ForStmt{For: s.For, Vars: s.Vars, X: tw.value(), Body: tw.stmts(s.Body, true)}
		return []Stmt{tw.guarded(s.X), ok(loop)}
	case *WhileStmt:
		brk := func() Stmt { return &BranchStmt{Token: BREAK, TokenPos: s.While} }
		body := []Stmt{
			tw.guarded(s.Cond),
			&IfStmt{If: s.While, Cond: &UnaryExpr{OpPos: s.While, Op: NOT, X: paren(tw.is(-1))}, True: []Stmt{brk()}},
			&IfStmt{If: s.While, Cond: &UnaryExpr{OpPos: s.While, Op: NOT, X: tw.value()}, True: []Stmt{brk()}},
		}
		body = append(body, tw.stmts(s.Body, true)...)
		return []Stmt{&WhileStmt{While: s.While, Cond: ident("True", s.While), Body: body}}
	}
	// def, pass, break, continue
	return []Stmt{s}
}

// withFinally inserts the finally body before each statement that leaves
// the try statement early: return, raise (in a handler), and
// break/continue not inside a loop of the try statement itself.
func withFinally(stmts, finallyBody []Stmt, inLoop bool, temp func() string) []Stmt {
	var out []Stmt
	for _, s := range stmts {
		switch s := s.(type) {
		case *ReturnStmt:
			if s.Result != nil {
				// return x: x is evaluated before the finally body runs,
				// as in Python (the body may change what x reads).
				t := temp()
				out = append(out, &AssignStmt{OpPos: s.Return, Op: EQ, LHS: ident(t, s.Return), RHS: s.Result})
				out = append(out, finallyBody...)
				out = append(out, &ReturnStmt{Return: s.Return, Result: ident(t, s.Return)})
				continue
			}
			out = append(out, finallyBody...)
		case *ExprStmt:
			// A raise in a handler (the try body's are wrapped in _py_try).
			if c, ok := s.X.(*CallExpr); ok {
				if id, ok := c.Fn.(*Ident); ok && id.Name == "_py_raise" {
					out = append(out, finallyBody...)
				}
			}
		case *BranchStmt:
			if !inLoop && (s.Token == BREAK || s.Token == CONTINUE) {
				out = append(out, finallyBody...)
			}
		case *IfStmt:
			s.True = withFinally(s.True, finallyBody, inLoop, temp)
			s.False = withFinally(s.False, finallyBody, inLoop, temp)
		case *ForStmt:
			s.Body = withFinally(s.Body, finallyBody, true, temp)
		case *WhileStmt:
			s.Body = withFinally(s.Body, finallyBody, true, temp)
		}
		out = append(out, s)
	}
	return out
}

// shareable reports whether stmts may appear at several places of the
// tree: the resolver annotates functions and comprehension scopes in
// place, so those must not be duplicated.
func shareable(stmts []Stmt) bool {
	ok := true
	syntax.Walk(&File{Stmts: stmts}, func(n syntax.Node) bool {
		switch n.(type) {
		case *DefStmt, *LambdaExpr, *Comprehension:
			ok = false
		}
		return ok
	})
	return ok
}

// bareRaise makes a bare `raise` in a handler re-raise the caught
// exception, _py_raise() -> _py_raise(r[1]), and gives the exceptions
// raised in a handler the caught one as __context__: _py_raise(E) ->
// _py_raise(E, context=r[1]) (unless a nested handler gave its own).
func (tw *tryLowering) bareRaise(stmts []Stmt) {
	syntax.Walk(&File{Stmts: stmts}, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *DefStmt, *LambdaExpr:
			return false
		case *CallExpr:
			if id, ok := n.Fn.(*Ident); ok && id.Name == "_py_raise" {
				if len(n.Args) == 0 {
					n.Args = []Expr{tw.value()}
					return true
				}
				for _, a := range n.Args {
					if b, ok := a.(*BinaryExpr); ok && b.Op == EQ {
						return true
					}
				}
				n.Args = append(n.Args, &BinaryExpr{X: ident("context", tw.pos), OpPos: tw.pos, Op: EQ, Y: tw.value()})
			}
		}
		return true
	})
}

// unpackTargets reports whether s assigns a tuple or list of targets
// without a starred one (a, b = v), and how many.
func unpackTargets(s *AssignStmt) (int, bool) {
	if s.Op != EQ {
		return 0, false
	}
	return targetCount(s.LHS)
}

// targetShape returns the shape of a loop's targets when they unpack (a
// tuple or list of targets, none starred): a list holding 0 for each
// target and the shape of each nested tuple or list target.
func targetShape(lhs Expr) (Expr, bool) {
	list, ok := targets(lhs)
	if !ok {
		return nil, false
	}
	pos, _ := lhs.Span()
	shape := &ListExpr{Lbrack: pos, Rbrack: pos}
	for _, e := range list {
		if _, nested := targets(e); !nested {
			shape.List = append(shape.List, intLit(0, pos))
			continue
		}
		inner, ok := targetShape(e)
		if !ok {
			return nil, false
		}
		shape.List = append(shape.List, inner)
	}
	return shape, true
}

// targetCount reports whether lhs is a tuple or list of targets without
// a starred one (a, b), and how many.
func targetCount(lhs Expr) (int, bool) {
	list, ok := targets(lhs)
	return len(list), ok
}

// targets returns the targets of lhs when it is a tuple or list of them
// (parenthesized or not) without a starred one.
func targets(lhs Expr) ([]Expr, bool) {
	for {
		p, ok := lhs.(*ParenExpr)
		if !ok {
			break
		}
		lhs = p.X
	}
	var list []Expr
	switch x := lhs.(type) {
	case *TupleExpr:
		list = x.List
	case *ListExpr:
		list = x.List
	default:
		return nil, false
	}
	for _, e := range list {
		if u, ok := e.(*UnaryExpr); ok && u.Op == STAR {
			return nil, false
		}
	}
	return list, true
}
