package pyfront

import (
	"errors"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// FileOptions are the options of every file Compile produces: Python
// allows sets, while loops, top-level control flow, reassignment of
// globals and recursion.
var FileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
	Recursion:       true,
}

// Options configures Compile.
type Options struct {
	// StarImports lists, per module, the names `from module import *`
	// binds. A star import of a module not listed is an error.
	StarImports map[string][]string

	// CatchInner lowers try statements that are not at module level
	// (inside def/for/while/if) to calls of the runtime helper _py_try,
	// so that their handlers run (see RUNTIME.md). Without it their
	// bodies are inlined and recorded in Program.InnerTry.
	CatchInner bool

	// InlineModuleTry lowers module-level try statements the same way as
	// nested ones instead of returning them as Try chunks, so a step
	// compiles to a single file: functions defined before the try then
	// see the globals its body rebinds (each Starlark chunk is a separate
	// module).
	InlineModuleTry bool

	// Classes lowers class statements to calls of the runtime helpers
	// _py_class and _py_super (see RUNTIME.md). Without it a class
	// statement is an unsupported-construct error.
	Classes bool

	// CodePoints routes subscript and slice reads through the runtime
	// helpers _py_getitem and _py_getslice (see RUNTIME.md), so that str
	// can be indexed by code point as in Python.
	CodePoints bool
	// NativeOps keeps %, *, %=, *=, subscript and slice reads and the
	// iterables of for loops and comprehensions as native Starlark
	// operations, for a runtime whose interpreter gives them Python's
	// semantics (the sandbox's starlark.PyOps hooks) instead of the
	// _py_mod, _py_mul, _py_getitem, _py_getslice and _py_iter helpers.
	// It overrides CodePoints.
	NativeOps bool
	// FoldCalls lowers sum, min and max called with a generator
	// expression or list comprehension as their only argument to
	// _py_fold(F, [... for ...]) whose comprehension appends to
	// _py_sink(F) (syntax.Comprehension.Acc, an interpreter patch): when F
	// is the runtime's builtin the elements are folded as they come,
	// without building the list (see RUNTIME.md).
	FoldCalls bool

	// NativeDepth leaves out the _py_enter() call that starts every def
	// body, for a runtime whose interpreter checks the recursion depth
	// when a function is called (the sandbox's starlark.MaxCallDepth).
	NativeDepth bool

	// Nonlocal supports `nonlocal x` in nested defs: the enclosing def
	// keeps x in a cell (a one-element list). Without it an assignment to
	// a nonlocal name is an unsupported-construct error.
	Nonlocal bool

	// FStrings lowers an f-string (with the string literals next to it)
	// to one call of the runtime helper _py_fstr (see RUNTIME.md), which
	// formats all its parts into one buffer, instead of a chain of +
	// over _py_format, _py_repr, _py_str and _py_ascii calls.
	FStrings bool
}

// A Program is compiled Python: chunks to run in order against the same
// globals, as starlark.ExecREPLChunk does.
type Program struct {
	Chunks []Chunk
	// InnerTry lists the try statements that are not at module level
	// (inside def/for/while/if). Their bodies are inlined and their
	// handlers never run: an error raised inside such a body must fail
	// the step with a message saying so.
	InnerTry []TryRange
	// GenExprs lists the generator expressions given to any or all that
	// run inline in the enclosing function (see Options.FoldCalls): a
	// traceback frame at a position inside one stands for two in
	// CPython's, the call's and <genexpr>'s.
	GenExprs []GenExpr
}

// A GenExpr is the span of a generator expression given to any or all.
type GenExpr struct {
	Call       syntax.Position // the call's parenthesis
	Start, End syntax.Position // the generator expression's first and last positions
}

// Contains reports whether pos is in g's span, after its start (the
// call's parenthesis for any(x for ...): the position of the call), in
// the same file.
func (g GenExpr) Contains(pos syntax.Position) bool {
	if pos.Filename() != g.Start.Filename() {
		return false
	}
	after := func(a, b syntax.Position) bool { return a.Line > b.Line || a.Line == b.Line && a.Col > b.Col }
	return after(pos, g.Start) && !after(pos, g.End)
}

// A Chunk is either plain code (File) or a module-level try statement
// (Try); exactly one field is non-nil.
type Chunk struct {
	File *syntax.File
	Try  *Try
}

// A Try is a module-level try statement.
type Try struct {
	Line     int       // line of the try keyword
	Body     []Chunk   // the try suite
	Handlers []Handler // except clauses in source order; the first match wins
	Else     []Chunk   // runs when Body raised nothing (may be nil)
	Finally  []Chunk   // always runs (may be nil)
}

// A Handler is one except clause.
type Handler struct {
	Line  int      // line of the except keyword
	Types []string // exception names as written ("ValueError", "json.JSONDecodeError"); empty for a bare except
	Name  string   // the `as` name, or ""
	Body  []Chunk
}

// A TryRange is the body of a try statement that is not at module level.
type TryRange struct {
	Line    int // line of the try keyword
	EndLine int // last line of the try body
}

// Contains reports whether line lies within the try statement's body.
func (r TryRange) Contains(line int) bool { return line >= r.Line && line <= r.EndLine }

// Compile parses Python source and lowers it to Starlark syntax trees.
// Errors are *Error values naming the line and column.
func Compile(filename, src string, opts Options) (prog *Program, err error) {
	file := new(string)
	*file = filename
	in := newScanner(file, []byte(dedent(src)), 1, 1)
	p := &parser{in: in, file: file, opts: opts, temps: new(int), prog: &Program{}}
	defer func() {
		var e *Error
		if errors.As(err, &e) && len(in.rest) == 0 && (p.tok == EOF || p.tok == OUTDENT || strings.Contains(e.Msg, "triple-quoted")) {
			e.Incomplete = true
		}
	}()
	defer in.recover(&err)
	p.nextToken()
	p.prog.Chunks = p.parseChunks(func() bool { return p.tok == EOF })
	for _, c := range p.prog.Chunks {
		p.validateChunk(c)
	}
	return p.prog, nil
}

func (p *parser) validateChunk(c Chunk) {
	if c.File != nil {
		p.validate(c.File)
		if p.opts.CodePoints && !p.opts.NativeOps {
			routeSubscripts(c.File.Stmts)
		}
		return
	}
	t := c.Try
	for _, list := range [][]Chunk{t.Body, t.Else, t.Finally} {
		for _, c := range list {
			p.validateChunk(c)
		}
	}
	for _, h := range t.Handlers {
		for _, c := range h.Body {
			p.validateChunk(c)
		}
	}
}

// validate rejects any Python-only marker left in the tree.
func (p *parser) validate(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *BinaryExpr:
			if n.Op == COLONEQ {
				p.in.unsupported(n.OpPos, "assignment expression (:=) is only supported in if/elif/while conditions, comprehension filters and simple statements: assign the value on its own line first")
			}
		case *ListExpr:
			p.checkNoStar(n.List)
		case *TupleExpr:
			p.checkNoStar(n.List)
		case *DictExpr:
			for _, e := range n.List {
				if u, ok := e.(*UnaryExpr); ok {
					p.in.unsupported(u.OpPos, "dict unpacking (**) is not supported here")
				}
			}
		}
		return true
	})
}

func (p *parser) checkNoStar(list []Expr) {
	for _, e := range list {
		if u, ok := e.(*UnaryExpr); ok && (u.Op == STAR || u.Op == STARSTAR) {
			p.in.unsupported(u.OpPos, "starred expression (*x) is not supported here: build the list with + or list(...)")
		}
	}
}

// dedent removes whitespace common to all non-blank lines when the first
// non-blank line is indented (code pasted from an indented block), which
// CPython would reject with "unexpected indent".
func dedent(src string) string {
	lines := strings.SplitAfter(src, "\n")
	prefix := ""
	first := true
	for _, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		if strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "#") {
			continue
		}
		ws := t[:len(t)-len(strings.TrimLeft(t, " \t"))]
		if first {
			if ws == "" {
				return src
			}
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(ws, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
		if prefix == "" {
			return src
		}
	}
	if prefix == "" {
		return src
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(l, prefix))
	}
	return b.String()
}

// ParseExpr parses a single Python expression (e.g. the argument of
// ast.literal_eval or eval) and lowers it like Compile does. Positions
// use filename and start at line 1.
func ParseExpr(filename, src string, opts Options) (expr Expr, err error) {
	file := new(string)
	*file = filename
	in := newScanner(file, []byte(strings.TrimSpace(src)), 1, 1)
	in.exprOnly = true
	in.lineStart = false
	p := &parser{in: in, file: file, opts: opts, temps: new(int), prog: &Program{}}
	defer in.recover(&err)
	p.nextToken()
	x := p.fixStars(p.parseExpr())
	if p.tok != EOF {
		p.in.errorf(p.tokval.pos, "invalid syntax: got %s after the expression", tokName(p.tok))
	}
	p.validate(&File{Stmts: []Stmt{&ExprStmt{X: x}}})
	return x, nil
}
