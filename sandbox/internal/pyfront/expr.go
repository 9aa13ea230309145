// Copyright 2017 The Bazel Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file (LICENSE.starlark).
// Modified for pyfront: parses Python and lowers Python-only constructs
// while building upstream go.starlark.net/syntax nodes.

package pyfront

// Expression parsing.

import (
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// parseExpr parses a comma-separated list of tests (a tuple if there
// is a comma). Elements may be starred; fixStars or assign lowers them.
func (p *parser) parseExpr() Expr {
	x := p.parseTestOrStar()
	if p.tok != COMMA {
		return x
	}
	exprs := p.parseExprs([]Expr{x})
	return &TupleExpr{List: exprs}
}

// parseExprs parses a comma-separated list of expressions, starting with the comma.
func (p *parser) parseExprs(exprs []Expr) []Expr {
	for p.tok == COMMA {
		p.nextToken()
		if terminatesExprList(p.tok) {
			break
		}
		exprs = append(exprs, p.parseTestOrStar())
	}
	return exprs
}

func (p *parser) parseTestOrStar() Expr {
	if p.tok == STAR {
		pos := p.nextToken()
		return &UnaryExpr{OpPos: pos, Op: STAR, X: p.parseTestPrec(cmpLevel + 1)}
	}
	return p.parseTest()
}

// parseTest parses a 'test': a single-component expression, including
// conditional expressions, lambdas and (marked) assignment expressions.
func (p *parser) parseTest() Expr {
	p.enter()
	defer p.leave()

	if p.tok == LAMBDA {
		return p.parseLambda(true)
	}
	if p.tok == YIELD {
		p.unsupported(p.tokval.pos, "generators (yield) are not supported here: build and return a list")
	}

	x := p.parseTestPrec(0)

	if p.tok == IF {
		ifpos := p.nextToken()
		cond := p.parseTestPrec(0)
		if p.tok != ELSE {
			p.in.error(ifpos, "invalid syntax: conditional expression without else clause")
		}
		elsepos := p.nextToken()
		else_ := p.parseTest()
		return &CondExpr{If: ifpos, Cond: cond, True: x, ElsePos: elsepos, False: else_}
	}

	if p.tok == COLONEQ {
		pos := p.nextToken()
		if _, ok := x.(*Ident); !ok {
			p.in.errorf(pos, "cannot use assignment expressions with %s", exprKind(x))
		}
		y := p.parseTest()
		return &BinaryExpr{X: x, OpPos: pos, Op: COLONEQ, Y: y}
	}
	return x
}

// parseTestNoCond parses a test without a trailing 'if cond else x'.
func (p *parser) parseTestNoCond() Expr {
	if p.tok == LAMBDA {
		return p.parseLambda(false)
	}
	return p.parseTestPrec(0)
}

func (p *parser) parseLambda(allowCond bool) Expr {
	p.enter()
	defer p.leave()

	lambda := p.nextToken()
	var params []Expr
	if p.tok != COLON {
		params = p.parseParams(false)
	}
	p.consume(COLON)

	var body Expr
	if allowCond {
		body = p.parseTest()
	} else {
		body = p.parseTestNoCond()
	}
	return &LambdaExpr{Lambda: lambda, Params: params, Body: body}
}

func (p *parser) parseTestPrec(prec int) Expr {
	p.enter()
	defer p.leave()

	if prec >= len(preclevels) {
		return p.parseFactor()
	}

	// expr = NOT expr
	if p.tok == NOT && prec == notLevel {
		pos := p.nextToken()
		x := p.parseTestPrec(prec)
		return &UnaryExpr{OpPos: pos, Op: NOT, X: x}
	}
	if prec == cmpLevel {
		return p.parseComparison()
	}
	return p.parseBinopExpr(prec)
}

// parseBinopExpr parses left-associative binary operators by precedence climbing.
func (p *parser) parseBinopExpr(prec int) Expr {
	x := p.parseTestPrec(prec + 1)
	for {
		opprec := int(precedence[p.tok])
		if opprec < prec || p.tok == NOT {
			return x
		}
		op := p.tok
		pos := p.nextToken()
		y := p.parseTestPrec(opprec + 1)
		x = p.binary(pos, op, x, y)
	}
}

func (p *parser) binary(pos Position, op Token, x, y Expr) Expr {
	if arithOp(op) {
		x, y = boolToInt(x), boolToInt(y)
	}
	switch op {
	case PERCENT:
		if p.opts.NativeOps {
			break
		}
		return call("_py_mod", pos, x, y)
	case STAR:
		if p.opts.NativeOps {
			break
		}
		return call("_py_mul", pos, x, y)
	case AT:
		p.unsupported(pos, "the @ operator is not supported here")
	}
	return &BinaryExpr{OpPos: pos, Op: op, X: x, Y: y}
}

// parseComparison parses comparisons, including chains (a < b <= c),
// 'is', 'is not' and 'not in'.
func (p *parser) parseComparison() Expr {
	x := p.parseTestPrec(cmpLevel + 1)
	operands := []Expr{x}
	var ops []Token
	var poss []Position
	for {
		op := p.tok
		switch op {
		case NOT:
			p.nextToken()
			if p.tok != IN {
				p.in.errorf(p.tokval.pos, "invalid syntax: got %s after 'not', want 'in'", tokName(p.tok))
			}
			op = NOT_IN
		case IS:
			p.nextToken()
			if p.tok == NOT {
				op = IS_NOT
			} else {
				op = IS
				poss = append(poss, p.tokval.pos)
				ops = append(ops, op)
				operands = append(operands, p.parseTestPrec(cmpLevel+1))
				continue
			}
		}
		if int(precedence[op]) != cmpLevel {
			break
		}
		pos := p.nextToken()
		poss = append(poss, pos)
		ops = append(ops, op)
		operands = append(operands, p.parseTestPrec(cmpLevel+1))
	}
	if len(ops) == 0 {
		return x
	}
	if len(ops) == 1 {
		return compare(poss[0], ops[0], operands[0], operands[1])
	}
	pure := true
	for _, e := range operands[1 : len(operands)-1] {
		if !isPure(e) {
			pure = false
		}
	}
	if pure {
		// (a < b) and (b < c)
		var out Expr
		for i, op := range ops {
			c := compare(poss[i], op, operands[i], operands[i+1])
			if out == nil {
				out = c
			} else {
				out = &BinaryExpr{OpPos: poss[i], Op: AND, X: out, Y: c}
			}
		}
		return out
	}
	// _py_chain(a, "<", lambda: b, "<=", lambda: c)
	args := []Expr{operands[0]}
	for i, op := range ops {
		e := operands[i+1]
		start, _ := e.Span()
		args = append(args, strLit(tokStr(op), poss[i]), &LambdaExpr{Lambda: start, Body: e})
	}
	return call("_py_chain", poss[0], args...)
}

func compare(pos Position, op Token, x, y Expr) Expr {
	switch op {
	case IS:
		return call("_py_is", pos, x, y)
	case IS_NOT:
		return &UnaryExpr{OpPos: pos, Op: NOT, X: call("_py_is", pos, x, y)}
	case EQL, NEQ:
		if !eqSafe(x) && !eqSafe(y) || boolish(x) || boolish(y) {
			// Starlark's == is False for mixed types without asking either
			// operand, so a deferred result (llm_query(...) == "yes") or a
			// bool (True == 1) would compare wrong: the runtime decides.
			eq := call("_py_eq", pos, x, y)
			if op == NEQ {
				return &UnaryExpr{OpPos: pos, Op: NOT, X: eq}
			}
			return eq
		}
	}
	return &BinaryExpr{OpPos: pos, Op: op, X: x, Y: y}
}

// eqSafe reports whether an == operand makes Starlark's own == agree with
// Python's whatever the other operand is (unless that one is a bool): a
// number literal, None, or a call of len/int/float/str/type.
func eqSafe(e Expr) bool {
	switch e := e.(type) {
	case *ParenExpr:
		return eqSafe(e.X)
	case *Literal:
		return e.Token == INT || e.Token == FLOAT
	case *Ident:
		return e.Name == "None"
	case *UnaryExpr:
		_, lit := e.X.(*Literal)
		return e.Op == MINUS && lit
	case *CallExpr:
		if fn, ok := e.Fn.(*Ident); ok {
			switch fn.Name {
			case "len", "int", "float", "str", "type":
				return true
			}
		}
	}
	return false
}

// isPure reports whether evaluating e twice is harmless (no calls).
func isPure(e Expr) bool {
	switch e := e.(type) {
	case *Ident, *Literal:
		return true
	case *DotExpr:
		return isPure(e.X)
	case *IndexExpr:
		return isPure(e.X) && isPure(e.Y)
	case *ParenExpr:
		return isPure(e.X)
	case *UnaryExpr:
		return e.X != nil && isPure(e.X)
	case *BinaryExpr:
		return isPure(e.X) && isPure(e.Y)
	}
	return false
}

const (
	notLevel = 2
	cmpLevel = 3
)

// precedence maps each binary operator to its precedence, or -1.
var precedence [maxToken]int8

// preclevels groups operators of equal precedence, lowest first.
// Unary operators and ** are handled by parseFactor.
var preclevels = [...][]Token{
	{OR},  // or
	{AND}, // and
	{},    // not (unary)
	{EQL, NEQ, LT, GT, LE, GE, IN, NOT_IN, IS, IS_NOT}, // comparisons
	{PIPE},                                 // |
	{CIRCUMFLEX},                           // ^
	{AMP},                                  // &
	{LTLT, GTGT},                           // << >>
	{MINUS, PLUS},                          // + -
	{STAR, PERCENT, SLASH, SLASHSLASH, AT}, // * % / // @
}

func init() {
	for i := range precedence {
		precedence[i] = -1
	}
	for level, tokens := range preclevels {
		for _, tok := range tokens {
			precedence[tok] = int8(level)
		}
	}
}

// factor = ('+'|'-'|'~') factor | power ; power = primary ['**' factor]
func (p *parser) parseFactor() Expr {
	p.enter()
	defer p.leave()
	switch p.tok {
	case MINUS, PLUS, TILDE:
		tok := p.tok
		pos := p.nextToken()
		x := boolToInt(p.parseFactor())
		return &UnaryExpr{OpPos: pos, Op: tok, X: x}
	case AWAIT:
		p.unsupported(p.tokval.pos, "async/await is not supported here")
	}
	x := p.parsePrimaryWithSuffix()
	if p.tok == STARSTAR {
		pos := p.nextToken()
		y := p.parseFactor()
		return call("_py_pow", pos, boolToInt(x), boolToInt(y))
	}
	return x
}

// methods lists the method names whose calls go through _py_method (see RUNTIME.md).
var methods = map[string]bool{}

// positionMethods are str methods whose calls go through _py_method only
// when they pass a start position (the runtime converts code points).
var positionMethods = map[string]bool{"startswith": true, "endswith": true}

func init() {
	for _, m := range strings.Fields(`format format_map zfill ljust rjust center casefold swapcase
		isnumeric isdecimal isidentifier isprintable isascii expandtabs translate maketrans encode
		split rsplit splitlines count join index rindex find rfind remove sort copy reverse fromkeys items keys values decode hex
		add discard union intersection difference symmetric_difference issubset issuperset
		isdisjoint intersection_update difference_update replace bit_length bit_count is_integer conjugate`) {
		methods[m] = true
	}
}

// MethodNames returns the method names whose calls Compile routes through _py_method.
func MethodNames() []string {
	out := make([]string, 0, len(methods))
	for m := range methods {
		out = append(out, m)
	}
	return out
}

// dunderReads are the attribute reads routed through _py_dunder.
var dunderReads = map[string]bool{"__class__": true, "__name__": true, "__qualname__": true, "__doc__": true}

func (p *parser) parsePrimaryWithSuffix() Expr {
	x := p.parsePrimary()
	if id, ok := x.(*Ident); ok && id.Name == "super" && p.tok == LPAREN && p.superSelf != "" {
		c := p.parseCallSuffix(id).(*CallExpr)
		if len(c.Args) == 0 {
			c.Fn = ident("_py_super", id.NamePos)
			c.Args = []Expr{ident(p.superClass, id.NamePos), ident(p.superSelf, id.NamePos)}
		}
		x = c
	}
	for {
		switch p.tok {
		case DOT:
			dot := p.nextToken()
			id := p.parseIdent()
			if p.tok == LPAREN && (methods[id.Name] || positionMethods[id.Name]) {
				c := p.parseCallSuffix(id).(*CallExpr)
				if comp := p.foldableJoin(id, c); comp != nil {
					// X.join(<comprehension>): the elements are joined as
					// they come, with no list (Options.FoldCalls).
					comp.Acc = call("_py_sink", id.NamePos, ident("_py_join", id.NamePos), x)
					x = call("_py_fold", c.Lparen, ident("_py_join", id.NamePos), c.Args[0])
					continue
				}
				if methods[id.Name] || len(c.Args) >= 2 {
					c.Fn = ident("_py_method", dot)
					c.Args = append([]Expr{x, strLit(id.Name, id.NamePos)}, c.Args...)
				} else {
					c.Fn = &DotExpr{Dot: dot, X: x, NamePos: id.NamePos, Name: id}
				}
				x = c
				continue
			}
			if dunderReads[id.Name] && p.tok != EQ && !isAugAssign(p.tok) {
				// Starlark functions and builtin values have no such
				// attributes: the runtime answers like Python.
				x = call("_py_dunder", dot, x, strLit(id.Name, id.NamePos))
				continue
			}
			x = &DotExpr{Dot: dot, X: x, NamePos: id.NamePos, Name: id}
		case LBRACK:
			x = p.parseSliceSuffix(x)
		case LPAREN:
			x = p.parseCallSuffix(x)
		default:
			return x
		}
	}
}

// slice_suffix = '[' expr? ':' expr?  ':' expr? ']'
func (p *parser) parseSliceSuffix(x Expr) Expr {
	lbrack := p.nextToken()
	var lo, hi, step Expr
	if p.tok != COLON {
		y := p.fixStars(p.parseExpr())
		if p.tok == RBRACK {
			rbrack := p.nextToken()
			return &IndexExpr{X: x, Lbrack: lbrack, Y: y, Rbrack: rbrack}
		}
		lo = y
	}
	if p.tok == COLON {
		p.nextToken()
		if p.tok != COLON && p.tok != RBRACK {
			hi = p.parseTest()
		}
	}
	if p.tok == COLON {
		p.nextToken()
		if p.tok != RBRACK {
			step = p.parseTest()
		}
	}
	if p.tok == COMMA {
		p.unsupported(p.tokval.pos, "multi-dimensional slicing is not supported here")
	}
	rbrack := p.consume(RBRACK)
	return &SliceExpr{X: x, Lbrack: lbrack, Lo: lo, Hi: hi, Step: step, Rbrack: rbrack}
}

// call_suffix = '(' arg_list? ')'
func (p *parser) parseCallSuffix(fn Expr) Expr {
	lparen := p.consume(LPAREN)
	var rparen Position
	var args []Expr
	if p.tok == RPAREN {
		rparen = p.nextToken()
	} else {
		args = p.parseArgs(lparen)
		rparen = p.consume(RPAREN)
	}
	if c, lazy := p.foldable(fn, lparen, args); c != nil {
		id := fn.(*Ident)
		if lazy {
			return p.lowerAnyAll(id, lparen, c)
		}
		c.Acc = call("_py_sink", id.NamePos, ident(id.Name, id.NamePos))
		return call("_py_fold", lparen, append([]Expr{fn}, args...)...)
	}
	return &CallExpr{Fn: fn, Lparen: lparen, Args: args, Rparen: rparen}
}

// lowerAnyAll lowers any or all (id) called at lparen with the generator
// expression c:
//
//	c' if _py_isany(any) else _py_fold(any, lambda _py_acc: c)
//
// c' is c run inline (syntax.Comprehension.Short: loops in the enclosing
// function that stop at the first deciding element, no lambda or call),
// for the builtin any; for a function of the user's named any, c runs
// inside _py_fold as before: a lambda whose comprehension appends to
// its parameter, _py_sink(any), and _py_fold calls any with the list.
// The span of c is recorded in Program.GenExprs for tracebacks.
func (p *parser) lowerAnyAll(id *Ident, lparen Position, c *Comprehension) Expr {
	slow := cloneExpr(c).(*Comprehension)
	slow.Acc = ident("_py_acc", c.Lbrack)
	fold := call("_py_fold", lparen, id, &LambdaExpr{Lambda: c.Lbrack, Params: []Expr{ident("_py_acc", c.Lbrack)}, Body: slow})
	c.Short = syntax.ShortAny
	if id.Name == "all" {
		c.Short = syntax.ShortAll
	}
	if p.prog != nil {
		p.prog.GenExprs = append(p.prog.GenExprs, GenExpr{Call: lparen, Start: c.Lbrack, End: c.Rbrack})
	}
	test := call("_py_is"+id.Name, lparen, ident(id.Name, id.NamePos))
	return &CondExpr{If: lparen, Cond: test, True: c, ElsePos: lparen, False: fold}
}

// foldable returns the comprehension that _py_fold can consume as it is
// produced, with Options.FoldCalls, and nil for any other call: the only
// argument of sum, min, max, list or sorted (sorted may have key=
// and reverse=) when a generator expression or a list comprehension; of
// set, dict and Counter only a generator expression (they can fail on an
// element, and a list comprehension's later elements must run first);
// of any and all a generator expression, lazy (Python stops evaluating
// it once the answer is known).
func (p *parser) foldable(fn Expr, lparen Position, args []Expr) (c *Comprehension, lazy bool) {
	if !p.opts.FoldCalls || len(args) == 0 {
		return nil, false
	}
	id, ok := fn.(*Ident)
	if !ok {
		return nil, false
	}
	genOnly := false
	switch id.Name {
	case "sum", "min", "max", "list", "sorted":
	case "set", "dict", "Counter":
		genOnly = true
	case "any", "all":
		genOnly, lazy = true, true
	default:
		return nil, false
	}
	for _, a := range args[1:] {
		kw, ok := a.(*BinaryExpr)
		if !ok || kw.Op != EQ || id.Name != "sorted" {
			return nil, false
		}
		if name := kw.X.(*Ident).Name; name != "key" && name != "reverse" {
			return nil, false
		}
	}
	// A generator expression's comprehension starts at the parenthesis
	// around it (the call's own for f(x for x in xs)); a list
	// comprehension's at its bracket.
	x, open := args[0], lparen
	for {
		px, ok := x.(*ParenExpr)
		if !ok {
			break
		}
		x, open = px.X, px.Lparen
	}
	c, ok = x.(*Comprehension)
	if !ok || c.Curly || c.Acc != nil || c.Short != syntax.ShortNone || genOnly && c.Lbrack != open {
		return nil, false
	}
	return c, lazy
}

// foldableJoin returns the comprehension (a generator expression or a
// list comprehension) that is the only argument of a call of a join
// method c, with Options.FoldCalls, and nil for any other call.
func (p *parser) foldableJoin(name *Ident, c *CallExpr) *Comprehension {
	if !p.opts.FoldCalls || name.Name != "join" || len(c.Args) != 1 {
		return nil
	}
	x := c.Args[0]
	for {
		px, ok := x.(*ParenExpr)
		if !ok {
			break
		}
		x = px.X
	}
	if comp, ok := x.(*Comprehension); ok && !comp.Curly && comp.Acc == nil {
		return comp
	}
	return nil
}

// parseArgs parses call arguments; a lone generator expression argument
// becomes a list comprehension.
func (p *parser) parseArgs(lparen Position) []Expr {
	var args []Expr
	for p.tok != RPAREN && p.tok != EOF {
		if len(args) > 0 {
			p.consume(COMMA)
		}
		if p.tok == RPAREN {
			break
		}
		if p.tok == STAR || p.tok == STARSTAR {
			op := p.tok
			pos := p.nextToken()
			x := p.parseTest()
			if op == STAR {
				x = iterOf(x) // Python strings are iterable
			}
			args = append(args, &UnaryExpr{OpPos: pos, Op: op, X: x})
			continue
		}
		x := p.parseTest()
		if p.tok == FOR {
			if len(args) > 0 {
				p.in.errorf(p.tokval.pos, "generator expression must be parenthesized")
			}
			x = p.parseComprehension(lparen, x, RPAREN)
			if p.tok == COMMA {
				p.in.errorf(p.tokval.pos, "generator expression must be parenthesized")
			}
		}
		if p.tok == EQ {
			id, ok := x.(*Ident)
			if !ok {
				p.in.errorf(p.tokval.pos, "invalid syntax: expression cannot contain assignment, perhaps you meant \"==\"?")
			}
			eq := p.nextToken()
			y := p.parseTest()
			x = &BinaryExpr{X: id, OpPos: eq, Op: EQ, Y: y}
		}
		args = append(args, x)
	}
	return p.orderArgs(args)
}

// orderArgs puts call arguments in the order Starlark requires
// (positional, keyword, *args, **kwargs). Python also allows positional
// arguments after *args (f(*xs, y)) and keywords before *args: the
// positional and starred arguments are then merged into one *args in
// their original order.
func (p *parser) orderArgs(args []Expr) []Expr {
	var posStar, kw, starstar []Expr
	nstar, posAfterStar := 0, false
	for _, a := range args {
		switch a := a.(type) {
		case *UnaryExpr:
			switch a.Op {
			case STARSTAR:
				starstar = append(starstar, a)
				continue
			case STAR:
				nstar++
				posStar = append(posStar, a)
				continue
			}
		case *BinaryExpr:
			if a.Op == EQ {
				kw = append(kw, a)
				continue
			}
		}
		if nstar > 0 {
			posAfterStar = true
		}
		posStar = append(posStar, a)
	}
	if nstar > 1 || posAfterStar {
		start, _ := posStar[0].Span()
		merged := p.listOf(start, posStar, start)
		out := append(kw, &UnaryExpr{OpPos: start, Op: STAR, X: merged})
		return p.appendStarStar(out, starstar)
	} else if nstar == 1 {
		// Move the single *args after the keywords.
		star := posStar[len(posStar)-1]
		posStar = posStar[:len(posStar)-1]
		out := append(posStar, kw...)
		out = append(out, star)
		return p.appendStarStar(out, starstar)
	}
	out := append(posStar, kw...)
	return p.appendStarStar(out, starstar)
}

// appendStarStar appends the **kwargs arguments, merging several into one
// (Starlark allows a single **kwargs).
func (p *parser) appendStarStar(out, starstar []Expr) []Expr {
	if len(starstar) > 1 {
		start, _ := starstar[0].Span()
		var maps []Expr
		for _, e := range starstar {
			maps = append(maps, e.(*UnaryExpr).X)
		}
		starstar = []Expr{&UnaryExpr{OpPos: start, Op: STARSTAR, X: call("_py_dict_merge", start, maps...)}}
	}
	return append(out, starstar...)
}

// parsePrimary parses an atom.
func (p *parser) parsePrimary() Expr {
	p.enter()
	defer p.leave()

	switch p.tok {
	case IDENT:
		return p.parseIdent()

	case INT, FLOAT:
		var val any
		tok := p.tok
		switch tok {
		case INT:
			if p.tokval.bigInt != nil {
				val = p.tokval.bigInt
			} else {
				val = p.tokval.int
			}
		case FLOAT:
			val = p.tokval.float
		}
		raw := p.tokval.raw
		pos := p.nextToken()
		return &Literal{Token: tok, TokenPos: pos, Raw: raw, Value: val}

	case STRING, BYTES, FSTRING:
		return p.parseStrings()

	case ELLIPSIS:
		pos := p.nextToken()
		return ident("None", pos)

	case LBRACK:
		return p.parseList()

	case LBRACE:
		return p.parseDict()

	case LPAREN:
		lparen := p.nextToken()
		if p.tok == RPAREN {
			rparen := p.nextToken()
			return &TupleExpr{Lparen: lparen, Rparen: rparen}
		}
		if p.tok == YIELD {
			p.unsupported(p.tokval.pos, "generators (yield) are not supported here: build and return a list")
		}
		if p.tok != STAR {
			x := p.parseTest()
			if p.tok == FOR {
				// generator expression -> list comprehension
				c := p.parseComprehension(lparen, x, RPAREN)
				rparen := p.consume(RPAREN)
				return &ParenExpr{Lparen: lparen, X: c, Rparen: rparen}
			}
			if p.tok == COMMA {
				x = &TupleExpr{List: p.parseExprs([]Expr{x})}
			}
			rparen := p.consume(RPAREN)
			return &ParenExpr{Lparen: lparen, X: x, Rparen: rparen}
		}
		e := p.parseExpr()
		rparen := p.consume(RPAREN)
		if _, ok := e.(*TupleExpr); !ok {
			e = &TupleExpr{List: []Expr{e}}
		}
		return p.fixStars(&ParenExpr{Lparen: lparen, X: e, Rparen: rparen})

	case MINUS, PLUS, TILDE:
		tok := p.tok
		pos := p.nextToken()
		x := p.parsePrimaryWithSuffix()
		return &UnaryExpr{OpPos: pos, Op: tok, X: x}

	case YIELD:
		p.unsupported(p.tokval.pos, "generators (yield) are not supported here: build and return a list")
	case AWAIT, ASYNC:
		p.unsupported(p.tokval.pos, "async/await is not supported here")
	case LAMBDA:
		return p.parseLambda(true)
	}

	if p.tok == NEWLINE || p.tok == EOF {
		p.in.errorf(p.tokval.pos, "invalid syntax: unexpected end of line")
	}
	if p.tok == INDENT {
		p.in.errorf(p.tokval.pos, "unexpected indent")
	}
	if p.tok == OUTDENT {
		p.in.errorf(p.tokval.pos, "unexpected unindent")
	}
	p.in.errorf(p.tokval.pos, "invalid syntax: got %s, want an expression", tokName(p.tok))
	panic("unreachable")
}

// parseStrings parses adjacent string literals (implicit concatenation)
// including f-strings.
func (p *parser) parseStrings() Expr {
	start := p.tokval.pos
	var parts []Expr
	sawBytes, sawStr := false, false
	var raw strings.Builder
	for p.tok == STRING || p.tok == BYTES || p.tok == FSTRING {
		raw.WriteString(p.tokval.raw)
		switch p.tok {
		case STRING, BYTES:
			if p.tok == BYTES {
				sawBytes = true
			} else {
				sawStr = true
			}
			parts = append(parts, &Literal{Token: p.tok, TokenPos: p.tokval.pos, Raw: p.tokval.raw, Value: p.tokval.string})
		case FSTRING:
			sawStr = true
			parts = append(parts, p.parseFString(p.tokval.fstr)...)
		}
		p.nextToken()
	}
	if sawBytes && sawStr {
		p.in.errorf(start, "cannot mix bytes and nonbytes literals")
	}
	// Merge adjacent literals.
	var merged []Expr
	for _, e := range parts {
		if lit, ok := e.(*Literal); ok && len(merged) > 0 {
			if prev, ok := merged[len(merged)-1].(*Literal); ok {
				s := prev.Value.(string) + lit.Value.(string)
				merged[len(merged)-1] = &Literal{Token: prev.Token, TokenPos: prev.TokenPos, Raw: prev.Raw, Value: s}
				continue
			}
		}
		merged = append(merged, e)
	}
	if len(merged) == 0 {
		return strLit("", start)
	}
	if len(merged) == 1 {
		if lit, ok := merged[0].(*Literal); ok && len(parts) > 1 {
			lit.Raw = raw.String()
		}
		return merged[0]
	}
	if p.opts.FStrings {
		if call := fstrCall(merged, start); call != nil {
			return call
		}
	}
	out := merged[0]
	for _, e := range merged[1:] {
		out = &BinaryExpr{OpPos: start, Op: PLUS, X: out, Y: e}
	}
	return out
}

// list = '[' ']' | '[' expr_list ']' | '[' test comp_for ']'
func (p *parser) parseList() Expr {
	lbrack := p.nextToken()
	if p.tok == RBRACK {
		rbrack := p.nextToken()
		return &ListExpr{Lbrack: lbrack, Rbrack: rbrack}
	}
	x := p.parseTestOrStar()
	if p.tok == FOR {
		c := p.parseComprehension(lbrack, x, RBRACK)
		c.Rbrack = p.consume(RBRACK)
		return c
	}
	exprs := []Expr{x}
	if p.tok == COMMA {
		exprs = p.parseExprs(exprs)
	}
	rbrack := p.consume(RBRACK)
	return p.listOf(lbrack, exprs, rbrack)
}

// listOf builds a list display, lowering starred elements:
// [a, *b, c] -> [a] + _py_list(b) + [c].
func (p *parser) listOf(lbrack Position, exprs []Expr, rbrack Position) Expr {
	hasStar := false
	for _, e := range exprs {
		if u, ok := e.(*UnaryExpr); ok && u.Op == STAR {
			hasStar = true
		}
	}
	if !hasStar {
		return &ListExpr{Lbrack: lbrack, List: exprs, Rbrack: rbrack}
	}
	var out Expr
	var seg []Expr
	add := func(e Expr) {
		if out == nil {
			out = e
		} else {
			out = &BinaryExpr{OpPos: lbrack, Op: PLUS, X: out, Y: e}
		}
	}
	for _, e := range exprs {
		if u, ok := e.(*UnaryExpr); ok && u.Op == STAR {
			if len(seg) > 0 {
				add(&ListExpr{Lbrack: lbrack, List: seg, Rbrack: rbrack})
				seg = nil
			}
			add(call("_py_list", u.OpPos, u.X))
			continue
		}
		seg = append(seg, e)
	}
	if len(seg) > 0 {
		add(&ListExpr{Lbrack: lbrack, List: seg, Rbrack: rbrack})
	}
	return out
}

// fixStars lowers a tuple with starred elements (outside assignment
// targets): (a, *b) -> _py_tuple([a] + _py_list(b)).
func (p *parser) fixStars(e Expr) Expr {
	var t *TupleExpr
	switch x := e.(type) {
	case *TupleExpr:
		t = x
	case *ParenExpr:
		if tt, ok := x.X.(*TupleExpr); ok {
			t = tt
		}
	case *UnaryExpr:
		if x.Op == STAR {
			p.in.errorf(x.OpPos, "can't use starred expression here")
		}
	}
	if t == nil {
		return e
	}
	for _, el := range t.List {
		if u, ok := el.(*UnaryExpr); ok && u.Op == STAR {
			start, _ := e.Span()
			return call("_py_tuple", start, p.listOf(start, t.List, start))
		}
	}
	return e
}

// dict = '{' '}' | '{' dict_entries '}' | '{' dict_entry comp_for '}'
// set = '{' expr_list '}' | '{' test comp_for '}'
func (p *parser) parseDict() Expr {
	lbrace := p.nextToken()
	if p.tok == RBRACE {
		rbrace := p.nextToken()
		return &DictExpr{Lbrace: lbrace, Rbrace: rbrace}
	}
	if p.tok == STARSTAR {
		return p.parseDictEntries(lbrace, nil)
	}
	x := p.parseTestOrStar()
	if p.tok == COLON {
		if u, ok := x.(*UnaryExpr); ok && u.Op == STAR {
			p.in.errorf(p.tokval.pos, "invalid syntax: starred expression in dict")
		}
		colon := p.nextToken()
		v := p.parseTest()
		entry := &DictEntry{Key: x, Colon: colon, Value: v}
		if p.tok == FOR {
			c := p.parseComprehension(lbrace, entry, RBRACE)
			c.Curly = true
			c.Rbrack = p.consume(RBRACE)
			return c
		}
		return p.parseDictEntries(lbrace, entry)
	}
	// set display or comprehension
	if p.tok == FOR {
		c := p.parseComprehension(lbrace, x, RBRACE)
		c.Rbrack = p.consume(RBRACE)
		return call("_py_set", lbrace, c)
	}
	exprs := []Expr{x}
	if p.tok == COMMA {
		exprs = p.parseExprs(exprs)
	}
	rbrace := p.consume(RBRACE)
	return call("_py_set", lbrace, p.listOf(lbrace, exprs, rbrace))
}

// parseDictEntries parses the rest of a dict display whose first entry
// (nil if it starts with **) has been read.
func (p *parser) parseDictEntries(lbrace Position, first *DictEntry) Expr {
	var segs []Expr // DictExpr or unpacked mapping expressions
	var cur []Expr
	if first != nil {
		cur = append(cur, first)
	}
	for {
		if first == nil || p.tok == COMMA {
			if first != nil {
				p.nextToken()
			}
			first = &DictEntry{} // only to skip the first comma check
			if p.tok == RBRACE {
				break
			}
			if p.tok == STARSTAR {
				pos := p.nextToken()
				if len(cur) > 0 {
					segs = append(segs, &DictExpr{Lbrace: lbrace, List: cur, Rbrace: pos})
					cur = nil
				}
				segs = append(segs, p.parseTestPrec(cmpLevel+1))
				continue
			}
			k := p.parseTest()
			colon := p.consume(COLON)
			v := p.parseTest()
			cur = append(cur, &DictEntry{Key: k, Colon: colon, Value: v})
			continue
		}
		break
	}
	rbrace := p.consume(RBRACE)
	if len(segs) == 0 {
		return &DictExpr{Lbrace: lbrace, List: cur, Rbrace: rbrace}
	}
	if len(cur) > 0 {
		segs = append(segs, &DictExpr{Lbrace: lbrace, List: cur, Rbrace: rbrace})
	}
	return call("_py_dict_merge", lbrace, segs...)
}

// parseComprehension parses the for/if clauses after body, up to (not
// including) the end token. The result is a list comprehension (the
// caller sets Curly for dicts).
func (p *parser) parseComprehension(lbrack Position, body Expr, end Token) *Comprehension {
	if u, ok := body.(*UnaryExpr); ok && u.Op == STAR {
		p.in.errorf(u.OpPos, "iterable unpacking cannot be used in comprehension")
	}
	var clauses []Node
	for p.tok != end {
		switch p.tok {
		case FOR:
			pos := p.nextToken()
			vars := p.parseForLoopVariables()
			in := p.consume(IN)
			x := p.parseTestPrec(0)
			if hasStarTarget(vars) {
				// for a, *b in xs -> for _py_tN in xs for (a, b) in [_py_unpack(_py_tN, 1, 0)]
				t := p.newTemp()
				stmts := p.assign(vars, ident(t, pos))
				a, ok := stmts[0].(*AssignStmt)
				if len(stmts) != 1 || !ok {
					p.unsupported(pos, "this starred target in a comprehension's for clause is not supported here: use a for loop")
				}
				clauses = append(clauses, &ForClause{For: pos, Vars: ident(t, pos), In: in, X: p.loopIter(x)},
					&ForClause{For: pos, Vars: a.LHS, In: in, X: &ListExpr{Lbrack: pos, List: []Expr{a.RHS}, Rbrack: pos}})
				continue
			}
			clauses = append(clauses, &ForClause{For: pos, Vars: vars, In: in, X: p.loopIter(x)})
		case IF:
			pos := p.nextToken()
			cond := p.parseTestNoCond()
			pre, cond := p.lowerWalrus(cond)
			for _, s := range pre {
				a, ok := s.(*AssignStmt)
				if !ok {
					p.unsupported(
						pos,
						"an assignment expression (:=) after and/or in a comprehension filter is not supported here: use a loop",
					)
				}
				clauses = append(
					clauses,
					&ForClause{For: pos, Vars: a.LHS, In: pos, X: &ListExpr{Lbrack: pos, List: []Expr{a.RHS}, Rbrack: pos}},
				)
			}
			clauses = append(clauses, &IfClause{If: pos, Cond: cond})
		case ASYNC:
			p.unsupported(p.tokval.pos, "async comprehensions are not supported here")
		default:
			p.in.errorf(p.tokval.pos, "invalid syntax: got %s, want %s, for, or if", tokName(p.tok), tokName(end))
		}
	}
	return &Comprehension{Lbrack: lbrack, Body: body, Clauses: clauses, Rbrack: p.tokval.pos}
}

func terminatesExprList(tok Token) bool {
	switch tok {
	case EOF, NEWLINE, EQ, RBRACE, RBRACK, RPAREN, SEMI, COLON:
		return true
	}
	return false
}

// isAugAssign reports whether tok is an augmented assignment operator.
func isAugAssign(tok Token) bool {
	switch tok {
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
		return true
	}
	return false
}
