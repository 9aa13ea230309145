package pyfront

import (
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// parseYield parses a yield statement in a def: `yield x` appends to the
// list the generator returns (see lowerGenerator).
func (p *parser) parseYield() Stmt {
	pos := p.nextToken() // consume YIELD
	if p.inDef == 0 {
		p.in.errorf(pos, "'yield' outside function")
	}
	if p.genAcc == "" {
		p.genAcc = p.newTemp()
	}
	acc := ident(p.genAcc, pos)
	if p.tok == FROM {
		p.nextToken()
		x := p.parseTest()
		return &ExprStmt{
			X: &CallExpr{
				Fn:     &DotExpr{X: acc, Dot: pos, NamePos: pos, Name: ident("extend", pos)},
				Lparen: pos,
				Args:   []Expr{iterOf(x)},
				Rparen: pos,
			},
		}
	}
	var x Expr = ident("None", pos)
	if p.tok != NEWLINE && p.tok != EOF && p.tok != SEMI {
		x = p.fixStars(p.parseExpr())
	}
	return &ExprStmt{
		X: &CallExpr{Fn: &DotExpr{X: acc, Dot: pos, NamePos: pos, Name: ident("append", pos)}, Lparen: pos, Args: []Expr{x}, Rparen: pos},
	}
}

// lowerGenerator turns a generator function body into one that builds
// a list and returns iter(list): the generator runs eagerly, which is
// what a for loop, list(...), sum(...) or next(...) over it observes. A `while True` loop
// with no way out would never finish and is reported instead.
func (p *parser) lowerGenerator(pos Position, acc string, body []Stmt) []Stmt {
	var fix func(stmts []Stmt)
	fix = func(stmts []Stmt) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *ReturnStmt:
				s.Result = call("iter", s.Return, ident(acc, s.Return))
			case *IfStmt:
				fix(s.True)
				fix(s.False)
			case *ForStmt:
				fix(s.Body)
			case *WhileStmt:
				if id, ok := s.Cond.(*Ident); ok && id.Name == "True" && !hasExit(s.Body) {
					p.unsupported(s.While, "infinite generators (while True: ... yield) are not supported here: generators run eagerly and return a list; bound the loop")
				}
				fix(s.Body)
			}
		}
	}
	fix(body)
	init := &AssignStmt{OpPos: pos, Op: EQ, LHS: ident(acc, pos), RHS: &ListExpr{Lbrack: pos, Rbrack: pos}}
	out := append([]Stmt{init}, body...)
	return append(out, &ReturnStmt{Return: pos, Result: call("iter", pos, ident(acc, pos))})
}

// hasExit reports whether stmts contain a break or return (not inside a
// nested def).
func hasExit(stmts []Stmt) bool {
	found := false
	syntax.Walk(&File{Stmts: stmts}, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *DefStmt:
			return false
		case *ReturnStmt:
			found = true
		case *BranchStmt:
			if n.Token == BREAK {
				found = true
			}
		}
		return !found
	})
	return found
}
