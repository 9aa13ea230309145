//go:build ignore

// Split does the mechanical part of splitting package sandbox into
// internal/py (the value layer), internal/pylib (the modules, lib_*.go)
// and the public face. Run in sandbox/ on a clean tree:
//
//	go run split.go -py session.go,...,'*_test.go'
//
// It type-checks the package (its tests included) and, in one pass:
// exports every name used across the new package boundaries (a method by
// its name everywhere, interface methods included, so that module types
// keep satisfying the value layer's interfaces; the list is printed), with
// the overrides below for names whose exported form collides; qualifies
// the uses across packages (py.X in pylib; a use of the public face from
// py or pylib is reported, as it would be an import cycle); moves lib_*.go
// to internal/pylib and the files named by -py (all other files by
// default) to internal/py; and writes api.go, the public face's aliases
// and wrappers of the exported names that moved. What it leaves is listed
// in the report of the session that wrote it: test helpers, the tests
// that need the modules, and the face's own types.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

type edit struct {
	off, end int
	text     string
}

func main() {
	renameFile := flag.String("rename", "", "file of extra `old New` lines (old: Name, Type.field or .method)")
	pyFiles := flag.String("py", "", "comma-separated files that go to internal/py (default: all but lib_*.go); '*_test.go' for all tests")
	faceFiles := flag.String("face", "", "comma-separated test files that stay in the public face")
	flag.Parse()
	faceFile := map[string]bool{}
	for _, f := range strings.Split(*faceFiles, ",") {
		faceFile[f] = true
	}

	fset := token.NewFileSet()
	entries, _ := os.ReadDir(".")
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			panic(err)
		}
		if f.Name.Name != "sandbox" {
			continue
		}
		files = append(files, f)
	}
	out, err := exec.Command("go", "list", "-deps", "-test", "-export", "-f", "{{.ImportPath}} {{.Export}}", ".").Output()
	if err != nil {
		panic(err)
	}
	export := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if p, f, ok := strings.Cut(strings.TrimSpace(line), " "); ok && f != "" {
			if _, dup := export[p]; !dup {
				export[p] = f
			}
		}
	}
	lookup := func(path string) (io.ReadCloser, error) { return os.Open(export[path]) }
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check("github.com/rlmhq/rlm/sandbox", fset, files, info)
	if err != nil {
		panic(err)
	}

	// The owner type name of each field.
	fieldOwner := map[*types.Var]string{}
	for _, n := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(n).(*types.TypeName)
		if !ok {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for i := 0; i < st.NumFields(); i++ {
				fieldOwner[st.Field(i)] = n
			}
		}
	}
	// Overrides: exported forms that would collide.
	renames := map[string]string{
		"typeObj.name": "PyName",      // typeObj has a Name method
		"interrupted":  "Interrupted", // replaces the exported wrapper
	}
	if *renameFile != "" {
		f, err := os.Open(*renameFile)
		if err != nil {
			panic(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fs := strings.Fields(sc.Text()); len(fs) == 2 {
				renames[fs[0]] = fs[1]
			}
		}
	}
	keyOf := func(o types.Object) string {
		switch x := o.(type) {
		case *types.Var:
			o = x.Origin()
		case *types.Func:
			o = x.Origin()
		}
		switch o := o.(type) {
		case *types.Func:
			if o.Type().(*types.Signature).Recv() != nil {
				return "." + o.Name()
			}
		case *types.Var:
			if o.IsField() {
				return fieldOwner[o] + "." + o.Name()
			}
		}
		if o.Parent() == pkg.Scope() {
			return o.Name()
		}
		return ""
	}
	pyFile := map[string]bool{}
	if *pyFiles == "" {
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasPrefix(n, "lib_") && n != "split.go" {
				pyFile[n] = true
			}
		}
	}
	for _, f := range strings.Split(*pyFiles, ",") {
		pyFile[f] = true
	}
	dest := func(file string) string {
		base := filepath.Base(file)
		switch {
		case faceFile[base]:
			return "sandbox"
		case strings.HasPrefix(base, "lib_"):
			return "pylib"
		case pyFile[strings.TrimSuffix(base, "_test.go")+".go"] || pyFile[base] ||
			strings.HasSuffix(base, "_test.go") && pyFile["*_test.go"]:
			return "py"
		}
		return "sandbox"
	}
	{
		exportName := func(n string) string {
			if n == "" || ast.IsExported(n) {
				return n
			}
			e := strings.ToUpper(n[:1]) + n[1:]
			if r, ok := renames[n]; ok {
				return r
			}
			return e
		}
		add := func(k, n string) {
			if _, ok := renames[k]; !ok && !ast.IsExported(n) {
				renames[k] = exportName(n)
			}
		}
		for id, o := range info.Uses {
			if o.Pkg() != pkg {
				continue
			}
			from, to := dest(fset.Position(id.Pos()).Filename), dest(fset.Position(o.Pos()).Filename)
			if from == to {
				continue
			}
			if k := keyOf(o); k != "" {
				add(k, o.Name())
			}
		}
		// Methods that lib types declare to satisfy interfaces of another destination.
		ifaceMethods := map[string]string{} // name -> dest of an interface declaring it
		libMethods := map[string]map[string]bool{}
		for _, o := range info.Defs {
			f, ok := o.(*types.Func)
			if !ok || f.Pkg() != pkg {
				continue
			}
			sig := f.Type().(*types.Signature)
			if sig.Recv() == nil {
				continue
			}
			d := dest(fset.Position(f.Pos()).Filename)
			if types.IsInterface(sig.Recv().Type()) {
				ifaceMethods[f.Name()] = d
			} else {
				if libMethods[f.Name()] == nil {
					libMethods[f.Name()] = map[string]bool{}
				}
				libMethods[f.Name()][d] = true
			}
		}
		for name, d := range ifaceMethods {
			for ld := range libMethods[name] {
				if ld != d {
					add("."+name, name)
				}
			}
		}
		var keys []string
		for k, v := range renames {
			keys = append(keys, k+" "+v)
		}
		sort.Strings(keys)
		fmt.Println(strings.Join(keys, "\n"))
	}
	writeFace(pkg, fset, dest)
	edits := map[string][]edit{}
	visit := func(id *ast.Ident, o types.Object) {
		if o == nil || o.Pkg() != pkg {
			return
		}
		name := id.Name
		if k := keyOf(o); k != "" {
			if n, ok := renames[k]; ok {
				name = n
			}
		}
		pos := fset.Position(id.Pos())
		// Qualify a package-level name declared in another destination package.
		if o.Parent() == pkg.Scope() {
			from, to := dest(pos.Filename), dest(fset.Position(o.Pos()).Filename)
			if from != to && info.Defs[id] == nil {
				if to == "sandbox" {
					fmt.Fprintf(os.Stderr, "%s: %s uses %s of the public face\n", pos, from, o.Name())
				}
				name = to + "." + name
			}
		}
		if name != id.Name {
			edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset, pos.Offset + len(id.Name), name})
		}
	}
	for id, o := range info.Defs {
		visit(id, o)
	}
	for id, o := range info.Uses {
		visit(id, o)
	}
	// The exported wrapper of interrupted goes: interrupted becomes it.
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "Interrupted" {
				start, end := fset.Position(fd.Doc.Pos()), fset.Position(fd.End())
				edits[start.Filename] = append(edits[start.Filename], edit{start.Offset, end.Offset, ""})
				// Drop the renames inside the removed declaration.
				var kept []edit
				for _, e := range edits[start.Filename] {
					if e.off < start.Offset || e.off >= end.Offset || e.text == "" {
						kept = append(kept, e)
					}
				}
				edits[start.Filename] = kept
			}
		}
	}
	for _, f := range files {
		file := fset.Position(f.Pos()).Filename
		src, _ := os.ReadFile(file)
		es := edits[file]
		if dest(file) == "pylib" && len(f.Imports) > 0 && slices.ContainsFunc(es, func(e edit) bool { return strings.HasPrefix(e.text, "py.") }) {
			// The value layer's import, a declaration of its own before the others.
			i := fset.Position(f.Decls[0].Pos()).Offset
			es = append(es, edit{i, i, "import \"github.com/rlmhq/rlm/sandbox/internal/py\"\n\n"})
		}
		sort.Slice(es, func(i, j int) bool { return es[i].off > es[j].off })
		for _, e := range es {
			src = append(src[:e.off], append([]byte(e.text), src[e.end:]...)...)
		}
		out := file
		if d := dest(file); d == "py" || d == "pylib" {
			s := string(src)
			s = strings.Replace(s, "package sandbox", "package "+d, 1)
			src = []byte(s)
			out = filepath.Join("internal", d, filepath.Base(file))
			os.MkdirAll(filepath.Dir(out), 0o755)
			os.Remove(file)
		}
		if err := os.WriteFile(out, src, 0o644); err != nil {
			panic(err)
		}
	}
}

// writeFace writes api.go: the public face's aliases of the exported
// names that moved to internal/py.
func writeFace(pkg *types.Package, fset *token.FileSet, dest func(string) string) {
	qual := func(p *types.Package) string {
		if p == pkg {
			return "" // an alias of the same name exists in the face
		}
		return p.Name()
	}
	var b strings.Builder
	b.WriteString("package sandbox\n\nimport \"github.com/rlmhq/rlm/sandbox/internal/py\"\n\n")
	imports := map[string]bool{}
	for _, n := range pkg.Scope().Names() {
		o := pkg.Scope().Lookup(n)
		if !o.Exported() || dest(fset.Position(o.Pos()).Filename) != "py" || strings.HasSuffix(fset.Position(o.Pos()).Filename, "_test.go") {
			continue
		}
		switch o := o.(type) {
		case *types.TypeName:
			if tp := o.Type().(*types.Named).TypeParams(); tp != nil && tp.Len() > 0 {
				fmt.Fprintf(&b, "// %s is [py.%s].\ntype %s[T any] = py.%s[T]\n\n", n, n, n, n)
				continue
			}
			fmt.Fprintf(&b, "// %s is [py.%s].\ntype %s = py.%s\n\n", n, n, n, n)
		case *types.Const:
			fmt.Fprintf(&b, "// %s is [py.%s].\nconst %s = py.%s\n\n", n, n, n, n)
		case *types.Var:
			fmt.Fprintf(&b, "// %s is [py.%s].\nvar %s = py.%s\n\n", n, n, n, n)
		case *types.Func:
			sig := o.Type().(*types.Signature)
			var tparams, targs []string
			if tp := sig.TypeParams(); tp != nil {
				for i := 0; i < tp.Len(); i++ {
					tparams = append(tparams, tp.At(i).Obj().Name()+" "+types.TypeString(tp.At(i).Constraint(), qual))
					targs = append(targs, tp.At(i).Obj().Name())
				}
			}
			var params, args []string
			for i := 0; i < sig.Params().Len(); i++ {
				v := sig.Params().At(i)
				name := v.Name()
				if name == "" || name == "_" {
					name = fmt.Sprintf("a%d", i)
				}
				t := types.TypeString(v.Type(), qual)
				if sig.Variadic() && i == sig.Params().Len()-1 {
					t = "..." + strings.TrimPrefix(t, "[]")
					name += "..."
					params = append(params, strings.TrimSuffix(name, "...")+" "+t)
					args = append(args, name)
					continue
				}
				params = append(params, name+" "+t)
				args = append(args, name)
			}
			res := types.TypeString(sig.Results(), qual)
			if sig.Results().Len() == 1 && sig.Results().At(0).Name() == "" {
				res = types.TypeString(sig.Results().At(0).Type(), qual)
			}
			for _, s := range []string{res, strings.Join(params, ",")} {
				for _, imp := range []string{"starlark", "context", "time", "io", "syntax", "resolve"} {
					if strings.Contains(s, imp+".") {
						imports[imp] = true
					}
				}
			}
			tps, tas := "", ""
			if len(tparams) > 0 {
				tps, tas = "["+strings.Join(tparams, ", ")+"]", "["+strings.Join(targs, ", ")+"]"
			}
			ret := "return "
			if sig.Results().Len() == 0 {
				ret = ""
			}
			fmt.Fprintf(&b, "// %s is [py.%s].\nfunc %s%s(%s) %s { %spy.%s%s(%s) }\n\n", n, n, n, tps, strings.Join(params, ", "), res, ret, n, tas, strings.Join(args, ", "))
		}
	}
	paths := map[string]string{"starlark": "github.com/rlmhq/rlm/internal/starlark/starlark", "syntax": "github.com/rlmhq/rlm/internal/starlark/syntax", "resolve": "github.com/rlmhq/rlm/internal/starlark/resolve", "context": "context", "time": "time", "io": "io"}
	src := b.String()
	var imps []string
	for k := range imports {
		imps = append(imps, "\t\""+paths[k]+"\"")
	}
	sort.Strings(imps)
	src = strings.Replace(src, "import \"github.com/rlmhq/rlm/sandbox/internal/py\"", "import (\n"+strings.Join(imps, "\n")+"\n\n\t\"github.com/rlmhq/rlm/sandbox/internal/py\"\n\t_ \"github.com/rlmhq/rlm/sandbox/internal/pylib\"\n)", 1)
	os.WriteFile("api.go", []byte(src), 0o644)
}
