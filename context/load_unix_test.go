//go:build unix

package rlmctx

import (
	"bytes"
	"fmt"
	"strings"

	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rlmhq/rlm/internal/pyjson"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadRefusesNonRegularFiles: devices and FIFOs are refused before
// they are opened (/dev/zero never ends, a FIFO without a writer never
// starts).
func TestLoadRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, tt := range []struct{ path, kind string }{
		{"/dev/zero", "a character device"},
		{"/dev/urandom", "a character device"},
		{fifo, "a FIFO"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skip(err)
			}
			l, err := LoadSource(context.Background(), tt.path, LoadOptions{})
			require.ErrorIs(t, err, ErrNotRegular)
			assert.Nil(t, l)
			assert.Contains(
				t,
				err.Error(),
				tt.path+": rlmctx: not a regular file ("+tt.kind+"); give a file, a directory, or - to read a stream from stdin",
			)
		})
	}
}

// testMappedMin is the tests' LoadOptions.MappedMin: a few pages.
const testMappedMin = 64 << 10

// bigDoc is a JSON document of at least testMappedMin bytes: an object of
// n source files (strings with escapes) or a list of records.
func bigDoc(records bool) string {
	var b strings.Builder
	if records {
		b.WriteString("[")
		for i := 0; b.Len() < testMappedMin+1<<10; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(
				&b,
				`{"id": %d, "name": "record %d", "tags": ["a", "b"], "score": %d.5, "note": null, "text": "%s"}`,
				i,
				i,
				i,
				strings.Repeat("a long text of the record ", 40),
			)
		}
		b.WriteString("]")
		return b.String()
	}
	b.WriteString("{")
	for i := 0; b.Len() < testMappedMin+1<<10; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(
			&b,
			`"src/f%05d.go": "package f\n\nfunc F%d() string {\n\treturn \"é%d\"\n}\n%s"`,
			i,
			i,
			i,
			strings.Repeat(`// filler line of the file\n`, 40),
		)
	}
	b.WriteString("}")
	return b.String()
}

// TestLoadMappedJSON: a large JSON (Lines) document whose values are made
// as it is outlined is read through a memory map and makes the variable a
// plain read makes (values, type, sizes, summary, chunks, Go value); what
// the outline does not stand for, and bad input, load as before.
func TestLoadMappedJSON(t *testing.T) {
	dir := t.TempDir()
	load := func(t *testing.T, name, content string, values bool) (*Variable, error) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		opts := LoadOptions{MappedMin: testMappedMin}
		if values {
			opts.Values = func() pyjson.Builder[any] { return echoBuilder{} }
		}
		v, _, err := LoadVar(context.Background(), VarSpec{Name: "v", Source: p}, opts)
		return v, err
	}
	files, records := bigDoc(false), bigDoc(true)
	var lines strings.Builder
	for i := 0; lines.Len() < testMappedMin+1<<10; i++ {
		fmt.Fprintf(&lines, "{\"id\": %d, \"text\": \"line %d\\twith a tab %s\"}\n", i, i, strings.Repeat("and more words ", 60))
	}
	cases := []struct {
		name, content string
		mapped        bool
	}{
		{"files.json", files, true},
		{"bom.json", "\xef\xbb\xbf" + files, true},
		{"records.json", records, true},
		{"lines.jsonl", lines.String(), true},
		{"dup.json", `{"a": 1, ` + files[1:len(files)-1] + `, "a": 2}`, false},
		{"scalar.json", `"` + strings.Repeat("x", testMappedMin) + `"`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := load(t, c.name, c.content, false)
			require.NoError(t, err)
			got, err := load(t, c.name, c.content, true)
			require.NoError(t, err)
			assert.Equal(t, c.mapped, got.docMap != nil)
			assert.Nil(t, want.docMap, "without values the file is read")
			if c.mapped {
				assert.Nil(t, got.Document(), "a mapped document is not handed out")
				vals, ok := got.TakeValues()
				require.True(t, ok)
				assert.Equal(t, pyjson.Size(want.GoValue()), pyjson.Size(vals))
			}
			assert.Equal(t, want.Type, got.Type)
			assert.Equal(t, want.SizeBytes, got.SizeBytes)
			assert.Equal(t, want.ItemCount, got.ItemCount)
			assert.Equal(t, want.Summary(), got.Summary())
			assert.Equal(t, want.GoValue(), got.GoValue(), "the Go value decoded again from the map")
			cfg := SizeConfig{}
			cw, cg := NewContext("q"), NewContext("q")
			require.NoError(t, cw.AddVariable(want))
			require.NoError(t, cg.AddVariable(got))
			require.Equal(t, cw.AutoChunk(cfg), cg.AutoChunk(cfg))
			assert.Equal(t, cw.VariableSummaries(), cg.VariableSummaries())
		})
	}
	for name, bad := range map[string]string{
		"late syntax error": records[:len(records)-1] + ", }",
		"late bad UTF-8":    records[:len(records)-1] + ", \"\xff\"]",
	} {
		_, werr := load(t, "bad.json", bad, false)
		_, gerr := load(t, "bad.json", bad, true)
		require.Error(t, werr, name)
		assert.EqualError(t, gerr, werr.Error(), name)
	}
}

// TestReadingMapTruncatedFile: a mapped document whose file is truncated
// underneath is an error where it is read, not a crash.
func TestReadingMapTruncatedFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "doc.json")
	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("x", 3*os.Getpagesize())), 0o644))
	m, err := mapDocument(p)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(p, 0))
	var b byte
	err = readingMap(p, func() error {
		b = m[len(m)-1]
		return nil
	})
	assert.Zero(t, b)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the file changed while it was read")
	v := &Variable{doc: m, docMap: m, released: true, Source: p}
	assert.Nil(t, v.GoValue(), "no value, and no crash")
	ok, err := v.WriteDocument(new(bytes.Buffer)) // it reads the bytes (io.Discard does not)
	assert.True(t, ok)
	require.Error(t, err, "hashing the text: an error, not a crash")
	assert.Contains(t, err.Error(), "the file changed while it was read")
}
