package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoreCLI(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	env := map[string]string{"RLM_STORE": store}
	notes := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("line one\nline two\n"), 0o644))
	data := filepath.Join(dir, "data.json")
	require.NoError(t, os.WriteFile(data, []byte(`{"b": 1, "a": [1.0, "x"]}`), 0o644))

	src := filepath.Join(dir, "src")
	require.NoError(t, os.MkdirAll(filepath.Join(src, "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "pkg", "a.go"), []byte("package pkg\n"), 0o644))
	require.NoError(t, os.Symlink(notes, filepath.Join(src, "escape.txt")))

	latin1 := filepath.Join(dir, "latin1.txt")
	require.NoError(t, os.WriteFile(latin1, []byte("caf\xe9"), 0o644))

	steps := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stdout   []string
		notOut   []string
		stderrIn string
	}{
		{name: "put text", args: []string{"store", "put", "notes", notes}, stdout: []string{"stored notes (text, global", "version 1"}},
		{
			name:   "put json with flags after args",
			args:   []string{"store", "put", "cfg", data, "--scope", "agent:1", "--persist"},
			stdout: []string{"stored cfg (json, agent:1"},
		},
		{
			name:   "put stdin typed",
			stdin:  `[{"role": "user", "content": "hi"}]`,
			args:   []string{"store", "put", "--type", "json", "chat", "-"},
			stdout: []string{"stored chat (json"},
		},
		{
			name:     "put directory",
			args:     []string{"store", "put", "tree", src},
			stdout:   []string{"stored tree (files, global"},
			stderrIn: "escape.txt: skipped symlink pointing outside the directory",
		},
		{name: "cat directory", args: []string{"store", "cat", "tree"}, stdout: []string{`{"pkg/a.go": "package pkg\n"}` + "\n"}},
		{name: "put traversal key", args: []string{"store", "put", "../../etc/passwd", notes}, stdout: []string{"stored ../../etc/passwd"}},
		{
			name:   "put copy from store",
			args:   []string{"store", "put", "copy", "store:cfg", "--scope", "session:s"},
			stdout: []string{"stored copy (json, session:s"},
		},
		{name: "ls", args: []string{"store", "ls"}, stdout: []string{"KEY", "notes", "cfg", "chat", "../../etc/passwd", "copy"}},
		{name: "ls scope", args: []string{"store", "ls", "--scope", "agent:1"}, stdout: []string{"cfg"}, notOut: []string{"notes", "chat"}},
		{name: "ls scope prefix", args: []string{"store", "ls", "--scope", "session:*"}, stdout: []string{"copy"}, notOut: []string{"cfg"}},
		{
			name:   "ls type",
			args:   []string{"store", "ls", "--type", "text"},
			stdout: []string{"notes", "passwd"},
			notOut: []string{"cfg", "chat"},
		},
		{
			name: "show",
			args: []string{"store", "show", "cfg"},
			stdout: []string{
				"key:     cfg",
				"type:    json",
				"scope:   agent:1",
				"version: 1",
				"summary: json dict of 2 keys",
				"keys [b, a]",
			},
		},
		{name: "cat text", args: []string{"store", "cat", "notes"}, stdout: []string{"line one\nline two\n"}},
		{name: "cat json", args: []string{"store", "cat", "cfg"}, stdout: []string{`{"b": 1, "a": [1.0, "x"]}` + "\n"}},
		{name: "put again bumps version", args: []string{"store", "put", "notes", data, "--type", "text"}, stdout: []string{"version 2"}},
		{name: "rm", args: []string{"store", "rm", "notes", "chat"}},
		{name: "rm missing", args: []string{"store", "rm", "notes"}, code: 1, stderrIn: `"notes": rlmctx: not found`},
		{name: "cat missing", args: []string{"store", "cat", "nope"}, code: 1, stderrIn: "not found"},
		{name: "ls after rm", args: []string{"store", "ls"}, stdout: []string{"cfg"}, notOut: []string{"notes", "chat"}},
		{name: "clear", args: []string{"store", "clear"}, stdout: []string{"removed 4 variables"}},
		{name: "ls empty", args: []string{"store", "ls"}, stdout: []string{"KEY"}, notOut: []string{"cfg"}},
		{name: "no subcommand", args: []string{"store"}, code: 2, stderrIn: "usage: rlm store"},
		{name: "unknown subcommand", args: []string{"store", "frob"}, code: 2, stderrIn: `unknown store subcommand "frob"`},
		{name: "rm no args", args: []string{"store", "rm"}, code: 2, stderrIn: "expected at least one KEY"},
		{name: "cat two keys", args: []string{"store", "cat", "a", "b"}, code: 2, stderrIn: "expected KEY, got 2"},
		{name: "clear with args", args: []string{"store", "clear", "x"}, code: 2, stderrIn: "expected no arguments"},
		{name: "put missing args", args: []string{"store", "put", "k"}, code: 2, stderrIn: "expected KEY SOURCE"},
		{name: "put bad type", args: []string{"store", "put", "k", notes, "--type", "txt"}, code: 2, stderrIn: "bad variable type"},
		{name: "put bad scope", args: []string{"store", "put", "k", notes, "--scope", "team"}, code: 2, stderrIn: "bad scope"},
		{name: "put missing file", args: []string{"store", "put", "k", filepath.Join(dir, "nope.txt")}, code: 1, stderrIn: "no such file"},
		{
			name:     "put type mismatch",
			args:     []string{"store", "put", "k", notes, "--type", "working_memory"},
			code:     1,
			stderrIn: "malformed input",
		},
		{name: "put invalid utf8", args: []string{"store", "put", "k", latin1}, code: 1, stderrIn: "invalid UTF-8 at byte offset 3"},
		{name: "put non-UTF-8 key", args: []string{"store", "put", "bad\xffkey", notes}, code: 1, stderrIn: "not valid UTF-8"},
		{name: "bad flag", args: []string{"store", "ls", "--nope"}, code: 2, stderrIn: "flag provided but not defined"},
		{name: "put -h", args: []string{"store", "put", "-h"}, code: 0, stdout: []string{"usage: rlm store put"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, st.stdin, env, st.args...)
			require.Equal(t, st.code, code, "stdout: %s\nstderr: %s", out, errOut)
			for _, s := range st.stdout {
				assert.Contains(t, out, s)
			}
			for _, s := range st.notOut {
				assert.NotContains(t, out, s)
			}
			if st.stderrIn != "" {
				assert.Contains(t, errOut, st.stderrIn)
			}
		})
	}
}

func TestStoreCLIStoreFlag(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	code, _, errOut := runCLI(t, "from stdin", nil, "store", "--store", a, "put", "k", "-")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCLI(t, "other", map[string]string{"RLM_STORE": a}, "store", "put", "k2", "-", "--store", b)
	require.Equal(t, 0, code, errOut)
	_, out, _ := runCLI(t, "", map[string]string{"RLM_STORE": a}, "store", "ls")
	assert.Contains(t, out, "k ")
	assert.NotContains(t, out, "k2")
	_, out, _ = runCLI(t, "", nil, "store", "cat", "k2", "--store", b)
	assert.Equal(t, "other", out)

	// Reading a store that does not exist says so and does not create it.
	missing := filepath.Join(dir, "typo")
	for _, sub := range [][]string{{"ls"}, {"show", "k"}, {"cat", "k"}, {"rm", "k"}, {"clear"}} {
		code, _, errOut = runCLI(t, "", nil, append([]string{"store", "--store", missing}, sub...)...)
		assert.Equal(t, 1, code, sub)
		assert.Contains(t, errOut, "the store "+missing+" does not exist", sub)
	}
	assert.NoDirExists(t, missing)

	// Default: .rlm/store under the working directory.
	t.Chdir(dir)
	code, _, errOut = runCLI(t, "x", nil, "store", "put", "k", "-")
	require.Equal(t, 0, code, errOut)
	assert.DirExists(t, filepath.Join(dir, ".rlm", "store"))
}

func TestStoreCLIWarnsOnCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.meta.json"), []byte("{"), 0o644))
	code, _, errOut := runCLI(t, "", nil, "store", "--store", dir, "ls")
	require.Equal(t, 0, code)
	assert.True(t, strings.Contains(errOut, "warning: store: skipped junk.meta.json"), errOut)
}

// TestStoreCLIFsck: an entry with damaged metadata survives ls and cat,
// fsck reports it, fsck --repair makes it readable again.
func TestStoreCLIFsck(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.txt")
	require.NoError(t, os.WriteFile(doc, []byte("precious text\n"), 0o644))
	store := filepath.Join(dir, "store")
	env := map[string]string{"RLM_STORE": store}
	code, _, errOut := runCLI(t, "", env, "store", "put", "precious", doc)
	require.Equal(t, 0, code, errOut)
	meta := filepath.Join(store, "precious.meta.json")
	b, err := os.ReadFile(meta)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(meta, []byte(strings.Replace(string(b), "{", "{,", 1)), 0o644))
	values, _ := filepath.Glob(filepath.Join(store, "precious.v-*.txt"))
	require.Len(t, values, 1)

	steps := []struct {
		args     []string
		code     int
		stdout   []string
		stderrIn []string
	}{
		{
			args:     []string{"ls"},
			stderrIn: []string{"skipped precious.meta.json: corrupted metadata", "nothing was deleted", "hint: rlm store fsck"},
		},
		{args: []string{"cat", "precious"}, code: 1, stderrIn: []string{"corrupted metadata", "rlm store fsck --repair"}},
		{
			args:   []string{"fsck"},
			code:   1,
			stdout: []string{"corrupt: precious.meta.json", "0 readable variables, 1 problems", "run rlm store fsck --repair"},
		},
		{
			args:   []string{"fsck", "--repair"},
			stdout: []string{"rebuilt: key precious is readable again", "moved files are in " + filepath.Join(store, ".quarantine")},
		},
		{args: []string{"cat", "precious"}, stdout: []string{"precious text\n"}},
		{args: []string{"fsck"}, stdout: []string{"1 readable variables, 0 problems"}},
	}
	for _, st := range steps {
		code, out, errOut := runCLI(t, "", env, append([]string{"store"}, st.args...)...)
		require.Equal(t, st.code, code, "%v\nstdout: %s\nstderr: %s", st.args, out, errOut)
		for _, s := range st.stdout {
			assert.Contains(t, out, s, st.args)
		}
		for _, s := range st.stderrIn {
			assert.Contains(t, errOut, s, st.args)
		}
		b, err := os.ReadFile(values[0])
		require.NoError(t, err, "the value file is never removed (%v)", st.args)
		assert.Equal(t, "precious text\n", string(b))
	}
}
