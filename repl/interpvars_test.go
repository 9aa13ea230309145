package repl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/sandbox"
)

// TestInterpVars: JSON and JSON Lines documents are decoded into the interpreter equal to
// the conversion of their Go values, which are released; chunk companions
// share the parent's items; other values convert as before.
func TestInterpVars(t *testing.T) {
	dir := t.TempDir()
	var list, dict, lines strings.Builder
	list.WriteString("[")
	dict.WriteString("{")
	for i := 0; i < 400; i++ {
		if i > 0 {
			list.WriteString(", ")
			dict.WriteString(", ")
		}
		fmt.Fprintf(&list, `{"id": %d, "name": "record \u00e9 %d", "score": %d.5, "big": 1%030d, "tags": ["a", null, true]}`, i, i, i, i)
		fmt.Fprintf(&dict, `"k%03d": {"n": %d}`, i, i)
		fmt.Fprintf(&lines, "{\"id\": %d, \"name\": \"line \\u00e9 %d\", \"tags\": [\"a\", null, 1.5]}\n", i, i)
	}
	list.WriteString("]")
	dict.WriteString(`, "k000": "last wins, first place"}`)
	files := map[string]string{
		"recs.json":   list.String(),
		"table.json":  dict.String(),
		"notes.txt":   "some text\n",
		"lines.jsonl": lines.String(),
	}
	c := rlmctx.NewContext("q")
	for _, name := range []string{"recs.json", "table.json", "notes.txt", "lines.jsonl"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(files[name]), 0o644))
		v, _, err := rlmctx.LoadVar(
			context.Background(),
			rlmctx.VarSpec{Name: strings.TrimSuffix(name, filepath.Ext(name)), Source: p},
			rlmctx.LoadOptions{},
		)
		require.NoError(t, err)
		require.NoError(t, c.AddVariable(v))
	}
	require.Equal(
		t,
		[]string{"recs_chunks", "table_chunks", "lines_chunks"},
		c.AutoChunk(rlmctx.SizeConfig{WarnThreshold: 1000, ChunkThreshold: 4000, ChunkSize: 2000, MaxTotalSize: 1 << 20}),
	)
	want := map[string]string{}
	for _, v := range c.Vars {
		sv, err := sandbox.FromGo(v.GoValue())
		require.NoError(t, err)
		want[v.Name] = sandbox.Repr(sv)
	}

	vals, err := InterpVars(c.Vars)
	require.NoError(t, err)
	got := map[string]starlark.Value{}
	for i, v := range c.Vars {
		got[v.Name] = vals[i]
		assert.Equal(t, want[v.Name], sandbox.Repr(vals[i]), v.Name)
		if v.Name == "notes" {
			assert.Equal(t, "some text\n", v.Value, "a text is kept")
		} else {
			assert.Nil(t, v.Value, "%s: the Go value is released", v.Name)
		}
	}
	// Chunks share the parent's items.
	recs := got["recs"].(*starlark.List)
	chunks := got["recs_chunks"].(*starlark.List)
	n0 := chunks.Index(0).(*starlark.List).Len()
	assert.Same(t, recs.Index(n0).(*starlark.Dict), chunks.Index(1).(*starlark.List).Index(0).(*starlark.Dict))
	table := got["table"].(*starlark.Dict)
	piece := got["table_chunks"].(*starlark.List).Index(0).(*starlark.Dict)
	a, _, _ := table.Get(starlark.String("k001"))
	b, _, _ := piece.Get(starlark.String("k001"))
	assert.Same(t, a.(*starlark.Dict), b.(*starlark.Dict))
	lns := got["lines"].(*starlark.List)
	require.Equal(t, 400, lns.Len())
	assert.Same(t, lns.Index(0).(*starlark.Dict), got["lines_chunks"].(*starlark.List).Index(0).(*starlark.List).Index(0).(*starlark.Dict))
}

// TestInterpVarsTakesLoadValues: variables loaded with JSONValues get the
// interpreter values made as their documents were outlined (the same
// values InterpVars decodes from the documents otherwise), taken once: a
// second REPL of the same variables decodes its own.
func TestInterpVarsTakesLoadValues(t *testing.T) {
	dir := t.TempDir()
	var list strings.Builder
	list.WriteString("[")
	for i := 0; i < 400; i++ {
		if i > 0 {
			list.WriteString(", ")
		}
		fmt.Fprintf(&list, `{"id": %d, "name": "record \u00e9 %d", "score": %d.5, "tags": ["a", null, true]}`, i, i, i)
	}
	list.WriteString("]")
	files := map[string]string{
		"recs.json":   list.String(),
		"table.json":  `{"a": {"n": 1}, "b": [1, 2]}`,
		"lines.jsonl": "{\"a\": 1}\n[2, 3]\n",
	}
	load := func(values bool) *rlmctx.ExternalizedContext {
		c := rlmctx.NewContext("q")
		opts := rlmctx.LoadOptions{}
		if values {
			opts.Values = JSONValues
		}
		for _, name := range []string{"recs.json", "table.json", "lines.jsonl"} {
			p := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(p, []byte(files[name]), 0o644))
			v, _, err := rlmctx.LoadVar(
				context.Background(),
				rlmctx.VarSpec{Name: strings.TrimSuffix(name, filepath.Ext(name)), Source: p},
				opts,
			)
			require.NoError(t, err)
			require.NoError(t, c.AddVariable(v))
		}
		c.AutoChunk(rlmctx.SizeConfig{WarnThreshold: 1000, ChunkThreshold: 4000, ChunkSize: 2000, MaxTotalSize: 1 << 20})
		return c
	}
	decoded, err := InterpVars(load(false).Vars)
	require.NoError(t, err)
	c := load(true)
	held := make([]any, len(c.Vars))
	for i, v := range c.Vars {
		held[i], _ = v.TakeValues()
		if v.Document() != nil {
			require.NotNil(t, held[i], v.Name)
		}
	}
	c = load(true)
	first, err := InterpVars(c.Vars)
	require.NoError(t, err)
	second, err := InterpVars(c.Vars)
	require.NoError(t, err)
	require.Equal(t, len(decoded), len(first))
	for i, v := range c.Vars {
		assert.Equal(t, sandbox.Repr(decoded[i]), sandbox.Repr(first[i]), v.Name)
		assert.Equal(t, sandbox.Repr(decoded[i]), sandbox.Repr(second[i]), v.Name)
	}
	recs, again := first[0].(*starlark.List), second[0].(*starlark.List)
	assert.NotSame(t, recs.Index(0).(*starlark.Dict), again.Index(0).(*starlark.Dict), "the second REPL decodes its own values")
	require.Equal(t, "recs_chunks", c.Vars[3].Name)
	chunks := first[3].(*starlark.List)
	n0 := chunks.Index(0).(*starlark.List).Len()
	assert.Same(
		t,
		recs.Index(n0).(*starlark.Dict),
		chunks.Index(1).(*starlark.List).Index(0).(*starlark.Dict),
		"chunks share the taken values",
	)
}
