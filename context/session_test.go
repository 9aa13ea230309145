package rlmctx

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromSession(t *testing.T) {
	data := `{
  "messages": [{"role": "user", "content": "fix the bug"}, {"role": "assistant", "content": "which one?"}],
  "files": {"main.go": "package main\n", "README.md": "# hi\n"},
  "tool_outputs": [{"tool": "grep", "output": "main.go:1"}],
  "memory": {"goal": "ship v1", "facts": ["uses Go"]},
  "id": "abc"
}`
	s, err := ParseSession([]byte(data), "s.json")
	require.NoError(t, err)
	assert.Len(t, s.Warnings, 1)
	assert.Contains(t, s.Warnings[0], `unknown session field "id"`)

	c, err := FromSession("what next?", s)
	require.NoError(t, err)
	assert.Equal(t, "what next?", c.Query)
	assert.Equal(t, []string{"conversation", "files", "tool_outputs", "working_memory"}, c.Names())
	want := map[string]VarType{"conversation": Conversation, "files": Files, "tool_outputs": ToolOutputs, "working_memory": WorkingMemory}
	var total int64
	for _, v := range c.Vars {
		assert.Equal(t, want[v.Name], v.Type, v.Name)
		assert.Equal(t, "session", v.Source)
		assert.NotEmpty(t, v.Summary())
		total += v.SizeBytes
	}
	assert.Equal(t, total, c.TotalSizeBytes)
	conv, _ := c.Get("conversation")
	assert.Equal(t, 2, conv.ItemCount)
	assert.Contains(t, conv.Summary(), "roles user 1 assistant 1")
	files, _ := c.Get("files")
	assert.Contains(t, files.Summary(), "paths [main.go, README.md]")
}

func TestFromSessionPartial(t *testing.T) {
	s, err := ParseSession([]byte(`{"memory": {}}`), "s.json")
	require.NoError(t, err)
	c, err := FromSession("q", s)
	require.NoError(t, err)
	assert.Equal(t, []string{"working_memory"}, c.Names())

	s, err = ParseSession([]byte(`{"messages": []}`), "s.json")
	require.NoError(t, err)
	c, err = FromSession("q", s)
	require.NoError(t, err)
	v, ok := c.Get("conversation")
	require.True(t, ok)
	assert.Equal(t, Conversation, v.Type, "an empty conversation keeps its type")
	assert.Equal(t, 0, v.ItemCount)
}

func TestParseSessionErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{`[]`, "must be a JSON object"},
		{`{"messages": {}}`, "messages must be a list"},
		{`{"messages": [{"content": "x"}]}`, "messages[0] must be an object with a string role"},
		{`{"files": {"a": 1}}`, `"a" is int`},
		{`{"files": []}`, "files must be an object"},
		{`{"tool_outputs": 3}`, "tool_outputs must be a list"},
		{`{"memory": "x"}`, "memory must be an object"},
		{"{\n\"messages\": [}", "line 2"},
	}
	for _, tt := range tests {
		_, err := ParseSession([]byte(tt.in), "s.json")
		require.Error(t, err, tt.in)
		assert.Contains(t, err.Error(), tt.msg)
		assert.Contains(t, err.Error(), "s.json")
	}
	_, err := LoadSession(filepath.Join(t.TempDir(), "none.json"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such file")
}
