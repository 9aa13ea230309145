package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The meta document is validated against SchemaJSON by the small
// validator below, which interprets the JSON Schema keywords that schema
// uses (type, const, enum, minimum, maximum, minLength, maxLength,
// pattern, format date-time, required, properties, additionalProperties
// false, items, maxItems and local $ref), so the schema enforced is the
// one published. A general JSON Schema library compiled every draft's
// meta-schemas in its package init: about 7 ms of CPU and 1.7 MB of
// allocations at the start of every rlm command, rlm exec included.

// schemaNode is one (sub)schema: a decoded JSON object.
type schemaNode = map[string]any

// loadedSchema is SchemaJSON decoded, with its patterns compiled, on
// first use.
var loadedSchema = sync.OnceValues(func() (*validator, error) {
	var root schemaNode
	if err := json.Unmarshal(SchemaJSON, &root); err != nil {
		return nil, fmt.Errorf("meta: schema: %w", err)
	}
	v := &validator{root: root, patterns: map[string]*regexp.Regexp{}}
	var compile func(n any) error
	compile = func(n any) error {
		switch n := n.(type) {
		case map[string]any:
			if p, ok := n["pattern"].(string); ok {
				re, err := regexp.Compile(p)
				if err != nil {
					return fmt.Errorf("meta: schema: pattern %q: %w", p, err)
				}
				v.patterns[p] = re
			}
			for _, c := range n {
				if err := compile(c); err != nil {
					return err
				}
			}
		case []any:
			for _, c := range n {
				if err := compile(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := compile(root); err != nil {
		return nil, err
	}
	return v, nil
})

// validator checks instances against a schema.
type validator struct {
	root     schemaNode
	patterns map[string]*regexp.Regexp
}

// schemaError is the first place an instance breaks the schema: the
// path to the value (property names and array indexes) and the reason.
type schemaError struct {
	path   []string
	reason string
}

// field renders the path as lessons[2].text ("(document)" for the root).
func (e *schemaError) field() string {
	var b strings.Builder
	for _, tok := range e.path {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	if b.Len() == 0 {
		return "(document)"
	}
	return b.String()
}

// validateJSON decodes data and validates it against the schema; a nil
// schemaError means valid.
func (v *validator) validateJSON(data []byte) (*schemaError, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var inst any
	if err := dec.Decode(&inst); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("invalid character after the top-level value")
	}
	return v.check(v.root, inst, nil), nil
}

// check validates inst at path against schema s.
func (v *validator) check(s schemaNode, inst any, path []string) *schemaError {
	fail := func(format string, args ...any) *schemaError {
		return &schemaError{path: slices.Clone(path), reason: fmt.Sprintf(format, args...)}
	}
	if ref, ok := s["$ref"].(string); ok {
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		defs, _ := v.root["$defs"].(map[string]any)
		target, found := defs[name].(map[string]any)
		if !ok || !found {
			return fail("unresolved $ref %q in the schema", ref)
		}
		if e := v.check(target, inst, path); e != nil {
			return e
		}
	}
	if t, ok := s["type"].(string); ok {
		if got := jsonType(inst); got != t && !(t == "number" && got == "integer") {
			return fail("got %s, want %s", got, t)
		}
	}
	if c, ok := s["const"]; ok && !jsonEqual(inst, c) {
		return fail("value must be %s", jsonText(c))
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return jsonEqual(inst, e) }) {
		vals := make([]string, len(enum))
		for i, e := range enum {
			vals[i] = jsonText(e)
		}
		return fail("value must be one of %s", strings.Join(vals, ", "))
	}
	switch x := inst.(type) {
	case json.Number:
		f, _ := x.Float64()
		if m, ok := s["minimum"].(float64); ok && f < m {
			return fail("minimum: got %s, want %s", x, jsonText(m))
		}
		if m, ok := s["maximum"].(float64); ok && f > m {
			return fail("maximum: got %s, want %s", x, jsonText(m))
		}
	case string:
		n := utf8.RuneCountInString(x)
		if m, ok := s["minLength"].(float64); ok && float64(n) < m {
			return fail("minLength: got %d, want %s", n, jsonText(m))
		}
		if m, ok := s["maxLength"].(float64); ok && float64(n) > m {
			return fail("maxLength: got %d, want %s", n, jsonText(m))
		}
		if p, ok := s["pattern"].(string); ok && !v.patterns[p].MatchString(x) {
			return fail("%s does not match pattern %s", jsonText(x), jsonText(p))
		}
		if f, _ := s["format"].(string); f == "date-time" {
			if _, err := time.Parse(time.RFC3339Nano, strings.ToUpper(x)); err != nil {
				return fail("%s is not valid date-time", jsonText(x))
			}
		}
	case []any:
		if m, ok := s["maxItems"].(float64); ok && float64(len(x)) > m {
			return fail("maxItems: got %d, want %s", len(x), jsonText(m))
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				if err := v.check(items, e, append(path, strconv.Itoa(i))); err != nil {
					return err
				}
			}
		}
	case map[string]any:
		if req, ok := s["required"].([]any); ok {
			var missing []string
			for _, r := range req {
				if name, _ := r.(string); name != "" {
					if _, ok := x[name]; !ok {
						missing = append(missing, jsonText(name))
					}
				}
			}
			switch len(missing) {
			case 0:
			case 1:
				return fail("missing property %s", missing[0])
			default:
				return fail("missing properties %s", strings.Join(missing, ", "))
			}
		}
		props, _ := s["properties"].(map[string]any)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if ap, ok := s["additionalProperties"].(bool); ok && !ap {
			var extra []string
			for _, k := range keys {
				if _, ok := props[k]; !ok {
					extra = append(extra, jsonText(k))
				}
			}
			if len(extra) > 0 {
				return fail("additional properties %s not allowed", strings.Join(extra, ", "))
			}
		}
		for _, k := range keys {
			if ps, ok := props[k].(map[string]any); ok {
				if err := v.check(ps, x[k], append(path, k)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// jsonType is the JSON Schema type of a decoded value (numbers decoded
// as json.Number; a number with no fractional part is an integer).
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares an instance value with a schema value (numbers by
// value).
func jsonEqual(inst, schema any) bool {
	if n, ok := inst.(json.Number); ok {
		f, err := n.Float64()
		g, ok := schema.(float64)
		return err == nil && ok && f == g
	}
	switch s := schema.(type) {
	case string:
		x, ok := inst.(string)
		return ok && x == s
	case bool:
		x, ok := inst.(bool)
		return ok && x == s
	case nil:
		return inst == nil
	}
	return false
}

// jsonText renders a schema or instance value in messages: strings
// quoted with single quotes, numbers plainly.
func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "\n", `\n`) + "'"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
