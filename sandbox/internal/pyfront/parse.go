// Copyright 2017 The Bazel Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file (LICENSE.starlark).
// Modified for pyfront: parses Python and lowers Python-only constructs
// while building upstream go.starlark.net/syntax nodes.

package pyfront

// A recursive-descent parser for the Python that models write, forked
// from go.starlark.net/syntax.

import (
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

type parser struct {
	in     *scanner
	file   *string
	opts   Options
	tok    Token
	tokval tokenValue
	depth  int
	temps  *int // counter for temporaries, shared with f-string sub-parsers
	block  int  // nesting of suites inside def/if/for/while/inner try
	inDef  int  // nesting of def bodies
	// globals holds the global/nonlocal declarations of the def being parsed.
	globals []globalDecl
	// cells holds, for each def being parsed (innermost last), the names
	// that nested defs declare nonlocal: that def keeps them in cells.
	cells []map[string]bool
	// genAcc names the list a generator def being parsed appends to ("" if no yield yet).
	genAcc string
	// class is the class whose body is being parsed (nil outside class bodies).
	class *classInfo
	// superSelf is the first parameter of the method being parsed ("" outside methods).
	superSelf  string
	superClass string
	prog       *Program // receives InnerTry ranges
}

func (p *parser) enter() {
	p.depth++
	if p.depth > 1000 {
		p.in.errorf(p.in.pos, "excessive nesting")
	}
}

func (p *parser) leave() { p.depth-- }

// nextToken advances the scanner and returns the position of the
// previous token.
func (p *parser) nextToken() Position {
	oldpos := p.tokval.pos
	p.tok = p.in.nextToken(&p.tokval)
	return oldpos
}

func (p *parser) newTemp() string {
	*p.temps++
	return fmt.Sprintf("_py_t%d", *p.temps)
}

func (p *parser) unsupported(pos Position, format string, args ...any) {
	p.in.unsupported(pos, format, args...)
}

// parseChunks parses module-level statements until done reports true,
// keeping module-level try statements as structure.
func (p *parser) parseChunks(done func() bool) []Chunk {
	var chunks []Chunk
	var cur []Stmt
	flush := func() {
		if len(cur) > 0 {
			chunks = append(chunks, Chunk{File: &File{Path: *p.file, Stmts: cur, Options: FileOptions}})
			cur = nil
		}
	}
	for !done() {
		if p.tok == NEWLINE {
			p.nextToken()
			continue
		}
		if p.tok == TRY && !p.opts.InlineModuleTry {
			flush()
			chunks = append(chunks, Chunk{Try: p.parseTopTry()})
			continue
		}
		cur = p.parseStmt(cur)
	}
	flush()
	return chunks
}

// parseChunkSuite parses the suite of a module-level try clause.
func (p *parser) parseChunkSuite() []Chunk {
	p.enter()
	defer p.leave()
	if p.tok == NEWLINE {
		p.nextToken()
		p.consume(INDENT)
		chunks := p.parseChunks(func() bool { return p.tok == OUTDENT || p.tok == EOF })
		p.consume(OUTDENT)
		return chunks
	}
	stmts := p.parseSimpleStmt(nil)
	return []Chunk{{File: &File{Path: *p.file, Stmts: stmts, Options: FileOptions}}}
}

func (p *parser) parseTopTry() *Try {
	pos := p.nextToken() // consume TRY
	p.consume(COLON)
	t := &Try{Line: int(pos.Line)}
	t.Body = p.parseChunkSuite()
	for p.tok == EXCEPT {
		epos := p.nextToken()
		types, name := p.parseExceptClause(epos)
		p.consume(COLON)
		t.Handlers = append(t.Handlers, Handler{Line: int(epos.Line), Types: types, Name: name, Body: p.parseChunkSuite()})
	}
	if p.tok == ELSE {
		p.nextToken()
		p.consume(COLON)
		t.Else = p.parseChunkSuite()
	}
	if p.tok == FINALLY {
		p.nextToken()
		p.consume(COLON)
		t.Finally = p.parseChunkSuite()
	}
	if len(t.Handlers) == 0 && t.Finally == nil {
		p.in.errorf(p.tokval.pos, "expected 'except' or 'finally' block")
	}
	return t
}

// parseExceptClause parses what follows 'except' up to the colon.
func (p *parser) parseExceptClause(pos Position) (types []string, name string) {
	if p.tok == STAR {
		p.unsupported(pos, "except* is not supported here")
	}
	if p.tok == COLON {
		return nil, ""
	}
	x := p.parseTest()
	var add func(e Expr)
	add = func(e Expr) {
		switch e := e.(type) {
		case *ParenExpr:
			add(e.X)
		case *TupleExpr:
			for _, x := range e.List {
				add(x)
			}
		default:
			s, ok := dottedName(e)
			if !ok {
				start, _ := e.Span()
				p.in.errorf(start, "except clause must name exception classes, e.g. `except (KeyError, ValueError) as e:`")
			}
			types = append(types, s)
		}
	}
	add(x)
	if p.tok == COMMA {
		p.in.errorf(p.tokval.pos, "multiple exception types must be parenthesized")
	}
	if p.tok == AS {
		p.nextToken()
		name = p.parseIdent().Name
	}
	return types, name
}

func dottedName(e Expr) (string, bool) {
	switch e := e.(type) {
	case *Ident:
		return e.Name, true
	case *DotExpr:
		s, ok := dottedName(e.X)
		return s + "." + e.Name.Name, ok
	}
	return "", false
}

func (p *parser) parseStmt(stmts []Stmt) []Stmt {
	switch p.tok {
	case DEF:
		return append(stmts, p.parseDefStmt())
	case IF:
		return append(stmts, p.parseIfStmt()...)
	case FOR:
		return append(stmts, p.parseForStmt()...)
	case WHILE:
		return append(stmts, p.parseWhileStmt()...)
	case TRY:
		return append(stmts, p.parseInnerTry()...)
	case CLASS:
		return append(stmts, p.parseClassDef()...)
	case WITH:
		return append(stmts, p.parseWithStmt()...)
	case AT:
		return append(stmts, p.parseDecorated()...)
	case ASYNC, AWAIT:
		p.unsupported(
			p.tokval.pos,
			"async/await is not supported here: call functions directly (llm_query_batched runs prompts concurrently)",
		)
	case IDENT:
		if p.tokval.raw == "match" && p.looksLikeMatch() {
			p.unsupported(p.tokval.pos, "match statements are not supported here: use if/elif/else")
		}
	}
	return p.parseSimpleStmt(stmts)
}

// looksLikeMatch reports whether the current line is a match statement
// header ("match x:" at the end of the line).
func (p *parser) looksLikeMatch() bool {
	rest := p.in.rest
	if i := strings.IndexByte(string(rest[:min(len(rest), 200)]), '\n'); i >= 0 {
		rest = rest[:i]
	}
	line := strings.TrimSpace(string(rest))
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	if !strings.HasSuffix(line, ":") || line == ":" {
		return false
	}
	c := line[0]
	return c == ' ' || c == '(' || c == '[' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// parseSuite parses an indented block (or a simple statement on the same line).
func (p *parser) parseSuite() []Stmt {
	p.enter()
	defer p.leave()
	p.block++
	defer func() { p.block-- }()

	if p.tok == NEWLINE {
		p.nextToken() // consume NEWLINE
		p.consume(INDENT)
		var stmts []Stmt
		for p.tok != OUTDENT && p.tok != EOF {
			if p.tok == NEWLINE {
				p.nextToken()
				continue
			}
			stmts = p.parseStmt(stmts)
		}
		p.consume(OUTDENT)
		return p.nonEmpty(stmts)
	}
	return p.nonEmpty(p.parseSimpleStmt(nil))
}

// nonEmpty makes sure a body has a statement (a suite of only `global x`
// may lower to nothing).
func (p *parser) nonEmpty(stmts []Stmt) []Stmt {
	if len(stmts) == 0 {
		return []Stmt{&BranchStmt{Token: PASS, TokenPos: p.tokval.pos}}
	}
	return stmts
}

// parseInnerTry parses a try statement that is not at module level.
// With Options.CatchInner it is lowered to _py_try calls (see
// trylower.go). Otherwise the body (then else, then finally) is inlined,
// the handlers are kept under `if False:` so that the names they bind
// stay defined, and the body's lines are recorded in Program.InnerTry.
func (p *parser) parseInnerTry() []Stmt {
	pos := p.nextToken() // consume TRY
	p.consume(COLON)
	body := p.parseSuite()
	var handlers []innerHandler
	for p.tok == EXCEPT {
		epos := p.nextToken()
		types, name := p.parseExceptClause(epos)
		p.consume(COLON)
		handlers = append(handlers, innerHandler{pos: epos, types: types, name: name, body: p.parseSuite()})
	}
	var elseBody, finallyBody []Stmt
	if p.tok == ELSE {
		p.nextToken()
		p.consume(COLON)
		elseBody = p.parseSuite()
	}
	hasFinally := false
	if p.tok == FINALLY {
		p.nextToken()
		p.consume(COLON)
		finallyBody = p.parseSuite()
		hasFinally = true
	}
	if len(handlers) == 0 && !hasFinally {
		p.in.errorf(p.tokval.pos, "expected 'except' or 'finally' block")
	}
	if p.opts.CatchInner || p.opts.InlineModuleTry && p.block == 0 {
		return p.lowerInnerTry(pos, body, handlers, elseBody, finallyBody)
	}
	_, end := body[len(body)-1].Span()
	p.prog.InnerTry = append(p.prog.InnerTry, TryRange{Line: int(pos.Line), EndLine: int(end.Line)})
	stmts := append(body, elseBody...)
	stmts = append(stmts, finallyBody...)
	var dead []Stmt
	for _, h := range handlers {
		if h.name != "" {
			dead = append(dead, &AssignStmt{OpPos: h.pos, Op: EQ, LHS: ident(h.name, h.pos), RHS: ident("None", h.pos)})
		}
		dead = append(dead, h.body...)
	}
	if len(dead) > 0 {
		stmts = append(stmts, &IfStmt{If: pos, Cond: ident("False", pos), True: dead})
	}
	return stmts
}

// parseWithStmt lowers `with E as T: body` (items nest left to right) to
//
//	_py_tN = _py_enter(E)   # (manager, what __enter__ returned)
//	T = _py_tN[1]
//	try: body
//	finally: _py_exit(_py_tN[0])
//
// The manager's exit gets no exception (it cannot suppress one).
func (p *parser) parseWithStmt() []Stmt {
	pos := p.nextToken() // consume WITH
	type item struct{ x, target Expr }
	var items []item
	for {
		it := item{x: p.parseTest()}
		if p.tok == AS {
			p.nextToken()
			it.target = p.parsePrimaryWithSuffix()
		}
		items = append(items, it)
		if p.tok != COMMA {
			break
		}
		p.nextToken()
	}
	p.consume(COLON)
	body := p.parseSuite()
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		start, _ := it.x.Span()
		t := p.newTemp()
		part := func(k int64) Expr {
			return &IndexExpr{X: ident(t, start), Lbrack: start, Y: intLit(k, start), Rbrack: start}
		}
		out := []Stmt{&AssignStmt{OpPos: start, Op: EQ, LHS: ident(t, start), RHS: call("_py_enter", start, it.x)}}
		if it.target != nil {
			out = append(out, p.assign(it.target, part(1))...)
		}
		exit := []Stmt{&ExprStmt{X: call("_py_exit", start, part(0))}}
		body = append(out, p.lowerInnerTry(pos, body, nil, nil, exit)...)
	}
	return body
}

// parseDecorated parses decorators and the def they apply to:
// @d1 @d2 def f -> def f; f = d1(d2(f)).
func (p *parser) parseDecorated() []Stmt {
	var decos []Expr
	for p.tok == AT {
		p.nextToken()
		decos = append(decos, p.parseTest())
		p.consume(NEWLINE)
		for p.tok == NEWLINE {
			p.nextToken()
		}
	}
	var stmts []Stmt
	var name string
	switch p.tok {
	case DEF:
		def := p.parseDefStmt().(*DefStmt)
		stmts, name = []Stmt{def}, def.Name.Name
	case CLASS:
		stmts = p.parseClassDef()
		name = stmts[len(stmts)-1].(*AssignStmt).LHS.(*Ident).Name
	default:
		p.in.errorf(p.tokval.pos, "invalid syntax: a decorator must be followed by def or class")
	}
	// Decorator expressions are evaluated before the def binds its name
	// (@x.setter def x(...)): hoist those that mention the name.
	var pre []Stmt
	for i, d := range decos {
		mentions := false
		syntax.Walk(d, func(n syntax.Node) bool {
			if id, ok := n.(*Ident); ok && id.Name == name {
				mentions = true
			}
			return !mentions
		})
		if mentions {
			start, _ := d.Span()
			t := p.newTemp()
			pre = append(pre, &AssignStmt{OpPos: start, Op: EQ, LHS: ident(t, start), RHS: d})
			decos[i] = ident(t, start)
		}
	}
	stmts = append(pre, stmts...)
	for i := len(decos) - 1; i >= 0; i-- {
		start, _ := decos[i].Span()
		wrapped := &CallExpr{Fn: decos[i], Lparen: start, Args: []Expr{ident(name, start)}, Rparen: start}
		stmts = append(stmts, &AssignStmt{OpPos: start, Op: EQ, LHS: ident(name, start), RHS: wrapped})
	}
	return stmts
}

func (p *parser) parseDefStmt() Stmt {
	defpos := p.nextToken() // consume DEF
	id := p.parseIdent()
	lparen := p.consume(LPAREN)
	params := p.parseParams(true)
	rparen := p.consume(RPAREN)
	if p.tok == ARROW {
		p.nextToken()
		p.parseTest() // return annotation: ignored
	}
	p.consume(COLON)
	savedSelf := p.superSelf
	if c := p.class; c != nil && p.block == c.level {
		// A method: super() means _py_super(Class, first parameter).
		p.superSelf = ""
		if len(params) > 0 {
			if id, ok := params[0].(*Ident); ok {
				p.superSelf = id.Name
			}
		}
	}
	defer func() { p.superSelf = savedSelf }()
	savedClass := p.class
	p.class = nil
	defer func() { p.class = savedClass }()
	p.inDef++
	saved, savedGen := p.globals, p.genAcc
	p.globals, p.genAcc = nil, ""
	p.cells = append(p.cells, map[string]bool{})
	body := p.parseSuite()
	cells := p.cells[len(p.cells)-1]
	p.cells = p.cells[:len(p.cells)-1]
	p.nonlocalToCells()
	p.checkGlobals(body)
	var globals []string
	for _, g := range p.globals {
		if g.kw == "global" {
			globals = append(globals, g.names...)
		}
	}
	if len(cells) > 0 {
		body = cellBody(defpos, params, body, cells)
	}
	if p.genAcc != "" {
		body = p.lowerGenerator(defpos, p.genAcc, body)
	}
	p.globals, p.genAcc = saved, savedGen
	p.inDef--
	var enter []Stmt
	if !p.opts.NativeDepth {
		enter = []Stmt{&ExprStmt{X: call("_py_enter", defpos)}}
	}
	// A docstring stays the first statement (Starlark's Function.Doc reads it).
	var doc []Stmt
	if len(body) > 0 {
		if e, ok := body[0].(*ExprStmt); ok {
			if lit, ok := e.X.(*Literal); ok && lit.Token == STRING {
				doc, body = body[:1], body[1:]
			}
		}
	}
	return &DefStmt{
		Def:    defpos,
		Name:   id,
		Lparen: lparen,
		Params: params,
		Rparen: rparen,
		Body:   append(append(doc[:len(doc):len(doc)], enter...), body...),

		Globals: globals,
	}
}

type globalDecl struct {
	kw    string
	pos   Position
	names []string
}

// checkGlobals reports a nonlocal name that the function body assigns
// when it is not kept in a cell: Starlark functions cannot rebind
// enclosing variables. (Global names go to DefStmt.Globals.)
// nonlocalToCells moves the nonlocal declarations of the def being parsed
// to the enclosing def's cells (see cellBody), so they are not reported.
func (p *parser) nonlocalToCells() {
	if len(p.cells) == 0 || !p.opts.Nonlocal {
		return // nonlocal in a top-level def: reported by checkGlobals
	}
	kept := p.globals[:0]
	for _, g := range p.globals {
		if g.kw != "nonlocal" {
			kept = append(kept, g)
			continue
		}
		for _, n := range g.names {
			p.cells[len(p.cells)-1][n] = true
		}
	}
	p.globals = kept
}

func (p *parser) checkGlobals(body []Stmt) {
	if len(p.globals) == 0 {
		return
	}
	declared := map[string]globalDecl{}
	for _, g := range p.globals {
		if g.kw == "global" {
			continue // the def's Globals: its assignments rebind the module global
		}
		for _, n := range g.names {
			declared[n] = g
		}
	}
	var bad *globalDecl
	var badName string
	var check func(e Expr)
	check = func(e Expr) {
		switch e := e.(type) {
		case *Ident:
			if g, ok := declared[e.Name]; ok && bad == nil {
				bad, badName = &g, e.Name
			}
		case *ParenExpr:
			check(e.X)
		case *TupleExpr:
			for _, x := range e.List {
				check(x)
			}
		case *ListExpr:
			for _, x := range e.List {
				check(x)
			}
		}
	}
	syntax.Walk(&File{Stmts: body}, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *DefStmt:
			return false
		case *AssignStmt:
			check(n.LHS)
		case *ForStmt:
			check(n.Vars)
		}
		return true
	})
	if bad != nil {
		p.unsupported(
			bad.pos,
			"assigning to a %s variable (%s) inside a function is not supported here: return the new value (total = add(total, x)), or keep shared state in a dict or list (state = {'total': 0}; state['total'] += x)",
			bad.kw,
			badName,
		)
	}
}

func (p *parser) parseIfStmt() []Stmt {
	ifpos := p.nextToken() // consume IF
	pre, cond := p.lowerWalrus(p.parseTest())
	p.consume(COLON)
	body := p.parseSuite()
	ifStmt := &IfStmt{If: ifpos, Cond: cond, True: body}
	tail := ifStmt
	for p.tok == ELIF {
		elifpos := p.nextToken() // consume ELIF
		epre, cond := p.lowerWalrus(p.parseTest())
		p.consume(COLON)
		body := p.parseSuite()
		elif := &IfStmt{If: elifpos, Cond: cond, True: body}
		tail.ElsePos = elifpos
		tail.False = append(epre, elif)
		tail = elif
	}
	if p.tok == ELSE {
		tail.ElsePos = p.nextToken() // consume ELSE
		p.consume(COLON)
		tail.False = p.parseSuite()
	}
	return append(pre, ifStmt)
}

func (p *parser) parseForStmt() []Stmt {
	forpos := p.nextToken() // consume FOR
	vars := p.parseForLoopVariables()
	p.consume(IN)
	x := p.fixStars(p.parseExpr())
	p.consume(COLON)
	body := p.parseSuite()
	if hasStarTarget(vars) {
		// for a, *b in xs: -> for _py_tN in xs: a, b = _py_unpack(_py_tN, 1, 0)
		t := p.newTemp()
		body = append(p.assign(vars, ident(t, forpos)), body...)
		vars = ident(t, forpos)
	}
	loop := &ForStmt{For: forpos, Vars: vars, X: p.loopIter(x), Body: body}
	if p.tok == ELSE {
		p.nextToken()
		p.consume(COLON)
		elseBody := p.parseSuite()
		flag := p.newTemp()
		loop.Body = replaceBreaks(loop.Body, flag)
		return p.loopElse(forpos, flag, loop, elseBody)
	}
	return []Stmt{loop}
}

func (p *parser) parseWhileStmt() []Stmt {
	whilepos := p.nextToken() // consume WHILE
	pre, cond := p.lowerWalrus(p.parseTest())
	p.consume(COLON)
	body := p.parseSuite()
	loop := &WhileStmt{While: whilepos, Cond: cond, Body: body}
	if len(pre) > 0 {
		// while (x := f()) ...: -> while True: x = f(); if not cond: break; ...
		brk := &IfStmt{If: whilepos, Cond: &UnaryExpr{OpPos: whilepos, Op: NOT, X: paren(cond)},
			True: []Stmt{&BranchStmt{Token: BREAK, TokenPos: whilepos}}}
		loop.Cond = ident("True", whilepos)
		loop.Body = append(append(pre, brk), body...)
	}
	if p.tok == ELSE {
		p.nextToken()
		p.consume(COLON)
		elseBody := p.parseSuite()
		if len(pre) > 0 {
			p.unsupported(whilepos, "while/else with an assignment expression in the condition is not supported here")
		}
		flag := p.newTemp()
		loop.Body = replaceBreaks(loop.Body, flag)
		return p.loopElse(whilepos, flag, loop, elseBody)
	}
	return []Stmt{loop}
}

// loopElse lowers `loop ... else: E` into a flag that a break clears.
func (p *parser) loopElse(pos Position, flag string, loop Stmt, elseBody []Stmt) []Stmt {
	set := &AssignStmt{OpPos: pos, Op: EQ, LHS: ident(flag, pos), RHS: ident("True", pos)}
	check := &IfStmt{If: pos, Cond: ident(flag, pos), True: elseBody}
	return []Stmt{set, loop, check}
}

// replaceBreaks precedes each break of the loop (not of nested loops)
// with `flag = False`.
func replaceBreaks(stmts []Stmt, flag string) []Stmt {
	var out []Stmt
	for _, s := range stmts {
		switch s := s.(type) {
		case *BranchStmt:
			if s.Token == BREAK {
				out = append(out, &AssignStmt{OpPos: s.TokenPos, Op: EQ, LHS: ident(flag, s.TokenPos), RHS: ident("False", s.TokenPos)})
			}
		case *IfStmt:
			s.True = replaceBreaks(s.True, flag)
			if s.False != nil {
				s.False = replaceBreaks(s.False, flag)
			}
		}
		out = append(out, s)
	}
	return out
}

// iterOf wraps the iterable of a for loop or comprehension in
// _py_iter(x) (Python strings are iterable); range(...) needs nothing.
func iterOf(x Expr) Expr {
	if c, ok := x.(*CallExpr); ok {
		if id, ok := c.Fn.(*Ident); ok && id.Name == "range" {
			return x
		}
	}
	start, _ := x.Span()
	return call("_py_iter", start, x)
}

// loopIter is the iterable of a for loop or comprehension clause: x
// itself with Options.NativeOps (the runtime's interpreter iterates it as
// Python does), else iterOf(x).
func (p *parser) loopIter(x Expr) Expr {
	if p.opts.NativeOps {
		return x
	}
	return iterOf(x)
}

// parseForLoopVariables parses the targets of a for loop or clause.
func (p *parser) parseForLoopVariables() Expr {
	v := p.parseLoopVar()
	if p.tok != COMMA {
		p.checkTarget(v)
		return v
	}
	list := []Expr{v}
	for p.tok == COMMA {
		p.nextToken()
		if p.tok == IN {
			break
		}
		list = append(list, p.parseLoopVar())
	}
	t := &TupleExpr{List: list}
	p.checkTarget(t)
	return t
}

func (p *parser) parseLoopVar() Expr {
	if p.tok == STAR {
		pos := p.nextToken()
		return &UnaryExpr{OpPos: pos, Op: STAR, X: p.parsePrimaryWithSuffix()}
	}
	return p.parsePrimaryWithSuffix()
}

// hasStarTarget reports whether a loop target has a starred element.
func hasStarTarget(e Expr) bool {
	list, _, ok := starTargets(e)
	if !ok {
		u, isStar := e.(*UnaryExpr)
		return isStar && u.Op == STAR
	}
	for _, x := range list {
		if u, ok := x.(*UnaryExpr); ok && u.Op == STAR {
			return true
		}
	}
	return false
}

// parseSimpleStmt parses simple statements separated by semicolons up
// to the end of the line.
func (p *parser) parseSimpleStmt(stmts []Stmt) []Stmt {
	for {
		stmts = append(stmts, p.parseSmallStmt()...)
		if p.tok != SEMI {
			break
		}
		p.nextToken() // consume SEMI
		if p.tok == NEWLINE || p.tok == EOF {
			break
		}
	}
	if p.tok != EOF {
		p.consume(NEWLINE)
	}
	return stmts
}

func (p *parser) parseSmallStmt() []Stmt {
	pos := p.tokval.pos
	switch p.tok {
	case RETURN:
		p.nextToken()
		var result Expr
		var pre []Stmt
		if p.tok != EOF && p.tok != NEWLINE && p.tok != SEMI {
			pre, result = p.lowerWalrus(p.fixStars(p.parseExpr()))
		}
		return append(pre, &ReturnStmt{Return: pos, Result: result})

	case BREAK, CONTINUE, PASS:
		tok := p.tok
		p.nextToken()
		return []Stmt{&BranchStmt{Token: tok, TokenPos: pos}}

	case IMPORT:
		return p.parseImport()
	case FROM:
		return p.parseFromImport()
	case RAISE:
		return p.parseRaise()
	case ASSERT:
		return p.parseAssert()
	case DEL:
		return p.parseDel()
	case GLOBAL, NONLOCAL:
		kw := p.tokval.raw
		p.nextToken()
		names := []string{p.parseIdent().Name}
		for p.tok == COMMA {
			p.nextToken()
			names = append(names, p.parseIdent().Name)
		}
		if p.inDef == 0 && kw == "global" {
			return nil // a no-op at module level
		}
		// A global name goes to the def's Globals (assignments rebind the
		// module global); an assignment to a nonlocal name that is not kept
		// in a cell is reported by parseDefStmt.
		p.globals = append(p.globals, globalDecl{kw: kw, pos: pos, names: names})
		return nil
	case YIELD:
		return []Stmt{p.parseYield()}
	case AWAIT, ASYNC:
		p.unsupported(pos, "async/await is not supported here")
	}

	x := p.parseExpr()
	if id, ok := x.(*Ident); ok && (id.Name == "print" || id.Name == "exec") {
		switch p.tok {
		case STRING, FSTRING, IDENT, INT, FLOAT:
			p.in.errorf(id.NamePos, "Missing parentheses in call to '%s'. Did you mean %s(...)?", id.Name, id.Name)
		}
	}
	switch p.tok {
	case COLON:
		// annotated assignment: x: T = v
		p.nextToken()
		p.parseTest()
		if c := p.class; c != nil && p.block == c.level {
			if id, ok := x.(*Ident); ok {
				c.annotations = append(c.annotations, id.Name)
			}
		}
		if p.tok != EQ {
			return nil
		}
		fallthrough
	case EQ:
		targets := []Expr{x}
		var rhs Expr
		for p.tok == EQ {
			p.nextToken()
			if p.tok == YIELD {
				p.unsupported(p.tokval.pos, "generators (yield) are not supported here: build and return a list")
			}
			rhs = p.parseExpr()
			if p.tok == EQ {
				targets = append(targets, rhs)
			}
		}
		pre, rhs := p.lowerWalrus(p.fixStars(rhs))
		return append(pre, p.assignMany(targets, rhs)...)

	case PLUS_EQ,
		MINUS_EQ,
		STAR_EQ,
		SLASH_EQ,
		SLASHSLASH_EQ,
		PERCENT_EQ,
		AMP_EQ,
		PIPE_EQ,
		CIRCUMFLEX_EQ,
		LTLT_EQ,
		GTGT_EQ,
		STARSTAR_EQ,
		AT_EQ:
		op := p.tok
		opPos := p.nextToken()
		pre, rhs := p.lowerWalrus(p.fixStars(p.parseExpr()))
		if arithOp(op) {
			rhs = boolToInt(rhs)
		}
		switch x.(type) {
		case *Ident, *IndexExpr, *DotExpr:
		default:
			start, _ := x.Span()
			p.in.errorf(start, "'%s' is an illegal expression for augmented assignment", exprKind(x))
		}
		switch op {
		case STARSTAR_EQ:
			return append(pre, &AssignStmt{OpPos: opPos, Op: EQ, LHS: x, RHS: call("_py_pow", opPos, x, rhs)})
		case PERCENT_EQ:
			if p.opts.NativeOps {
				break
			}
			return append(pre, &AssignStmt{OpPos: opPos, Op: EQ, LHS: x, RHS: call("_py_mod", opPos, x, rhs)})
		case STAR_EQ:
			if p.opts.NativeOps {
				break
			}
			return append(pre, &AssignStmt{OpPos: opPos, Op: EQ, LHS: x, RHS: call("_py_mul", opPos, x, rhs)})
		case AT_EQ:
			p.unsupported(opPos, "the @ operator is not supported here")
		}
		return append(pre, &AssignStmt{OpPos: opPos, Op: op, LHS: x, RHS: rhs})
	}

	// Expression statement (e.g. function call, doc string).
	pre, x := p.lowerWalrus(p.fixStars(x))
	return append(pre, &ExprStmt{X: x})
}

// assignMany lowers `t1 = t2 = ... = v`.
func (p *parser) assignMany(targets []Expr, v Expr) []Stmt {
	if len(targets) == 1 {
		return p.assign(targets[0], v)
	}
	var stmts []Stmt
	src := v
	simple := false
	switch v := v.(type) {
	case *Ident:
		simple = true
	case *Literal:
		simple = v.Token == STRING || v.Token == BYTES || v.Token == INT || v.Token == FLOAT
	}
	if !simple {
		start, _ := v.Span()
		t := p.newTemp()
		stmts = append(stmts, &AssignStmt{OpPos: start, Op: EQ, LHS: ident(t, start), RHS: v})
		src = ident(t, start)
	}
	for _, target := range targets {
		stmts = append(stmts, p.assign(target, src)...)
	}
	return stmts
}

// assign lowers `target = v`, including star-unpacking.
func (p *parser) assign(target, v Expr) []Stmt {
	start, _ := target.Span()
	if sl, ok := target.(*SliceExpr); ok {
		// xs[a:b] = v -> _py_setslice(xs, a, b, step, v)
		none := func(x Expr) Expr {
			if x == nil {
				return ident("None", sl.Lbrack)
			}
			return x
		}
		return []Stmt{&ExprStmt{X: call("_py_setslice", sl.Lbrack, sl.X, none(sl.Lo), none(sl.Hi), none(sl.Step), v)}}
	}
	p.checkTarget(target)
	if list, paren, ok := starTargets(target); ok {
		star := -1
		elems := make([]Expr, len(list))
		for i, e := range list {
			elems[i] = e
			if u, ok := e.(*UnaryExpr); ok && u.Op == STAR {
				if star >= 0 {
					p.in.errorf(u.OpPos, "multiple starred expressions in assignment")
				}
				star = i
				elems[i] = u.X
			}
		}
		if star >= 0 {
			before := len(list) - 1 - (len(list) - 1 - star)
			after := len(list) - 1 - star
			rhs := call("_py_unpack", start, v, intLit(int64(before), start), intLit(int64(after), start))
			lhs := &TupleExpr{Lparen: paren, List: elems, Rparen: paren}
			return []Stmt{&AssignStmt{OpPos: start, Op: EQ, LHS: lhs, RHS: rhs}}
		}
	}
	return []Stmt{&AssignStmt{OpPos: start, Op: EQ, LHS: target, RHS: v}}
}

// starTargets returns the elements of a tuple or list target.
func starTargets(e Expr) ([]Expr, Position, bool) {
	switch e := e.(type) {
	case *ParenExpr:
		if t, ok := e.X.(*TupleExpr); ok {
			return t.List, e.Lparen, true
		}
	case *TupleExpr:
		return e.List, e.Lparen, true
	case *ListExpr:
		return e.List, e.Lbrack, true
	}
	return nil, Position{}, false
}

// checkTarget reports targets that cannot be assigned.
func (p *parser) checkTarget(e Expr) {
	switch e := e.(type) {
	case *Ident:
		if e.Name == "None" || e.Name == "True" || e.Name == "False" {
			p.in.errorf(e.NamePos, "cannot assign to %s", e.Name)
		}
	case *IndexExpr, *DotExpr:
	case *SliceExpr:
		p.unsupported(e.Lbrack, "slice assignment is only supported as a single target (xs[i:j] = values)")
	case *ParenExpr:
		p.checkTarget(e.X)
	case *TupleExpr:
		for _, x := range e.List {
			p.checkTarget(x)
		}
	case *ListExpr:
		for _, x := range e.List {
			p.checkTarget(x)
		}
	case *UnaryExpr:
		if e.Op == STAR && e.X != nil {
			p.checkTarget(e.X)
			return
		}
		p.in.errorf(e.OpPos, "cannot assign to expression")
	default:
		start, _ := e.Span()
		p.in.errorf(start, "cannot assign to %s", exprKind(e))
	}
}

func exprKind(e Expr) string {
	switch e := e.(type) {
	case *CallExpr:
		return "function call"
	case *Literal:
		return "literal"
	case *BinaryExpr:
		return "expression"
	case *Comprehension:
		return "comprehension"
	case *LambdaExpr:
		return "lambda"
	case *CondExpr:
		return "conditional expression"
	case *ParenExpr:
		return exprKind(e.X)
	}
	return "expression"
}

// import a.b [as c], d
func (p *parser) parseImport() []Stmt {
	p.nextToken() // consume IMPORT
	var stmts []Stmt
	for {
		pos := p.tokval.pos
		name, first := p.parseDottedName()
		bind := first
		if p.tok == AS {
			p.nextToken()
			bind = p.parseIdent().Name
		}
		if !typingOnly[name] {
			rhs := call("_py_import", pos, strLit(name, pos))
			if bind == first && name != first {
				// import a.b binds a (the runtime imports a.b, then returns a)
				rhs = call("_py_import", pos, strLit(name, pos), strLit("", pos), strLit(first, pos))
			}
			stmts = append(stmts, &AssignStmt{OpPos: pos, Op: EQ, LHS: ident(bind, pos), RHS: rhs})
		}
		if p.tok != COMMA {
			return stmts
		}
		p.nextToken()
	}
}

func (p *parser) parseDottedName() (name, first string) {
	if p.tok == DOT || p.tok == ELLIPSIS {
		p.unsupported(p.tokval.pos, "relative imports are not supported here")
	}
	first = p.parseIdent().Name
	name = first
	for p.tok == DOT {
		p.nextToken()
		name += "." + p.parseIdent().Name
	}
	return name, first
}

// typingOnly lists modules whose names only matter in type annotations,
// which Compile drops: importing them is a no-op.
var typingOnly = map[string]bool{"__future__": true, "typing": true, "typing_extensions": true}

// typingRuntime lists the names of typing that code uses at run time (as
// a base class, a function): importing them from typing binds them.
var typingRuntime = map[string]bool{"NamedTuple": true, "TypedDict": true, "cast": true}

// from m import a [as b], ... | from m import (a, b) | from m import *
func (p *parser) parseFromImport() []Stmt {
	pos := p.nextToken() // consume FROM
	mod, _ := p.parseDottedName()
	p.consume(IMPORT)
	if p.tok == STAR {
		spos := p.nextToken()
		names, ok := p.opts.StarImports[mod]
		if !ok {
			p.unsupported(
				spos,
				"`from %s import *` is not supported here: use `import %s` and `%s.name`, or import the names you need",
				mod,
				mod,
				mod,
			)
		}
		var stmts []Stmt
		for _, n := range names {
			stmts = append(
				stmts,
				&AssignStmt{OpPos: pos, Op: EQ, LHS: ident(n, pos), RHS: call("_py_import", pos, strLit(mod, pos), strLit(n, pos))},
			)
		}
		return stmts
	}
	parens := p.tok == LPAREN
	if parens {
		p.nextToken()
	}
	var stmts []Stmt
	for {
		npos := p.tokval.pos
		name := p.parseIdent().Name
		bind := name
		if p.tok == AS {
			p.nextToken()
			bind = p.parseIdent().Name
		}
		if !typingOnly[mod] || mod != "__future__" && typingRuntime[name] {
			stmts = append(
				stmts,
				&AssignStmt{
					OpPos: npos,
					Op:    EQ,
					LHS:   ident(bind, npos),
					RHS:   call("_py_import", npos, strLit(mod, npos), strLit(name, npos)),
				},
			)
		}
		if p.tok != COMMA {
			break
		}
		p.nextToken()
		if parens && p.tok == RPAREN {
			break
		}
	}
	if parens {
		p.consume(RPAREN)
	}
	return stmts
}

// raise | raise E | raise E from C
func (p *parser) parseRaise() []Stmt {
	pos := p.nextToken() // consume RAISE
	var args []Expr
	if p.tok != NEWLINE && p.tok != EOF && p.tok != SEMI {
		args = append(args, p.parseTest())
		if p.tok == FROM {
			p.nextToken()
			args = append(args, p.parseTest())
		}
	}
	return []Stmt{&ExprStmt{X: call("_py_raise", pos, args...)}}
}

// assert c[, msg] -> if not c: _py_assert_fail(msg)
func (p *parser) parseAssert() []Stmt {
	pos := p.nextToken() // consume ASSERT
	pre, cond := p.lowerWalrus(p.parseTest())
	var args []Expr
	if p.tok == COMMA {
		p.nextToken()
		args = append(args, p.parseTest())
	}
	fail := &ExprStmt{X: call("_py_assert_fail", pos, args...)}
	return append(pre, &IfStmt{If: pos, Cond: &UnaryExpr{OpPos: pos, Op: NOT, X: paren(cond)}, True: []Stmt{fail}})
}

// del x, d[k], xs[i:j]
func (p *parser) parseDel() []Stmt {
	p.nextToken() // consume DEL
	x := p.parseExpr()
	var stmts []Stmt
	var del func(e Expr)
	del = func(e Expr) {
		switch e := e.(type) {
		case *Ident:
			stmts = append(stmts, &AssignStmt{OpPos: e.NamePos, Op: EQ, LHS: e, RHS: ident("None", e.NamePos)})
		case *IndexExpr:
			stmts = append(stmts, &ExprStmt{X: call("_py_del", e.Lbrack, e.X, e.Y)})
		case *SliceExpr:
			none := func(x Expr) Expr {
				if x == nil {
					return ident("None", e.Lbrack)
				}
				return x
			}
			stmts = append(stmts, &ExprStmt{X: call("_py_delslice", e.Lbrack, e.X, none(e.Lo), none(e.Hi), none(e.Step))})
		case *ParenExpr:
			del(e.X)
		case *TupleExpr:
			for _, x := range e.List {
				del(x)
			}
		case *ListExpr:
			for _, x := range e.List {
				del(x)
			}
		case *DotExpr:
			if !p.opts.Classes {
				p.unsupported(e.Dot, "del of an attribute is not supported here")
			}
			stmts = append(stmts, &ExprStmt{X: call("_py_delattr", e.Dot, e.X, strLit(e.Name.Name, e.NamePos))})
		default:
			start, _ := e.Span()
			p.in.errorf(start, "cannot delete %s", exprKind(e))
		}
	}
	del(x)
	return stmts
}

func (p *parser) parseIdent() *Ident {
	if p.tok != IDENT {
		if name := tokStr(p.tok); p.tok > WHILE && isKeywordName(name) {
			p.in.errorf(p.tokval.pos, "invalid syntax: %q is a keyword", name)
		}
		p.in.errorf(p.tokval.pos, "invalid syntax: got %s, want identifier", tokName(p.tok))
	}
	id := &Ident{NamePos: p.tokval.pos, Name: p.tokval.raw}
	p.nextToken()
	return id
}

func isKeywordName(s string) bool {
	_, ok := keywordToken[s]
	return ok
}

func (p *parser) consume(t Token) Position {
	if p.tok != t {
		switch {
		case t == INDENT:
			p.in.errorf(p.tokval.pos, "expected an indented block")
		case t == NEWLINE && p.tok == EQ:
			p.in.errorf(p.tokval.pos, "invalid syntax: cannot assign here (use == to compare)")
		}
		p.in.errorf(p.tokval.pos, "invalid syntax: got %s, want %s", tokName(p.tok), tokName(t))
	}
	return p.nextToken()
}

// parseParams parses a def or lambda parameter list (annotations and
// the positional-only marker / are dropped).
func (p *parser) parseParams(isDef bool) []Expr {
	var params []Expr
	for p.tok != RPAREN && p.tok != COLON && p.tok != EOF {
		if len(params) > 0 {
			p.consume(COMMA)
		}
		if p.tok == RPAREN || p.tok == COLON {
			break
		}
		if p.tok == SLASH {
			p.nextToken()
			if len(params) == 0 {
				p.in.errorf(p.tokval.pos, "at least one argument must precede /")
			}
			// Keep a placeholder so the comma logic above works.
			params = append(params, nil)
			continue
		}
		if p.tok == STAR || p.tok == STARSTAR {
			op := p.tok
			pos := p.nextToken()
			var x Expr
			if op == STARSTAR || p.tok == IDENT {
				x = p.parseIdent()
				if isDef && p.tok == COLON {
					p.nextToken()
					p.parseTest()
				}
			}
			params = append(params, &UnaryExpr{OpPos: pos, Op: op, X: x})
			continue
		}
		id := p.parseIdent()
		if isDef && p.tok == COLON {
			p.nextToken()
			p.parseTest()
		}
		if p.tok == EQ {
			eq := p.nextToken()
			dflt := p.parseTest()
			params = append(params, &BinaryExpr{X: id, OpPos: eq, Op: EQ, Y: dflt})
			continue
		}
		params = append(params, id)
	}
	out := params[:0]
	for _, x := range params {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}
