package sandbox

import (
	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// A Starlark function reads the globals of the module (REPL chunk) that
// defined it, so a function defined in an earlier step would keep seeing
// the values its globals had then. Python functions see the current
// module globals. To get Python's behaviour, each chunk is prefixed with
// re-definitions of the earlier top-level functions it references
// (transitively); they then bind to the new chunk's module, which is
// initialized from the session globals.

// defRecord is a top-level def of an earlier chunk.
type defRecord struct {
	stmt *syntax.DefStmt
	fn   starlark.Value // the function value it produced (still bound to the name?)
}

// withRedefs returns f with re-definitions of the earlier functions it
// references prepended.
func (s *Session) withRedefs(f *syntax.File) *syntax.File {
	if len(s.defs) == 0 {
		return f
	}
	own := map[string]bool{}
	for _, st := range f.Stmts {
		if d, ok := st.(*syntax.DefStmt); ok {
			own[d.Name.Name] = true
		}
	}
	var pre []syntax.Stmt
	added := map[string]bool{}
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		syntax.Walk(n, func(n syntax.Node) bool {
			id, ok := n.(*syntax.Ident)
			if !ok || own[id.Name] || added[id.Name] {
				return true
			}
			rec, ok := s.defs[id.Name]
			if !ok || s.globals[id.Name] != rec.fn {
				return true
			}
			added[id.Name] = true
			pre = append(pre, rec.stmt)
			visit(rec.stmt)
			return true
		})
	}
	for _, st := range f.Stmts {
		visit(st)
	}
	if len(pre) == 0 {
		return f
	}
	// The chunk's positions take their file name from its first statement:
	// lead with a no-op of the current step.
	first := &syntax.BranchStmt{Token: syntax.PASS, TokenPos: syntax.Start(f.Stmts[0])}
	stmts := append([]syntax.Stmt{first}, pre...)
	return &syntax.File{Path: f.Path, Stmts: append(stmts, f.Stmts...), Options: f.Options}
}

// recordDefs remembers the top-level defs of an executed chunk.
func (s *Session) recordDefs(f *syntax.File) {
	for _, st := range f.Stmts {
		d, ok := st.(*syntax.DefStmt)
		if !ok {
			continue
		}
		if v, ok := s.globals[d.Name.Name]; ok {
			if _, isFn := v.(*starlark.Function); isFn {
				s.defs[d.Name.Name] = defRecord{stmt: d, fn: v}
			}
		}
	}
}
