package orchestrator

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// submitted decodes a JSON object as SUBMIT outputs.
func submitted(t *testing.T, js string) *rlmctx.Dict {
	t.Helper()
	v, err := pyjson.Decode([]byte(js))
	require.NoError(t, err, js)
	d, ok := v.(*rlmctx.Dict)
	require.True(t, ok, js)
	return d
}

// problems is the part of a rejection that names what is wrong.
func problems(err error) string {
	if err == nil {
		return ""
	}
	msg := strings.TrimPrefix(err.Error(), ErrInvalidSubmit.Error()+": ")
	msg, _, _ = strings.Cut(msg, "; declared outputs: ")
	return msg
}

// TestNestedSubmit: 21 shapes, each with a valid SUBMIT and invalid ones,
// and the exact problems the model is shown.
func TestNestedSubmit(t *testing.T) {
	type bad struct{ outputs, problems string }
	tests := []struct {
		schema string
		valid  []string
		bad    []bad
	}{
		{"answer:str", []string{`{"answer": "x"}`},
			[]bad{{`{"answer": null}`, `field "answer" must be str, got None`}, {`{}`, `missing field "answer" (str)`}}},
		{"items: list[str]", []string{`{"items": []}`, `{"items": ["a", "b"]}`},
			[]bad{
				{`{"items": ["a", 1, null]}`, `items[1]: expected str, got int; items[2]: expected str, got None`},
				{`{"items": "a"}`, `field "items" must be list[str], got str`},
			}},
		{"items: list[{name: str, file: str, use: str}]", []string{`{"items": [{"name": "a", "file": "b", "use": "c", "extra": 1}]}`},
			[]bad{{`{"items": [{"name": "a", "file": "b", "use": "c"}, {}, {}, {"name": "d", "file": null, "use": "u"}]}`,
				`items[1].name: missing; items[1].file: missing; items[1].use: missing; items[2].name: missing; items[2].file: missing; items[2].use: missing; items[3].file: expected str, got None`}}},
		{"total: int", []string{`{"total": 3}`, `{"total": 123456789012345678901234567890}`},
			[]bad{{`{"total": 3.5}`, `field "total" must be int, got float`}, {`{"total": true}`, `field "total" must be int, got bool`}}},
		{"by_region: dict[str, int]", []string{`{"by_region": {}}`, `{"by_region": {"eu": 1, "us": 2}}`},
			[]bad{
				{`{"by_region": {"eu": 1, "x": "2"}}`, `by_region["x"]: expected int, got str`},
				{`{"by_region": [1]}`, `field "by_region" must be dict[str, int], got list`},
			}},
		{"confidence: float?", []string{`{}`, `{"confidence": null}`, `{"confidence": 1}`, `{"confidence": 0.5}`},
			[]bad{{`{"confidence": "high"}`, `field "confidence" must be float?, got str`}}},
		{"items: list[{name: str, file: str, use: str}], total: int, by_region: dict[str, int], confidence: float?",
			[]string{`{"items": [], "total": 0, "by_region": {}}`},
			[]bad{
				{
					`{"items": [{"name": "n", "file": 3, "use": "u"}], "by_region": {"x": null}}`,
					`items[0].file: expected str, got int; missing field "total" (int); by_region["x"]: expected int, got None`,
				},
			}},
		{"m: dict[str, list[int]]", []string{`{"m": {"a": [1, 2], "b": []}}`},
			[]bad{{`{"m": {"a": [1, "2"], "b": null}}`, `m["a"][1]: expected int, got str; m["b"]: expected list[int], got None`}}},
		{"grid: list[list[int]]", []string{`{"grid": [[1, 2], [], [3]]}`},
			[]bad{{`{"grid": [[1], 2, [3, 4.5]]}`, `grid[1]: expected list[int], got int; grid[2][1]: expected int, got float`}}},
		{
			"cfg: {db: {host: str, port: int}, tags: list[str]?}",
			[]string{`{"cfg": {"db": {"host": "h", "port": 5432}}}`, `{"cfg": {"db": {"host": "h", "port": 1}, "tags": null}}`},
			[]bad{
				{`{"cfg": {"db": {"host": "h"}, "tags": [1]}}`, `cfg.db.port: missing; cfg.tags[0]: expected str, got int`},
				{`{"cfg": {"db": "h"}}`, `cfg.db: expected {host:str, port:int}, got str`},
			},
		},
		{"status: \"open\"|\"closed\"", []string{`{"status": "open"}`},
			[]bad{
				{`{"status": "done"}`, `field "status" must be "open"|"closed", got "done"`},
				{`{"status": 1}`, `field "status" must be "open"|"closed", got int`},
			}},
		{"rows: list[{level: 1|2|3, label: str}]", []string{`{"rows": [{"level": 1, "label": "a"}, {"level": 3, "label": "b"}]}`},
			[]bad{
				{
					`{"rows": [{"level": 4, "label": "a"}, {"level": 3.0, "label": "b"}]}`,
					`rows[0].level: expected 1|2|3, got 4; rows[1].level: expected 1|2|3, got float`,
				},
			}},
		{"xs: list[int?]", []string{`{"xs": [1, null, 2]}`},
			[]bad{{`{"xs": [1, "a"]}`, `xs[1]: expected int?, got str`}, {`{"xs": null}`, `field "xs" must be list[int?], got None`}}},
		{"p: {x: float, y: float}?", []string{`{}`, `{"p": null}`, `{"p": {"x": 1, "y": 2.5}}`},
			[]bad{{`{"p": {"x": "1"}}`, `p.x: expected float, got str; p.y: missing`}}},
		{`"first-name": str, meta: {"content-type": str}`, []string{`{"first-name": "a", "meta": {"content-type": "t"}}`},
			[]bad{
				{
					`{"first-name": 1, "meta": {"content-type": 2}}`,
					`field "first-name" must be str, got int; meta["content-type"]: expected str, got int`,
				},
			}},
		{"flags: dict[str, bool], ok: bool", []string{`{"flags": {"a": true}, "ok": false}`},
			[]bad{{`{"flags": {"a": 1}, "ok": 0}`, `flags["a"]: expected bool, got int; field "ok" must be bool, got int`}}},
		{"anything: any, maybe: list[any]", []string{`{"anything": null, "maybe": [1, "a", null]}`},
			[]bad{{`{"maybe": {}}`, `missing field "anything" (any); field "maybe" must be list[any], got dict`}}},
		{"tree: dict[str, dict[str, {n: int}]]", []string{`{"tree": {"a": {"b": {"n": 1}}}}`},
			[]bad{{`{"tree": {"a": {"b": {"n": "1"}, "c": {}}}}`, `tree["a"]["b"].n: expected int, got str; tree["a"]["c"].n: missing`}}},
		{"n: None, t: True|False", []string{`{"n": null, "t": true}`},
			[]bad{{`{"n": 0, "t": 1}`, `field "n" must be None, got int; field "t" must be True|False, got int`}}},
		{"many: list[int]", []string{`{"many": [1]}`},
			[]bad{{`{"many": ["0","1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17","18","19","20","21"]}`,
				`many[0]: expected int, got str; many[1]: expected int, got str; many[2]: expected int, got str; many[3]: expected int, got str; many[4]: expected int, got str; many[5]: expected int, got str; many[6]: expected int, got str; many[7]: expected int, got str; many[8]: expected int, got str; many[9]: expected int, got str; many[10]: expected int, got str; many[11]: expected int, got str; many[12]: expected int, got str; many[13]: expected int, got str; many[14]: expected int, got str; many[15]: expected int, got str; many[16]: expected int, got str; many[17]: expected int, got str; many[18]: expected int, got str; many[19]: expected int, got str; and 2 more`}}},
		{"items: list[closed{name: str, n: int?}]", []string{`{"items": [{"name": "a"}, {"name": "b", "n": 1}]}`},
			[]bad{{`{"items": [{"name": "a", "file": "f"}, {"name": "b", "n": 1, "x": 2, "y": 3}]}`,
				`items[0]: unexpected key "file" (a closed object: only name, n); items[1]: unexpected key "x" (a closed object: only name, n); items[1]: unexpected key "y" (a closed object: only name, n)`}}},
	}
	require.Len(t, tests, 21)
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			s, err := ParseSchema(tt.schema)
			require.NoError(t, err)
			for _, v := range tt.valid {
				assert.NoError(t, s.Validate(submitted(t, v)), v)
			}
			for _, b := range tt.bad {
				err := s.Validate(submitted(t, b.outputs))
				require.ErrorIs(t, err, ErrInvalidSubmit, b.outputs)
				assert.Equal(t, b.problems, problems(err), b.outputs)
				assert.True(
					t,
					strings.HasSuffix(err.Error(), "; declared outputs: "+s.String()+"; call "+s.example()+" again"),
					err.Error(),
				)
			}
		})
	}
}

// TestParseSchemaErrors: a bad declaration says what and where.
func TestParseSchemaErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"answer:strr":         `field "answer" has unknown type "strr" (use str, int, float, bool, list, dict or any)`,
		"a: list[":            `field "a[]": expected a type, found the end`,
		"a: list[int":         `field "a": expected "]" to close list[, found the end`,
		"a: dict[int, str]":   `field "a": dict keys are str: write dict[str, T]`,
		"a: {}":               `field "a": empty object {} (write dict for a dict of any keys)`,
		"a: closed int":       `field "a": closed must be followed by an object, as in closed{name: str}`,
		"a: closed{}":         `field "a": empty object {} (write dict for a dict of any keys)`,
		"a: {b: strr}":        `field "a.b" has unknown type "strr" (use str, int, float, bool, list, dict or any)`,
		"a: {b: int":          `field "a": expected "}" to close the object, found the end`,
		"a: list[int] x":      `field "a" has unknown type "list[int] x" (use str, int, float, bool, list, dict or any)`,
		"a: {b: int, b: str}": `field "a.b" declared twice`,
		"a: {1b: int}":        `field name "1b" is not a Python identifier`,
		`a: "x"|y`:            `field "a": "y" is not a literal (write "text", a number, True, False or None)`,
		"a:str,,b:int":        `empty field in "a:str,,b:int" (write "name:type, name:type")`,
		"a:" + strings.Repeat("list[", 70) + "int" + strings.Repeat("]", 70): `nests deeper than 64 levels`,
	} {
		_, err := ParseSchema(spec)
		require.ErrorIs(t, err, ErrBadSchema, spec)
		assert.Contains(t, err.Error(), want, spec)
	}
}

// TestSchemaRoundTrip: the compact rendering and the JSON Schema both read
// back to the same schema.
func TestSchemaRoundTrip(t *testing.T) {
	for _, spec := range []string{
		"answer:str",
		"answer:str, confidence:float",
		"a:int, b:bool, c:list, d:dict, e:any, f:None",
		"items:list[{name:str, file:str, use:str}], total:int, by_region:dict[str, int], confidence:float?",
		"m:dict[str, list[int?]], grid:list[list[float]]",
		`status:"open"|"closed", level:1|2|3, ratio:0.5|1.0?, t:True|False`,
		`"first-name":str, meta:{"content-type":str, "x y":{z:int?}?}`,
		`s:"say \"hi\"\n"|"é"`,
		"items:list[closed{name:str, meta:{k:int}}], one:closed{a:int}?",
	} {
		s, err := ParseSchema(spec)
		require.NoError(t, err, spec)
		assert.Equal(t, spec, s.String(), "the compact rendering is the canonical declaration")
		again, err := ParseSchema(s.String())
		require.NoError(t, err)
		assert.Equal(t, s, again)

		fromJSON, err := ParseJSONSchema(s.JSONSchema())
		require.NoError(t, err, string(s.JSONSchema()))
		assert.Equal(t, s, fromJSON, string(s.JSONSchema()))
	}
	// Spacing, aliases and case are not kept.
	s, err := ParseSchema(" items : LIST[ { name : string } ] , n : integer ? , ok: boolean, x: number, y: null ")
	require.NoError(t, err)
	assert.Equal(t, "items:list[{name:str}], n:int?, ok:bool, x:float, y:None", s.String())
}

// TestParseJSONSchema: the subset of JSON Schema that is read, and the
// schemas OpenAI clients and pydantic write.
func TestParseJSONSchema(t *testing.T) {
	for js, want := range map[string]string{
		`{"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}`: "answer:str",
		// OpenAI strict mode: everything required, nullable by type arrays,
		// additionalProperties false.
		`{"type": "object", "additionalProperties": false, "required": ["items", "total", "note"], "properties": {
			"items": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["name"], "properties": {"name": {"type": "string", "description": "d"}}}},
			"total": {"type": "integer"}, "note": {"type": ["string", "null"]}}}`: "items:list[closed{name:str}], total:int, note:str?",
		// Not required: optional.
		`{"properties": {"a": {"type": "number"}, "b": {}}, "required": ["b"]}`: "a:float?, b:any",
		// A dict by additionalProperties; enum; const; pydantic's Optional.
		`{"type": "object", "title": "T", "$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {
			"by": {"type": "object", "additionalProperties": {"type": "integer"}},
			"kind": {"enum": ["a", "b", null]}, "one": {"const": 1}, "flag": {"type": "boolean", "default": false},
			"opt": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Opt"},
			"obj": {"type": "object"}, "arr": {"type": "array"}, "nul": {"type": "null"}},
			"required": ["by", "kind", "one", "flag", "opt", "obj", "arr", "nul"]}`: `by:dict[str, int], kind:"a"|"b"?, one:1, flag:bool, opt:str?, obj:dict, arr:list, nul:None`,
		// What pydantic and the OpenAI Python client send for nested models.
		`{"$defs": {"Item": {"properties": {"name": {"title": "Name", "type": "string"}, "file": {"title": "File", "type": "string"}},
			"required": ["name", "file"], "title": "Item", "type": "object", "additionalProperties": false}},
			"properties": {"items": {"items": {"$ref": "#/$defs/Item"}, "title": "Items", "type": "array"},
			"best": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]}, "total": {"title": "Total", "type": "integer"}},
			"required": ["items", "best", "total"], "title": "Inventory", "type": "object", "additionalProperties": false}`: "items:list[closed{name:str, file:str}], best:closed{name:str, file:str}?, total:int",
	} {
		s, err := ParseJSONSchema([]byte(js))
		require.NoError(t, err, js)
		assert.Equal(t, want, s.String(), js)
	}
	for js, want := range map[string]string{
		`{"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}}`:                                                                       `JSON Schema keyword "pattern" (at #/properties/a) is not supported`,
		`{"type": "object", "properties": {"a": {"$ref": "#/$defs/B"}}, "$defs": {"A": {}}}`:                                                                `JSON Schema keyword "$ref" (at #/properties/a): only references to the document's own $defs are supported (#/$defs/NAME), and "#/$defs/B" is not one of them`,
		`{"type": "object", "properties": {"a": {"$ref": "https://x/s.json"}}}`:                                                                             `JSON Schema keyword "$ref" (at #/properties/a): only references`,
		`{"type": "object", "properties": {"a": {"$ref": "#/$defs/N"}}, "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}}`: `$ref "#/$defs/N" is recursive`,
		`{"type": "object", "properties": {"a": {"type": "object", "$defs": {}}}}`:                                                                          `JSON Schema keyword "$defs" (at #/properties/a) is not supported`,
		`{"type": "object", "properties": {"a": {"type": "array", "items": {"format": "date"}}}}`:                                                           `JSON Schema keyword "format" (at #/properties/a/items) is not supported`,
		`{"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}`:                                                     `JSON Schema keyword "anyOf" (at #/properties/a) is supported only as [schema, {"type": "null"}]`,
		`{"type": "object", "properties": {"a": {"type": ["string", "integer"]}}}`:                                                                          `JSON Schema at #/properties/a: "type": ["string", "integer"]: a union of several types is not supported`,
		`{"type": "array", "items": {"type": "string"}}`:                                                                                                    `the JSON Schema's top level must be {"type": "object", "properties": {...}}`,
		`{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}`:                                                                    `required names "b", which properties does not declare`,
		`{"type": "object", "properties": {"a": {"type": "string", "enum": [1]}}}`:                                                                          `enum value 1 is not of type str`,
		`{"type": "object", "properties": {"a": {"type": "date"}}}`:                                                                                         `unknown type "date"`,
		`{"type": "object", "properties": {"a": {"type": "string", "items": {}}}}`:                                                                          `items applies to arrays, not to type str`,
		`[1]`: `a schema must be an object, got an array`,
		`{`:   `the JSON Schema is not valid JSON`,
	} {
		_, err := ParseJSONSchema([]byte(js))
		require.ErrorIs(t, err, ErrBadSchema, js)
		assert.Contains(t, err.Error(), want, js)
	}
}

// TestSchemaPromptGolden: how the declared outputs appear to the root
// model: the meta section, the final-extraction directive and the submit
// tool's parameters. go test ./orchestrator -run TestSchemaPromptGolden
// -update rewrites testdata/schema_prompt.golden.
func TestSchemaPromptGolden(t *testing.T) {
	var b strings.Builder
	for _, spec := range []string{
		"answer:str",
		"answer:str, confidence:float",
		"items: list[{name: str, file: str, use: str}], total: int, by_region: dict[str, int], confidence: float?",
		`status: "open"|"closed", "first-name": str?`,
	} {
		s, err := ParseSchema(spec)
		require.NoError(t, err)
		fmt.Fprintf(&b, "=== %s\n", spec)
		for _, p := range []Protocol{ProtocolText, ProtocolTools} {
			fmt.Fprintf(&b, "--- %s meta\n%s\n", p, metaPrompt("- doc: text, 5 bytes", s, p, 10))
			fmt.Fprintf(&b, "--- %s final\n%s\n", p, finalDirective(p, s))
		}
		fmt.Fprintf(&b, "--- submit tool\n%s\n", toolsFor(s)[1].Parameters)
	}
	golden := filepath.Join("testdata", "schema_prompt.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), b.String())
}

// TestNestedSubmitEndToEnd: a SUBMIT from the sandbox's Python, and one by
// the submit tool, are checked against a nested schema; the model sees the
// path that is wrong and submits again.
func TestNestedSubmitEndToEnd(t *testing.T) {
	s, err := ParseSchema("items: list[{name: str, n: int}], total: int, note: str?")
	require.NoError(t, err)
	res, model := runSandboxed(t, Config{Outputs: s},
		llmtest.Say(code("SUBMIT(items=[{'name': 'a', 'n': 1}, {'name': None, 'n': 2}], total=3)")),
		llmtest.Say(code("SUBMIT(items=[{'name': 'a', 'n': 1}, {'name': 'b', 'n': 2}], total=3)")))
	require.Equal(t, StopSubmit, res.StopReason)
	reqs := model.Requests()
	require.Len(t, reqs, 2)
	assert.Contains(
		t,
		reqs[0].Messages[1].Content,
		"Declared outputs: items:list[{name:str, n:int}], total:int, note:str? (T? accepts None or a missing key)",
	)
	assert.Contains(
		t,
		reqs[1].Messages[len(reqs[1].Messages)-1].Content,
		"[engine] SUBMIT rejected: items[1].name: expected str, got None; declared outputs: ",
	)
	out, err := MarshalValue(res.Outputs)
	require.NoError(t, err)
	assert.JSONEq(t, `{"items": [{"name": "a", "n": 1}, {"name": "b", "n": 2}], "total": 3}`, string(out))

	res, model = runSandboxed(
		t,
		Config{Outputs: s, Protocol: ProtocolTools},
		llmtest.CallTools(llm.ToolCall{ID: "c1", Name: toolSubmit, Arguments: `{"items": [{"name": "a"}], "total": 1}`}),
		llmtest.CallTools(
			llm.ToolCall{ID: "c2", Name: toolSubmit, Arguments: `{"items": [{"name": "a", "n": 5}], "total": 1, "note": null}`},
		),
	)
	require.Equal(t, StopSubmit, res.StopReason)
	reqs = model.Requests()
	require.Len(t, reqs, 2)
	var result string
	for _, m := range reqs[1].Messages {
		if m.ToolCallID == "c1" {
			result = m.Content
		}
	}
	assert.Equal(
		t,
		"[engine] submit rejected: items[0].n: missing; declared outputs: items:list[{name:str, n:int}], total:int, note:str?; call the submit tool again with the corrected outputs",
		result,
	)
}
