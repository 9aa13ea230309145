package orchestrator

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
)

// FieldType is the kind of a declared output type.
type FieldType string

// Output type kinds accepted in a schema.
const (
	TypeStr   FieldType = "str"
	TypeInt   FieldType = "int"
	TypeFloat FieldType = "float"
	TypeBool  FieldType = "bool"
	TypeList  FieldType = "list"
	TypeDict  FieldType = "dict"
	TypeAny   FieldType = "any"
	// TypeObject is a dict with declared keys: {name: T, ...}.
	TypeObject FieldType = "object"
	// TypeNone is Python's None (JSON null).
	TypeNone FieldType = "None"
)

// Type is a declared output type. In the compact syntax: a scalar (str,
// int, float, bool, None, any), list or list[T], dict or dict[str, T], an
// object {name: T, ...} (a dict with those keys; others are kept) or
// closed{name: T, ...} (no other keys), or a
// union of literals ("a"|"b"|3); T? also accepts None and, for an
// object's key, its absence. Types nest to any depth.
type Type struct {
	Kind FieldType `json:"type"`
	// Elem is the element type of list[T] and the value type of
	// dict[str, T]; nil for a bare list or dict (any elements).
	Elem *Type `json:"elem,omitempty"`
	// Fields are the declared keys of an object, in order.
	Fields []Field `json:"fields,omitempty"`
	// Optional accepts None, and for an object's key, its absence.
	Optional bool `json:"optional,omitempty"`
	// Enum, when not empty, lists the allowed values (str, int64,
	// float64 or bool).
	Enum []any `json:"enum,omitempty"`
	// Closed marks an object whose undeclared keys are refused
	// (closed{name: T}; JSON Schema's additionalProperties: false).
	Closed bool `json:"closed,omitempty"`
}

// Field is one declared output of a run, or one declared key of an
// object.
type Field struct {
	Name string `json:"name"`
	Type
}

// Schema is the ordered list of outputs SUBMIT must provide.
type Schema []Field

// DefaultSchema is the schema used when none is declared: answer:str.
var DefaultSchema = Schema{{Name: "answer", Type: Type{Kind: TypeStr}}}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxSchemaDepth bounds the nesting of a declared type.
const maxSchemaDepth = 64

// ParseSchema parses a declaration such as "answer:str, confidence:float"
// or "items: list[{name: str, file: str}], total: int, by_region:
// dict[str, int], confidence: float?". A field without a type is str. An
// empty declaration gives DefaultSchema. Names are Python identifiers, or
// any text in double quotes.
func ParseSchema(s string) (Schema, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultSchema, nil
	}
	p := &schemaParser{src: s}
	fields, err := p.fields("", 0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i < len(p.src) {
		return nil, fmt.Errorf("%w: unexpected %q in %q", ErrBadSchema, p.src[p.i:], s)
	}
	return Schema(fields), nil
}

type schemaParser struct {
	src string
	i   int
}

func (p *schemaParser) ws() {
	for p.i < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.i]) >= 0 {
		p.i++
	}
}

func (p *schemaParser) peek() byte {
	p.ws()
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func (p *schemaParser) bad(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadSchema}, args...)...)
}

// fields parses "name:type, ..." up to the end (close 0) or up to close,
// which is not consumed. prefix is the declaration path of the enclosing
// object, for errors.
func (p *schemaParser) fields(prefix string, depth int) ([]Field, error) {
	close := byte(0)
	if depth > 0 {
		close = '}'
	}
	var out []Field
	seen := map[string]bool{}
	for {
		name, err := p.name(close)
		if err != nil {
			return nil, err
		}
		path := joinDecl(prefix, name)
		if seen[name] {
			return nil, p.bad("field %q declared twice", path)
		}
		seen[name] = true
		t := Type{Kind: TypeStr}
		if p.peek() == ':' {
			p.i++
			if c := p.peek(); c != ',' && c != close && c != 0 {
				start := p.i
				if t, err = p.typ(path, depth+1); err != nil {
					return nil, err
				}
				if c := p.peek(); c == 0 && close != 0 {
					return nil, p.expect(close, prefix, "to close the object")
				} else if c != ',' && c != close {
					// Trailing text after a type: report the whole
					// declaration, as for an unknown type.
					return nil, p.bad("field %q has unknown type %q (use str, int, float, bool, list, dict or any)", path, strings.ToLower(strings.TrimSpace(p.src[start:p.skipField(close)])))
				}
			}
		}
		out = append(out, Field{Name: name, Type: t})
		if p.peek() != ',' {
			return out, nil
		}
		p.i++
	}
}

// skipField returns the position of the next ',' or close at this
// nesting level (or the end).
func (p *schemaParser) skipField(close byte) int {
	level := 0
	for j := p.i; j < len(p.src); j++ {
		switch c := p.src[j]; {
		case c == '[' || c == '{':
			level++
		case c == ']' || c == '}':
			if level == 0 {
				return j
			}
			level--
		case level == 0 && (c == ',' || c == close):
			return j
		}
	}
	return len(p.src)
}

// name parses a field name: an identifier, or a double-quoted string.
func (p *schemaParser) name(close byte) (string, error) {
	if p.peek() == '"' {
		q, err := strconv.QuotedPrefix(p.src[p.i:])
		if err != nil {
			return "", p.bad("unterminated quoted name at %q", p.src[p.i:])
		}
		p.i += len(q)
		name, _ := strconv.Unquote(q)
		if name == "" {
			return "", p.bad("empty field name in %q", p.src)
		}
		return name, nil
	}
	start := p.i
	for p.i < len(p.src) && strings.IndexByte(":,{}[]", p.src[p.i]) < 0 {
		p.i++
	}
	name := strings.TrimSpace(p.src[start:p.i])
	if name == "" {
		if c := p.peek(); c == ',' || c == close || c == 0 {
			return "", p.bad("empty field in %q (write \"name:type, name:type\")", p.src)
		}
		return "", p.bad("expected a field name at %q", p.src[p.i:])
	}
	if !identRE.MatchString(name) {
		return "", p.bad("field name %q is not a Python identifier", name)
	}
	return name, nil
}

// typ parses a type and an optional "?".
func (p *schemaParser) typ(path string, depth int) (Type, error) {
	if depth > maxSchemaDepth {
		return Type{}, p.bad("field %q nests deeper than %d levels", path, maxSchemaDepth)
	}
	t, err := p.base(path, depth)
	if err != nil {
		return t, err
	}
	if p.peek() == '?' {
		p.i++
		t.Optional = true
	}
	return t, nil
}

func (p *schemaParser) word() string {
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !('0' <= c && c <= '9') {
			break
		}
		p.i++
	}
	return p.src[start:p.i]
}

func (p *schemaParser) expect(c byte, path, what string) error {
	if p.peek() != c {
		rest := p.src[p.i:]
		if rest == "" {
			rest = "the end"
		} else {
			rest = strconv.Quote(rest)
		}
		return p.bad("field %q: expected %q %s, found %s", path, string(c), what, rest)
	}
	p.i++
	return nil
}

// object parses {name: T, ...} at '{'; closed objects refuse other keys.
func (p *schemaParser) object(path string, depth int, closed bool) (Type, error) {
	p.i++
	if p.peek() == '}' {
		return Type{}, p.bad("field %q: empty object {} (write dict for a dict of any keys)", path)
	}
	fields, err := p.fields(path, depth)
	if err != nil {
		return Type{}, err
	}
	if err := p.expect('}', path, "to close the object"); err != nil {
		return Type{}, err
	}
	return Type{Kind: TypeObject, Fields: fields, Closed: closed}, nil
}

func (p *schemaParser) base(path string, depth int) (Type, error) {
	c := p.peek()
	switch {
	case c == '{':
		return p.object(path, depth, false)
	case c == '"' || c == '-' || c == '+' || c == '.' || ('0' <= c && c <= '9'):
		return p.literals(path)
	}
	start := p.i
	w := p.word()
	if w == "" && (p.i == len(p.src) || strings.IndexByte(",]}", p.src[p.i]) >= 0) {
		rest := "the end"
		if p.i < len(p.src) {
			rest = strconv.Quote(p.src[p.i:])
		}
		return Type{}, p.bad("field %q: expected a type, found %s", path, rest)
	}
	switch lw := strings.ToLower(w); lw {
	case "closed":
		if p.peek() != '{' {
			return Type{}, p.bad("field %q: closed must be followed by an object, as in closed{name: str}", path)
		}
		return p.object(path, depth, true)
	case "str", "string":
		return Type{Kind: TypeStr}, nil
	case "int", "integer":
		return Type{Kind: TypeInt}, nil
	case "float", "number":
		return Type{Kind: TypeFloat}, nil
	case "bool", "boolean":
		return Type{Kind: TypeBool}, nil
	case "any":
		return Type{Kind: TypeAny}, nil
	case "none", "null":
		return Type{Kind: TypeNone}, nil
	case "true", "false":
		p.i = start
		return p.literals(path)
	case "list":
		t := Type{Kind: TypeList}
		if p.peek() != '[' {
			return t, nil
		}
		p.i++
		elem, err := p.typ(path+"[]", depth+1)
		if err != nil {
			return t, err
		}
		t.Elem = &elem
		return t, p.expect(']', path, "to close list[")
	case "dict":
		t := Type{Kind: TypeDict}
		if p.peek() != '[' {
			return t, nil
		}
		p.i++
		if k := strings.ToLower(p.word()); k != "str" && k != "string" {
			return t, p.bad("field %q: dict keys are str: write dict[str, T]", path)
		}
		if err := p.expect(',', path, "after dict[str"); err != nil {
			return t, err
		}
		elem, err := p.typ(path+"[]", depth+1)
		if err != nil {
			return t, err
		}
		t.Elem = &elem
		return t, p.expect(']', path, "to close dict[str, T")
	}
	return Type{}, p.bad(
		"field %q has unknown type %q (use str, int, float, bool, list, dict or any)",
		path,
		strings.ToLower(strings.TrimSpace(p.src[start:p.skipField(0)])),
	)
}

// literals parses a union of literals: "a"|"b", 1|2, True|False; None in
// the union makes it optional.
func (p *schemaParser) literals(path string) (Type, error) {
	var t Type
	for {
		v, isNone, err := p.literal(path)
		if err != nil {
			return t, err
		}
		if isNone {
			t.Optional = true
		} else {
			t.Enum = append(t.Enum, v)
		}
		if p.peek() != '|' {
			break
		}
		p.i++
	}
	if len(t.Enum) == 0 {
		return Type{Kind: TypeNone}, nil
	}
	t.Kind = enumKind(t.Enum)
	return t, nil
}

func (p *schemaParser) literal(path string) (v any, isNone bool, err error) {
	c := p.peek()
	if c == '"' {
		q, err := strconv.QuotedPrefix(p.src[p.i:])
		if err != nil {
			return nil, false, p.bad("field %q: unterminated string literal at %q", path, p.src[p.i:])
		}
		p.i += len(q)
		s, _ := strconv.Unquote(q)
		return s, false, nil
	}
	start := p.i
	for p.i < len(p.src) && strings.IndexByte("+-.0123456789eE_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", p.src[p.i]) >= 0 {
		p.i++
	}
	w := p.src[start:p.i]
	switch strings.ToLower(w) {
	case "true":
		return true, false, nil
	case "false":
		return false, false, nil
	case "none", "null":
		return nil, true, nil
	}
	if n, err := strconv.ParseInt(w, 10, 64); err == nil {
		return n, false, nil
	}
	if f, err := strconv.ParseFloat(w, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f, false, nil
	}
	return nil, false, p.bad("field %q: %q is not a literal (write \"text\", a number, True, False or None)", path, w)
}

// enumKind is the kind of a union of literals: str, int, float or bool
// when they all are (ints and floats: float), else any.
func enumKind(vals []any) FieldType {
	var k FieldType
	for _, v := range vals {
		var vk FieldType
		switch v.(type) {
		case string:
			vk = TypeStr
		case int64:
			vk = TypeInt
		case float64:
			vk = TypeFloat
		case bool:
			vk = TypeBool
		default:
			return TypeAny
		}
		switch {
		case k == "" || k == vk:
			k = vk
		case (k == TypeInt || k == TypeFloat) && (vk == TypeInt || vk == TypeFloat):
			k = TypeFloat
		default:
			return TypeAny
		}
	}
	return k
}

func joinDecl(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// String renders the schema in the compact syntax, which ParseSchema
// reads back: "answer:str, confidence:float",
// "items:list[{name:str, file:str}], total:int, by_region:dict[str, int]".
func (s Schema) String() string {
	return fieldsString(s)
}

func fieldsString(fs []Field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = nameString(f.Name) + ":" + f.Type.String()
	}
	return strings.Join(parts, ", ")
}

func nameString(name string) string {
	if identRE.MatchString(name) {
		return name
	}
	return strconv.Quote(name)
}

// String renders the type in the compact syntax.
func (t Type) String() string {
	var s string
	switch {
	case len(t.Enum) > 0:
		parts := make([]string, len(t.Enum))
		for i, v := range t.Enum {
			parts[i] = literalString(v)
		}
		s = strings.Join(parts, "|")
	case t.Kind == TypeObject && t.Closed:
		s = "closed{" + fieldsString(t.Fields) + "}"
	case t.Kind == TypeObject:
		s = "{" + fieldsString(t.Fields) + "}"
	case t.Kind == TypeList && t.Elem != nil:
		s = "list[" + t.Elem.String() + "]"
	case t.Kind == TypeDict && t.Elem != nil:
		s = "dict[str, " + t.Elem.String() + "]"
	default:
		s = string(t.Kind)
	}
	if t.Optional && t.Kind != TypeNone {
		s += "?"
	}
	return s
}

func literalString(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s
	}
	return fmt.Sprint(v)
}

// hasOptional reports whether a type in the schema, at any depth, is
// optional (T?).
func (s Schema) hasOptional() bool { return anyField(s, Type.hasOptional) }

// hasClosed reports whether an object in the schema, at any depth, is
// closed{...}.
func (s Schema) hasClosed() bool { return anyField(s, Type.hasClosed) }

func (t Type) hasClosed() bool {
	return t.Closed || t.Elem != nil && t.Elem.hasClosed() || anyField(t.Fields, Type.hasClosed)
}

func anyField(fs []Field, has func(Type) bool) bool {
	for _, f := range fs {
		if has(f.Type) {
			return true
		}
	}
	return false
}

func (t Type) hasOptional() bool {
	if t.Optional {
		return true
	}
	if t.Elem != nil && t.Elem.hasOptional() {
		return true
	}
	return anyField(t.Fields, Type.hasOptional)
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

// maxProblems bounds the problems one rejected SUBMIT reports.
const maxProblems = 20

// Validate checks SUBMIT outputs against the schema. Keys not declared are
// kept. The error names every missing or mistyped field (up to 20), by
// its path inside nested values: items[3].file, by_region["x"].
func (s Schema) Validate(out *rlmctx.Dict) error {
	if out == nil {
		return fmt.Errorf("%w: no outputs; call %s", ErrInvalidSubmit, s.example())
	}
	v := &validator{}
	for _, f := range s {
		x, ok := out.Get(f.Name)
		switch {
		case !ok && f.Optional:
		case !ok:
			v.add(fmt.Sprintf("missing field %q (%s)", f.Name, f.Type))
		case x == nil && f.Optional:
		case !f.matches(x):
			got := pyTypeName(x)
			if len(f.Enum) > 0 && kindMatches(f.Kind, x) {
				got = reprShort(x)
			}
			v.add(fmt.Sprintf("field %q must be %s, got %s", f.Name, f.Type, got))
		default:
			v.children(topPath(f.Name), f.Type, x)
		}
	}
	if len(v.problems) > 0 {
		probs := strings.Join(v.problems, "; ")
		if v.more > 0 {
			probs += fmt.Sprintf("; and %d more", v.more)
		}
		return fmt.Errorf("%w: %s; declared outputs: %s; call %s again", ErrInvalidSubmit, probs, s, s.example())
	}
	return nil
}

type validator struct {
	problems []string
	more     int
}

func (v *validator) add(p string) {
	if len(v.problems) < maxProblems {
		v.problems = append(v.problems, p)
	} else {
		v.more++
	}
}

func topPath(name string) string {
	if identRE.MatchString(name) {
		return name
	}
	return "[" + strconv.Quote(name) + "]"
}

func keyPath(path, name string) string {
	if identRE.MatchString(name) {
		return path + "." + name
	}
	return path + "[" + strconv.Quote(name) + "]"
}

// check validates x, at path, against t.
func (v *validator) check(path string, t Type, x any) {
	if x == nil && t.Optional {
		return
	}
	if !t.matches(x) {
		got := pyTypeName(x)
		if len(t.Enum) > 0 && kindMatches(t.Kind, x) {
			got = reprShort(x)
		}
		v.add(fmt.Sprintf("%s: expected %s, got %s", path, t, got))
		return
	}
	v.children(path, t, x)
}

// children validates the elements of x, which matches t's kind.
func (v *validator) children(path string, t Type, x any) {
	switch t.Kind {
	case TypeList:
		if t.Elem == nil {
			return
		}
		for i, e := range x.([]any) {
			v.check(fmt.Sprintf("%s[%d]", path, i), *t.Elem, e)
		}
	case TypeDict:
		if t.Elem == nil {
			return
		}
		for k, e := range x.(*rlmctx.Dict).All() {
			v.check(path+"["+strconv.Quote(k)+"]", *t.Elem, e)
		}
	case TypeObject:
		d := x.(*rlmctx.Dict)
		for _, f := range t.Fields {
			e, ok := d.Get(f.Name)
			switch {
			case !ok && f.Optional:
			case !ok:
				v.add(keyPath(path, f.Name) + ": missing")
			default:
				v.check(keyPath(path, f.Name), f.Type, e)
			}
		}
		if t.Closed {
			for k := range d.All() {
				if !slices.ContainsFunc(t.Fields, func(f Field) bool { return f.Name == k }) {
					v.add(
						fmt.Sprintf("%s: unexpected key %q (a closed object: only %s)", path, k, strings.Join(fieldNames(t.Fields), ", ")),
					)
				}
			}
		}
	}
}

// matches reports whether x has t's kind and, for a union of literals, is
// one of them (None is left to Optional).
func (t Type) matches(x any) bool {
	if !kindMatches(t.Kind, x) {
		return false
	}
	if len(t.Enum) == 0 {
		return true
	}
	for _, e := range t.Enum {
		if literalEqual(e, x) {
			return true
		}
	}
	return false
}

func literalEqual(lit, x any) bool {
	switch l := lit.(type) {
	case string:
		s, ok := x.(string)
		return ok && s == l
	case bool:
		b, ok := x.(bool)
		return ok && b == l
	case int64, float64:
		a, ok1 := numberOf(l)
		b, ok2 := numberOf(x)
		return ok1 && ok2 && a == b
	}
	return false
}

func numberOf(x any) (float64, bool) {
	switch n := x.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(n).Float64()
		return f, true
	}
	return 0, false
}

// reprShort is a short Python repr of a scalar for an error message.
func reprShort(x any) string {
	if s, ok := x.(string); ok {
		if len(s) > 60 {
			cut := 60
			for cut > 0 && (s[cut]&0xC0) == 0x80 {
				cut--
			}
			return strconv.Quote(s[:cut]) + "…"
		}
		return strconv.Quote(s)
	}
	return literalString(x)
}

func kindMatches(t FieldType, v any) bool {
	switch t {
	case TypeAny:
		return true
	case TypeNone:
		return v == nil
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
	case TypeDict, TypeObject:
		d, ok := v.(*rlmctx.Dict)
		return ok && d != nil
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
	if _, isStr := v.(string); !isStr && f.Kind == TypeStr && len(f.Enum) == 0 {
		v = answerText(out)
	}
	c := rlmctx.NewDict(1)
	c.Set(f.Name, v)
	return c
}

func fieldNames(fs []Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = nameString(f.Name)
	}
	return out
}
