package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testEnv(stdin string, vars map[string]string) *cliEnv {
	return &cliEnv{
		stdin:  strings.NewReader(stdin),
		stdout: io.Discard,
		stderr: io.Discard,
		getenv: func(k string) string { return vars[k] },
	}
}

func TestVarFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var vf varFlags
	fs.Var(&vf, "var", varFlagUsage)
	require.NoError(t, fs.Parse([]string{"--var", "a=x.txt", "--var", "b:json=-"}))
	assert.Equal(t, varFlags{"a=x.txt", "b:json=-"}, vf)
	err := fs.Parse([]string{"--var", "bad name=x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invalid variable name")
	err = fs.Parse([]string{"--var", "nospec"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NAME=SOURCE")
}

func TestStoreDirFlag(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, filepath.Join(".rlm", "store")},
		{map[string]string{"RLM_STORE": "/tmp/s"}, nil, "/tmp/s"},
		{map[string]string{"RLM_STORE": "/tmp/s"}, []string{"--store", "/x"}, "/x"},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		p := storeDirFlag(fs, testEnv("", tt.env))
		require.NoError(t, fs.Parse(tt.args))
		assert.Equal(t, tt.want, *p)
	}
}

func TestLoadContext(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	notes := write("notes.txt", "hello")
	recs := write("recs.jsonl", "{\"a\": 1}\n{\"a\": 2}\n")
	write("src/main.go", "package main\n")
	write("src/blob.bin", "\x00\x01")
	session := write("session.json", `{"messages": [{"role": "user", "content": "hi"}], "memory": {"k": "v"}}`)
	big := write("big.txt", strings.Repeat("a line of a large log file\n", 50000)) // 1.35 MB

	storeDir := filepath.Join(dir, "store")
	st, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: storeDir})
	require.NoError(t, err)
	_, err = st.Set("prev", []any{"x"}, rlmctx.WithPersist())
	require.NoError(t, err)
	require.NoError(t, st.Close())

	c, warns, err := loadContext(testEnv("from stdin", nil), "the query",
		[]string{"notes=" + notes, "recs=" + recs, "src=" + filepath.Join(dir, "src"), "piped=-", "prev=store:prev", "log=" + big},
		session, storeDir)
	require.NoError(t, err)
	assert.Equal(t, "the query", c.Query)
	assert.Equal(t, []string{"conversation", "working_memory", "notes", "recs", "src", "piped", "prev", "log", "log_chunks"}, c.Names())
	types := map[string]rlmctx.VarType{}
	for _, v := range c.Vars {
		types[v.Name] = v.Type
	}
	assert.Equal(t, rlmctx.Conversation, types["conversation"])
	assert.Equal(t, rlmctx.Files, types["src"])
	assert.Equal(t, rlmctx.JSON, types["recs"])
	v, _ := c.Get("piped")
	assert.Equal(t, "from stdin", v.Value)
	assert.Equal(t, "stdin", v.Source)
	v, _ = c.Get("prev")
	assert.Equal(t, []any{"x"}, v.GoValue(), "a stored JSON value, read as its document")
	w := strings.Join(warns, "\n")
	assert.Contains(t, w, "blob.bin: skipped binary file")
	assert.Contains(t, w, "variable log needs chunking: 1.3 MB is over 1.0 MB")
	assert.Contains(t, w, "added log_chunks")

	errCases := []struct {
		vars    []string
		session string
		store   string
		msg     string
	}{
		{[]string{"a=-", "b=-"}, "", "", "only one variable"},
		{[]string{"a=" + notes, "a=" + notes}, "", "", "used twice"},
		{[]string{"conversation=" + notes}, session, "", "used twice"},
		{[]string{"a=store:prev"}, "", "", "no variable store"},
		{[]string{"a=store:missing"}, "", storeDir, "rlm store ls"},
		{[]string{"a=" + filepath.Join(dir, "none.txt")}, "", "", "no such file"},
		{[]string{"bad-name=x"}, "", "", "invalid variable name"},
		{[]string{"z=/dev/zero"}, "", "", "--var z: /dev/zero: rlmctx: not a regular file (a character device)"},
		{nil, filepath.Join(dir, "nosession.json"), "", "--session"},
	}
	for _, ec := range errCases {
		_, _, err := loadContext(testEnv("", nil), "q", ec.vars, ec.session, ec.store)
		require.Error(t, err, ec.vars)
		assert.Contains(t, err.Error(), ec.msg)
	}
}

func TestLoadContextStdinBuffer(t *testing.T) {
	env := &cliEnv{
		stdin:  bytes.NewBufferString(`{"k": [1, 2]}`),
		stdout: io.Discard,
		stderr: io.Discard,
		getenv: func(string) string { return "" },
	}
	c, warns, err := loadContext(env, "q", []string{"data:json=-"}, "", "")
	require.NoError(t, err)
	assert.Empty(t, warns)
	v, _ := c.Get("data")
	assert.Equal(t, rlmctx.JSON, v.Type)
	assert.Equal(t, 2, v.ItemCount+1, "dict with one key")
}

func TestSizeFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := registerSizeFlags(fs)
	assert.Equal(t, rlmctx.DefaultSizeConfig(), *cfg)
	require.NoError(
		t,
		fs.Parse([]string{"--warn-size", "10KB", "--chunk-threshold", "1.5MB", "--chunk-size", "4096", "--max-context-size", "2GiB"}),
	)
	assert.Equal(t, rlmctx.SizeConfig{WarnThreshold: 10 << 10, ChunkThreshold: 3 << 19, ChunkSize: 4096, MaxTotalSize: 2 << 30}, *cfg)
	for _, bad := range []string{"", "-1", "abc", "10XB", "0"} {
		assert.Error(t, fs.Parse([]string{"--warn-size", bad}), bad)
	}

	dir := t.TempDir()
	p := filepath.Join(dir, "log.txt")
	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("0123456789\n", 100)), 0o644))
	c, warns, err := loadContextSized(
		testEnv("", nil),
		"q",
		[]string{"log=" + p},
		"",
		"",
		rlmctx.SizeConfig{WarnThreshold: 100, ChunkThreshold: 500, ChunkSize: 200},
		nil,
		true,
	)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(warns, "\n"), "needs chunking")
	v, ok := c.Get("log_chunks")
	require.True(t, ok)
	assert.Equal(t, 6, v.ItemCount)
}

// TestExecStoreVar: values put with rlm store put reach rlm exec through
// --var NAME=store:KEY exactly (bytes, types, large memory-mapped texts).
func TestExecStoreVar(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	env := map[string]string{"RLM_STORE": store}
	notes := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("café\r\nline two\r\nno newline at the end"), 0o644))
	big := filepath.Join(dir, "big.log")
	bigText := strings.Repeat("2026-01-01 INFO a line of a large log\n", 40000) // 1.5 MB: memory-mapped, auto-chunked
	require.NoError(t, os.WriteFile(big, []byte(bigText), 0o644))

	for _, put := range [][]string{
		{"store", "put", "notes", notes},
		{"store", "put", "big", big},
		{"store", "put", "chat", "-", "--scope", "session:1", "--type", "conversation"},
	} {
		code, _, errOut := runCLI(t, `[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]`, env, put...)
		require.Equal(t, 0, code, errOut)
	}

	code, out, errOut := runCLI(t, "", env, "exec", "--var", "n=store:notes", "--var", "chat=store:chat", "--var", "log=store:big",
		"-c", `print(len(chat), chat[1]["content"])
print(len(log), len(log_chunks), "".join(log_chunks) == log)
SUBMIT({"n": n})`)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Equal(t, "2 hello", lines[0])
	assert.Equal(t, fmt.Sprintf("%d 15 True", len(bigText)), lines[1])
	assert.JSONEq(t, `{"n": "café\r\nline two\r\nno newline at the end"}`, lines[2], "text exact through the store")
	assert.Contains(t, errOut, "added log_chunks")

	// Type override on a store value; the store flag beats RLM_STORE.
	code, out, errOut = runCLI(t, "", map[string]string{"RLM_STORE": filepath.Join(dir, "elsewhere")},
		"exec", "--store", store, "--var", "c:json=store:chat", "-c", `print(type(c), c[0]["role"])`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "<class 'list'> user\n", out)

	// Errors: a missing key, a store that does not exist (not created).
	code, _, errOut = runCLI(t, "", env, "exec", "--var", "x=store:nope", "-c", "print(x)")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `--var x: store:nope: store key "nope": rlmctx: not found`)
	assert.Contains(t, errOut, "rlm store ls")
	missing := filepath.Join(dir, "no-such-store")
	code, _, errOut = runCLI(t, "", nil, "exec", "--store", missing, "--var", "x=store:notes", "-c", "print(x)")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "the store "+missing+" does not exist")
	assert.NoDirExists(t, missing)
}

// TestRunStoreVar: rlm run takes --var NAME=store:KEY; the root model sees
// the variable's summary, not its content.
func TestRunStoreVar(t *testing.T) {
	srv := llmtest.NewServer(t)
	scriptedRoot(srv)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte(strings.Repeat("filler line\n", 1000)+"the magic number is 42\n"), 0o644))
	code, _, errOut := runCLI(t, "", nil, "store", "--store", store, "put", "notes", ctxFile)
	require.Equal(t, 0, code, errOut)

	env := map[string]string{
		"OPENAI_BASE_URL": srv.URL(),
		"OPENAI_API_KEY":  "sk-test",
		"RLM_MODEL":       "root",
		"RLM_SUB_MODEL":   "sub",
		"RLM_STORE":       store,
	}
	code, out, errOut := runCLI(t, "", env, "run", "--query", "What is the magic number?", "--var", "context=store:notes", "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "42\n", out)
	var root []string
	for _, c := range srv.Calls() {
		if c.Model == "root" {
			for _, m := range c.Messages {
				root = append(root, m.Content)
			}
		}
	}
	require.NotEmpty(t, root)
	prompt := strings.Join(root, "\n")
	assert.Contains(t, prompt, "- context: text, 11.7 KB, 4,007 tokens, 1,001 lines; preview")
	assert.NotContains(t, prompt, "the magic number is 42", "the content stays in the variable")
}

// TestSizes: one parser and two printers of byte sizes: formatSize is
// exact (kept runs record flags with it, and it parses back to the same
// count), readableSize rounds for people.
func TestSizes(t *testing.T) {
	tests := []struct {
		n               int64
		exact, readable string
	}{
		{512, "512", "512"},
		{100 << 10, "100KB", "100KB"},
		{1536, "1536", "1.5KB"},
		{64 << 20, "64MB", "64MB"},
		{1 << 30, "1GB", "1GB"},
		{12342046 << 10, "12342046KB", "11.8GB"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.exact, formatSize(tt.n))
		assert.Equal(t, tt.readable, readableSize(tt.n))
		back, err := parseCtxSize(tt.exact)
		require.NoError(t, err)
		assert.Equal(t, tt.n, back, "formatSize parses back exactly")
	}
	for _, bad := range []string{"", "lots", "-1MB", "0"} {
		_, err := parseCtxSize(bad)
		assert.Error(t, err, bad)
	}
}
