package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// flagName matches a command-line flag such as --max-depth.
var flagName = regexp.MustCompile(`(^|[\s(/"'])--[a-z][a-z-]+`)

// flagExempt are the files and directories outside cmd/ whose strings may
// name the command's flags: they are part of the command's interface, not
// libraries configured through a Config.
var flagExempt = map[string]bool{
	// It generates the command's documentation (helpers.md), whose
	// examples show how the command is invoked (--var files=src/).
	"docs/docs.go": true,
	// The load test runs `rlm serve` as a child process, passing it flags,
	// and rlm-loadtest forwards extra serve flags to it.
	"internal/loadtest": true,
	// Test support that starts other programs (versitygw, PostgreSQL)
	// with their own flags.
	"blobs/blobstest":     true,
	"cluster/clustertest": true,
}

// Library packages do not name the command's flags in their strings (error
// messages included): a library is configured through its Config fields,
// and cmd/rlm adds the advice about which flag to pass.
func TestLibraryStringsNameNoFlags(t *testing.T) {
	root := "../.."
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if flagExempt[rel] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			// The root itself is "../..", whose name starts with a dot: only
			// the hidden directories below it are skipped. internal/starlark
			// (the interpreter's copy) is checked too: it names no flag.
			if rel != "." && (rel == "cmd" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && flagName.MatchString(s) {
				t.Errorf("%s: string %s names a CLI flag; say it in cmd/rlm instead", rel, lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range flagExempt {
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			t.Errorf("exempt path %s: %v (remove it from flagExempt)", rel, err)
		}
	}
	if files == 0 {
		t.Fatalf("no Go file inspected under %s: the walk checks nothing", root)
	}
}
