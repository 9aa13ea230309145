package rlmctx

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"

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
		wantWarn            []string
	}{
		{"text", "a.txt", "hello\nworld\n", LoadOptions{}, "hello\nworld\n", Text, nil},
		{"markdown is text", "a.md", "# T\n", LoadOptions{}, "# T\n", Text, nil},
		{"json dict", "d.json", `{"b": 1, "a": 2.0}`, LoadOptions{}, `{"b": 1, "a": 2.0}`, JSON, nil},
		{"json with BOM", "bom.json", "\ufeff[1]", LoadOptions{}, `[1]`, JSON, nil},
		{
			"json conversation",
			"c.json",
			`[{"role": "user", "content": "hi"}]`,
			LoadOptions{},
			`[{"role": "user", "content": "hi"}]`,
			Conversation,
			nil,
		},
		{"json forced text", "t.json", `{"a": 1}`, LoadOptions{Type: Text}, `{"a": 1}`, Text, nil},
		{"json forced memory", "m.json", `{"a": 1}`, LoadOptions{Type: WorkingMemory}, `{"a": 1}`, WorkingMemory, nil},
		{"unknown ext as json when structured type", "m.data", `[1, 2]`, LoadOptions{Type: JSON}, `[1, 2]`, JSON, nil},
		{"jsonl", "l.jsonl", "{\"a\": 1}\n\n  \n[2]\n3", LoadOptions{}, `[{"a": 1}, [2], 3]`, JSON, nil},
		{"ndjson", "l.ndjson", "1\n2\n", LoadOptions{}, `[1, 2]`, JSON, nil},
		{
			"csv",
			"t.csv",
			"name,age\nann,31\n\"bob, jr\",40\n",
			LoadOptions{},
			`[{"name": "ann", "age": "31"}, {"name": "bob, jr", "age": "40"}]`,
			JSON,
			nil,
		},
		{"tsv", "t.tsv", "a\tb\n1\t2\n", LoadOptions{}, `[{"a": "1", "b": "2"}]`, JSON, nil},
		{"empty csv", "e.csv", "", LoadOptions{}, `[]`, JSON, nil},
		{"format override", "x.txt", `[1]`, LoadOptions{Format: FormatJSON}, `[1]`, JSON, nil},
		{"custom type", "x.txt", "abc", LoadOptions{Type: Custom("raw")}, "abc", Custom("raw"), nil},
		{"text with BOM", "bom.txt", "\ufeffhello\n", LoadOptions{}, "hello\n", Text, nil},
		{"UTF-16LE text", "u16le.txt", utf16Text(false, "h\u00e9llo \U0001F600\n"), LoadOptions{}, "h\u00e9llo \U0001F600\n", Text, nil},
		{"UTF-16BE json", "u16be.json", utf16Text(true, `[1, "\u00e9"]`), LoadOptions{}, `[1, "é"]`, JSON, nil},
		{"UTF-16LE csv", "u16.csv", utf16Text(false, "a,b\n1,2\n"), LoadOptions{}, `[{"a": "1", "b": "2"}]`, JSON, nil},
		{
			"csv keeps repeated and empty headers",
			"dup.csv",
			"a,a,b,,a_2\n1,2,3,4,5\n",
			LoadOptions{},
			`[{"a": "1", "a_3": "2", "b": "3", "column_4": "4", "a_2": "5"}]`,
			JSON,
			[]string{
				"dup.csv: renamed columns so that none is lost",
				`column 2 (repeated header "a") -> "a_3"`,
				`column 4 (empty header) -> "column_4"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, tt.file, tt.content)
			l, err := LoadSource(ctx, p, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.wantType, l.Type)
			assert.Equal(t, p, l.Source)
			w := strings.Join(l.Warnings, "\n")
			for _, want := range tt.wantWarn {
				assert.Contains(t, w, want)
			}
			if tt.wantWarn == nil {
				assert.Empty(t, l.Warnings)
			}
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
		{
			"malformed json, CRLF and multi-byte",
			"crlf.json",
			"{\r\n  \"é日\": [1,\r\n  \"ü\": 2}",
			LoadOptions{},
			ErrSyntax,
			[]string{"crlf.json", "line 3, column 6", "expecting ',' or ']'"},
		},
		{
			"bad utf8 json",
			"bad3.json",
			"{\"k\": \"caf\xe9\"}",
			LoadOptions{},
			ErrInvalidUTF8,
			[]string{"bad3.json", "byte offset 10", "convert it"},
		},
		{"bad utf8 csv", "bad4.csv", "a,b\n1,\xff\n", LoadOptions{}, ErrInvalidUTF8, []string{"bad4.csv", "byte offset 6"}},
		{"malformed jsonl", "bad.jsonl", "{\"a\": 1}\n{\"b\": }\n", LoadOptions{}, ErrSyntax, []string{"line 2", "column 7", "record 2"}},
		{"bad utf8 jsonl", "bad2.jsonl", "1\n\"\xff\"\n", LoadOptions{}, ErrInvalidUTF8, []string{"byte offset 3"}},
		{"ragged csv", "bad.csv", "a,b\n1,2\n3\n", LoadOptions{}, ErrSyntax, []string{"line 3", "as many fields as the header"}},
		{"csv quote", "q.csv", "a\n\"x\n", LoadOptions{}, ErrSyntax, []string{"line"}},
		{"type mismatch", "t.txt", "abc", LoadOptions{Type: WorkingMemory, Format: FormatText}, ErrBadType, []string{"needs a dict"}},
		{"unknown format", "f.txt", "x", LoadOptions{Format: "xml"}, ErrBadSpec, []string{"unknown format"}},
		{"odd UTF-16", "odd.txt", "\xff\xfea", LoadOptions{}, ErrInvalidUTF8, []string{"odd.txt", "UTF-16", "odd number of bytes"}},
		{
			"integer over 4300 digits",
			"n.json",
			"{\n  \"n\": 1" + strings.Repeat("0", 5000) + "}",
			LoadOptions{},
			pyjson.ErrIntTooLong,
			[]string{"n.json: line 2, column 8", "Exceeds the limit (4300 digits)", "value has 5001 digits"},
		},
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

// utf16Text encodes s as UTF-16 with a byte order mark.
func utf16Text(bigEndian bool, s string) string {
	var order binary.AppendByteOrder = binary.LittleEndian
	if bigEndian {
		order = binary.BigEndian
	}
	b := order.AppendUint16(nil, 0xfeff)
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return string(b)
}

// TestLoadJSONOutlined: LoadVar only outlines a JSON document (no Go
// value: it is made from the text when needed), and the variable, its
// type, sizes, summary, token count and chunks are those of the variable
// made from the decoded Go value; documents an outline cannot stand for
// (repeated keys, scalars) and type errors take the decoded value's path.
func TestLoadJSONOutlined(t *testing.T) {
	dir := t.TempDir()
	var recs, table strings.Builder
	recs.WriteString("[")
	table.WriteString("{")
	for i := 0; i < 300; i++ {
		if i > 0 {
			recs.WriteString(", ")
			table.WriteString(",\n")
		}
		fmt.Fprintf(
			&recs,
			`{"id": %d, "name": "record \u00e9 \"%d\"", "v": [1.5e300, -0.0, null, true, 123456789012345678901234567890]}`,
			i,
			i,
		)
		fmt.Fprintf(&table, `"k%03d": "value %d"`, i, i)
	}
	recs.WriteString("]")
	table.WriteString("}")
	// Over keepItemSizes: AutoChunk cuts the outlined document by its
	// items' sizes, without its Go value.
	var many, bigTable strings.Builder
	many.WriteString("[")
	bigTable.WriteString("{")
	for i := 0; i < 1200; i++ {
		if i > 0 {
			many.WriteString(", ")
			bigTable.WriteString(",\n")
		}
		fmt.Fprintf(
			&many,
			`{"id": %d, "name": "record \u00e9 \"%d\"", "v": [1.5e300, -0.0, null, true, 123456789012345678901234567890]}`,
			i,
			i,
		)
		fmt.Fprintf(&bigTable, `"k%04d": {"name": "value %d", "v": [1.5e300, -0.0, null, true]}`, i, i)
	}
	many.WriteString("]")
	bigTable.WriteString("}")
	require.Greater(t, many.Len(), keepItemSizes)
	require.Greater(t, bigTable.Len(), keepItemSizes)
	// Over the token estimate's threshold: a summary decodes only the
	// document's head.
	limit, _ := tokenSample()
	var huge, hugeFiles strings.Builder
	huge.WriteString("[")
	hugeFiles.WriteString("{")
	for i := 0; int64(huge.Len()) <= limit+limit/4; i++ {
		if i > 0 {
			huge.WriteString(", ")
			hugeFiles.WriteString(", ")
		}
		fmt.Fprintf(&huge, `{"id": %d, "text": "line %d of the records: %s", "n": %d}`, i, i, strings.Repeat("é word ", i%40), i*7)
		fmt.Fprintf(&hugeFiles, `"src/pkg%d/file%d.go": "package pkg%d\n\n// %s\n"`, i%50, i, i%50, strings.Repeat("text ", i%60))
	}
	huge.WriteString("]")
	hugeFiles.WriteString("}")
	tests := []struct {
		name, content string
		typ           VarType
		outlined      bool
		err           bool
		head          bool // a summary reads only the document's head
	}{
		{name: "huge records", content: huge.String(), outlined: true, head: true},
		{name: "huge files", content: hugeFiles.String(), typ: Files, outlined: true, head: true},
		{name: "records", content: recs.String(), outlined: true},
		{name: "many records", content: many.String(), outlined: true},
		{name: "big table", content: bigTable.String(), outlined: true},
		{name: "table", content: table.String(), outlined: true},
		{name: "files", content: table.String(), typ: Files, outlined: true},
		{name: "chat", content: `[{"role": "user", "content": "hi"}, {"role": "assistant", "content": [1]}]`, outlined: true},
		{name: "not chat", content: `[{"role": 1, "content": "hi"}]`, outlined: true},
		{name: "tools", content: `[{"tool_name": "ls", "result": "a b"}]`, outlined: true},
		{name: "memory", content: `{"memories": []}`, outlined: true},
		{name: "result", content: `{"output": 1}`, outlined: true},
		{name: "empty", content: `[]`, outlined: true},
		{name: "repeated keys", content: `[{"a": 1, "b": 2, "a": "x"}]`},
		{name: "number", content: `5`},
		{name: "string", content: `"a string"`},
		{name: "bad files", content: `{"a": 1}`, typ: Files, err: true},
		{name: "bad chat", content: `{"a": 1}`, typ: Conversation, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "_")+".json", tt.content)
			v, _, err := LoadVar(context.Background(), VarSpec{Name: "x", Source: p, Type: tt.typ}, LoadOptions{})
			g, derr := pyjson.Decode([]byte(tt.content))
			require.NoError(t, derr)
			want, werr := NewVariable("x", g, WithType(tt.typ), WithSource(p))
			if tt.err {
				require.Error(t, err)
				require.Error(t, werr)
				assert.Equal(t, "x: "+p+": "+strings.TrimPrefix(werr.Error(), "variable x: "), err.Error(), "the Go value's check")
				return
			}
			require.NoError(t, err)
			require.NoError(t, werr)
			assert.Equal(t, tt.content, string(v.Document()))
			assert.Equal(t, tt.outlined, v.Value == nil, "outlined: no Go value")
			assert.Equal(t, tt.head, v.headItems > 0 && v.headItems < v.ItemCount, "summary of the head (%d items)", v.headItems)
			c, wc := assertLikeGoVariable(t, v, want, g)
			if cv, ok := c.Get("x_chunks"); ok {
				wcv, _ := wc.Get("x_chunks")
				parent, ends, isChunks := cv.Chunks()
				require.True(t, isChunks)
				assert.Same(t, v, parent)
				assert.Equal(t, v.ItemCount, ends[len(ends)-1])
				assert.Equal(t, wcv.GoValue(), cv.GoValue())
				assert.Equal(t, wcv.ItemCount, cv.ItemCount)
				assert.Equal(t, v.SizeBytes >= keepItemSizes, cv.released, "large: pieces made from the text")
				// The parent released, its pieces are made again from the text.
				require.True(t, v.Release())
				assert.Equal(t, wcv.GoValue(), cv.GoValue())
			}
			// Released, the Go value is made again from the text.
			assert.True(t, v.Release())
			assert.Nil(t, v.Value)
			assert.Equal(t, g, v.GoValue())
		})
	}
}

// assertLikeGoVariable checks that v, loaded from a file, is the variable
// want made from its decoded Go value g: the same value, type, sizes,
// chunks, summary and token count. It returns the contexts holding each,
// chunked, for the caller's checks of the pieces.
func assertLikeGoVariable(t *testing.T, v, want *Variable, g any) (c, wc *ExternalizedContext) {
	t.Helper()
	assert.Equal(t, g, v.GoValue())
	assert.Equal(t, want.Type, v.Type)
	assert.Equal(t, want.SizeBytes, v.SizeBytes)
	assert.Equal(t, want.ItemCount, v.ItemCount)

	cfg := SizeConfig{WarnThreshold: 1000, ChunkThreshold: 4000, ChunkSize: 1000, MaxTotalSize: 1 << 20}
	c, wc = NewContext("q"), NewContext("q")
	require.NoError(t, c.AddVariable(v))
	require.NoError(t, wc.AddVariable(want))
	assert.Equal(t, wc.AutoChunk(cfg), c.AutoChunk(cfg))
	assert.Equal(t, wc.VariableSummaries(), c.VariableSummaries())
	wn, _ := want.Tokens()
	n, _ := v.Tokens()
	assert.Equal(t, wn, n)
	return c, wc
}

// TestLoadJSONLinesOutlined: LoadVar outlines JSON Lines as JSON (the
// list of its lines' values, made from the text when needed), and the
// variable, its type, sizes, summary, token count and chunks are those of
// the variable made from the decoded Go value; a line that repeats a key
// and type errors take the decoded value's path, and errors name the line.
func TestLoadJSONLinesOutlined(t *testing.T) {
	dir := t.TempDir()
	var recs, many strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(
			&recs,
			"{\"id\": %d, \"name\": \"record \\u00e9 \\\"%d\\\"\", \"v\": [1.5e300, -0.0, null, true, 123456789012345678901234567890]}\n",
			i,
			i,
		)
	}
	for i := 0; i < 1200; i++ {
		fmt.Fprintf(&many, "{\"id\": %d, \"name\": \"record %d\", \"tags\": [\"a\", \"b\"]}\r\n\n", i, i)
	}
	require.Greater(t, many.Len(), keepItemSizes)
	tests := []struct {
		name, content string
		typ           VarType
		outlined      bool
		err           bool
	}{
		{name: "records", content: recs.String(), outlined: true},
		{name: "many records", content: many.String(), outlined: true},
		{name: "scalars and blank lines", content: "1\n\n  \n\"two\"\n[3]\nnull", outlined: true},
		{
			name:     "chat",
			content:  "{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \"assistant\", \"content\": \"yo\"}\n",
			outlined: true,
		},
		{name: "tools", content: `{"tool_name": "ls", "result": "a b"}`, outlined: true},
		{name: "empty", content: "", outlined: true},
		{name: "typed chat", content: "{\"role\": \"user\", \"content\": \"hi\"}\n", typ: Conversation, outlined: true},
		{name: "repeated keys", content: "{\"a\": 1}\n{\"a\": 1, \"b\": 2, \"a\": \"x\"}\n"},
		{name: "bad files", content: "{\"a\": \"b\"}\n", typ: Files, err: true},
		{name: "bad memory", content: "{\"a\": 1}\n", typ: WorkingMemory, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "_")+".jsonl", tt.content)
			v, _, err := LoadVar(context.Background(), VarSpec{Name: "x", Source: p, Type: tt.typ}, LoadOptions{})
			g, derr := pyjson.DecodeLinesOwned([]byte(tt.content), p)
			require.NoError(t, derr)
			want, werr := NewVariable("x", g, WithType(tt.typ), WithSource(p))
			if tt.err {
				require.Error(t, err)
				require.Error(t, werr)
				assert.Equal(t, "x: "+p+": "+strings.TrimPrefix(werr.Error(), "variable x: "), err.Error(), "the Go value's check")
				return
			}
			require.NoError(t, err)
			require.NoError(t, werr)
			assert.Equal(t, tt.outlined, v.Value == nil, "outlined: no Go value")
			assert.Equal(t, tt.outlined, v.DocumentLines())
			if tt.outlined {
				assert.Equal(t, tt.content, string(v.Document()))
			} else {
				assert.Nil(t, v.Document(), "no JSON document stands for the value")
			}
			c, wc := assertLikeGoVariable(t, v, want, g)
			if cv, ok := c.Get("x_chunks"); ok {
				wcv, _ := wc.Get("x_chunks")
				assert.Equal(t, wcv.GoValue(), cv.GoValue())
				require.True(t, v.Release())
				assert.Equal(t, wcv.GoValue(), cv.GoValue(), "pieces made again from the text")
			}
			if tt.outlined {
				assert.True(t, v.Release())
				assert.Equal(t, g, v.GoValue(), "made again from the text")
			}
		})
	}
}
