package llm

import "strings"

// ModelOf returns the default chat model of m (a Client, or a wrapper such
// as Metered, Recorder or Replay around one), or "" if unknown.
func ModelOf(m ChatModel) string {
	if d, ok := m.(interface{ Model() string }); ok {
		return d.Model()
	}
	return ""
}

// SubModelOf returns the sub-call model of m (Config.SubModel, else the
// default model), or "" if unknown.
func SubModelOf(m ChatModel) string {
	if d, ok := m.(interface{ SubModel() string }); ok {
		if s := d.SubModel(); s != "" {
			return s
		}
	}
	return ModelOf(m)
}

// Redact removes each key from s, and anything shaped like an OpenAI API
// key (sk-...), for text bound for logs or trajectories.
func Redact(s string, keys ...string) string {
	for _, k := range keys {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, "[REDACTED]")
		}
	}
	return redactKey(s, "")
}
