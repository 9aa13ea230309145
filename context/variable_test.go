package rlmctx

import (
	"math/big"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func dict(kv ...any) *Dict {
	d := NewDict(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1])
	}
	return d
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string
	}{
		{"data", ""},
		{"_x1", ""},
		{"données", ""},
		{"my_file_2", ""},
		{"", "empty name"},
		{"1abc", "starts with a digit"},
		{"my-file", `character '-'`},
		{"a b", `character ' '`},
		{"class", "Python keyword"},
		{"None", "Python keyword"},
		{"_py_t1", "reserved"},
		{"_py", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateName(tt.name)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidName)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestInferType(t *testing.T) {
	msgs := []any{dict("role", "user", "content", "hi"), dict("role", "assistant", "content", "yo")}
	tests := []struct {
		name string
		v    any
		want VarType
	}{
		{"string", "hello", Text},
		{"empty string", "", Text},
		{"list", []any{int64(1), "a"}, JSON},
		{"empty list", []any{}, JSON},
		{"dict", dict("a", int64(1)), JSON},
		{"int", int64(3), JSON},
		{"nil", nil, JSON},
		{"messages", msgs, Conversation},
		{"role without content", []any{dict("role", "user")}, JSON},
		{"non-string role", []any{dict("role", int64(1), "content", "x")}, JSON},
		{"mixed list", []any{dict("role", "user", "content", "x"), "str"}, JSON},
		{"tool outputs", []any{dict("tool", "grep", "output", "x"), dict("tool_name", "ls", "result", "y")}, ToolOutputs},
		{"memory entries", dict("entries", []any{}), WorkingMemory},
		{"memories", dict("memories", []any{}), WorkingMemory},
		{"result", dict("result", "ok"), Custom("result")},
		{"output", dict("output", "ok"), Custom("result")},
		{"dict of strings is not files", dict("a.go", "package a"), JSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, InferType(tt.v))
		})
	}
}

func TestParseVarType(t *testing.T) {
	tests := map[string]VarType{
		"": "", "text": Text, "json": JSON, "conversation": Conversation, "files": Files,
		"tool_outputs": ToolOutputs, "working_memory": WorkingMemory, "memory": WorkingMemory,
		"result": Custom("result"), "custom:logs": Custom("logs"), "custom(logs)": Custom("logs"),
	}
	for in, want := range tests {
		got, err := ParseVarType(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ParseVarType("txt")
	require.ErrorIs(t, err, ErrBadType)
	assert.Contains(t, err.Error(), "custom:NAME")
	assert.True(t, Custom("x").IsCustom())
	assert.Equal(t, "x", Custom("x").CustomName())
	assert.Equal(t, "", Text.CustomName())
}

func TestNewVariableTypeOverride(t *testing.T) {
	files := dict("a.go", "package a", "b.go", "package b")
	v, err := NewVariable("src", files, WithType(Files))
	require.NoError(t, err)
	assert.Equal(t, Files, v.Type)
	assert.Equal(t, 2, v.ItemCount)
	assert.Contains(t, v.Summary(), "2 files")
	assert.Contains(t, v.Summary(), "paths [a.go, b.go]")

	bad := []struct {
		typ VarType
		v   any
		msg string
	}{
		{Text, []any{}, "needs a str"},
		{Files, dict("a", int64(1)), `"a" is int`},
		{Files, "x", "dict of path"},
		{Conversation, dict(), "needs a list"},
		{WorkingMemory, []any{}, "needs a dict"},
		{VarType("bogus"), "x", "bogus"},
	}
	for _, b := range bad {
		_, err := NewVariable("x", b.v, WithType(b.typ))
		require.ErrorIs(t, err, ErrBadType, b.typ)
		assert.Contains(t, err.Error(), b.msg)
	}
	v, err = NewVariable("anything", []any{int64(1)}, WithType(Custom("ids")))
	require.NoError(t, err)
	assert.Equal(t, Custom("ids"), v.Type)
}

func TestNewVariableMeasures(t *testing.T) {
	v, err := NewVariable("doc", "héllo wörld\nline two\n")
	require.NoError(t, err)
	assert.Equal(t, Text, v.Type)
	assert.EqualValues(t, len("héllo wörld\nline two\n"), v.SizeBytes)
	n, est := v.Tokens()
	assert.Equal(t, llm.CountTokens("héllo wörld\nline two\n"), n)
	assert.False(t, est)
	assert.Equal(t, -1, v.ItemCount)
	assert.Contains(t, v.Summary(), "2 lines")

	l := []any{int64(1), "two", 3.5, nil, true}
	v, err = NewVariable("l", l)
	require.NoError(t, err)
	enc := pyjson.Excerpt(l, -1)
	assert.Equal(t, `[1, "two", 3.5, null, true]`, enc)
	assert.EqualValues(t, len(enc), v.SizeBytes)
	n, _ = v.Tokens()
	assert.Equal(t, llm.CountTokens(enc), n)
	assert.Equal(t, 5, v.ItemCount)

	v, err = NewVariable("n", 42)
	require.NoError(t, err)
	assert.Equal(t, int64(42), v.Value)
	assert.Equal(t, -1, v.ItemCount)
	assert.Contains(t, v.Summary(), "json int")

	_, err = NewVariable("f", func() {})
	require.ErrorIs(t, err, ErrUnsupportedValue)
}

func TestNormalize(t *testing.T) {
	type rec struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	huge := new(big.Int).Lsh(big.NewInt(1), 70)
	tests := []struct {
		name string
		in   any
		want string // JSON of the result
	}{
		{"int", 3, `3`},
		{"uint64 big", uint64(1 << 63), `9223372036854775808`},
		{"float32", float32(0.5), `0.5`},
		{"[]string", []string{"a", "b"}, `["a", "b"]`},
		{"map sorted", map[string]any{"b": 1, "a": []int{1, 2}}, `{"a": [1, 2], "b": 1}`},
		{"struct", rec{A: 1, B: "x"}, `{"a": 1, "b": "x"}`},
		{"big", huge, `1180591620717411303424`},
		{"small big", big.NewInt(5), `5`},
		{"nested", []any{dict("k", int32(7))}, `[{"k": 7}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pyjson.Normalize(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, pyjson.Excerpt(got, -1))
		})
	}
	// Values already normal are not copied.
	l := []any{int64(1), dict("a", "b")}
	got, err := pyjson.Normalize(l)
	require.NoError(t, err)
	assert.Same(t, &l[0], &got.([]any)[0])
}

func TestContextAddGetSummaries(t *testing.T) {
	c := NewContext("what is in the logs?")
	_, err := c.Add("logs", "error: disk full\nwarning: cpu hot\n")
	require.NoError(t, err)
	_, err = c.Add("users", []any{dict("id", int64(1), "name", "ann"), dict("id", int64(2), "name", "bob", "admin", true)})
	require.NoError(t, err)
	_, err = c.Add("logs", "again")
	require.ErrorIs(t, err, ErrDuplicateVar)
	_, err = c.Add("bad-name", "x")
	require.ErrorIs(t, err, ErrInvalidName)

	assert.Equal(t, []string{"logs", "users"}, c.Names())
	v, ok := c.Get("users")
	require.True(t, ok)
	assert.Equal(t, 2, v.ItemCount)
	_, ok = c.Get("nope")
	assert.False(t, ok)
	l, _ := c.Get("logs")
	assert.Equal(t, l.SizeBytes+v.SizeBytes, c.TotalSizeBytes)

	s := c.VariableSummaries()
	lines := strings.Split(s, "\n")
	require.Len(t, lines, 2)
	assert.True(t, strings.HasPrefix(lines[0], "- logs: text, "), lines[0])
	assert.Contains(t, lines[1], "items are dicts with keys [id, name, admin]")
	assert.Contains(t, lines[1], "json list of 2 items")
	for _, ln := range lines {
		assert.LessOrEqual(t, llm.CountTokens(ln), MaxSummaryTokens, ln)
	}
	assert.Equal(t, "(no context variables)", NewContext("q").VariableSummaries())
	assert.Equal(t, "error: disk full\nwarning: cpu hot\n", c.Values()["logs"])
}
