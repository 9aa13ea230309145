package rlmctx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// chunkDocs are the documents of TestAutoChunkGolden: texts, lists and
// dicts small and large (over keepItemSizes, so cut by the sizes measured
// at load), with items larger than a piece, and JSON files outlined at
// load (cut without their Go value).
func chunkDocs(t *testing.T) (*ExternalizedContext, SizeConfig) {
	t.Helper()
	cfg := SizeConfig{WarnThreshold: 1000, ChunkThreshold: 3000, ChunkSize: 1000, MaxTotalSize: 1 << 30}
	c := NewContext("q")
	add := func(name string, v any) {
		_, err := c.Add(name, v)
		require.NoError(t, err)
	}
	add("log", strings.Repeat("2026-01-01 event happened here\n", 200))
	add("words", strings.Repeat("é日🙂 word ", 500))
	var recs, big []any
	d, bigDict := NewDict(0), NewDict(0)
	for i := range 300 {
		rec := NewDict(2)
		rec.Set("id", int64(i))
		rec.Set("text", fmt.Sprintf("record \"%d\" é\n\x01", i))
		recs = append(recs, rec)
		d.Set(fmt.Sprintf("key%03d", i), fmt.Sprintf("value %d", i))
		if i%97 == 0 {
			recs = append(recs, strings.Repeat("x", 1500)) // a piece alone
			d.Set(fmt.Sprintf("big%03d", i), []any{strings.Repeat("y", 1200), 1.5, nil, true})
		}
	}
	for i := range 3000 {
		big = append(big, []any{int64(i), fmt.Sprintf("item %d", i), 2.5e300})
		bigDict.Set(fmt.Sprintf("k%05d", i), fmt.Sprintf("value %d of the large dict", i))
	}
	add("records", recs)
	add("table", d)
	add("big", big)
	add("big_dict", bigDict)
	add("one", []any{strings.Repeat("z", 5000)}) // one piece: left alone

	dir := t.TempDir()
	for _, doc := range []struct {
		name string
		v    any
	}{{"doc_list", big}, {"doc_dict", bigDict}} {
		var text strings.Builder
		require.NoError(t, pyjson.Encode(&text, doc.v))
		name := doc.name
		path := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(path, []byte(text.String()), 0o644))
		v, _, err := LoadVar(context.Background(), VarSpec{Name: name, Source: path}, LoadOptions{})
		require.NoError(t, err)
		require.NoError(t, c.AddVariable(v))
	}
	return c, cfg
}

// TestAutoChunkGolden records what AutoChunk makes of chunkDocs: each
// companion's summary, piece ends and pieces' sizes.
func TestAutoChunkGolden(t *testing.T) {
	c, cfg := chunkDocs(t)
	added := c.AutoChunk(cfg)
	var b strings.Builder
	fmt.Fprintf(&b, "added: %v\n", added)
	for _, name := range added {
		cv, ok := c.Get(name)
		require.True(t, ok)
		fmt.Fprintf(&b, "\n%s\n  summary: %s\n  items: %d, size %d\n", name, cv.Summary(), cv.ItemCount, cv.SizeBytes)
		if strings.HasPrefix(name, "doc_") {
			// Made from the document: no Go value until asked for, and a
			// nil Value, not a typed nil []any.
			assert.True(t, cv.Value == nil, "%s.Value is %#v", name, cv.Value)
		} else {
			assert.NotNil(t, cv.Value, name)
		}
		if parent, ends, ok := cv.Chunks(); ok {
			fmt.Fprintf(&b, "  parent %s, ends %v\n", parent.Name, ends)
		}
		list, _ := cv.GoValue().([]any)
		require.Len(t, list, cv.ItemCount)
		for i, p := range list {
			n := 0
			switch x := p.(type) {
			case []any:
				n = len(x)
			case *Dict:
				n = x.Len()
			case string:
				n = len(x)
			}
			fmt.Fprintf(&b, "  piece %d: %T of %d, json %d, head %q\n", i, p, n, encodedSize(p), pyjson.Excerpt(p, 40))
		}
	}
	got := b.String()
	golden := filepath.Join("testdata", "autochunk.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test -run TestAutoChunkGolden -update")
	assert.Equal(t, string(want), got)
}
