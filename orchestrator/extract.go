package orchestrator

import (
	"regexp"
	"strconv"
	"strings"
)

// codeLabels are the fence labels whose blocks are run; an unlabeled fence
// is run too. Any other label (```json, ```text, ...) is not code.
var codeLabels = map[string]bool{"python": true, "py": true, "python3": true, "repl": true, "starlark": true, "": true}

// ExtractCode returns the code blocks of a reply in order: fenced blocks
// labelled python, py, python3, repl or starlark, and unlabeled fences. An
// unterminated last fence runs to the end of the reply.
func ExtractCode(reply string) []string {
	blocks, _ := splitReply(reply)
	return blocks
}

// splitReply returns the code blocks of a reply (as ExtractCode) and its
// prose: the lines outside every fence, whatever its label.
func splitReply(reply string) (blocks []string, prose string) {
	var out []string
	lines := strings.Split(reply, "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "```") {
			out = append(out, lines[i])
			continue
		}
		fence := t[:3+len(t[3:])-len(strings.TrimLeft(t[3:], "`"))]
		label := strings.ToLower(strings.TrimSpace(t[len(fence):]))
		if f := strings.Fields(label); len(f) > 0 {
			label = f[0]
		}
		label = strings.TrimPrefix(label, "{")
		label = strings.TrimSuffix(label, "}")
		var body []string
		j := i + 1
		for ; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == fence {
				break
			}
			body = append(body, lines[j])
		}
		if codeLabels[label] {
			code := strings.TrimRight(strings.Join(body, "\n"), " \t\n")
			if strings.TrimSpace(code) != "" {
				blocks = append(blocks, dedent(code))
			}
		}
		i = j
	}
	return blocks, strings.Join(out, "\n")
}

// bareFinishRE matches a finishing call written as a plain line outside
// any fence, as models trained on the RLM paper's protocol do.
var bareFinishRE = regexp.MustCompile(`(?m)^[ \t]*((?:SUBMIT|FINAL|FINAL_VAR)\(.*\))[ \t]*$`)

// bareFinish returns the last bare SUBMIT(...), FINAL(...) or
// FINAL_VAR(...) line of a reply's prose, as code to run, or "".
// As in the RLM paper's protocol, a bare FINAL(text) gives the text itself
// as the answer and a bare FINAL_VAR(name) names a variable, quoted or not;
// both are rewritten to valid calls. A bare SUBMIT(...) runs as written.
func bareFinish(reply string) string {
	m := bareFinishRE.FindAllStringSubmatch(reply, -1)
	if len(m) == 0 {
		return ""
	}
	call := m[len(m)-1][1]
	name, arg, _ := strings.Cut(call, "(")
	arg = strings.TrimSpace(arg[:len(arg)-1])
	if name == "SUBMIT" || isQuoted(arg) {
		return call
	}
	return name + "(" + strconv.Quote(arg) + ")"
}

// isQuoted reports whether s is one Python string literal: quoted with ' or
// " (or tripled), optionally prefixed r or f, with no such quote inside.
func isQuoted(s string) bool {
	s = strings.TrimLeft(s, "rRfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if len(s) >= 2*len(q) && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
			return !strings.Contains(s[len(q):len(s)-len(q)], q)
		}
	}
	return false
}

// dedent removes the common leading whitespace of non-blank lines, for
// fences indented inside list items.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(l, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if prefix == "" {
		return s
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, prefix)
	}
	return strings.Join(lines, "\n")
}

// reasoningTags are the tags in which reasoning models (DeepSeek-R1, Qwen3,
// ...) served through an OpenAI-compatible endpoint write their thinking.
var reasoningTags = []string{"think", "thinking", "reasoning"}

// StripReasoning removes the reasoning of a reply: every <think>...</think>
// block (also <thinking> and <reasoning>), everything before a closing tag
// whose opening tag was part of the prompt template, and an unterminated
// block to the end. Code in a model's thinking is a draft, not a step to run.
func StripReasoning(reply string) string {
	lower := strings.ToLower(reply)
	for _, tag := range reasoningTags {
		open, close := "<"+tag+">", "</"+tag+">"
		if !strings.Contains(lower, open) && !strings.Contains(lower, close) {
			continue
		}
		var b strings.Builder
		for {
			i := strings.Index(lower, open)
			j := strings.Index(lower, close)
			switch {
			case j >= 0 && (i < 0 || j < i): // close without open: drop the head
				reply, lower = reply[j+len(close):], lower[j+len(close):]
				continue
			case i < 0:
				b.WriteString(reply)
			case j < 0: // unterminated: the rest is thinking
				b.WriteString(reply[:i])
			default:
				b.WriteString(reply[:i])
				reply, lower = reply[j+len(close):], lower[j+len(close):]
				continue
			}
			break
		}
		reply = b.String()
		lower = strings.ToLower(reply)
	}
	return reply
}

// unfence returns the code of an execute_code call: models often wrap it in
// a Markdown fence as they would in text; the fenced blocks are joined.
func unfence(code string) string {
	if !strings.HasPrefix(strings.TrimSpace(code), "```") {
		return code
	}
	if blocks := ExtractCode(code); len(blocks) > 0 {
		return strings.Join(blocks, "\n")
	}
	return code
}
