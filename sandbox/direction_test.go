package sandbox

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// isModuleFile reports whether the named file of this package holds a
// Python module (lib_<module>.go) rather than the value layer or the
// public face.
func isModuleFile(name string) bool {
	return strings.HasPrefix(filepath.Base(name), "lib_")
}

// TestModulesAboveValueLayer enforces the direction inside the sandbox: the
// modules (lib_*.go) may use the value layer, but no other file of the
// package may name anything a lib_*.go file declares (a type, function,
// variable, constant, field or method), and a lib_*.go file declares no
// methods on the value layer's types. The value layer reaches module
// behaviour through small optional interfaces and registration hooks it
// defines itself, so that the modules can move to their own package.
func TestModulesAboveValueLayer(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package")
	}
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(".", name); err != nil || !ok {
			continue // split.go and other build-ignored files
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// The export data of the dependencies, as the go command builds it.
	out, err := exec.Command("go", "list", "-deps", "-export", "-f", "{{.ImportPath}} {{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	export := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if path, file, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			export[path] = file
		}
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := export[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check("github.com/rlmhq/rlm/sandbox", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		use, decl := fset.Position(id.Pos()), fset.Position(obj.Pos())
		if !isModuleFile(use.Filename) && isModuleFile(decl.Filename) {
			bad = append(bad, use.String()+": "+id.Name+" (declared in "+filepath.Base(decl.Filename)+")")
		}
	}
	for id, obj := range info.Defs {
		fn, ok := obj.(*types.Func)
		if !ok {
			continue
		}
		recv := fn.Type().(*types.Signature).Recv()
		if recv == nil {
			continue
		}
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		named, ok := t.(*types.Named)
		if !ok {
			continue
		}
		def, typ := fset.Position(id.Pos()), fset.Position(named.Obj().Pos())
		if isModuleFile(def.Filename) && !isModuleFile(typ.Filename) {
			bad = append(bad, def.String()+": method "+named.Obj().Name()+"."+id.Name+" of the value layer (declared in "+filepath.Base(typ.Filename)+")")
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Errorf("%d references from the value layer to the modules or methods of it in module files", len(bad))
	}
}
