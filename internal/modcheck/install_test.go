// Package modcheck checks that rlm can be used as its users get it: as a
// module fetched from a module proxy, never as a checkout. TestInstall
// makes a file-based module proxy holding this checkout as version
// checkVersion, then, with the go command and no network (the other
// modules come from the local module cache, itself a file proxy):
//
//   - installs cmd/rlm with go install …/cmd/rlm@checkVersion and runs
//     rlm version, which must print checkVersion;
//   - builds a throwaway module that requires rlm and imports sandbox,
//     orchestrator and server.
//
// Go refuses go install for a module with replace or exclude directives,
// and a consumer's build ignores them, so both fail if go.mod has one.
// It compiles all of rlm outside the build cache's reach, so it runs only
// with RLM_INSTALL_CHECK=1 (make install-check, which .ci/run calls).
package modcheck_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

const (
	modPath      = "github.com/rlmhq/rlm"
	checkVersion = "v0.3.0"
)

func TestInstall(t *testing.T) {
	if os.Getenv("RLM_INSTALL_CHECK") != "1" {
		t.Skip("the install check compiles all of rlm from a module proxy: run it with RLM_INSTALL_CHECK=1 (make install-check)")
	}
	root := repoRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		require.False(t, len(f) > 0 && (f[0] == "replace" || f[0] == "exclude"),
			"go.mod has %q: go install refuses such a module and consumers' builds ignore it", line)
	}

	proxy := t.TempDir()
	writeProxy(t, root, proxy, gomod)

	cache := strings.TrimSpace(goOutput(t, "", nil, "env", "GOMODCACHE"))
	env := []string{
		// This checkout, then the modules already downloaded: no network.
		// The checksum database is off too: the cached modules were
		// verified when they were downloaded, and it does not know the
		// checkout's version.
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(cache, "cache", "download")),
		"GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local",
	}

	t.Run("go install", func(t *testing.T) {
		bin := t.TempDir()
		goOutput(t, t.TempDir(), append(env, "GOBIN="+bin), "install", modPath+"/cmd/rlm@"+checkVersion)
		out, err := exec.Command(filepath.Join(bin, "rlm"), "version").CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "rlm "+checkVersion, "an installed rlm reports the module version it was installed at")
	})

	t.Run("import", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"),
			[]byte("module example.com/consumer\n\ngo 1.26\n\nrequire "+modPath+" "+checkVersion+"\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(consumer), 0o644))
		goOutput(t, dir, env, "mod", "tidy")
		goOutput(t, dir, env, "build", "-o", filepath.Join(dir, "consumer"), ".")
		out, err := exec.Command(filepath.Join(dir, "consumer")).CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Equal(t, "ok\n", string(out))
	})
}

// consumer is a program of a team embedding rlm: it names a type or
// function of each public package it imports, so each must compile.
const consumer = `package main

import (
	"fmt"

	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/sandbox"
	"github.com/rlmhq/rlm/server"
)

var (
	_ = sandbox.New
	_ orchestrator.Config
	_ server.Config
)

func main() { fmt.Println("ok") }
`

// writeProxy lays out a GOPROXY directory holding the checkout's files
// (tracked, or untracked and not ignored) as modPath@checkVersion.
func writeProxy(t *testing.T, root, proxy string, gomod []byte) {
	t.Helper()
	dir := filepath.Join(proxy, filepath.FromSlash(modPath), "@v")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	info, _ := json.Marshal(struct{ Version, Time string }{checkVersion, time.Now().UTC().Format(time.RFC3339)})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "list"), []byte(checkVersion+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, checkVersion+".info"), info, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, checkVersion+".mod"), gomod, 0o644))

	var files []modzip.File
	for _, name := range strings.Split(gitOutput(t, root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00") {
		if name == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, name)); err == nil { // deleted in the work tree: not part of it
			files = append(files, checkoutFile{root, name})
		}
	}
	var buf bytes.Buffer
	require.NoError(t, modzip.Create(&buf, module.Version{Path: modPath, Version: checkVersion}, files))
	_, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, checkVersion+".zip"), buf.Bytes(), 0o644))
}

// checkoutFile is a file of the checkout, as golang.org/x/mod/zip reads it.
type checkoutFile struct{ root, name string }

func (f checkoutFile) Path() string                 { return f.name }
func (f checkoutFile) Lstat() (os.FileInfo, error)  { return os.Lstat(filepath.Join(f.root, f.name)) }
func (f checkoutFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.name)) }

func repoRoot(t *testing.T) string {
	t.Helper()
	return strings.TrimSpace(gitOutput(t, ".", "rev-parse", "--show-toplevel"))
}

func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "git %s", strings.Join(args, " "))
	return string(out)
}

func goOutput(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}
