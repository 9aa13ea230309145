package rlmctx

import (
	"fmt"
	"os"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// Session is a saved agent session: any of its fields may be absent (nil).
type Session struct {
	// Messages become the conversation variable (list of {role, content}).
	Messages []any
	// Files (path -> content) become the files variable.
	Files *Dict
	// ToolOutputs become the tool_outputs variable.
	ToolOutputs []any
	// Memory becomes the working_memory variable.
	Memory *Dict
	// Warnings lists ignored fields.
	Warnings []string
}

// Variable names FromSession uses.
const (
	SessionConversation  = "conversation"
	SessionFiles         = "files"
	SessionToolOutputs   = "tool_outputs"
	SessionWorkingMemory = "working_memory"
)

// ParseSession reads a session JSON object {messages, files, tool_outputs,
// memory}; each field is optional, unknown fields give warnings.
func ParseSession(data []byte, source string) (*Session, error) {
	v, err := pyjson.Decode(trimBOM(data))
	if err != nil {
		if se, ok := err.(*SyntaxError); ok {
			se.Source = source
		}
		return nil, err
	}
	obj, ok := v.(*Dict)
	if !ok {
		return nil, fmt.Errorf(
			"%s: a session file must be a JSON object {messages, files, tool_outputs, memory}, not a %s",
			source,
			kindName(v),
		)
	}
	s := &Session{}
	for _, k := range obj.Keys() {
		val, _ := obj.Get(k)
		switch k {
		case "messages":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: messages must be a list, not %s", source, kindName(val))
			}
			for i, m := range list {
				d, ok := m.(*Dict)
				if !ok || !isMessage(d) {
					return nil, fmt.Errorf("%s: messages[%d] must be an object with a string role and a content", source, i)
				}
			}
			s.Messages = list
		case "files":
			d, ok := val.(*Dict)
			if !ok {
				return nil, fmt.Errorf("%s: files must be an object of path -> content, not %s", source, kindName(val))
			}
			if err := checkType(Files, d); err != nil {
				return nil, fmt.Errorf("%s: files: %w", source, err)
			}
			s.Files = d
		case "tool_outputs":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: tool_outputs must be a list, not %s", source, kindName(val))
			}
			s.ToolOutputs = list
		case "memory":
			d, ok := val.(*Dict)
			if !ok {
				return nil, fmt.Errorf("%s: memory must be an object, not %s", source, kindName(val))
			}
			s.Memory = d
		default:
			s.Warnings = append(
				s.Warnings,
				fmt.Sprintf("%s: ignored unknown session field %q (expected messages, files, tool_outputs, memory)", source, k),
			)
		}
	}
	return s, nil
}

// LoadSession reads and parses a session file.
func LoadSession(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	return ParseSession(data, path)
}

// FromSession externalizes a session (spec SPEC-25.01 from_session): its
// present fields become the variables conversation, files, tool_outputs and
// working_memory, typed accordingly.
func FromSession(query string, s *Session) (*ExternalizedContext, error) {
	c := NewContext(query)
	if err := c.AddSession(s); err != nil {
		return nil, err
	}
	return c, nil
}

// AddSession adds a session's variables to c.
func (c *ExternalizedContext) AddSession(s *Session) error {
	if s == nil {
		return nil
	}
	add := func(name string, v any, t VarType) error {
		_, err := c.Add(name, v, WithType(t), WithSource("session"))
		return err
	}
	if s.Messages != nil {
		if err := add(SessionConversation, s.Messages, Conversation); err != nil {
			return err
		}
	}
	if s.Files != nil {
		if err := add(SessionFiles, s.Files, Files); err != nil {
			return err
		}
	}
	if s.ToolOutputs != nil {
		if err := add(SessionToolOutputs, s.ToolOutputs, ToolOutputs); err != nil {
			return err
		}
	}
	if s.Memory != nil {
		if err := add(SessionWorkingMemory, s.Memory, WorkingMemory); err != nil {
			return err
		}
	}
	return nil
}
