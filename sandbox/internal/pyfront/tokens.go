// Copyright 2017 The Bazel Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file (LICENSE.starlark).
// Modified for pyfront: Python tokens beyond Starlark's.

package pyfront

import (
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// AST node and token types are the upstream ones, so that the parser
// builds trees the upstream resolver and compiler accept directly.
type (
	Token         = syntax.Token
	Position      = syntax.Position
	Node          = syntax.Node
	Expr          = syntax.Expr
	Stmt          = syntax.Stmt
	File          = syntax.File
	AssignStmt    = syntax.AssignStmt
	BranchStmt    = syntax.BranchStmt
	DefStmt       = syntax.DefStmt
	ExprStmt      = syntax.ExprStmt
	ForStmt       = syntax.ForStmt
	WhileStmt     = syntax.WhileStmt
	IfStmt        = syntax.IfStmt
	ReturnStmt    = syntax.ReturnStmt
	BinaryExpr    = syntax.BinaryExpr
	CallExpr      = syntax.CallExpr
	Comprehension = syntax.Comprehension
	CondExpr      = syntax.CondExpr
	DictEntry     = syntax.DictEntry
	DictExpr      = syntax.DictExpr
	DotExpr       = syntax.DotExpr
	Ident         = syntax.Ident
	IndexExpr     = syntax.IndexExpr
	LambdaExpr    = syntax.LambdaExpr
	ListExpr      = syntax.ListExpr
	Literal       = syntax.Literal
	ParenExpr     = syntax.ParenExpr
	SliceExpr     = syntax.SliceExpr
	TupleExpr     = syntax.TupleExpr
	UnaryExpr     = syntax.UnaryExpr
	ForClause     = syntax.ForClause
	IfClause      = syntax.IfClause
)

// Upstream tokens used by the scanner and parser.
const (
	ILLEGAL       = syntax.ILLEGAL
	EOF           = syntax.EOF
	NEWLINE       = syntax.NEWLINE
	INDENT        = syntax.INDENT
	OUTDENT       = syntax.OUTDENT
	IDENT         = syntax.IDENT
	INT           = syntax.INT
	FLOAT         = syntax.FLOAT
	STRING        = syntax.STRING
	BYTES         = syntax.BYTES
	PLUS          = syntax.PLUS
	MINUS         = syntax.MINUS
	STAR          = syntax.STAR
	SLASH         = syntax.SLASH
	SLASHSLASH    = syntax.SLASHSLASH
	PERCENT       = syntax.PERCENT
	AMP           = syntax.AMP
	PIPE          = syntax.PIPE
	CIRCUMFLEX    = syntax.CIRCUMFLEX
	LTLT          = syntax.LTLT
	GTGT          = syntax.GTGT
	TILDE         = syntax.TILDE
	DOT           = syntax.DOT
	COMMA         = syntax.COMMA
	EQ            = syntax.EQ
	SEMI          = syntax.SEMI
	COLON         = syntax.COLON
	LPAREN        = syntax.LPAREN
	RPAREN        = syntax.RPAREN
	LBRACK        = syntax.LBRACK
	RBRACK        = syntax.RBRACK
	LBRACE        = syntax.LBRACE
	RBRACE        = syntax.RBRACE
	LT            = syntax.LT
	GT            = syntax.GT
	GE            = syntax.GE
	LE            = syntax.LE
	EQL           = syntax.EQL
	NEQ           = syntax.NEQ
	PLUS_EQ       = syntax.PLUS_EQ
	MINUS_EQ      = syntax.MINUS_EQ
	STAR_EQ       = syntax.STAR_EQ
	SLASH_EQ      = syntax.SLASH_EQ
	SLASHSLASH_EQ = syntax.SLASHSLASH_EQ
	PERCENT_EQ    = syntax.PERCENT_EQ
	AMP_EQ        = syntax.AMP_EQ
	PIPE_EQ       = syntax.PIPE_EQ
	CIRCUMFLEX_EQ = syntax.CIRCUMFLEX_EQ
	LTLT_EQ       = syntax.LTLT_EQ
	GTGT_EQ       = syntax.GTGT_EQ
	STARSTAR      = syntax.STARSTAR
	AND           = syntax.AND
	BREAK         = syntax.BREAK
	CONTINUE      = syntax.CONTINUE
	DEF           = syntax.DEF
	ELIF          = syntax.ELIF
	ELSE          = syntax.ELSE
	FOR           = syntax.FOR
	IF            = syntax.IF
	IN            = syntax.IN
	LAMBDA        = syntax.LAMBDA
	NOT           = syntax.NOT
	NOT_IN        = syntax.NOT_IN
	OR            = syntax.OR
	PASS          = syntax.PASS
	RETURN        = syntax.RETURN
	WHILE         = syntax.WHILE
	AS            = syntax.AS
	ASYNC         = syntax.ASYNC
	AWAIT         = syntax.AWAIT
	CLASS         = syntax.CLASS
	DEL           = syntax.DEL
	EXCEPT        = syntax.EXCEPT
	FINALLY       = syntax.FINALLY
	FROM          = syntax.FROM
	GLOBAL        = syntax.GLOBAL
	IMPORT        = syntax.IMPORT
	IS            = syntax.IS
	NONLOCAL      = syntax.NONLOCAL
	RAISE         = syntax.RAISE
	TRY           = syntax.TRY
	WITH          = syntax.WITH
	YIELD         = syntax.YIELD
)

// Python-only tokens, numbered after upstream's last token. They never
// reach the produced AST.
const (
	ASSERT      = syntax.YIELD + 1 + iota
	FSTRING     // f"..." (value in tokenValue.fstr)
	COLONEQ     // :=
	ARROW       // ->
	AT          // @
	ELLIPSIS    // ...
	STARSTAR_EQ // **=
	AT_EQ       // @=
	IS_NOT      // synthesized by parser from IS NOT
	maxToken
)

var extraTokenNames = map[Token]string{
	ASSERT:      "assert",
	FSTRING:     "f-string literal",
	COLONEQ:     ":=",
	ARROW:       "->",
	AT:          "@",
	ELLIPSIS:    "...",
	STARSTAR_EQ: "**=",
	AT_EQ:       "@=",
	IS_NOT:      "is not",
}

// tokName returns a printable name for tok, quoting punctuation.
func tokName(tok Token) string {
	if s, ok := extraTokenNames[tok]; ok {
		if tok == ASSERT || tok == FSTRING || tok == IS_NOT {
			return s
		}
		return "'" + s + "'"
	}
	if tok > syntax.YIELD || tok < 0 {
		return fmt.Sprintf("token(%d)", int(tok))
	}
	return fmt.Sprintf("%#v", tok)
}

// tokStr returns the plain text of tok.
func tokStr(tok Token) string {
	if s, ok := extraTokenNames[tok]; ok {
		return s
	}
	return tok.String()
}
