package orchestrator

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
)

// FieldType is the declared type of one output field.
type FieldType string

// Output field types accepted in a schema.
const (
	TypeStr   FieldType = "str"
	TypeInt   FieldType = "int"
	TypeFloat FieldType = "float"
	TypeBool  FieldType = "bool"
	TypeList  FieldType = "list"
	TypeDict  FieldType = "dict"
	TypeAny   FieldType = "any"
)

// Field is one declared output of a run.
type Field struct {
	Name string    `json:"name"`
	Type FieldType `json:"type"`
}

// Schema is the ordered list of outputs SUBMIT must provide.
type Schema []Field

// DefaultSchema is the schema used when none is declared: answer:str.
var DefaultSchema = Schema{{Name: "answer", Type: TypeStr}}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseSchema parses a declaration such as "answer:str, confidence:float".
// A field without a type is str. An empty declaration gives DefaultSchema.
func ParseSchema(s string) (Schema, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultSchema, nil
	}
	var out Schema
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%w: empty field in %q (write \"name:type, name:type\")", ErrBadSchema, s)
		}
		name, typ, ok := strings.Cut(part, ":")
		name = strings.TrimSpace(name)
		typ = strings.ToLower(strings.TrimSpace(typ))
		if !ok || typ == "" {
			typ = string(TypeStr)
		}
		if !identRE.MatchString(name) {
			return nil, fmt.Errorf("%w: field name %q is not a Python identifier", ErrBadSchema, name)
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: field %q declared twice", ErrBadSchema, name)
		}
		seen[name] = true
		ft := FieldType(typ)
		switch ft {
		case TypeStr, TypeInt, TypeFloat, TypeBool, TypeList, TypeDict, TypeAny:
		case "string":
			ft = TypeStr
		case "number":
			ft = TypeFloat
		default:
			return nil, fmt.Errorf("%w: field %q has unknown type %q (use str, int, float, bool, list, dict or any)", ErrBadSchema, name, typ)
		}
		out = append(out, Field{Name: name, Type: ft})
	}
	return out, nil
}

// String renders the schema as "answer:str, confidence:float".
func (s Schema) String() string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = f.Name + ":" + string(f.Type)
	}
	return strings.Join(parts, ", ")
}

// singleAnswer reports whether the outputs are one field named answer, the
// output FINAL and FINAL_VAR finish with.
func (s Schema) singleAnswer() bool { return len(s) == 1 && s[0].Name == "answer" }

// example renders a SUBMIT call template for the prompt.
func (s Schema) example() string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = fmt.Sprintf("%q: <%s>", f.Name, f.Type)
	}
	return "SUBMIT({" + strings.Join(parts, ", ") + "})"
}

// Validate checks SUBMIT outputs against the schema. Fields not declared are
// kept. The error names every missing or mistyped field.
func (s Schema) Validate(out *rlmctx.Dict) error {
	if out == nil {
		return fmt.Errorf("%w: no outputs; call %s", ErrInvalidSubmit, s.example())
	}
	var problems []string
	for _, f := range s {
		v, ok := out.Get(f.Name)
		if !ok {
			problems = append(problems, fmt.Sprintf("missing field %q (%s)", f.Name, f.Type))
			continue
		}
		if !typeMatches(f.Type, v) {
			problems = append(problems, fmt.Sprintf("field %q must be %s, got %s", f.Name, f.Type, pyTypeName(v)))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s; declared outputs: %s; call %s again", ErrInvalidSubmit, strings.Join(problems, "; "), s, s.example())
	}
	return nil
}

func typeMatches(t FieldType, v any) bool {
	switch t {
	case TypeAny:
		return true
	case TypeStr:
		_, ok := v.(string)
		return ok
	case TypeInt:
		switch v.(type) {
		case int64, *big.Int, int:
			return true
		}
	case TypeFloat:
		switch v.(type) {
		case float64, int64, *big.Int, int:
			return true
		}
	case TypeBool:
		_, ok := v.(bool)
		return ok
	case TypeList:
		_, ok := v.([]any)
		return ok
	case TypeDict:
		_, ok := v.(*rlmctx.Dict)
		return ok
	}
	return false
}

func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case string:
		return "str"
	case bool:
		return "bool"
	case int64, *big.Int, int:
		return "int"
	case float64:
		return "float"
	case []any:
		return "list"
	case *rlmctx.Dict:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// finalOutputs adapts the outputs of FINAL(x) or FINAL_VAR(name), which
// carry only "answer", to the schema. They mean "the answer is x" in the RLM
// paper's protocol, so with answer:str a number or a dict is the answer's
// text (JSON, as rlm run prints it), and when the schema declares one field
// under another name, x is that field.
func (s Schema) finalOutputs(out *rlmctx.Dict) *rlmctx.Dict {
	v, ok := out.Get("answer")
	if !ok || out.Len() != 1 || len(s) == 0 {
		return out
	}
	f := s[0]
	if len(s) > 1 {
		f = Field{}
		for _, g := range s {
			if g.Name == "answer" {
				f = g
			}
		}
		if f.Name == "" {
			return out
		}
	}
	if _, isStr := v.(string); !isStr && f.Type == TypeStr {
		v = answerText(out)
	}
	c := rlmctx.NewDict(1)
	c.Set(f.Name, v)
	return c
}
