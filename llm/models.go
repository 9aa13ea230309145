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
// (user:pass@) and the values of all query parameters (some gateways take
// the key as ?api-key=...; other parameters are redacted too rather than
// guessed harmless) and a fragment holding parameters (#access_token=...).
// Unparsable input is replaced whole.
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
	if strings.Contains(p.Fragment, "=") {
		// OAuth-style #access_token=... fragments.
		p.Fragment, p.RawFragment = "REDACTED", ""
	}
	return p.String()
}

// Redact removes each key (see [Config.Secrets]) from s, anything shaped
// like an OpenAI API key (sk-...) or a bearer token, and the credentials of
// every URL in s (as [RedactURL] does), for text bound for logs,
// trajectories, recordings or the terminal.
func Redact(s string, keys ...string) string {
	return redactKey(s, keys...)
}

// RedactSecrets replaces each secret (see [Config.Secrets]) in s with
// [REDACTED], and nothing else: for model output and other text whose
// key-shaped strings and URLs may be legitimate content. Secrets shorter
// than four bytes are left alone (they would match ordinary text).
func RedactSecrets(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= minSecretLen {
			s = strings.ReplaceAll(s, k, "[REDACTED]")
		}
	}
	return s
}

// credentialParam reports whether a URL query parameter name looks like
// it carries a credential (api-key, access_token, sig, ...).
func credentialParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "pass", "pwd", "auth", "sig", "cred", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// urlSecrets returns the credentials in a URL: the password (or user, if
// there is no password) and the values of query parameters that look like
// credentials.
func urlSecrets(u string) []string {
	p, err := url.Parse(u)
	if err != nil {
		return nil
	}
	var out []string
	if p.User != nil {
		if pw, ok := p.User.Password(); ok {
			out = append(out, pw)
		} else {
			out = append(out, p.User.Username())
		}
	}
	for k, vs := range p.Query() {
		if credentialParam(k) {
			out = append(out, vs...)
		}
	}
	return out
}
