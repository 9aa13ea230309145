package llm

import (
	"net/url"
	"strings"
)

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

// RedactURL returns u with any credentials removed: user information
// (user:pass@) and the values of query parameters (some gateways take the
// key as ?api-key=...). Unparsable input is replaced whole.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "[REDACTED URL]"
	}
	if p.User != nil {
		p.User = url.User("REDACTED")
	}
	if p.RawQuery != "" {
		q := p.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		p.RawQuery = q.Encode()
	}
	return p.String()
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
