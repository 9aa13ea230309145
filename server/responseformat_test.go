package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const nestedSchema = `{"type": "object", "additionalProperties": false, "required": ["items", "total", "by_region", "note"], "properties": {
	"items": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["name", "file"],
		"properties": {"name": {"type": "string"}, "file": {"type": "string", "description": "its path"}}}},
	"total": {"type": "integer"},
	"by_region": {"type": "object", "additionalProperties": {"type": "integer"}},
	"note": {"type": ["string", "null"]}}}`

func jsonSchemaFormat(name, schema string) *openai.ChatCompletionResponseFormat {
	return &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: json.RawMessage(schema), Strict: true}}
}

// TestResponseFormatJSONSchema: response_format json_schema, through the
// OpenAI client, is the run's output schema: the model is shown it in the
// compact syntax, a SUBMIT that does not match is sent back naming the
// path, and the content is the SUBMIT object.
func TestResponseFormatJSONSchema(t *testing.T) {
	ts := newTestServer(t, nil)
	ask := func(query string) openai.ChatCompletionResponse {
		resp, err := ts.client(nil).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
			Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: query}},
			ResponseFormat: jsonSchemaFormat("inventory", nestedSchema),
		})
		require.NoError(t, err)
		require.Len(t, resp.Choices, 1)
		assert.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)
		return resp
	}
	resp := ask("nested")
	assert.JSONEq(
		t,
		`{"items": [{"name": "a", "file": "a.go"}, {"name": "b", "file": "b.go"}], "total": 2, "by_region": {"eu": 2}}`,
		resp.Choices[0].Message.Content,
	)
	var declared string
	for _, c := range ts.up.Calls() {
		if c.Model == rootModel && strings.HasSuffix(queryOf(c.Messages), "nested") {
			for _, m := range c.Messages {
				if _, after, ok := strings.Cut(m.Content, "Declared outputs: "); ok {
					declared, _, _ = strings.Cut(after, "\n")
				}
			}
		}
	}
	assert.Equal(
		t,
		"items:list[closed{name:str, file:str}], total:int, by_region:dict[str, int], note:str? (T? accepts None or a missing key; closed{...} allows no other keys)",
		declared,
	)

	resp = ask("nestedfix")
	assert.JSONEq(t, `{"items": [{"name": "a", "file": "a.go"}], "total": 1, "by_region": {"eu": 1}}`, resp.Choices[0].Message.Content)
	var seen string
	for _, c := range ts.up.Calls() {
		if c.Model == rootModel && queryOf(c.Messages) == "nestedfix" && assistants(c.Messages) == 1 {
			seen = c.Messages[len(c.Messages)-1].Content
		}
	}
	assert.Contains(
		t,
		seen,
		`[engine] SUBMIT rejected: items[0].file: expected str, got None; by_region["eu"]: expected int, got str; declared outputs: items:list[closed{name:str, file:str}]`,
	)

	// additionalProperties: false: a nested undeclared key is refused by
	// SUBMIT, and one at the top level is left out of the content, which
	// therefore validates against the schema.
	resp = ask("nestedextra")
	assert.JSONEq(t, `{"items": [{"name": "a", "file": "a.go"}], "total": 1, "by_region": {}}`, resp.Choices[0].Message.Content)
	seen = ""
	for _, c := range ts.up.Calls() {
		if c.Model == rootModel && queryOf(c.Messages) == "nestedextra" && assistants(c.Messages) == 1 {
			seen = c.Messages[len(c.Messages)-1].Content
		}
	}
	assert.Contains(t, seen, `[engine] SUBMIT rejected: items[0]: unexpected key "size" (a closed object: only name, file)`)

	// A one-field schema named answer is an object too.
	r2, err := ts.client(nil).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "echo hi"}},
		ResponseFormat: jsonSchemaFormat("a", `{"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}`),
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"answer": "hi"}`, r2.Choices[0].Message.Content)

	// Streamed, the content is the same object.
	stream, err := ts.client(nil).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "rlm", Stream: true, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "nested"}},
		ResponseFormat: jsonSchemaFormat("inventory", nestedSchema),
	})
	require.NoError(t, err)
	defer stream.Close()
	var text strings.Builder
	for {
		ch, err := stream.Recv()
		if err != nil {
			break
		}
		for _, c := range ch.Choices {
			text.WriteString(c.Delta.Content)
		}
	}
	assert.JSONEq(
		t,
		`{"items": [{"name": "a", "file": "a.go"}, {"name": "b", "file": "b.go"}], "total": 2, "by_region": {"eu": 2}}`,
		text.String(),
	)
}

// TestResponseFormatJSONObject: json_object asks for one JSON object, the
// content; text is the default; rlm.output takes the nested syntax.
func TestResponseFormatJSONObject(t *testing.T) {
	ts := newTestServer(t, nil)
	resp, err := ts.client(nil).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "jsonobj"}},
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject},
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"a": 1, "b": [true, null]}`, resp.Choices[0].Message.Content)

	resp, err = ts.client(nil).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "echo plain"}},
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeText},
	})
	require.NoError(t, err)
	assert.Equal(t, "plain", resp.Choices[0].Message.Content)

	resp, err = ts.client(map[string]any{"output": "items: list[{name: str, file: str}], total: int, by_region: dict[str, int]"}).
		CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
			Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "nestedfix"}},
		})
	require.NoError(t, err)
	assert.JSONEq(t, `{"items": [{"name": "a", "file": "a.go"}], "total": 1, "by_region": {"eu": 1}}`, resp.Choices[0].Message.Content)
}

// TestResponseFormatRefused: a schema the converter refuses is a 400
// naming response_format and the keyword.
func TestResponseFormatRefused(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, tt := range []struct {
		format      any
		rlm         map[string]any
		param, want string
	}{
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string", "pattern": "^a"}}}}},
			nil, "response_format.json_schema.schema", `JSON Schema keyword "pattern" (at #/properties/a) is not supported`},
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "schema": map[string]any{"$ref": "#/$defs/A"}}},
			nil, "response_format.json_schema.schema", `JSON Schema keyword "$ref" (at #): only references to the document's own $defs`},
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"allOf": []any{}}}}}},
			nil, "response_format.json_schema.schema", `JSON Schema keyword "allOf" (at #/properties/a) is not supported`},
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "schema": map[string]any{"type": "array"}}},
			nil, "response_format.json_schema.schema", `top level must be {"type": "object", "properties": {...}}`},
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x"}},
			nil, "response_format.json_schema.schema", "required"},
		{map[string]any{"type": "xml"}, nil, "response_format.type", `"xml" is not one of text, json_object, json_schema`},
		{map[string]any{"type": "json_object"}, map[string]any{"output": "a:int"}, "response_format", "and so does rlm.output"},
		{nil, map[string]any{"output": "a: list[{b: strr}]"}, "rlm.output", `field "a[].b" has unknown type "strr"`},
	} {
		b := chatBody("echo hi", tt.rlm)
		if tt.format != nil {
			b["response_format"] = tt.format
		}
		code, _, raw := ts.do(t, "POST", "/v1/chat/completions", b)
		require.Equal(t, 400, code, string(raw))
		var e struct {
			Error struct{ Param, Message string }
		}
		require.NoError(t, json.Unmarshal(raw, &e), string(raw))
		assert.Equal(t, tt.param, e.Error.Param, string(raw))
		assert.Contains(t, e.Error.Message, tt.param+": ", string(raw))
		assert.Contains(t, e.Error.Message, tt.want, string(raw))
	}
}
