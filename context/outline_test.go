package rlmctx

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// echoBuilder is a host's builder for the tests: its values are the Go
// values, their JSON encoding checked against the outline's sizes.
type echoBuilder struct{}

func (echoBuilder) Null() any             { return nil }
func (echoBuilder) Bool(x bool) any       { return x }
func (echoBuilder) Int(i int64) any       { return i }
func (echoBuilder) BigInt(x *big.Int) any { return x }
func (echoBuilder) Float(f float64) any   { return f }
func (echoBuilder) String(s string) any   { return s }
func (echoBuilder) Array(vals []any) (any, error) {
	return append([]any{}, vals...), nil
}

func (echoBuilder) Object(keys []string, vals []any) (any, error) {
	d := NewDict(len(keys))
	for i, k := range keys {
		d.Set(k, vals[i])
	}
	return d, nil
}

// outlineShapes are JSON documents of every shape an outline tells apart.
var outlineShapes = []string{
	`[]`, `{}`, `[1]`, `{"a": 1}`, `"just a string"`, `42`, `null`, `true`, `1.5`,
	`[1, -2, 3.25, 1e300, 5e-324, -0.0, NaN, Infinity, -Infinity, 123456789012345678901234567890, true, false, null]`,
	`["plain", "esc\"aped\\", "line\nbreak\ttab", "\u00e9\u2028😀", "ctl\u0001\u001f", "del\u007f", "\ud800 lone", ""]`,
	`{"k\"ey": "v", "é": [], "": {}, "nested": {"deeper": [[[]], {"x": [1, {"y": null}]}]}}`,
	`[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]`,
	`[{"role": 1, "content": "not a str role"}]`,
	`[{"tool": "grep", "output": "x"}, {"tool_name": "ls", "result": [1]}]`,
	`{"entries": [], "other": 1}`, `{"memories": {}}`, `{"result": 1}`, `{"output": "o"}`,
	`{"a.go": "package a\n", "b.go": "package b\n"}`, `{"a.go": "x", "n": 1}`,
	`[{"a": 1, "a": 2}]`, `{"a": 1, "b": 2, "a": 3}`, `[[{"k": 1, "k": 1}]]`,
	`[{"id": 1, "tags": ["x"], "address": {"city": "Lima", "geo": [1.5, -2.25]}, "notes": null}, {"id": 2, "tags": [], "address": {"city": "Oslo", "geo": [0, 0]}, "notes": "n"}]`,
}

// TestOutlineWithValues: outlining a document while making a host's values
// gives the outline of outlining alone, for every shape, and values that
// are the document's (JSON and JSON Lines).
func TestOutlineWithValues(t *testing.T) {
	for _, doc := range outlineShapes {
		values := func() pyjson.Builder[any] { return echoBuilder{} }
		want, wantOK, err := outlineJSON([]byte(doc), "s.json", nil, nil)
		require.NoError(t, err, doc)
		got, ok, err := outlineJSON([]byte(doc), "s.json", values, nil)
		require.NoError(t, err, doc)
		require.Equal(t, wantOK, ok, doc)
		if !ok {
			continue
		}
		require.NotNil(t, got.values, doc)
		goVal, err := pyjson.DecodeOwned([]byte(doc), "s.json")
		require.NoError(t, err)
		assert.Equal(t, pyjson.Size(goVal), pyjson.Size(got.values), "%s: the values are the document's", doc)
		got.values = nil
		assert.Equal(t, want, got, doc)
		assert.Equal(t, pyjson.Size(goVal), got.size, doc)

		lines := strings.Repeat(strings.ReplaceAll(doc, "\n", " ")+"\n\n", 3)
		wantL, wantOK, err := outlineJSONLines([]byte(lines), "s.jsonl", nil, nil)
		require.NoError(t, err, doc)
		gotL, ok, err := outlineJSONLines([]byte(lines), "s.jsonl", values, nil)
		require.NoError(t, err, doc)
		require.Equal(t, wantOK, ok, doc)
		if ok {
			require.Len(t, gotL.values, 3, doc)
			gotL.values = nil
			assert.Equal(t, wantL, gotL, doc)
		}
	}
}

// TestLoadVarValues: LoadVar with LoadOptions.Values makes the variable it
// makes without (type, sizes, summary, chunks), holding the host's values
// for one TakeValues; a type that does not fit, a repeated key or another
// format leaves none; bad JSON fails with the same error.
func TestLoadVarValues(t *testing.T) {
	dir := t.TempDir()
	load := func(t *testing.T, name, content string, typ VarType, values bool) (*Variable, error) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		var opts LoadOptions
		if values {
			opts.Values = func() pyjson.Builder[any] { return echoBuilder{} }
		}
		v, _, err := LoadVar(context.Background(), VarSpec{Name: "v", Type: typ, Source: p}, opts)
		return v, err
	}
	var big strings.Builder
	big.WriteString("[")
	for i := range 3000 {
		if i > 0 {
			big.WriteString(", ")
		}
		fmt.Fprintf(&big, `{"id": %d, "name": "record %d", "score": %d.5}`, i, i, i)
	}
	big.WriteString("]")
	cases := []struct {
		name, content string
		typ           VarType
		held          bool
	}{
		{"list.json", big.String(), "", true},
		{"conv.json", `[{"role": "user", "content": "hi"}]`, "", true},
		{"conv_typed.json", `[{"role": "user", "content": "hi"}]`, Conversation, true},
		{"files.json", `{"a.go": "package a\n"}`, Files, true},
		{"mem.json", `{"entries": [1, 2]}`, "", true},
		{"lines.jsonl", "{\"a\": 1}\n{\"a\": [2]}\n", "", true},
		{"dup.json", `{"a": 1, "a": 2}`, "", false},
		{"scalar.json", `"text"`, "", false},
		{"notfiles.json", `{"a.go": 1}`, Files, false},
		{"text.json", `[1, 2]`, Text, false},
		{"data.csv", "a,b\n1,2\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, werr := load(t, c.name, c.content, c.typ, false)
			got, gerr := load(t, c.name, c.content, c.typ, true)
			if werr != nil {
				require.EqualError(t, gerr, werr.Error())
				return
			}
			require.NoError(t, gerr)
			vals, ok := got.TakeValues()
			require.Equal(t, c.held, ok)
			if ok {
				assert.Equal(t, pyjson.Size(want.GoValue()), pyjson.Size(vals))
				_, again := got.TakeValues()
				assert.False(t, again, "values are taken once")
			}
			assert.Equal(t, want.Type, got.Type)
			assert.Equal(t, want.SizeBytes, got.SizeBytes)
			assert.Equal(t, want.ItemCount, got.ItemCount)
			assert.Equal(t, want.itemSizes, got.itemSizes)
			assert.Equal(t, want.Summary(), got.Summary())
			cfg := SizeConfig{WarnThreshold: 1000, ChunkThreshold: 4000, ChunkSize: 2000, MaxTotalSize: 1 << 20}
			cw, cg := NewContext("q"), NewContext("q")
			require.NoError(t, cw.AddVariable(want))
			require.NoError(t, cg.AddVariable(got))
			require.Equal(t, cw.AutoChunk(cfg), cg.AutoChunk(cfg))
			assert.Equal(t, cw.VariableSummaries(), cg.VariableSummaries())
		})
	}
	for _, bad := range []string{`[1, 2`, `{"a": }`, "[\"\x01\"]", `{"a": 1} x`, "\xff"} {
		_, werr := load(t, "bad.json", bad, "", false)
		_, gerr := load(t, "bad.json", bad, "", true)
		require.Error(t, werr)
		assert.EqualError(t, gerr, werr.Error())
	}
}
