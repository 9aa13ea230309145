package pyfront

import (
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// Unparse renders Starlark statements produced by Compile as source
// text, for debugging and tests. It is not a general-purpose formatter.
func Unparse(stmts []Stmt) string {
	var b strings.Builder
	writeStmts(&b, stmts, 0)
	return b.String()
}

func writeStmts(b *strings.Builder, stmts []Stmt, indent int) {
	for _, s := range stmts {
		writeStmt(b, s, indent)
	}
}

func writeStmt(b *strings.Builder, s Stmt, indent int) {
	pad := strings.Repeat("    ", indent)
	switch s := s.(type) {
	case *ExprStmt:
		fmt.Fprintf(b, "%s%s\n", pad, unparseExpr(s.X))
	case *AssignStmt:
		fmt.Fprintf(b, "%s%s %s %s\n", pad, unparseExpr(s.LHS), s.Op, unparseExpr(s.RHS))
	case *BranchStmt:
		fmt.Fprintf(b, "%s%s\n", pad, s.Token)
	case *ReturnStmt:
		if s.Result == nil {
			fmt.Fprintf(b, "%sreturn\n", pad)
		} else {
			fmt.Fprintf(b, "%sreturn %s\n", pad, unparseExpr(s.Result))
		}
	case *DefStmt:
		fmt.Fprintf(b, "%sdef %s(%s):\n", pad, s.Name.Name, unparseList(s.Params))
		writeStmts(b, s.Body, indent+1)
	case *IfStmt:
		fmt.Fprintf(b, "%sif %s:\n", pad, unparseExpr(s.Cond))
		writeStmts(b, s.True, indent+1)
		if len(s.False) > 0 {
			fmt.Fprintf(b, "%selse:\n", pad)
			writeStmts(b, s.False, indent+1)
		}
	case *ForStmt:
		fmt.Fprintf(b, "%sfor %s in %s:\n", pad, unparseExpr(s.Vars), unparseExpr(s.X))
		writeStmts(b, s.Body, indent+1)
	case *WhileStmt:
		fmt.Fprintf(b, "%swhile %s:\n", pad, unparseExpr(s.Cond))
		writeStmts(b, s.Body, indent+1)
	default:
		fmt.Fprintf(b, "%s<%T>\n", pad, s)
	}
}

func unparseList(list []Expr) string {
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = unparseExpr(e)
	}
	return strings.Join(parts, ", ")
}

func unparseExpr(e Expr) string {
	switch e := e.(type) {
	case nil:
		return ""
	case *Ident:
		return e.Name
	case *Literal:
		if s, ok := e.Value.(string); ok {
			if e.Token == BYTES {
				return "b" + syntax.Quote(s, true)[1:]
			}
			return syntax.Quote(s, false)
		}
		return fmt.Sprint(e.Value)
	case *ParenExpr:
		return "(" + unparseExpr(e.X) + ")"
	case *CallExpr:
		return unparseExpr(e.Fn) + "(" + unparseList(e.Args) + ")"
	case *DotExpr:
		return unparseExpr(e.X) + "." + e.Name.Name
	case *IndexExpr:
		return unparseExpr(e.X) + "[" + unparseExpr(e.Y) + "]"
	case *SliceExpr:
		s := unparseExpr(e.X) + "[" + unparseExpr(e.Lo) + ":" + unparseExpr(e.Hi)
		if e.Step != nil {
			s += ":" + unparseExpr(e.Step)
		}
		return s + "]"
	case *ListExpr:
		return "[" + unparseList(e.List) + "]"
	case *TupleExpr:
		if len(e.List) == 1 {
			return "(" + unparseExpr(e.List[0]) + ",)"
		}
		return "(" + unparseList(e.List) + ")"
	case *DictExpr:
		return "{" + unparseList(e.List) + "}"
	case *DictEntry:
		return unparseExpr(e.Key) + ": " + unparseExpr(e.Value)
	case *UnaryExpr:
		if e.X == nil {
			return e.Op.String()
		}
		if e.Op == NOT {
			return "not " + unparseExpr(e.X)
		}
		return e.Op.String() + unparseExpr(e.X)
	case *BinaryExpr:
		if e.Op == EQ {
			return unparseExpr(e.X) + "=" + unparseExpr(e.Y)
		}
		return "(" + unparseExpr(e.X) + " " + tokStr(e.Op) + " " + unparseExpr(e.Y) + ")"
	case *CondExpr:
		return "(" + unparseExpr(e.True) + " if " + unparseExpr(e.Cond) + " else " + unparseExpr(e.False) + ")"
	case *LambdaExpr:
		if len(e.Params) == 0 {
			return "lambda: " + unparseExpr(e.Body)
		}
		return "lambda " + unparseList(e.Params) + ": " + unparseExpr(e.Body)
	case *Comprehension:
		var b strings.Builder
		open, close := "[", "]"
		if e.Curly {
			open, close = "{", "}"
		}
		b.WriteString(open + unparseExpr(e.Body))
		for _, c := range e.Clauses {
			switch c := c.(type) {
			case *ForClause:
				b.WriteString(" for " + unparseExpr(c.Vars) + " in " + unparseExpr(c.X))
			case *IfClause:
				b.WriteString(" if " + unparseExpr(c.Cond))
			}
		}
		return b.String() + close
	}
	return fmt.Sprintf("<%T>", e)
}
