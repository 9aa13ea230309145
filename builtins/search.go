package builtins

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.starlark.net/starlark"

	"github.com/rlmhq/rlm/internal/pyre"
	"github.com/rlmhq/rlm/sandbox"
)

// Preview bounds: context kept around a match and the longest match text reported.
const (
	previewContext = 60
	maxMatchText   = 200
	itemPreview    = 200
)

// search(var, pattern, regex=False, max_results=10)
// Find pattern (literal, or a Python regex if regex=True) in a string, list or dict; returns a list of dicts: {line, offset, match, preview} for a string (^ and $ match at line ends), {index, preview} for a list (plus field for a list of dicts), {key, preview} for a dict.
func search(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		v          starlark.Value
		pattern    string
		regex      bool
		maxResults = intOrNone{N: 10}
	)
	if err := unpack(thread, name, args, kwargs, "var", &v, "pattern", &pattern, "regex?", &regex, "max_results?", &maxResults); err != nil {
		return nil, err
	}
	limit := maxResults.N
	if maxResults.None {
		limit = -1
	}
	if pattern == "" {
		return nil, valueErr("%s: pattern must not be empty", name)
	}
	if limit == 0 || limit < -1 {
		return nil, valueErr("%s: max_results must be positive (or None for all), got %d", name, limit)
	}
	var m *pyre.Matcher
	if regex {
		var err error
		if m, err = pyre.Compile(pattern); err != nil {
			return nil, valueErr("%s: %v", name, err)
		}
		// Patterns RE2 cannot run (lookaround, backreferences) run on a
		// backtracking engine, bounded by the step's time.
		m = m.WithBudget(sandbox.ThreadContext(thread), sandbox.MatchBudget(thread))
	} else {
		m = pyre.Literal(pattern)
	}
	var results []starlark.Value
	full := func() bool { return limit > 0 && len(results) >= limit }
	switch v := v.(type) {
	case starlark.String:
		results = searchText(string(v), m, limit)
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		for i := 0; i < seq.Len() && !full(); i++ {
			item, err := sandbox.Unproxy(thread, seq.Index(i))
			if err != nil {
				return nil, err
			}
			if mp, ok := asMapping(item); ok {
				if field, preview, ok := searchFields(thread, mp, m); ok {
					results = append(results, resultDict("index", starlark.MakeInt(i), "field", field, "preview", starlark.String(preview)))
				}
				continue
			}
			if preview, ok := searchItem(thread, item, m); ok {
				results = append(results, resultDict("index", starlark.MakeInt(i), "preview", starlark.String(preview)))
			}
		}
	case starlark.IterableMapping:
		for _, kv := range v.Items() {
			if full() {
				break
			}
			val, err := sandbox.Unproxy(thread, kv[1])
			if err != nil {
				return nil, err
			}
			if preview, ok := searchItem(thread, val, m); ok {
				results = append(results, resultDict("key", kv[0], "preview", starlark.String(preview)))
			}
		}
	default:
		return nil, typeErr("%s: var must be a str, list, tuple or dict, got %s", name, pyTypeName(v))
	}
	if err := m.Err(); err != nil {
		// A step stopped by a limit reports the limit; else the budget ran out.
		return nil, &sandbox.PyError{Kind: "TimeoutError", Msg: name + ": the regular expression " + strconv.Quote(pattern) + " backtracked until the step's time ran out; avoid nested quantifiers like (a+)+, anchor it, or search a smaller part", Err: err}
	}
	if results == nil {
		results = []starlark.Value{}
	}
	return starlark.NewList(results), nil
}

func resultDict(kv ...any) *starlark.Dict {
	d := starlark.NewDict(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		d.SetKey(starlark.String(kv[i].(string)), kv[i+1].(starlark.Value))
	}
	return d
}

// searchText reports each match in s with its 1-based line, offset in
// code points (usable as s[offset:], like str.find) and a preview of the
// line around it.
func searchText(s string, m *pyre.Matcher, limit int) []starlark.Value {
	var out []starlark.Value
	line, counted := 1, 0
	m.FindAll(s, limit, func(start, end int) bool {
		line += strings.Count(s[counted:start], "\n")
		counted = start
		match := s[start:end]
		if len(match) > maxMatchText {
			match = match[:runeFloor(match, maxMatchText)] + "..."
		}
		out = append(out, resultDict(
			"line", starlark.MakeInt(line),
			"offset", starlark.MakeInt(sandbox.CharOffset(s, start)),
			"match", starlark.String(match),
			"preview", starlark.String(preview(s, start, end)),
		))
		return true
	})
	return out
}

// preview returns the line around s[start:end], cut to about
// previewContext characters on each side with "..." marks, control
// characters escaped.
func preview(s string, start, end int) string {
	ls := strings.LastIndexByte(s[:start], '\n') + 1
	le := len(s)
	if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
		le = end + i
	}
	if end > le { // a match spanning lines: show from its line start
		le = end
	}
	lo, hi := max(ls, start-previewContext), min(le, end+previewContext)
	if end-start > 2*maxMatchText {
		hi = start + 2*maxMatchText
	}
	lo, hi = runeCeil(s, lo), runeFloor(s, hi)
	var b strings.Builder
	if lo > ls {
		b.WriteString("...")
	}
	writeEscaped(&b, s[lo:hi])
	if hi < le {
		b.WriteString("...")
	}
	return b.String()
}

// writeEscaped writes s with control and invalid characters escaped, so a
// preview stays on one line.
func writeEscaped(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && !unicode.IsPrint(r) && r != ' '):
			if r < 0x100 {
				b.WriteString(`\x`)
				b.WriteString(hex2(byte(r)))
			} else {
				b.WriteString(`\u`)
				b.WriteString(hex2(byte(r>>8)) + hex2(byte(r)))
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// itemText is the text searched for a list item or dict value: a string
// as is, other values as str() renders them for the step on thread (so
// that rendering a huge value ends with the step).
func itemText(thread *starlark.Thread, v starlark.Value) string {
	if s, ok := v.(starlark.String); ok {
		return string(s)
	}
	return sandbox.StrOn(thread, v)
}

// searchItem reports whether an item matches and a preview around the
// first match (the item's start for short items).
func searchItem(thread *starlark.Thread, v starlark.Value, m *pyre.Matcher) (string, bool) {
	text := itemText(thread, v)
	start, end := m.First(text)
	if start < 0 {
		return "", false
	}
	return itemPreviewAround(text, start, end), true
}

func itemPreviewAround(text string, start, end int) string {
	if len(text) <= itemPreview {
		var b strings.Builder
		writeEscaped(&b, text)
		return b.String()
	}
	return preview(text, start, end)
}

// searchFields finds the first field of a dict item that matches.
func searchFields(thread *starlark.Thread, mp starlark.IterableMapping, m *pyre.Matcher) (starlark.Value, string, bool) {
	for _, kv := range mp.Items() {
		if p, ok := searchItem(thread, kv[1], m); ok {
			return kv[0], p, true
		}
	}
	return nil, "", false
}
