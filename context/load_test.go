package rlmctx

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestParseVarSpec(t *testing.T) {
	tests := []struct {
		in      string
		want    VarSpec
		wantErr string
	}{
		{"doc=notes.txt", VarSpec{Name: "doc", Source: "notes.txt"}, ""},
		{"data:json=-", VarSpec{Name: "data", Type: JSON, Source: "-"}, ""},
		{"ctx=store:my key", VarSpec{Name: "ctx", Source: "store:my key"}, ""},
		{"src:files=./dir", VarSpec{Name: "src", Type: Files, Source: "./dir"}, ""},
		{"eq=a=b.txt", VarSpec{Name: "eq", Source: "a=b.txt"}, ""},
		{"notes.txt", VarSpec{}, "expected NAME=SOURCE"},
		{"=x", VarSpec{}, "expected NAME=SOURCE"},
		{"doc=", VarSpec{}, "empty SOURCE"},
		{"my-doc=x", VarSpec{}, "invalid variable name"},
		{"doc:txt=x", VarSpec{}, "bad variable type"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseVarSpec(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLoadSourceFiles(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	tests := []struct {
		name, file, content string
		opts                LoadOptions
		wantJSON            string // JSON of the value, or the text itself
		wantType            VarType
	}{
		{"text", "a.txt", "hello\nworld\n", LoadOptions{}, "hello\nworld\n", Text},
		{"markdown is text", "a.md", "# T\n", LoadOptions{}, "# T\n", Text},
		{"json dict", "d.json", `{"b": 1, "a": 2.0}`, LoadOptions{}, `{"b": 1, "a": 2.0}`, JSON},
		{"json with BOM", "bom.json", "\ufeff[1]", LoadOptions{}, `[1]`, JSON},
		{"json conversation", "c.json", `[{"role": "user", "content": "hi"}]`, LoadOptions{}, `[{"role": "user", "content": "hi"}]`, Conversation},
		{"json forced text", "t.json", `{"a": 1}`, LoadOptions{Type: Text}, `{"a": 1}`, Text},
		{"json forced memory", "m.json", `{"a": 1}`, LoadOptions{Type: WorkingMemory}, `{"a": 1}`, WorkingMemory},
		{"unknown ext as json when structured type", "m.data", `[1, 2]`, LoadOptions{Type: JSON}, `[1, 2]`, JSON},
		{"jsonl", "l.jsonl", "{\"a\": 1}\n\n  \n[2]\n3", LoadOptions{}, `[{"a": 1}, [2], 3]`, JSON},
		{"ndjson", "l.ndjson", "1\n2\n", LoadOptions{}, `[1, 2]`, JSON},
		{"csv", "t.csv", "name,age\nann,31\n\"bob, jr\",40\n", LoadOptions{}, `[{"name": "ann", "age": "31"}, {"name": "bob, jr", "age": "40"}]`, JSON},
		{"tsv", "t.tsv", "a\tb\n1\t2\n", LoadOptions{}, `[{"a": "1", "b": "2"}]`, JSON},
		{"empty csv", "e.csv", "", LoadOptions{}, `[]`, JSON},
		{"format override", "x.txt", `[1]`, LoadOptions{Format: FormatJSON}, `[1]`, JSON},
		{"custom type", "x.txt", "abc", LoadOptions{Type: Custom("raw")}, "abc", Custom("raw")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, tt.file, tt.content)
			l, err := LoadSource(ctx, p, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.wantType, l.Type)
			assert.Equal(t, p, l.Source)
			if s, ok := l.Value.(string); ok {
				assert.Equal(t, tt.wantJSON, s)
			} else {
				assert.Equal(t, tt.wantJSON, pyjson.Excerpt(l.Value, -1))
			}
		})
	}
}

func TestLoadSourceErrors(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	tests := []struct {
		name, file, content string
		opts                LoadOptions
		is                  error
		msg                 []string
	}{
		{"bad utf8 text", "bad.txt", "ok line\nbad \xc3\x28 here", LoadOptions{}, ErrInvalidUTF8, []string{"bad.txt", "byte offset 12"}},
		{"malformed json", "bad.json", "{\n  \"a\": [1, 2,]\n}", LoadOptions{}, ErrSyntax, []string{"bad.json", "line 2, column 14"}},
		{"malformed json, CRLF and multi-byte", "crlf.json", "{\r\n  \"é日\": [1,\r\n  \"ü\": 2}", LoadOptions{}, ErrSyntax, []string{"crlf.json", "line 3, column 6", "expecting ',' or ']'"}},
		{"bad utf8 json", "bad3.json", "{\"k\": \"caf\xe9\"}", LoadOptions{}, ErrInvalidUTF8, []string{"bad3.json", "byte offset 10", "convert it"}},
		{"bad utf8 csv", "bad4.csv", "a,b\n1,\xff\n", LoadOptions{}, ErrInvalidUTF8, []string{"bad4.csv", "byte offset 6"}},
		{"malformed jsonl", "bad.jsonl", "{\"a\": 1}\n{\"b\": }\n", LoadOptions{}, ErrSyntax, []string{"line 2", "column 7", "record 2"}},
		{"bad utf8 jsonl", "bad2.jsonl", "1\n\"\xff\"\n", LoadOptions{}, ErrInvalidUTF8, []string{"byte offset 3"}},
		{"ragged csv", "bad.csv", "a,b\n1,2\n3\n", LoadOptions{}, ErrSyntax, []string{"line 3", "as many fields as the header"}},
		{"csv quote", "q.csv", "a\n\"x\n", LoadOptions{}, ErrSyntax, []string{"line"}},
		{"type mismatch", "t.txt", "abc", LoadOptions{Type: WorkingMemory, Format: FormatText}, ErrBadType, []string{"needs a dict"}},
		{"unknown format", "f.txt", "x", LoadOptions{Format: "xml"}, ErrBadSpec, []string{"unknown format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, tt.file, tt.content)
			l, err := LoadSource(ctx, p, tt.opts)
			require.ErrorIs(t, err, tt.is)
			assert.Nil(t, l, "nothing half-loaded")
			for _, m := range tt.msg {
				assert.Contains(t, err.Error(), m)
			}
		})
	}
	_, err := LoadSource(ctx, filepath.Join(dir, "missing.txt"), LoadOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such file or directory")

	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		p := writeFile(t, dir, "secret.txt", "x")
		require.NoError(t, os.Chmod(p, 0))
		_, err = LoadSource(ctx, p, LoadOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "permission denied")
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = LoadSource(cctx, writeFile(t, dir, "c.txt", "x"), LoadOptions{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestLoadStdin(t *testing.T) {
	ctx := context.Background()
	l, err := LoadSource(ctx, "-", LoadOptions{Stdin: strings.NewReader("piped text")})
	require.NoError(t, err)
	assert.Equal(t, "piped text", l.Value)
	assert.Equal(t, Text, l.Type)
	assert.Equal(t, "stdin", l.Source)

	l, err = LoadSource(ctx, "-", LoadOptions{Stdin: strings.NewReader(`{"a": [1]}`), Type: JSON})
	require.NoError(t, err)
	assert.Equal(t, `{"a": [1]}`, pyjson.Excerpt(l.Value, -1))

	l, err = LoadSource(ctx, "-", LoadOptions{Stdin: strings.NewReader("1\n2\n"), Format: FormatJSONL})
	require.NoError(t, err)
	assert.Equal(t, []any{int64(1), int64(2)}, l.Value)

	_, err = LoadSource(ctx, "-", LoadOptions{Stdin: strings.NewReader("{oops"), Type: JSON})
	require.ErrorIs(t, err, ErrSyntax)
	assert.Contains(t, err.Error(), "stdin")

	_, err = LoadSource(ctx, "-", LoadOptions{})
	require.Error(t, err)
}

func TestLoadDir(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	src := filepath.Join(root, "proj")
	writeFile(t, src, "b.go", "package b\n")
	writeFile(t, src, "a/z.txt", "zed")
	writeFile(t, src, "a/y.md", "why")
	writeFile(t, src, "img.png", "\x89PNG\r\n\x1a\n\x00\x00\x00")
	writeFile(t, src, "latin1.txt", "caf\xe9")
	writeFile(t, src, ".git/config", "[core]")
	secret := writeFile(t, outside, "secret.txt", "top secret")
	require.NoError(t, os.Symlink(secret, filepath.Join(src, "leak.txt")))
	require.NoError(t, os.Symlink(filepath.Join(src, "b.go"), filepath.Join(src, "alias.go")))
	require.NoError(t, os.Symlink(outside, filepath.Join(src, "outdir")))
	require.NoError(t, os.Symlink(filepath.Join(src, "nope"), filepath.Join(src, "broken")))
	// Relative links: one climbing out through .., one staying inside via a
	// detour through the parent.
	up, err := filepath.Rel(filepath.Join(src, "a"), secret)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(up, ".."), up)
	require.NoError(t, os.Symlink(up, filepath.Join(src, "a", "up.txt")))
	require.NoError(t, os.Symlink(filepath.Join("..", "proj", "a", "z.txt"), filepath.Join(src, "detour.txt")))

	l, err := LoadSource(context.Background(), src, LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, Files, l.Type)
	d := l.Value.(*Dict)
	assert.Equal(t, []string{"a/y.md", "a/z.txt", "alias.go", "b.go", "detour.txt"}, d.Keys())
	v, _ := d.Get("alias.go")
	assert.Equal(t, "package b\n", v)
	v, _ = d.Get("detour.txt")
	assert.Equal(t, "zed", v)
	joined := strings.Join(l.Warnings, "\n")
	assert.Contains(t, joined, "a/up.txt: skipped symlink pointing outside the directory")
	assert.Contains(t, joined, "img.png: skipped binary file")
	assert.Contains(t, joined, "latin1.txt: skipped binary file")
	assert.Contains(t, joined, "leak.txt: skipped symlink pointing outside the directory")
	assert.Contains(t, joined, "outdir: skipped symlink pointing outside")
	assert.Contains(t, joined, "broken: skipped broken symlink")
	assert.NotContains(t, pyjson.Excerpt(d, -1), "top secret")

	// A root that is itself a symlink to the directory is read through it.
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(src, link))
	for _, p := range []string{link, link + string(filepath.Separator)} {
		l, err = LoadSource(context.Background(), p, LoadOptions{})
		require.NoError(t, err)
		assert.Equal(t, d.Keys(), l.Value.(*Dict).Keys(), p)
	}

	// Explicit json type keeps the dict but types it json.
	l, err = LoadSource(context.Background(), src, LoadOptions{Type: JSON})
	require.NoError(t, err)
	assert.Equal(t, JSON, l.Type)
}

func TestLoadStoreSource(t *testing.T) {
	ctx := context.Background()
	_, err := LoadSource(ctx, "store:k", LoadOptions{})
	require.ErrorIs(t, err, ErrNoStore)

	st, err := OpenStore(StoreConfig{})
	require.NoError(t, err)
	_, err = st.Set("k", []any{dict("role", "user", "content", "hi")})
	require.NoError(t, err)
	l, err := LoadSource(ctx, "store:k", LoadOptions{Store: st})
	require.NoError(t, err)
	assert.Equal(t, Conversation, l.Type)
	assert.Equal(t, "store:k", l.Source)
	_, err = LoadSource(ctx, "store:missing", LoadOptions{Store: st})
	require.ErrorIs(t, err, ErrNotFound)

	v, warns, err := LoadVar(ctx, VarSpec{Name: "chat", Source: "store:k", Type: JSON}, LoadOptions{Store: st})
	require.NoError(t, err)
	assert.Empty(t, warns)
	assert.Equal(t, JSON, v.Type)
	assert.Equal(t, "store:k", v.Source)
}

func TestLoadTextZeroCopy(t *testing.T) {
	p := writeFile(t, t.TempDir(), "z.txt", strings.Repeat("abc\n", 1000))
	b, err := readFileExact(p)
	require.NoError(t, err)
	assert.Equal(t, len(b), cap(b), "buffer sized exactly to the file")
}
