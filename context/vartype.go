package rlmctx

import (
	"fmt"
	"math/big"
	"strings"
)

// VarType is the kind of data a variable holds. The built-in types are the
// constants below; [Custom] makes others. The zero value means "infer".
type VarType string

// Built-in variable types.
const (
	Text          VarType = "text"           // a string
	JSON          VarType = "json"           // any JSON value (list, dict, scalar)
	Conversation  VarType = "conversation"   // list of {role, content} messages
	Files         VarType = "files"          // dict of path -> content (str)
	ToolOutputs   VarType = "tool_outputs"   // list of tool results
	WorkingMemory VarType = "working_memory" // dict of anything
)

const customPrefix = "custom:"

// Custom returns a user-named type, rendered "custom:NAME".
func Custom(name string) VarType { return VarType(customPrefix + name) }

// String returns the type's name.
func (t VarType) String() string { return string(t) }

// IsCustom reports whether t was made by [Custom].
func (t VarType) IsCustom() bool { return strings.HasPrefix(string(t), customPrefix) }

// CustomName is the NAME of a custom type, or "".
func (t VarType) CustomName() string {
	if !t.IsCustom() {
		return ""
	}
	return string(t)[len(customPrefix):]
}

// builtinTypes lists the built-in types in documentation order.
var builtinTypes = []VarType{Text, JSON, Conversation, Files, ToolOutputs, WorkingMemory}

// typeAliases maps the Context Store spec's type names onto ours.
var typeAliases = map[string]VarType{
	"memory": WorkingMemory,
	"result": Custom("result"),
	"stream": Custom("stream"),
	"str":    Text,
	"string": Text,
}

// ParseVarType parses a type name: one of text, json, conversation, files,
// tool_outputs, working_memory, custom:NAME (or custom(NAME)), or the
// Context Store spec's memory, result, stream. "" parses to "" (infer).
func ParseVarType(s string) (VarType, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	for _, t := range builtinTypes {
		if s == string(t) {
			return t, nil
		}
	}
	if t, ok := typeAliases[s]; ok {
		return t, nil
	}
	if name, ok := strings.CutPrefix(s, customPrefix); ok && name != "" {
		return Custom(name), nil
	}
	if name, ok := strings.CutPrefix(s, "custom("); ok && strings.HasSuffix(name, ")") && len(name) > 1 {
		return Custom(name[:len(name)-1]), nil
	}
	return "", fmt.Errorf("%w %q: use one of text, json, conversation, files, tool_outputs, working_memory, or custom:NAME", ErrBadType, s)
}

// inferSample is how many list items InferType inspects.
const inferSample = 100

// InferType guesses a value's type the way the Context Store spec does:
// a string is text; a list whose items are dicts with "role" and "content"
// is a conversation; a list whose items are dicts naming a tool ("tool" or
// "tool_name") with a result ("output", "result" or "content") is
// tool_outputs; a dict with "entries" or "memories" is working_memory; a
// dict with "result" or "output" is custom:result; anything else is json.
// Files is never inferred (a dict of strings is ambiguous): directories and
// sessions produce it, or ask for it explicitly. Lists are judged by their
// first 100 items.
func InferType(v any) VarType {
	switch v := v.(type) {
	case string:
		return Text
	case []any:
		if len(v) == 0 {
			return JSON
		}
		if allDicts(v, isMessage) {
			return Conversation
		}
		if allDicts(v, isToolOutput) {
			return ToolOutputs
		}
		return JSON
	case *Dict:
		if v.Has("entries") || v.Has("memories") {
			return WorkingMemory
		}
		if v.Has("result") || v.Has("output") {
			return Custom("result")
		}
		return JSON
	}
	return JSON
}

func allDicts(list []any, pred func(*Dict) bool) bool {
	n := min(len(list), inferSample)
	for _, it := range list[:n] {
		d, ok := it.(*Dict)
		if !ok || !pred(d) {
			return false
		}
	}
	return true
}

func isMessage(d *Dict) bool {
	r, ok := d.Get("role")
	if _, isStr := r.(string); !ok || !isStr {
		return false
	}
	return d.Has("content")
}

func isToolOutput(d *Dict) bool {
	return (d.Has("tool") || d.Has("tool_name")) && (d.Has("output") || d.Has("result") || d.Has("content"))
}

// checkType reports whether v can be a variable of type t.
func checkType(t VarType, v any) error {
	bad := func(want string) error {
		return fmt.Errorf("%w: type %s needs %s, got %s", ErrBadType, t, want, kindName(v))
	}
	switch t {
	case Text:
		if _, ok := v.(string); !ok {
			return bad("a str")
		}
	case Conversation, ToolOutputs:
		if _, ok := v.([]any); !ok {
			return bad("a list")
		}
	case WorkingMemory:
		if _, ok := v.(*Dict); !ok {
			return bad("a dict")
		}
	case Files:
		d, ok := v.(*Dict)
		if !ok {
			return bad("a dict of path -> str")
		}
		for _, k := range d.Keys() {
			x, _ := d.Get(k)
			if _, ok := x.(string); !ok {
				return fmt.Errorf("%w: type files needs str contents, but %q is %s", ErrBadType, k, kindName(x))
			}
		}
	case JSON:
	default:
		if !t.IsCustom() || t.CustomName() == "" {
			return fmt.Errorf("%w %q", ErrBadType, string(t))
		}
	}
	return nil
}

// kindName names a value's kind the Python way.
func kindName(v any) string {
	switch v.(type) {
	case string:
		return "str"
	case bool:
		return "bool"
	case nil:
		return "None"
	case int64, int, *big.Int:
		return "int"
	case float64:
		return "float"
	case []any:
		return "list"
	case *Dict:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}
