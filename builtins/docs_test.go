package builtins_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
)

// TestDocCommentsMatchRegistry keeps the prompt text and the Go doc
// comments identical: each helper's Go function must be documented with
// its signature line followed by its summary line.
func TestDocCommentsMatchRegistry(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	comments := map[string]string{} // Go func name -> doc text
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		af, err := parser.ParseFile(fset, f, src, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Doc != nil {
				comments[fd.Name.Name] = fd.Doc.Text()
			}
		}
	}
	fns := builtins.HelperFuncs()
	docs := builtins.Docs()
	require.NotEmpty(t, docs)
	for _, d := range docs {
		fn, ok := fns[d.Name]
		if !ok {
			assert.Equal(t, "len", d.Name, "only len is provided by the sandbox")
			continue
		}
		full := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
		goName := full[strings.LastIndex(full, ".")+1:]
		assert.Equal(t, d.Signature+"\n"+d.Summary+"\n", comments[goName], "doc comment of %s (helper %s)", goName, d.Name)
		assert.True(t, strings.HasPrefix(d.Signature, d.Name+"("), d.Signature)
		assert.NotContains(t, d.Summary, "\n")
	}
}

func TestPromptHelp(t *testing.T) {
	help := builtins.PromptHelpFor(builtins.HelpOptions{Store: true, StoreChildren: true})
	for _, d := range builtins.Docs() {
		assert.Contains(t, help, "- "+d.Signature+": "+d.Summary+"\n")
	}
	for _, name := range []string{"peek", "search", "chunk", "outline", "show_vars", "summarize", "find_relevant", "llm_query", "llm_query_batched", "rlm_query", "rlm_query_batched", "children", "store_keys", "store_get", "SUBMIT", "FINAL", "FINAL_VAR"} {
		_, ok := builtins.Predeclared(&builtins.Host{})[name]
		assert.True(t, ok, name)
		assert.Contains(t, help, "- "+name+"(")
	}
	assert.Less(t, len(help), 4000, "the helper list stays compact (the child handles of rlm_query, rlm_query_batched and children() took 400 chars)")
	// Without stored children, the store section promises none.
	given := builtins.PromptHelpFor(builtins.HelpOptions{Store: true})
	assert.Contains(t, given, "Read the store (read-only): the keys given to this run")
	assert.NotContains(t, given, "rlm_query child")
	assert.Contains(t, help, "every rlm_query child's outputs are stored")
	// Without a store to read, the store helpers are left out.
	plain := builtins.PromptHelp()
	assert.NotContains(t, plain, "store_get")
	assert.NotContains(t, plain, "Read the store")
	assert.Less(t, len(plain), 3300, "the helper list stays compact")
}
