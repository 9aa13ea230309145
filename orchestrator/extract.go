package orchestrator

import (
	"regexp"
	"strings"
)

// codeLabels are the fence labels whose blocks are run; an unlabeled fence
// is run too. Any other label (```json, ```text, ...) is not code.
var codeLabels = map[string]bool{"python": true, "py": true, "python3": true, "repl": true, "starlark": true, "": true}

// ExtractCode returns the code blocks of a reply in order: fenced blocks
// labelled python, py, python3, repl or starlark, and unlabeled fences. An
// unterminated last fence runs to the end of the reply.
func ExtractCode(reply string) []string {
	var blocks []string
	lines := strings.Split(reply, "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "```") {
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
	return blocks
}

// bareFinishRE matches a finishing call written as a plain line outside
// any fence, as models trained on the RLM paper's protocol do.
var bareFinishRE = regexp.MustCompile(`(?m)^[ \t]*((?:SUBMIT|FINAL|FINAL_VAR)\(.*\))[ \t]*$`)

// bareFinish returns the last bare SUBMIT(...), FINAL(...) or
// FINAL_VAR(...) line of a reply without code blocks, or "".
func bareFinish(reply string) string {
	m := bareFinishRE.FindAllStringSubmatch(reply, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
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
