package pyfront

import (
	"strings"
)

// classInfo describes a class body being parsed.
type classInfo struct {
	name        string
	level       int      // p.block of the statements directly in the body
	annotations []string // annotated names, in order (for dataclasses)
}

// parseClassDef lowers a class statement (Options.Classes):
//
//	class C(B):            def _py_tN():
//	    x = 1                  x = 1
//	    def m(self): ...  ->   def m(self): ...
//	                           return {"x": x, "m": m}
//	                       C = _py_class("C", [B], _py_tN())
//
// super() in a method becomes _py_super(C, self).
func (p *parser) parseClassDef() []Stmt {
	pos := p.nextToken() // consume CLASS
	if !p.opts.Classes {
		p.unsupported(pos, "class definitions are not supported here: use a dict per record and plain functions")
	}
	id := p.parseIdent()
	var bases []Expr
	if p.tok == LPAREN {
		c := p.parseCallSuffix(id).(*CallExpr)
		for _, a := range c.Args {
			if b, ok := a.(*BinaryExpr); ok && b.Op == EQ {
				p.unsupported(b.OpPos, "class keyword arguments (metaclass=...) are not supported here")
			}
			if u, ok := a.(*UnaryExpr); ok {
				p.unsupported(u.OpPos, "starred base classes are not supported here")
			}
			bases = append(bases, a)
		}
	}
	p.consume(COLON)
	info := &classInfo{name: id.Name, level: p.block + 1}
	savedClass, savedSuper := p.class, p.superClass
	p.class, p.superClass = info, id.Name
	p.inDef++
	savedGlobals, savedGen := p.globals, p.genAcc
	p.globals, p.genAcc = nil, ""
	body := p.parseSuite()
	if p.genAcc != "" {
		p.unsupported(pos, "yield in a class body")
	}
	p.globals, p.genAcc = savedGlobals, savedGen
	p.inDef--
	p.class, p.superClass = savedClass, savedSuper

	// Members: names bound directly in the body, in order.
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] && !strings.HasPrefix(n, "_py_") {
			seen[n] = true
			names = append(names, n)
		}
	}
	var addTarget func(e Expr)
	addTarget = func(e Expr) {
		switch e := e.(type) {
		case *Ident:
			add(e.Name)
		case *ParenExpr:
			addTarget(e.X)
		case *TupleExpr:
			for _, x := range e.List {
				addTarget(x)
			}
		case *ListExpr:
			for _, x := range e.List {
				addTarget(x)
			}
		}
	}
	for _, s := range body {
		switch s := s.(type) {
		case *AssignStmt:
			addTarget(s.LHS)
		case *DefStmt:
			add(s.Name.Name)
		}
	}
	var entries []Expr
	for _, n := range names {
		entries = append(entries, &DictEntry{Key: strLit(n, pos), Colon: pos, Value: ident(n, pos)})
	}
	if len(info.annotations) > 0 {
		var list []Expr
		for _, n := range info.annotations {
			list = append(list, strLit(n, pos))
		}
		entries = append(
			entries,
			&DictEntry{Key: strLit("__annotations__", pos), Colon: pos, Value: &ListExpr{Lbrack: pos, List: list, Rbrack: pos}},
		)
	}
	builder := p.newTemp()
	ret := &ReturnStmt{Return: pos, Result: &DictExpr{Lbrace: pos, List: entries, Rbrace: pos}}
	def := &DefStmt{Def: pos, Name: ident(builder, pos), Lparen: pos, Rparen: pos, Body: append(body, ret)}
	class := call("_py_class", pos, strLit(id.Name, id.NamePos), &ListExpr{Lbrack: pos, List: bases, Rbrack: pos}, call(builder, pos))
	return []Stmt{def, &AssignStmt{OpPos: pos, Op: EQ, LHS: ident(id.Name, id.NamePos), RHS: class}}
}
