// Copyright 2017 The Bazel Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file (LICENSE.starlark).
// Modified for pyfront: Python string prefixes, f-strings, numeric
// underscores, and the Python-only operators.

package pyfront

// A lexical scanner for Python, forked from go.starlark.net/syntax.

import (
	"bytes"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// An scanner represents a single input file being parsed.
type scanner struct {
	file      *string  // file name, shared by all positions
	rest      []byte   // rest of input
	token     []byte   // token being scanned
	pos       Position // current input position
	depth     int      // nesting of [ ] { } ( )
	indentstk []int    // stack of indentation levels
	dents     int      // number of saved INDENT (>0) or OUTDENT (<0) tokens to return
	lineStart bool     // after NEWLINE; convert spaces to indentation tokens
	exprOnly  bool     // scanning an f-string replacement field: no NEWLINE/INDENT tokens
}

func newScanner(file *string, src []byte, firstLine, firstCol int32) *scanner {
	return &scanner{
		file:      file,
		rest:      src,
		pos:       syntax.MakePosition(file, firstLine, firstCol),
		indentstk: make([]int, 1, 10), // []int{0} + spare capacity
		lineStart: true,
	}
}

// error reports an error at pos. It does not return: it panics.
func (sc *scanner) error(pos Position, s string) {
	panic(&Error{Pos: pos, Line: int(pos.Line), Col: int(pos.Col), Msg: s})
}

func (sc *scanner) errorf(pos Position, format string, args ...any) {
	sc.error(pos, fmt.Sprintf(format, args...))
}

// unsupported reports valid Python that the sandbox does not support.
func (sc *scanner) unsupported(pos Position, format string, args ...any) {
	panic(&Error{Pos: pos, Line: int(pos.Line), Col: int(pos.Col), Msg: fmt.Sprintf(format, args...), Unsupported: true})
}

// recover turns a panic raised by the scanner or parser into an error.
func (sc *scanner) recover(err *error) {
	switch e := recover().(type) {
	case nil:
		// no panic
	case *Error:
		*err = e
	default:
		*err = &Error{Pos: sc.pos, Line: int(sc.pos.Line), Col: int(sc.pos.Col), Msg: fmt.Sprintf("internal error: %v", e)}
	}
}

// eof reports whether the input has reached end of file.
func (sc *scanner) eof() bool {
	return len(sc.rest) == 0
}

// peekRune returns the next rune in the input without consuming it.
// Newlines in Unix, DOS, or Mac format are treated as one rune, '\n'.
func (sc *scanner) peekRune() rune {
	// TODO(adonovan): opt: measure and perhaps inline eof.
	if sc.eof() {
		return 0
	}

	// fast path: ASCII
	if b := sc.rest[0]; b < utf8.RuneSelf {
		if b == '\r' {
			return '\n'
		}
		return rune(b)
	}

	r, _ := utf8.DecodeRune(sc.rest)
	return r
}

// readRune consumes and returns the next rune in the input.
// Newlines in Unix, DOS, or Mac format are treated as one rune, '\n'.
func (sc *scanner) readRune() rune {
	// eof() has been inlined here, both to avoid a call
	// and to establish len(rest)>0 to avoid a bounds check.
	if len(sc.rest) == 0 {
		sc.error(sc.pos, "internal scanner error: readRune at EOF")
	}

	// fast path: ASCII
	if b := sc.rest[0]; b < utf8.RuneSelf {
		r := rune(b)
		sc.rest = sc.rest[1:]
		if r == '\r' {
			if len(sc.rest) > 0 && sc.rest[0] == '\n' {
				sc.rest = sc.rest[1:]
			}
			r = '\n'
		}
		if r == '\n' {
			sc.pos.Line++
			sc.pos.Col = 1
		} else {
			sc.pos.Col++
		}
		return r
	}

	r, size := utf8.DecodeRune(sc.rest)
	sc.rest = sc.rest[size:]
	sc.pos.Col++
	return r
}

// tokenValue records the position and value associated with each token.
type tokenValue struct {
	raw    string   // raw text of token
	int    int64    // decoded int
	bigInt *big.Int // decoded integers > int64
	float  float64  // decoded float
	string string   // decoded string or bytes
	pos    Position // start position of token
	fstr   *fstringToken
}

// fstringToken is the undecoded body of an f-string literal.
type fstringToken struct {
	raw     bool     // r prefix: no escape processing
	body    string   // text between the quotes
	bodyPos Position // position of the first body character
}

// startToken marks the beginning of the next input token.
// It must be followed by a call to endToken once the token has
// been consumed using readRune.
func (sc *scanner) startToken(val *tokenValue) {
	sc.token = sc.rest
	val.raw = ""
	val.pos = sc.pos
}

// endToken marks the end of an input token.
// It records the actual token string in val.raw if the caller
// has not done that already.
func (sc *scanner) endToken(val *tokenValue) {
	if val.raw == "" {
		val.raw = string(sc.token[:len(sc.token)-len(sc.rest)])
	}
}

// nextToken is called by the parser to obtain the next input token.
// It returns the token value and sets val to the data associated with
// the token.
//
// For all our input tokens, the associated data is val.pos (the
// position where the token begins), val.raw (the input string
// corresponding to the token).  For string and int tokens, the string
// and int fields additionally contain the token's interpreted value.
func (sc *scanner) nextToken(val *tokenValue) Token {

	// The following distribution of tokens guides case ordering:
	//
	//      COMMA          27   %
	//      STRING         23   %
	//      IDENT          15   %
	//      EQL            11   %
	//      LBRACK          5.5 %
	//      RBRACK          5.5 %
	//      NEWLINE         3   %
	//      LPAREN          2.9 %
	//      RPAREN          2.9 %
	//      INT             2   %
	//      others        < 1   %
	//
	// Although NEWLINE tokens are infrequent, and lineStart is
	// usually (~97%) false on entry, skipped newlines account for
	// about 50% of all iterations of the 'start' loop.

start:
	var c rune

	// Deal with leading spaces and indentation.
	blank := false
	savedLineStart := sc.lineStart
	if sc.lineStart {
		sc.lineStart = false
		col := 0
		for {
			c = sc.peekRune()
			if c == ' ' {
				col++
				sc.readRune()
			} else if c == '\t' {
				const tab = 8
				col += int(tab - (sc.pos.Col-1)%tab)
				sc.readRune()
			} else {
				break
			}
		}

		// The third clause matches EOF.
		if c == '#' || c == '\n' || c == 0 {
			blank = true
		}

		// Compute indentation level for non-blank lines not
		// inside an expression.  This is not the common case.
		if !blank && sc.depth == 0 {
			cur := sc.indentstk[len(sc.indentstk)-1]
			if col > cur {
				// indent
				sc.dents++
				sc.indentstk = append(sc.indentstk, col)
			} else if col < cur {
				// outdent(s)
				for len(sc.indentstk) > 0 && col < sc.indentstk[len(sc.indentstk)-1] {
					sc.dents--
					sc.indentstk = sc.indentstk[:len(sc.indentstk)-1] // pop
				}
				if col != sc.indentstk[len(sc.indentstk)-1] {
					sc.error(sc.pos, "unindent does not match any outer indentation level")
				}
			}
		}
	}

	// Return saved indentation tokens.
	if sc.dents != 0 {
		sc.startToken(val)
		sc.endToken(val)
		if sc.dents < 0 {
			sc.dents++
			return OUTDENT
		} else {
			sc.dents--
			return INDENT
		}
	}

	// start of line proper
	c = sc.peekRune()

	// Skip spaces.
	for c == ' ' || c == '\t' {
		sc.readRune()
		c = sc.peekRune()
	}

	// comment
	if c == '#' {
		// Consume up to newline (included).
		for c != 0 && c != '\n' {
			sc.readRune()
			c = sc.peekRune()
		}
	}

	// newline
	if c == '\n' {
		sc.lineStart = true

		// Ignore newlines within expressions (common case).
		if sc.depth > 0 || sc.exprOnly {
			sc.readRune()
			goto start
		}

		// Ignore blank lines, except in the REPL,
		// where they emit OUTDENTs and NEWLINE.
		if blank {
			sc.readRune()
			goto start
		}

		// At top-level (not in an expression).
		sc.startToken(val)
		sc.readRune()
		val.raw = "\n"
		return NEWLINE
	}

	// end of file
	if c == 0 && sc.exprOnly {
		sc.startToken(val)
		sc.endToken(val)
		return EOF
	}
	if c == 0 {
		// Emit OUTDENTs for unfinished indentation,
		// preceded by a NEWLINE if we haven't just emitted one.
		if len(sc.indentstk) > 1 {
			if savedLineStart {
				sc.dents = 1 - len(sc.indentstk)
				sc.indentstk = sc.indentstk[:1]
				goto start
			} else {
				sc.lineStart = true
				sc.startToken(val)
				val.raw = "\n"
				return NEWLINE
			}
		}

		sc.startToken(val)
		sc.endToken(val)
		return EOF
	}

	// line continuation
	if c == '\\' {
		sc.readRune()
		if sc.peekRune() != '\n' {
			sc.errorf(sc.pos, "unexpected character after line continuation character")
		}
		sc.readRune()
		// A continuation line is not the start of a logical line.
		sc.lineStart = false
		goto start
	}

	// start of the next token
	sc.startToken(val)

	// comma (common case)
	if c == ',' {
		sc.readRune()
		sc.endToken(val)
		return COMMA
	}

	// string literal
	if c == '"' || c == '\'' {
		return sc.scanString(val, c)
	}

	// identifier or keyword
	if isIdentStart(c) {
		// String prefixes: any of r, b, u, f (either case), e.g. rb"..." or F'...'.
		if n := stringPrefixLen(sc.rest); n > 0 {
			for range n {
				sc.readRune()
			}
			return sc.scanString(val, sc.peekRune())
		}

		for isIdent(c) {
			sc.readRune()
			c = sc.peekRune()
		}
		sc.endToken(val)
		if k, ok := keywordToken[val.raw]; ok {
			return k
		}
		if !utf8.ValidString(val.raw) {
			sc.error(val.pos, "invalid UTF-8 in identifier")
		}

		return IDENT
	}

	// brackets
	switch c {
	case '[', '(', '{':
		sc.depth++
		if sc.depth > 1000 {
			sc.errorf(sc.pos, "excessive nesting")
		}
		sc.readRune()
		sc.endToken(val)
		switch c {
		case '[':
			return LBRACK
		case '(':
			return LPAREN
		case '{':
			return LBRACE
		}
		panic("unreachable")

	case ']', ')', '}':
		if sc.depth == 0 {
			sc.errorf(sc.pos, "unexpected %q", c)
		} else {
			sc.depth--
		}
		sc.readRune()
		sc.endToken(val)
		switch c {
		case ']':
			return RBRACK
		case ')':
			return RPAREN
		case '}':
			return RBRACE
		}
		panic("unreachable")
	}

	// int or float literal, or period
	if isdigit(c) || c == '.' {
		return sc.scanNumber(val, c)
	}

	// other punctuation
	defer sc.endToken(val)
	switch c {
	case '=', '<', '>', '!', '+', '-', '%', '/', '&', '|', '^': // possibly followed by '='
		start := sc.pos
		sc.readRune()
		if sc.peekRune() == '=' {
			sc.readRune()
			switch c {
			case '<':
				return LE
			case '>':
				return GE
			case '=':
				return EQL
			case '!':
				return NEQ
			case '+':
				return PLUS_EQ
			case '-':
				return MINUS_EQ
			case '/':
				return SLASH_EQ
			case '%':
				return PERCENT_EQ
			case '&':
				return AMP_EQ
			case '|':
				return PIPE_EQ
			case '^':
				return CIRCUMFLEX_EQ
			}
		}
		switch c {
		case '=':
			return EQ
		case '<':
			if sc.peekRune() == '<' {
				sc.readRune()
				if sc.peekRune() == '=' {
					sc.readRune()
					return LTLT_EQ
				} else {
					return LTLT
				}
			}
			return LT
		case '>':
			if sc.peekRune() == '>' {
				sc.readRune()
				if sc.peekRune() == '=' {
					sc.readRune()
					return GTGT_EQ
				} else {
					return GTGT
				}
			}
			return GT
		case '!':
			sc.error(start, "invalid syntax: '!' (use 'not' or '!=')")
		case '+':
			return PLUS
		case '-':
			if sc.peekRune() == '>' {
				sc.readRune()
				return ARROW
			}
			return MINUS
		case '/':
			if sc.peekRune() == '/' {
				sc.readRune()
				if sc.peekRune() == '=' {
					sc.readRune()
					return SLASHSLASH_EQ
				} else {
					return SLASHSLASH
				}
			}
			return SLASH
		case '%':
			return PERCENT
		case '&':
			return AMP
		case '|':
			return PIPE
		case '^':
			return CIRCUMFLEX
		}
		panic("unreachable")

	case ':', ';', '~': // single-char tokens (except comma)
		sc.readRune()
		switch c {
		case ':':
			if sc.peekRune() == '=' {
				sc.readRune()
				return COLONEQ
			}
			return COLON
		case ';':
			return SEMI
		case '~':
			return TILDE
		}
		panic("unreachable")

	case '@':
		sc.readRune()
		if sc.peekRune() == '=' {
			sc.readRune()
			return AT_EQ
		}
		return AT

	case '*': // possibly followed by '*' or '='
		sc.readRune()
		switch sc.peekRune() {
		case '*':
			sc.readRune()
			if sc.peekRune() == '=' {
				sc.readRune()
				return STARSTAR_EQ
			}
			return STARSTAR
		case '=':
			sc.readRune()
			return STAR_EQ
		}
		return STAR
	}

	sc.errorf(sc.pos, "unexpected input character %#q", c)
	panic("unreachable")
}

// stringPrefixLen reports the length of a Python string prefix (r, b,
// u, f, rb, br, fr, rf in either case) at the start of b when a quote
// follows it, or 0.
func stringPrefixLen(b []byte) int {
	n := 0
	var seen [4]bool // r b u f
	for n < len(b) && n < 3 {
		var k int
		switch b[n] {
		case 'r', 'R':
			k = 0
		case 'b', 'B':
			k = 1
		case 'u', 'U':
			k = 2
		case 'f', 'F':
			k = 3
		case '"', '\'':
			if n == 0 {
				return 0
			}
			if seen[2] && n > 1 || seen[1] && seen[3] {
				return 0
			}
			return n
		default:
			return 0
		}
		if seen[k] {
			return 0
		}
		seen[k] = true
		n++
	}
	return 0
}

func (sc *scanner) scanString(val *tokenValue, quote rune) Token {
	start := sc.pos
	triple := len(sc.rest) >= 3 && sc.rest[0] == byte(quote) && sc.rest[1] == byte(quote) && sc.rest[2] == byte(quote)
	prefix := strings.ToLower(string(sc.token[:len(sc.token)-len(sc.rest)]))
	isF := strings.Contains(prefix, "f")
	sc.readRune()

	raw := new(strings.Builder)
	// Copy the prefix, e.g. r' or " (see startToken).
	raw.Write(sc.token[:len(sc.token)-len(sc.rest)])

	if triple {
		sc.readRune()
		raw.WriteRune(quote)
		sc.readRune()
		raw.WriteRune(quote)
	}
	bodyPos := sc.pos
	fdepth := 0 // brace nesting inside an f-string
	quoteCount := 0
	for {
		if sc.eof() {
			if triple {
				sc.error(val.pos, "unterminated triple-quoted string literal")
			}
			sc.error(val.pos, "unterminated string literal")
		}
		c := sc.readRune()
		raw.WriteRune(c)
		if isF && fdepth > 0 && (c == '"' || c == '\'') && c != quote {
			// A string inside a replacement field.
			sc.skipNestedString(c, raw, val.pos)
			continue
		}
		if isF && fdepth > 0 && c == quote && !triple && sc.nestedSameQuote(quote) {
			// Python 3.12 allows reusing the quote inside a field.
			sc.skipNestedString(c, raw, val.pos)
			continue
		}
		if c == quote {
			if !triple {
				break
			}
			quoteCount++
			if quoteCount == 3 {
				break
			}
			continue
		}
		quoteCount = 0
		if c == '\n' && !triple {
			sc.error(val.pos, "unterminated string literal")
		}
		if isF {
			switch c {
			case '{':
				if fdepth == 0 && sc.peekRune() == '{' {
					raw.WriteRune(sc.readRune())
					continue
				}
				fdepth++
			case '}':
				if fdepth > 0 {
					fdepth--
				}
			}
		}
		if c == '\\' {
			if sc.eof() {
				sc.error(val.pos, "unterminated string literal")
			}
			c = sc.readRune()
			raw.WriteRune(c)
		}
	}
	val.raw = raw.String()

	if isF {
		_, quoted := splitStringPrefix(val.raw)
		body, _ := stripQuotes(quoted)
		val.fstr = &fstringToken{raw: strings.Contains(prefix, "r"), body: body, bodyPos: bodyPos}
		return FSTRING
	}
	s, isByte, err := unquote(val.raw)
	if err != nil {
		sc.error(start, err.Error())
	}
	val.string = s
	if isByte {
		return BYTES
	}
	return STRING
}

// nestedSameQuote reports whether a quote character met inside an
// f-string replacement field opens a nested string (Python 3.12 style)
// rather than closing the f-string: it does when the rest of the line
// closes that nested string and the field.
func (sc *scanner) nestedSameQuote(quote rune) bool {
	rest := sc.rest
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	j := bytes.IndexRune(rest, quote)
	if j < 0 {
		return false
	}
	return bytes.IndexByte(rest[j+1:], '}') >= 0 && bytes.ContainsRune(rest[j+1:], quote)
}

// skipNestedString copies a string literal nested in an f-string
// replacement field (its opening quote already read) into raw.
func (sc *scanner) skipNestedString(quote rune, raw *strings.Builder, pos Position) {
	triple := len(sc.rest) >= 2 && sc.rest[0] == byte(quote) && sc.rest[1] == byte(quote)
	if triple {
		raw.WriteRune(sc.readRune())
		raw.WriteRune(sc.readRune())
	}
	n := 0
	for {
		if sc.eof() {
			sc.error(pos, "unterminated string literal in f-string")
		}
		c := sc.readRune()
		raw.WriteRune(c)
		if c == '\\' && !sc.eof() {
			raw.WriteRune(sc.readRune())
			n = 0
			continue
		}
		if c == quote {
			n++
			if !triple || n == 3 {
				return
			}
			continue
		}
		n = 0
	}
}

func (sc *scanner) scanNumber(val *tokenValue, c rune) Token {
	start := sc.pos
	isFloat := false
	digits := func(ok func(rune) bool) {
		for c = sc.peekRune(); ok(c) || c == '_'; c = sc.peekRune() {
			sc.readRune()
		}
	}
	if c == '.' {
		sc.readRune()
		c = sc.peekRune()
		if !isdigit(c) {
			if c == '.' && len(sc.rest) > 1 && sc.rest[1] == '.' {
				sc.readRune()
				sc.readRune()
				sc.endToken(val)
				return ELLIPSIS
			}
			sc.endToken(val)
			return DOT
		}
		isFloat = true
		digits(isdigit)
	} else if c == '0' && len(sc.rest) > 1 && strings.IndexByte("xXoObB", sc.rest[1]) >= 0 {
		sc.readRune()
		sc.readRune()
		digits(isxdigit)
	} else {
		digits(isdigit)
		if c == '.' {
			isFloat = true
			sc.readRune()
			digits(isdigit)
		}
	}
	if c == 'e' || c == 'E' {
		if len(sc.rest) > 1 &&
			(isdigit(rune(sc.rest[1])) || (sc.rest[1] == '+' || sc.rest[1] == '-') && len(sc.rest) > 2 && isdigit(rune(sc.rest[2]))) {
			isFloat = true
			sc.readRune()
			if c = sc.peekRune(); c == '+' || c == '-' {
				sc.readRune()
			}
			digits(isdigit)
		}
	}
	if c == 'j' || c == 'J' {
		sc.unsupported(start, "complex numbers are not supported here")
	}
	if isIdent(c) {
		sc.error(start, "invalid decimal literal")
	}
	sc.endToken(val)
	text := strings.ReplaceAll(val.raw, "_", "")
	if strings.HasSuffix(val.raw, "_") || strings.Contains(val.raw, "__") {
		sc.error(start, "invalid decimal literal")
	}
	if isFloat {
		var err error
		val.float, err = strconv.ParseFloat(text, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
				sc.error(start, "invalid float literal")
			}
		}
		return FLOAT
	}
	val.bigInt = nil
	base := 10
	digitsText := text
	if len(text) > 2 && text[0] == '0' {
		switch text[1] {
		case 'x', 'X':
			base, digitsText = 16, text[2:]
		case 'o', 'O':
			base, digitsText = 8, text[2:]
		case 'b', 'B':
			base, digitsText = 2, text[2:]
		}
	}
	if base == 10 && len(text) > 1 && text[0] == '0' && strings.Trim(text, "0") != "" {
		sc.error(start, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
	}
	var err error
	val.int, err = strconv.ParseInt(digitsText, base, 64)
	if err != nil {
		num, ok := new(big.Int).SetString(digitsText, base)
		if !ok {
			sc.error(start, "invalid int literal")
		}
		val.bigInt = num
	}
	return INT
}

// isIdent reports whether c is an identifier rune.
func isIdent(c rune) bool {
	return isdigit(c) || isIdentStart(c)
}

func isIdentStart(c rune) bool {
	return 'a' <= c && c <= 'z' ||
		'A' <= c && c <= 'Z' ||
		c == '_' ||
		unicode.IsLetter(c)
}

func isdigit(c rune) bool  { return '0' <= c && c <= '9' }
func isxdigit(c rune) bool { return isdigit(c) || 'A' <= c && c <= 'F' || 'a' <= c && c <= 'f' }

// keywordToken records the special tokens for
// strings that should not be treated as ordinary identifiers.
var keywordToken = map[string]Token{
	"and":      AND,
	"break":    BREAK,
	"continue": CONTINUE,
	"def":      DEF,
	"elif":     ELIF,
	"else":     ELSE,
	"for":      FOR,
	"if":       IF,
	"in":       IN,
	"lambda":   LAMBDA,
	"not":      NOT,
	"or":       OR,
	"pass":     PASS,
	"return":   RETURN,
	"while":    WHILE,

	// reserved words:
	"as":       AS,
	"assert":   ASSERT,
	"async":    ASYNC,
	"await":    AWAIT,
	"class":    CLASS,
	"del":      DEL,
	"except":   EXCEPT,
	"finally":  FINALLY,
	"from":     FROM,
	"global":   GLOBAL,
	"import":   IMPORT,
	"is":       IS,
	"nonlocal": NONLOCAL,
	"raise":    RAISE,
	"try":      TRY,
	"with":     WITH,
	"yield":    YIELD,
}
