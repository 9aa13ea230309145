package orchestrator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
)

// jsonSchemaSupported lists the JSON Schema keywords ParseJSONSchema
// reads, for its errors.
const jsonSchemaSupported = `supported: type (one type, or one and "null"), properties, required, items, additionalProperties (false: a closed object, whose other keys are refused; true; or the value schema of a dict), enum, const, nullable, anyOf of a schema and {"type": "null"}, $ref to the document's $defs, and the annotations title, description, default, examples, $schema, $id, $comment`

// jsonSchemaAnnotations are keywords that constrain nothing: accepted
// and ignored.
var jsonSchemaAnnotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true,
	"$schema": true, "$id": true, "$comment": true,
}

// ParseJSONSchema converts a JSON Schema document to a Schema: the top
// level is an object whose properties are the declared outputs. It reads
// a practical subset (jsonSchemaSupported) and refuses any other keyword,
// naming it and where it is. A property not in required, or whose type
// admits null, is optional (T?).
func ParseJSONSchema(data []byte) (Schema, error) {
	v, err := pyjson.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: the JSON Schema is not valid JSON: %v", ErrBadSchema, err)
	}
	return SchemaFromJSON(v)
}

// SchemaFromJSON is ParseJSONSchema for a decoded document (*rlmctx.Dict
// objects, as pyjson.Decode returns them).
func SchemaFromJSON(v any) (Schema, error) {
	t, err := ObjectFromJSON(v)
	return Schema(t.Fields), err
}

// ObjectFromJSON is SchemaFromJSON returning the top level as an object
// type, whose Closed says the document's top level has
// additionalProperties: false.
func ObjectFromJSON(v any) (Type, error) {
	c := &jsonConv{active: map[string]bool{}}
	if d, ok := v.(*rlmctx.Dict); ok {
		for _, k := range []string{"$defs", "definitions"} {
			if defs, ok := d.Get(k); ok {
				dd, isDict := defs.(*rlmctx.Dict)
				if !isDict {
					return Type{}, jsonSchemaErr("#", "%s must be an object", k)
				}
				if c.defs == nil {
					c.defs = map[string]any{}
				}
				for name, def := range dd.All() {
					c.defs["#/"+k+"/"+pointerEscape(name)] = def
				}
			}
		}
	}
	t, err := c.typeFromJSON(v, "#", 0)
	if err != nil {
		return Type{}, err
	}
	if t.Kind != TypeObject || t.Optional {
		return Type{}, fmt.Errorf(
			`%w: the JSON Schema's top level must be {"type": "object", "properties": {...}}: its properties are the declared outputs`,
			ErrBadSchema,
		)
	}
	return t, nil
}

// jsonConv converts one JSON Schema document: defs are its $defs (or
// definitions) by reference, active the references being converted (a
// recursive schema is refused).
type jsonConv struct {
	defs   map[string]any
	active map[string]bool
}

func jsonSchemaErr(path, format string, args ...any) error {
	return fmt.Errorf("%w: JSON Schema at %s: "+format, append([]any{ErrBadSchema, path}, args...)...)
}

func (c *jsonConv) typeFromJSON(v any, path string, depth int) (Type, error) {
	if depth > maxSchemaDepth {
		return Type{}, jsonSchemaErr(path, "nests deeper than %d levels", maxSchemaDepth)
	}
	switch x := v.(type) {
	case bool:
		if x {
			return Type{Kind: TypeAny}, nil
		}
		return Type{}, jsonSchemaErr(path, "the schema false accepts nothing")
	case *rlmctx.Dict:
	default:
		return Type{}, jsonSchemaErr(path, "a schema must be an object, got %s", jsonTypeName(v))
	}
	d := v.(*rlmctx.Dict)
	if ref, ok := d.Get("$ref"); ok {
		return c.ref(d, ref, path, depth)
	}
	for _, k := range d.Keys() {
		switch {
		case jsonSchemaAnnotations[k]:
		case (k == "$defs" || k == "definitions") && path == "#":
		case slices.Contains([]string{"type", "properties", "required", "items", "additionalProperties", "enum", "const", "nullable", "anyOf", "oneOf"}, k):
		default:
			return Type{}, fmt.Errorf(
				"%w: JSON Schema keyword %q (at %s) is not supported (%s)",
				ErrBadSchema,
				k,
				path,
				jsonSchemaSupported,
			)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alt, ok := d.Get(k); ok {
			return c.nullableAlt(d, k, alt, path, depth)
		}
	}

	var t Type
	if n, ok := d.Get("nullable"); ok {
		b, isBool := n.(bool)
		if !isBool {
			return t, jsonSchemaErr(path, "nullable must be true or false")
		}
		t.Optional = b
	}
	var types []string
	if tv, ok := d.Get("type"); ok {
		switch x := tv.(type) {
		case string:
			types = []string{x}
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return t, jsonSchemaErr(path, "type must be a string or an array of strings")
				}
				types = append(types, s)
			}
		default:
			return t, jsonSchemaErr(path, "type must be a string or an array of strings")
		}
	}
	var kinds []string
	for _, s := range types {
		if s == "null" {
			t.Optional = true
		} else if !slices.Contains(kinds, s) {
			kinds = append(kinds, s)
		}
	}
	switch {
	case len(kinds) > 1:
		return t, jsonSchemaErr(
			path,
			`"type": [%s]: a union of several types is not supported (one type, optionally with "null")`,
			strings.Join(quoteAll(types), ", "),
		)
	case len(kinds) == 1:
		switch kinds[0] {
		case "string":
			t.Kind = TypeStr
		case "integer":
			t.Kind = TypeInt
		case "number":
			t.Kind = TypeFloat
		case "boolean":
			t.Kind = TypeBool
		case "array":
			t.Kind = TypeList
		case "object":
			t.Kind = TypeDict
		default:
			return t, jsonSchemaErr(path, "unknown type %q (use string, integer, number, boolean, array, object or null)", kinds[0])
		}
	case len(types) > 0: // only "null"
		t.Kind, t.Optional = TypeNone, false
	default:
		t.Kind = TypeAny
		switch {
		case d.Has("properties") || d.Has("additionalProperties") || d.Has("required"):
			t.Kind = TypeDict
		case d.Has("items"):
			t.Kind = TypeList
		}
	}
	for _, k := range []string{"properties", "required", "additionalProperties"} {
		if d.Has(k) && t.Kind != TypeDict {
			return t, jsonSchemaErr(path, "%s applies to objects, not to type %s", k, t.Kind)
		}
	}
	if d.Has("items") && t.Kind != TypeList {
		return t, jsonSchemaErr(path, "items applies to arrays, not to type %s", t.Kind)
	}
	if err := enumFromJSON(d, &t, path); err != nil {
		return t, err
	}
	switch t.Kind {
	case TypeList:
		if it, ok := d.Get("items"); ok {
			if _, isArr := it.([]any); isArr {
				return t, jsonSchemaErr(path, "items as an array of schemas (a tuple) is not supported")
			}
			e, err := c.typeFromJSON(it, path+"/items", depth+1)
			if err != nil {
				return t, err
			}
			if e.Kind != TypeAny || len(e.Enum) > 0 {
				t.Elem = &e
			}
		}
	case TypeDict:
		return c.objectFromJSON(d, t, path, depth)
	}
	return t, nil
}

// objectFromJSON reads an object's properties, required and
// additionalProperties.
func (c *jsonConv) objectFromJSON(d *rlmctx.Dict, t Type, path string, depth int) (Type, error) {
	ap, hasAP := d.Get("additionalProperties")
	var apType *Type
	closed := false
	if hasAP {
		if b, isBool := ap.(bool); isBool {
			closed = !b
		} else {
			e, err := c.typeFromJSON(ap, path+"/additionalProperties", depth+1)
			if err != nil {
				return t, err
			}
			if e.Kind != TypeAny || len(e.Enum) > 0 {
				apType = &e
			}
		}
	}
	var required []string
	if r, ok := d.Get("required"); ok {
		arr, isArr := r.([]any)
		if !isArr {
			return t, jsonSchemaErr(path, "required must be an array of property names")
		}
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				return t, jsonSchemaErr(path, "required must be an array of property names")
			}
			required = append(required, s)
		}
	}
	pv, hasProps := d.Get("properties")
	props, isDict := pv.(*rlmctx.Dict)
	if hasProps && !isDict {
		return t, jsonSchemaErr(path, "properties must be an object")
	}
	if !hasProps || props.Len() == 0 {
		if len(required) > 0 {
			return t, jsonSchemaErr(path, "required names %q, which properties does not declare", required[0])
		}
		t.Elem = apType
		return t, nil
	}
	if apType != nil {
		return t, jsonSchemaErr(
			path,
			"additionalProperties as a schema alongside properties is not supported (an object without properties and with additionalProperties is a dict[str, T])",
		)
	}
	for _, r := range required {
		if !props.Has(r) {
			return t, jsonSchemaErr(path, "required names %q, which properties does not declare", r)
		}
	}
	t.Kind = TypeObject
	t.Closed = closed
	for name, pv := range props.All() {
		ft, err := c.typeFromJSON(pv, path+"/properties/"+pointerEscape(name), depth+1)
		if err != nil {
			return t, err
		}
		if !slices.Contains(required, name) {
			ft.Optional = true
		}
		t.Fields = append(t.Fields, Field{Name: name, Type: ft})
	}
	return t, nil
}

// ref reads {"$ref": "#/$defs/NAME"} (or #/definitions/NAME): the
// schema it names, converted in its place.
func (c *jsonConv) ref(d *rlmctx.Dict, ref any, path string, depth int) (Type, error) {
	for _, k := range d.Keys() {
		if k != "$ref" && !jsonSchemaAnnotations[k] {
			return Type{}, jsonSchemaErr(path, "$ref alongside %s is not supported", k)
		}
	}
	r, _ := ref.(string)
	def, ok := c.defs[r]
	if !ok {
		return Type{}, fmt.Errorf(
			"%w: JSON Schema keyword \"$ref\" (at %s): only references to the document's own $defs are supported (#/$defs/NAME), and %q is not one of them",
			ErrBadSchema,
			path,
			r,
		)
	}
	if c.active[r] {
		return Type{}, jsonSchemaErr(path, "$ref %q is recursive: a recursive schema is not supported", r)
	}
	c.active[r] = true
	defer delete(c.active, r)
	return c.typeFromJSON(def, r, depth+1)
}

// nullableAlt reads anyOf/oneOf of a schema and {"type": "null"} (what
// pydantic writes for an Optional field) as that schema, optional.
func (c *jsonConv) nullableAlt(d *rlmctx.Dict, kw string, alt any, path string, depth int) (Type, error) {
	for _, k := range d.Keys() {
		if k != kw && !jsonSchemaAnnotations[k] {
			return Type{}, jsonSchemaErr(path, "%s alongside %s is not supported", kw, k)
		}
	}
	arr, _ := alt.([]any)
	var rest []any
	null := false
	for _, e := range arr {
		if ed, ok := e.(*rlmctx.Dict); ok && ed.Len() == 1 {
			if tv, _ := ed.Get("type"); tv == "null" {
				null = true
				continue
			}
		}
		rest = append(rest, e)
	}
	if !null || len(rest) != 1 {
		return Type{}, fmt.Errorf(
			`%w: JSON Schema keyword %q (at %s) is supported only as [schema, {"type": "null"}] (%s)`,
			ErrBadSchema,
			kw,
			path,
			jsonSchemaSupported,
		)
	}
	t, err := c.typeFromJSON(rest[0], fmt.Sprintf("%s/%s/%d", path, kw, slices.Index(arr, rest[0])), depth+1)
	if err != nil {
		return t, err
	}
	if t.Kind != TypeNone && t.Kind != TypeAny {
		t.Optional = true
	}
	return t, nil
}

// enumFromJSON reads enum and const into t.Enum.
func enumFromJSON(d *rlmctx.Dict, t *Type, path string) error {
	var vals []any
	if e, ok := d.Get("enum"); ok {
		arr, isArr := e.([]any)
		if !isArr || len(arr) == 0 {
			return jsonSchemaErr(path, "enum must be a non-empty array")
		}
		vals = arr
	}
	if c, ok := d.Get("const"); ok {
		if vals != nil {
			return jsonSchemaErr(path, "enum and const together are not supported")
		}
		vals = []any{c}
	}
	if vals == nil {
		return nil
	}
	for _, v := range vals {
		switch v.(type) {
		case nil:
			t.Optional = true
			continue
		case string, int64, float64, bool:
		case *big.Int:
			return jsonSchemaErr(path, "enum value %s is out of range", v)
		default:
			return jsonSchemaErr(path, "enum values must be strings, numbers, booleans or null, got %s", jsonTypeName(v))
		}
		if t.Kind != TypeAny && !kindMatches(t.Kind, v) {
			return jsonSchemaErr(path, "enum value %s is not of type %s", literalString(v), t.Kind)
		}
		t.Enum = append(t.Enum, v)
	}
	if len(t.Enum) == 0 {
		t.Kind, t.Optional = TypeNone, false
		return nil
	}
	if t.Kind == TypeAny {
		t.Kind = enumKind(t.Enum)
	}
	return nil
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, *big.Int, float64:
		return "a number"
	case []any:
		return "an array"
	case *rlmctx.Dict:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// jsonTypes maps an output kind to its JSON Schema type; TypeAny has none.
var jsonTypes = map[FieldType]string{
	TypeStr: "string", TypeInt: "integer", TypeFloat: "number",
	TypeBool: "boolean", TypeList: "array", TypeDict: "object", TypeObject: "object", TypeNone: "null",
}

// JSONSchema renders the schema as a JSON Schema object, which
// ParseJSONSchema reads back to the same Schema: an optional key is
// nullable and not required.
func (s Schema) JSONSchema() json.RawMessage {
	b, _ := MarshalValue(objectJSON(s))
	var out bytes.Buffer
	_ = json.Compact(&out, b)
	return out.Bytes()
}

// JSONSchema renders the type as a JSON Schema.
func (t Type) JSONSchema() json.RawMessage {
	b, _ := MarshalValue(t.jsonValue())
	var out bytes.Buffer
	_ = json.Compact(&out, b)
	return out.Bytes()
}

func objectJSON(fields []Field) *rlmctx.Dict {
	d := rlmctx.NewDict(3)
	d.Set("type", "object")
	props := rlmctx.NewDict(len(fields))
	req := []any{}
	for _, f := range fields {
		props.Set(f.Name, f.Type.jsonValue())
		if !f.Optional {
			req = append(req, f.Name)
		}
	}
	d.Set("properties", props)
	d.Set("required", req)
	return d
}

func (t Type) jsonValue() *rlmctx.Dict {
	if t.Kind == TypeObject {
		d := objectJSON(t.Fields)
		if t.Closed {
			d.Set("additionalProperties", false)
		}
		if t.Optional {
			d.Set("type", []any{"object", "null"})
		}
		return d
	}
	d := rlmctx.NewDict(2)
	if jt, ok := jsonTypes[t.Kind]; ok {
		if t.Optional && t.Kind != TypeNone {
			d.Set("type", []any{jt, "null"})
		} else {
			d.Set("type", jt)
		}
	}
	if len(t.Enum) > 0 {
		vals := append([]any(nil), t.Enum...)
		if t.Optional {
			vals = append(vals, nil)
		}
		d.Set("enum", vals)
	}
	if t.Elem != nil {
		switch t.Kind {
		case TypeList:
			d.Set("items", t.Elem.jsonValue())
		case TypeDict:
			d.Set("additionalProperties", t.Elem.jsonValue())
		}
	}
	return d
}
