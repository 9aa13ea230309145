package server

import (
	"slices"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/orchestrator"
)

// Response formats (a request's response_format type).
const (
	formatText       = ""
	formatJSONSchema = "json_schema"
	formatJSONObject = "json_object"
)

// responseFormat is the response_format of a chat completion request.
type responseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Schema      rawRef `json:"schema"`
		Strict      *bool  `json:"strict"`
	} `json:"json_schema"`
}

// applyResponseFormat applies response_format to the run: json_schema
// declares the run's outputs (by orchestrator.ParseJSONSchema), and the
// completion's content is then the SUBMIT object as JSON, always
// validated (strict or not); json_object declares one answer of type
// dict, whose JSON is the content; text, the default, changes nothing.
// byOutput reports that rlm.output declared the outputs already.
func applyResponseFormat(spec *runSpec, raw rawRef, byOutput bool) error {
	if v := strings.TrimSpace(string(raw)); v == "" || v == "null" {
		return nil
	}
	var rf responseFormat
	if err := decodeJSON(raw, &rf, false, "response_format."); err != nil {
		return err
	}
	switch rf.Type {
	case "text":
		return nil
	case formatJSONObject, formatJSONSchema:
	default:
		return badRequest("response_format.type", "%q is not one of text, json_object, json_schema", rf.Type)
	}
	if byOutput {
		return badRequest("response_format", "%s declares the outputs, and so does rlm.output: pass one of them", rf.Type)
	}
	spec.format = rf.Type
	if rf.Type == formatJSONObject {
		spec.schema = orchestrator.Schema{{Name: "answer", Type: orchestrator.Type{Kind: orchestrator.TypeDict}}}
		spec.output = spec.schema.String()
		return nil
	}
	if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 || string(rf.JSONSchema.Schema) == "null" {
		return badRequest(
			"response_format.json_schema.schema",
			`required: the JSON Schema of the answer, {"type": "object", "properties": {...}}`,
		)
	}
	v, err := pyjson.Decode(rf.JSONSchema.Schema)
	if err != nil {
		return badRequest("response_format.json_schema.schema", "malformed JSON: %v", err)
	}
	root, err := orchestrator.ObjectFromJSON(v)
	if err != nil {
		return badRequest(
			"response_format.json_schema.schema",
			"%s",
			strings.TrimPrefix(err.Error(), orchestrator.ErrBadSchema.Error()+": "),
		)
	}
	schema := orchestrator.Schema(root.Fields)
	spec.schema = schema
	spec.closedOutputs = root.Closed
	spec.output = schema.String()
	return nil
}

// declaredOnly is a SUBMIT object (JSON) with only the declared outputs,
// in the order SUBMIT gave them: the content of a json_schema completion
// whose top level has additionalProperties: false. (Nested closed objects
// are enforced by SUBMIT's validation; at the top level, SUBMIT keeps
// undeclared keys, which such a schema does not allow.)
func declaredOnly(outputs []byte, schema orchestrator.Schema) []byte {
	v, err := pyjson.Decode(outputs)
	d, ok := v.(*rlmctx.Dict)
	if err != nil || !ok {
		return outputs
	}
	keep := rlmctx.NewDict(len(schema))
	for k, x := range d.All() {
		if slices.ContainsFunc(schema, func(f orchestrator.Field) bool { return f.Name == k }) {
			keep.Set(k, x)
		}
	}
	b, err := orchestrator.MarshalValue(keep)
	if err != nil {
		return outputs
	}
	return b
}
