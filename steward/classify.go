package steward

import (
	"regexp"
	"strings"
)

// Kinds of failure the steward counts that have no lesson template.
const (
	KindOther = "other" // an error of an exception type with no template
)

var (
	excType  = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.]{0,40}):`)
	reSyntax = regexp.MustCompile(`not supported|unsupported`)
)

// Classify maps an error from a step (a Python-style traceback) to a kind:
// a lesson template name of package meta, or KindOther. Only the exception
// type and the engine's own fixed phrases are looked at, so model-written
// text in the message (raise ValueError("...")) cannot pick anything but a
// kind: the kind is all that leaves the evidence.
func Classify(errText string) string {
	line := lastLine(errText)
	m := excType.FindStringSubmatch(line)
	if m == nil {
		return KindOther
	}
	typ, msg := m[1], line[len(m[0]):]
	switch typ {
	case "re.error", "error":
		if reSyntax.MatchString(msg) {
			return "re_unsupported"
		}
		return KindOther
	case "SyntaxError":
		switch {
		case strings.HasPrefix(strings.TrimSpace(msg), "with statements are not supported"):
			return "no_with"
		case strings.HasPrefix(strings.TrimSpace(msg), "assigning to a global variable"):
			return "no_global_assign"
		case strings.HasPrefix(strings.TrimSpace(msg), "async/await is not supported"):
			return "no_async"
		}
		return "syntax_error"
	case "ModuleNotFoundError", "ImportError":
		return "module_missing"
	case "TimeoutError":
		return "step_limit"
	case "MemoryError":
		return "memory_limit"
	case "RecursionError":
		return "recursion_limit"
	case "NameError", "UnboundLocalError":
		return "name_error"
	case "KeyError", "IndexError":
		return "lookup_error"
	case "TypeError":
		return "type_error"
	}
	return KindOther
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
