package pylib

import (
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// textwrapLines is a helper of the textwrap module.
func textwrapLines(text string, width int) []string {
	words := strings.Fields(text)
	var lines []string
	cur := ""
	for _, w := range words {
		switch {
		case cur == "":
			cur = w
		case py.Rlen(cur)+1+py.Rlen(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
		for py.Rlen(cur) > width && width > 0 {
			cut := py.ByteOffset(cur, width)
			lines = append(lines, cur[:cut])
			cur = cur[cut:]
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// textwrapArgs is a helper of the textwrap module.
func textwrapArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple, dflt int) (string, int, error) {
	var text string
	width := dflt
	var placeholder starlark.Value
	if err := starlark.UnpackArgs(name, args, kwargs, "text", &text, "width?", &width, "placeholder?", &placeholder); err != nil {
		return "", 0, err
	}
	return text, width, nil
}

var _ = py.RegisterModule("textwrap", textwrapModule)

// textwrapModule builds the textwrap module on its first import.
func textwrapModule() *py.Module {
	return py.NewModule("textwrap", map[string]py.BuiltinFn{
		"wrap":    textwrapWrap,
		"fill":    textwrapFill,
		"shorten": textwrapShorten,
		"dedent":  textwrapDedent,
		"indent":  textwrapIndent,
	}, nil)
}

// textwrapWrap implements textwrap.wrap.
func textwrapWrap(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	text, width, err := textwrapArgs("wrap", args, kwargs, 70)
	if err != nil {
		return nil, err
	}
	if err := py.CheckAlloc(thread, py.SatMul(int64(py.SplitPiecesUpTo(text, starlark.None)), 2*py.PieceBytes)); err != nil {
		return nil, err // at worst a line per word
	}
	return py.StringList(textwrapLines(text, width)), nil
}

// textwrapFill implements textwrap.fill.
func textwrapFill(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	text, width, err := textwrapArgs("fill", args, kwargs, 70)
	if err != nil {
		return nil, err
	}
	if err := py.CheckAlloc(thread, py.SatMul(int64(py.SplitPiecesUpTo(text, starlark.None)), 2*py.PieceBytes)); err != nil {
		return nil, err // at worst a line per word
	}
	return starlark.String(strings.Join(textwrapLines(text, width), "\n")), nil
}

// textwrapShorten implements textwrap.shorten.
func textwrapShorten(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	var width int
	placeholder := " [...]"
	if err := starlark.UnpackArgs("shorten", args, kwargs, "text", &text, "width", &width, "placeholder?", &placeholder); err != nil {
		return nil, err
	}
	words := strings.Fields(text)
	joined := strings.Join(words, " ")
	if py.Rlen(joined) <= width {
		return starlark.String(joined), nil
	}
	cur := ""
	for _, w := range words {
		next := w
		if cur != "" {
			next = cur + " " + w
		}
		if py.Rlen(next)+py.Rlen(placeholder) > width {
			break
		}
		cur = next
	}
	return starlark.String(strings.TrimLeft(cur+placeholder, " ")), nil
}

// textwrapDedent implements textwrap.dedent.
func textwrapDedent(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	if err := starlark.UnpackPositionalArgs("dedent", args, kwargs, 1, &text); err != nil {
		return nil, err
	}
	lines := strings.Split(text, "\n")
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
		} else {
			lines[i] = strings.TrimPrefix(l, prefix)
		}
	}
	return starlark.String(strings.Join(lines, "\n")), nil
}

// textwrapIndent implements textwrap.indent.
func textwrapIndent(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text, prefix string
	if err := starlark.UnpackPositionalArgs("indent", args, kwargs, 2, &text, &prefix); err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		}
	}
	return starlark.String(strings.Join(lines, "")), nil
}
