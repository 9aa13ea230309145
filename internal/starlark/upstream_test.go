// Upstream's own tests, run against rlm's patched copy of the interpreter.
//
// The copy in this folder is go.starlark.net at upstreamVersion with the
// patches listed in PATCHES.md. TestUpstream fetches that version of the
// module with the go command (never committed), replaces its interpreter
// sources by the copy's (import paths turned back into go.starlark.net's),
// runs upstream's tests there, and compares every failure with the
// expected deviations committed in upstream-deviations.txt: a failure not
// listed fails the test, and so does a listed one that no longer happens,
// so the list stays exactly the documented differences.
//
// It downloads the module, so it runs only when RLM_UPSTREAM=1 (make
// upstream, which .ci/run calls).
package starlark_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// upstreamVersion is the go.starlark.net version the copy was taken from.
const upstreamVersion = "v0.0.0-20260908191801-89a6a09411d5"

// ourPath is the import path prefix of the copy inside rlm.
const ourPath = "github.com/rlmhq/rlm/internal/starlark/"

func TestUpstream(t *testing.T) {
	if os.Getenv("RLM_UPSTREAM") != "1" {
		t.Skip("upstream's tests download go.starlark.net: run them with RLM_UPSTREAM=1 (make upstream)")
	}
	patches, err := os.ReadFile("PATCHES.md")
	require.NoError(t, err)
	require.Contains(t, string(patches), upstreamVersion, "PATCHES.md must name the upstream version the copy is based on")

	dev, err := readDeviations("upstream-deviations.txt")
	require.NoError(t, err)

	dir := t.TempDir()
	require.NoError(t, copyTree(downloadUpstream(t), dir))
	require.NoError(t, overlayCopy(".", dir))
	for _, d := range dev.dropFuncs {
		require.NoError(t, dropFunc(filepath.Join(dir, d.file), d.name), "adaptation %s %s", d.file, d.name)
	}

	cmd := exec.Command("go", "test", "-count=1", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output() // a failing test exits non-zero: the events say which
	got, passed, err := failures(out)
	require.NoError(t, err, "reading go test -json output (go test: %v, stderr: %s)", runErr, stderr.String())
	require.NotZero(t, passed, "no upstream test passed: the run did not happen (go test: %v, stderr: %s)", runErr, stderr.String())
	t.Logf("upstream tests: %d passed, %d expected deviations", passed, len(dev.fails))

	var unexpected, gone []string
	for _, f := range got {
		if !slices.Contains(dev.fails, f) {
			unexpected = append(unexpected, f)
		}
	}
	for _, f := range dev.fails {
		if !slices.Contains(got, f) {
			gone = append(gone, f)
		}
	}
	if len(unexpected) > 0 {
		t.Errorf("upstream tests fail in ways upstream-deviations.txt does not list: fix the copy, or if the difference "+
			"is deliberate, document it in PATCHES.md and add these lines:\n%s", strings.Join(unexpected, "\n"))
	}
	if len(gone) > 0 {
		t.Errorf("upstream-deviations.txt lists failures that no longer happen: remove these lines:\n%s", strings.Join(gone, "\n"))
	}
	if runErr != nil && len(got) == 0 {
		t.Errorf("go test failed without a failing test: %v\n%s", runErr, stderr.String())
	}
}

// downloadUpstream returns the directory of upstreamVersion in the module cache.
func downloadUpstream(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", "go.starlark.net@"+upstreamVersion)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	require.NoError(t, err, "go mod download go.starlark.net@%s: %s", upstreamVersion, out)
	var mod struct{ Dir, Error string }
	require.NoError(t, json.Unmarshal(out, &mod))
	require.Empty(t, mod.Error)
	return mod.Dir
}

// copyTree copies the files under src to dst, writable (the module cache is read-only).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// overlayCopy replaces, in each package folder of the copy, upstream's
// non-test Go files in dst by the copy's, with their import paths (and
// linkname targets) turned back into go.starlark.net's. The copy's own
// tests (rlm_*_test.go) run in rlm's module, not here.
func overlayCopy(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		ours, err := filepath.Glob(filepath.Join(p, "*.go"))
		if err != nil {
			return err
		}
		ours = slices.DeleteFunc(ours, func(f string) bool { return strings.HasSuffix(f, "_test.go") })
		if len(ours) == 0 {
			return nil
		}
		theirs, err := filepath.Glob(filepath.Join(dst, p, "*.go"))
		if err != nil {
			return err
		}
		for _, f := range theirs {
			if !strings.HasSuffix(f, "_test.go") {
				if err := os.Remove(f); err != nil {
					return err
				}
			}
		}
		for _, f := range ours {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			b = bytes.ReplaceAll(b, []byte(ourPath), []byte("go.starlark.net/"))
			if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
}

// dropFunc removes the top-level function name from the Go file at path
// (an upstream test helper that the copy now declares itself).
func dropFunc(path, name string) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return err
	}
	n := len(f.Decls)
	f.Decls = slices.DeleteFunc(f.Decls, func(d ast.Decl) bool {
		fd, ok := d.(*ast.FuncDecl)
		return ok && fd.Recv == nil && fd.Name.Name == name
	})
	if len(f.Decls) == n {
		return fmt.Errorf("no function %s in %s", name, path)
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// deviations is the parsed upstream-deviations.txt.
type deviations struct {
	dropFuncs []struct{ file, name string }
	fails     []string // "TestName<TAB>record"
}

// readDeviations parses the deviations file: comment lines start with #;
// "drop-func FILE NAME" removes a test helper before the run; every other
// line is an expected failure, "TEST<TAB>RECORD" as failures prints them.
func readDeviations(path string) (deviations, error) {
	var d deviations
	b, err := os.ReadFile(path)
	if err != nil {
		return d, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "drop-func "):
			f := strings.Fields(line)
			if len(f) != 3 {
				return d, fmt.Errorf("%s:%d: want drop-func FILE NAME", path, i+1)
			}
			d.dropFuncs = append(d.dropFuncs, struct{ file, name string }{f[1], f[2]})
		case strings.Contains(line, "\t"):
			d.fails = append(d.fails, line)
		default:
			return d, fmt.Errorf("%s:%d: want a comment, drop-func FILE NAME, or TEST<TAB>FAILURE", path, i+1)
		}
	}
	return d, nil
}

// failures reads go test -json output and returns each failure record as
// "TEST<TAB>RECORD" (a record is one t.Error's lines, trimmed and joined
// with " | "; a package that does not build gives one record of its build
// output), and the number of tests that passed.
func failures(out []byte) (fails []string, passed int, err error) {
	type event struct{ Action, Package, Test, Output string }
	outputs := map[string][]string{} // by package and test
	var failed []string
	build := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, 0, err
		}
		key := e.Package + "\t" + e.Test
		switch e.Action {
		case "output":
			outputs[key] = append(outputs[key], e.Output)
		case "build-output":
			build[e.Package] = append(build[e.Package], strings.TrimSpace(e.Output))
		case "pass":
			if e.Test != "" {
				passed++
			}
		case "fail":
			if e.Test != "" {
				failed = append(failed, key)
			} else if b := build[e.Package]; len(b) > 0 {
				fails = append(fails, "build "+e.Package+"\t"+strings.Join(b, " | "))
			}
		}
	}
	for _, key := range failed {
		test := key[strings.Index(key, "\t")+1:]
		var rec []string
		flush := func() {
			if len(rec) > 0 {
				fails = append(fails, test+"\t"+strings.Join(rec, " | "))
				rec = nil
			}
		}
		for _, o := range outputs[key] {
			o = strings.TrimRight(o, "\n")
			trimmed := strings.TrimSpace(o)
			switch {
			case trimmed == "" || strings.HasPrefix(trimmed, "=== ") || strings.HasPrefix(trimmed, "--- "):
			case strings.HasPrefix(o, "    ") && !strings.HasPrefix(o, "     "):
				flush() // a new t.Error: four spaces, then file.go:line:
				rec = append(rec, trimmed)
			default:
				rec = append(rec, trimmed)
			}
		}
		flush()
	}
	slices.Sort(fails)
	return fails, passed, sc.Err()
}
