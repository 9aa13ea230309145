package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
)

// nestedRoot scripts a root model that SUBMITs items whose name is not a
// str, then, after the engine's error, valid items.
func nestedRoot(srv *llmtest.Server) {
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		n := 0
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		if n == 0 {
			return llmtest.Text("```python\nSUBMIT(items=[{\"name\": \"a\"}, {\"name\": 2}])\n```")
		}
		return llmtest.Text("```python\nSUBMIT(items=[{\"name\": \"a\"}, {\"name\": \"b\"}])\n```")
	})
}

// TestRunNestedOutput: rlm run --output with a nested type, and the same
// declaration by --output-schema: the model is shown the shape, a SUBMIT
// that does not match is sent back naming the path, and the outputs are
// the valid SUBMIT.
func TestRunNestedOutput(t *testing.T) {
	srv := llmtest.NewServer(t)
	nestedRoot(srv)
	dir := t.TempDir()
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	schemaFile := filepath.Join(dir, "schema.json")
	require.NoError(t, os.WriteFile(schemaFile, []byte(`{"type": "object", "required": ["items"], "additionalProperties": false,
		"properties": {"items": {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}}}`), 0o644))

	for _, decl := range [][]string{{"--output", "items: list[{name: str}]"}, {"--output-schema", schemaFile}} {
		t.Run(decl[0], func(t *testing.T) {
			before := len(srv.Calls())
			args := append([]string{"run", "--query", "list the items", "--json", "--quiet", "--no-keep"}, decl...)
			code, out, errOut := runCLI(t, "", env, args...)
			require.Equal(t, 0, code, "stderr: %s", errOut)
			var res map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &res), out)
			assert.Equal(t, "submit", res["stop_reason"])
			assert.Equal(t, map[string]any{"items": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}}, res["outputs"])

			calls := srv.Calls()[before:]
			require.Len(t, calls, 2)
			var meta string
			for _, m := range calls[0].Messages {
				meta += m.Content
			}
			assert.Contains(t, meta, "Declared outputs: items:list[{name:str}]\n")
			last := calls[1].Messages[len(calls[1].Messages)-1].Content
			assert.Contains(
				t,
				last,
				"[engine] SUBMIT rejected: items[1].name: expected str, got int; declared outputs: items:list[{name:str}]",
			)
		})
	}
}

func TestRunOutputUsageErrors(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "RLM_MODEL": "m"}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"type": "object", "properties": {"a": {"type": "string", "format": "date"}}}`), 0o644))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--output", "items: list[{name: strr}]"}, `--output: orchestrator: bad output schema: field "items[].name" has unknown type "strr"`},
		{[]string{"--output-schema", bad}, `--output-schema ` + bad + `: orchestrator: bad output schema: JSON Schema keyword "format" (at #/properties/a) is not supported`},
		{[]string{"--output-schema", filepath.Join(dir, "missing.json")}, "--output-schema: open"},
		{[]string{"--output", "a:int", "--output-schema", bad}, "--output and --output-schema both declare the outputs"},
	} {
		code, _, errOut := runCLI(t, "", env, append([]string{"run", "--query", "q"}, tt.args...)...)
		assert.Equal(t, 2, code, strings.Join(tt.args, " "))
		assert.Contains(t, errOut, tt.want)
	}
	code, _, errOut := runCLI(t, "", env, "serve", "--output-schema", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `JSON Schema keyword "format"`)
}
