package builtins

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/internal/numfmt"
	"github.com/rlmhq/rlm/sandbox"
)

// Outline bounds: the default size of the whole outline, the smallest one
// accepted, and the text kept per item at the most detailed level.
const (
	defaultOutlineChars = 4000
	minOutlineChars     = 200
	outlineAboutChars   = 160
	outlineDefsChars    = 240
	outlineScanLines    = 4000 // lines of an item scanned for definitions
	minCompactLine      = 120  // the shortest one-line entry
	minCompactRoom      = 60   // room for description and definitions in it
)

// outline(var, max_chars=4000)
// Survey many documents (dict of files, list of str or dicts, str bundling files): per item its size, docstring or first lines past licence headers, top-level defs or Markdown headings; returns a str to print.
func outline(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		v        starlark.Value
		maxChars = defaultOutlineChars
	)
	if err := unpack(thread, name, args, kwargs, "var", &v, "max_chars?", &maxChars); err != nil {
		return nil, err
	}
	if maxChars < minOutlineChars {
		return nil, valueErr("%s: max_chars must be at least %d, got %d", name, minOutlineChars, maxChars)
	}
	var (
		docs []outlineDoc
		kind string
	)
	switch v := v.(type) {
	case starlark.String:
		docs = splitBundle(string(v))
		kind = "str"
		if len(docs) > 1 {
			kind = fmt.Sprintf("str bundling %d files", len(docs))
		}
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		for i := 0; i < seq.Len(); i++ {
			item, err := sandbox.Unproxy(thread, seq.Index(i))
			if err != nil {
				return nil, err
			}
			docs = append(docs, docOf(thread, fmt.Sprintf("[%d]", i), item))
		}
		kind = pyTypeName(v)
	case starlark.IterableMapping:
		for _, kv := range v.Items() {
			item, err := sandbox.Unproxy(thread, kv[1])
			if err != nil {
				return nil, err
			}
			key := sandbox.StrOn(thread, kv[0])
			if _, ok := kv[0].(starlark.String); !ok {
				key = sandbox.ReprLimit(kv[0], 80)
			}
			docs = append(docs, docOf(thread, key, item))
		}
		kind = "dict"
	default:
		return nil, typeErr("%s: var must be a dict of files, a list of documents or a str, got %s", name, pyTypeName(v))
	}
	return starlark.String(renderOutline(docs, kind, maxChars)), nil
}

// outlineDoc is one document of an outline: its name and text.
type outlineDoc struct {
	name, text string
}

// Field names that name a document or hold its text, in order of
// preference, for a list of dicts.
var (
	nameFields = []string{"path", "file", "filename", "name", "title", "id", "key"}
	textFields = []string{"content", "text", "body", "source", "code", "data"}
)

// docOf is the document for one item: a str as is; a dict with a text
// field (content, text, ...) that field, named by its path or name field;
// anything else as str() renders it.
func docOf(thread *starlark.Thread, name string, item starlark.Value) outlineDoc {
	mp, ok := asMapping(item)
	if !ok {
		return outlineDoc{name: name, text: itemText(thread, item)}
	}
	get := func(fields []string) (string, bool) {
		for _, f := range fields {
			if v, found, err := mp.Get(starlark.String(f)); err == nil && found {
				if v, err := sandbox.Unproxy(thread, v); err == nil {
					return itemText(thread, v), true
				}
			}
		}
		return "", false
	}
	if n, ok := get(nameFields); ok && n != "" {
		name = name + " " + oneLine(n)
	}
	if t, ok := get(textFields); ok {
		return outlineDoc{name: name, text: t}
	}
	// No text field: the longest string value.
	best := ""
	for _, kv := range mp.Items() {
		if s, ok := kv[1].(starlark.String); ok && len(s) > len(best) {
			best = string(s)
		}
	}
	if best == "" {
		best = sandbox.StrOn(thread, item)
	}
	return outlineDoc{name: name, text: best}
}

// bundleHeader matches a line that starts a file in a str bundling several
// files: "=== path ===", "--- path ---", "### File: path", "File: path",
// "<file path="...">", "// File: path", "# path.ext".
var bundleHeader = regexp.MustCompile(
	`^(?:(?:={3,}|-{3,}|#{1,6}|//|\*{2,})\s*(?:(?:file|path|filename)\s*:\s*)?([\w./\\-]+\.\w+)\s*(?:={3,}|-{3,}|\*{2,})?\s*|(?i:file|path|filename)\s*:\s*(\S+)\s*|<(?:file|document)\s+(?:path|name|src)\s*=\s*"([^"]+)"[^>]*>\s*)$`,
)

// splitBundle splits a str into the files it bundles (two or more header
// lines), else returns it as one document.
func splitBundle(s string) []outlineDoc {
	var docs []outlineDoc
	cur, start := "", -1
	pos := 0
	for pos < len(s) {
		end := strings.IndexByte(s[pos:], '\n')
		next := len(s)
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(s)
		}
		line := s[pos:end]
		if len(line) < 300 && len(line) > 3 && strings.IndexByte("=-#/*<FfPp", line[0]) >= 0 {
			if m := bundleHeader.FindStringSubmatch(strings.TrimRight(line, "\r")); m != nil {
				if start >= 0 {
					docs = append(docs, outlineDoc{name: cur, text: s[start:pos]})
				}
				cur, start = m[1]+m[2]+m[3], next
			}
		}
		pos = next
	}
	if start >= 0 {
		docs = append(docs, outlineDoc{name: cur, text: s[min(start, len(s)):]})
	}
	if len(docs) < 2 {
		return []outlineDoc{{name: "(text)", text: s}}
	}
	return docs
}

// outlineEntry is what the outline says about one document.
type outlineEntry struct {
	name, lines, chars, about, defsLabel string
	defs                                 []string
}

func describe(d outlineDoc) outlineEntry {
	e := outlineEntry{
		name:  d.name,
		lines: numfmt.Plural(lineCount(d.text), "line"),
		chars: numfmt.Plural(utf8.RuneCountInString(d.text), "char"),
	}
	lang := languageOf(d.name, d.text)
	e.about = aboutText(d.text, lang)
	e.defs, e.defsLabel = definitions(d.text, lang)
	return e
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// Languages outline recognises.
const (
	langText = iota
	langPython
	langGo
	langJS
	langRust
	langMarkdown
	langHash  // other # comment languages (shell, YAML, TOML, R, Ruby)
	langSlash // other // and /* */ languages (C, C++, Java, C#, Swift, Kotlin)
)

var extLang = map[string]int{
	".py": langPython, ".pyi": langPython,
	".go": langGo,
	".js": langJS, ".mjs": langJS, ".cjs": langJS, ".jsx": langJS, ".ts": langJS, ".tsx": langJS,
	".rs": langRust,
	".md": langMarkdown, ".markdown": langMarkdown, ".mdx": langMarkdown, ".rst": langMarkdown,
	".sh": langHash, ".bash": langHash, ".yaml": langHash, ".yml": langHash, ".toml": langHash, ".rb": langHash, ".r": langHash,
	".c": langSlash, ".h": langSlash, ".cc": langSlash, ".cpp": langSlash, ".hpp": langSlash, ".java": langSlash, ".cs": langSlash,
	".swift": langSlash, ".kt": langSlash, ".scala": langSlash, ".php": langSlash,
}

// languageOf guesses a document's language from its name's extension,
// else from its first lines.
func languageOf(name, text string) int {
	if l, ok := extLang[strings.ToLower(path.Ext(strings.TrimSpace(name)))]; ok {
		return l
	}
	head := text[:runeFloor(text, 4000)]
	switch {
	case goHead.MatchString(head):
		return langGo
	case pyHead.MatchString(head) && !strings.Contains(head, ";\n"):
		return langPython
	case jsHead.MatchString(head):
		return langJS
	case mdHead.MatchString(head):
		return langMarkdown
	}
	return langText
}

// First-lines signs of a language, for a document without a known extension.
var (
	goHead = regexp.MustCompile(`(?m)^package \w+\s*$`)
	pyHead = regexp.MustCompile(`(?m)^(?:def |class |from \w[\w.]* import |import \w)`)
	jsHead = regexp.MustCompile(`(?m)^(?:export |function |const \w+ = |import .* from )`)
	mdHead = regexp.MustCompile(`(?m)^#{1,3} \S`)
)

// Definition patterns per language: top-level lines only (no indentation).
var defPatterns = map[int]*regexp.Regexp{
	langPython: regexp.MustCompile(`^(?:async\s+)?(def|class)\s+(\w+)`),
	langGo:     regexp.MustCompile(`^(func|type)\s+(?:\([^)]*\)\s*)?(\w+)`),
	langJS: regexp.MustCompile(
		`^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(function\*?|class|interface|type|enum|(?:const|let|var)(?:\s+\w+\s*(?::[^=]*)?=\s*(?:async\s*)?(?:\(|function|[\w]+\s*=>)))\s*(\w*)`,
	),
	langRust: regexp.MustCompile(`^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(fn|struct|enum|trait|impl|mod|type)\s+(?:<[^>]*>\s*)?(\w+)`),
	langSlash: regexp.MustCompile(
		`^(?:public\s+|private\s+|protected\s+|static\s+|final\s+|abstract\s+|export\s+)*(class|interface|struct|enum|record)\s+(\w+)`,
	),
	langHash: regexp.MustCompile(`^(?:function\s+)?(def|function)?\s*(\w[\w-]*)\s*\(\)\s*\{`),
}

var (
	mdHeading  = regexp.MustCompile(`^(#{1,3})\s+(.+?)\s*#*\s*$`)
	jsVarName  = regexp.MustCompile(`^(?:const|let|var)\s+(\w+)`)
	goReceiver = regexp.MustCompile(`^func\s+\(\s*\w*\s*\*?\s*(\w+)[^)]*\)\s*(\w+)`)
)

// definitions lists the top-level definitions of a code document, or the
// headings of a Markdown one (also of plain text whose lines look like
// Markdown headings).
func definitions(text string, lang int) ([]string, string) {
	lines := strings.SplitN(text, "\n", outlineScanLines+1)
	if len(lines) > outlineScanLines {
		lines = lines[:outlineScanLines]
	}
	if lang == langMarkdown || lang == langText {
		var hs []string
		fence := false
		for _, l := range lines {
			if strings.HasPrefix(l, "```") {
				fence = !fence
				continue
			}
			if m := mdHeading.FindStringSubmatch(l); m != nil && !fence {
				hs = append(hs, m[1]+" "+m[2])
			}
		}
		return hs, "headings"
	}
	re := defPatterns[lang]
	if re == nil {
		return nil, ""
	}
	var defs []string
	for _, l := range lines {
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		m := re.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		kw, name := m[1], m[2]
		switch lang {
		case langGo:
			if r := goReceiver.FindStringSubmatch(l); r != nil {
				name = r[1] + "." + r[2]
			}
		case langJS:
			if n := jsVarName.FindStringSubmatch(kw); n != nil {
				kw, name = "function", n[1]
			}
		case langHash:
			kw = "function"
		}
		if name == "" {
			continue
		}
		defs = append(defs, kw+" "+name)
	}
	return defs, "defs"
}

// licenceWords mark a comment block as a licence or copyright header.
var licenceWords = regexp.MustCompile(`(?i)copyright|licen[cs]e|spdx-|all rights reserved|permission is hereby granted|warranty`)

// boilerplate lines carry no description: shebangs, encodings, build tags,
// linter and editor directives, rulers, imports and package clauses.
var boilerplate = regexp.MustCompile(
	`(?i)^(?:#!|-\*-.*-\*-|coding[:=]|go:\w+|\+build|eslint|jshint|@flow|@ts-|pylint:|noqa|type:\s*ignore|vim?:|prettier-ignore|["']use strict["'];?$|[-=*#/_~]{3,}$|package\s+[\w.]+;?$|import\b|from\s+\S+\s+import\b|using\s|#include|require\(|module\.exports|__all__|\{?$|\}?$|\|.*\|$|\x60{3})`,
)

// aboutText is a document's description: a Python module docstring, else
// its first meaningful lines (comment text included, licence blocks and
// boilerplate skipped).
func aboutText(text string, lang int) string {
	text = text[:runeFloor(text, 64<<10)]
	lines := strings.Split(text, "\n")
	var out []string
	inBlock := false     // inside /* */ or <!-- -->
	importBlock := false // inside Go's import ( ... )
	var block []string
	flush := func() {
		if len(block) > 0 && !licenceWords.MatchString(strings.Join(block, " ")) {
			out = append(out, block...)
		}
		block = nil
	}
	for i := 0; i < len(lines) && len(out) < 3; i++ {
		l := strings.TrimSpace(lines[i])
		if lang == langPython && !inBlock && (strings.HasPrefix(l, `"""`) || strings.HasPrefix(l, `'''`) || strings.HasPrefix(l, `r"""`)) {
			flush()
			if doc := docstring(lines[i:]); doc != "" && !licenceWords.MatchString(doc) {
				return cutAbout(doc)
			}
			// A licence docstring: skip past its end.
			q := `"""`
			if strings.HasPrefix(strings.TrimPrefix(l, "r"), `'''`) {
				q = `'''`
			}
			if strings.Count(l, q) < 2 {
				for i++; i < len(lines) && !strings.Contains(lines[i], q); i++ {
				}
			}
			continue
		}
		if importBlock {
			importBlock = !strings.HasPrefix(l, ")")
			continue
		}
		if strings.HasPrefix(l, "import (") || strings.HasPrefix(l, "const (") || strings.HasPrefix(l, "var (") {
			flush()
			if len(out) > 0 {
				break
			}
			importBlock = true
			continue
		}
		comment, isComment := "", false
		if lang != langMarkdown || !strings.HasPrefix(l, "#") {
			comment, isComment = commentText(l, &inBlock)
		}
		switch {
		case l == "":
			flush()
		case isComment:
			if comment == "" || boilerplate.MatchString(comment) {
				continue
			}
			block = append(block, comment)
		default:
			flush()
			if boilerplate.MatchString(l) || (lang == langMarkdown && strings.HasPrefix(l, "#")) {
				continue
			}
			if lang != langText && lang != langMarkdown && lang != langHash && looksLikeCode(l) {
				// Code before any description: stop looking.
				return cutAbout(strings.Join(out, " "))
			}
			out = append(out, l)
		}
	}
	flush()
	return cutAbout(strings.Join(out, " "))
}

// looksLikeCode is true for a line that starts a definition or statement
// rather than a description.
func looksLikeCode(l string) bool {
	return strings.ContainsAny(l[len(l)-1:], "{;:)=(,") || codeStart.MatchString(l)
}

var codeStart = regexp.MustCompile(`^(?:def|class|func|type|const|var|let|fn|pub|export|function|if|for|return)\b`)

// commentText returns the text of a comment line without its markers and
// whether l is (part of) a comment; inBlock tracks /* */ and <!-- -->.
func commentText(l string, inBlock *bool) (string, bool) {
	if *inBlock {
		if i := strings.Index(l, "*/"); i >= 0 {
			*inBlock = false
			l = l[:i]
		} else if i := strings.Index(l, "-->"); i >= 0 {
			*inBlock = false
			l = l[:i]
		}
		return strings.TrimSpace(strings.TrimLeft(l, "* ")), true
	}
	for _, open := range []string{"/*", "<!--"} {
		if rest, ok := strings.CutPrefix(l, open); ok {
			closeTok := "*/"
			if open == "<!--" {
				closeTok = "-->"
			}
			if i := strings.Index(rest, closeTok); i >= 0 {
				rest = rest[:i]
			} else {
				*inBlock = true
			}
			return strings.TrimSpace(strings.TrimLeft(rest, "*! ")), true
		}
	}
	for _, p := range []string{"///", "//!", "//", "#"} {
		if rest, ok := strings.CutPrefix(l, p); ok {
			if p == "#" && (strings.HasPrefix(rest, "!") || strings.HasPrefix(rest, "include") || strings.HasPrefix(rest, "define")) {
				return "", true
			}
			return strings.TrimSpace(strings.TrimLeft(rest, "#/ ")), true
		}
	}
	return "", false
}

// docstring returns the first paragraph of the triple-quoted string that
// starts lines[0].
func docstring(lines []string) string {
	first := strings.TrimSpace(lines[0])
	first = strings.TrimPrefix(first, "r")
	q := first[:3]
	body := first[3:]
	var parts []string
	if i := strings.Index(body, q); i >= 0 {
		return strings.TrimSpace(body[:i])
	}
	if s := strings.TrimSpace(body); s != "" {
		parts = append(parts, s)
	}
	for _, l := range lines[1:min(len(lines), 40)] {
		t := strings.TrimSpace(l)
		end := strings.Index(t, q)
		if end >= 0 {
			t = strings.TrimSpace(t[:end])
		}
		if t == "" && len(parts) > 0 {
			break
		}
		if t != "" {
			parts = append(parts, t)
		}
		if end >= 0 {
			break
		}
	}
	return strings.Join(parts, " ")
}

func cutAbout(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > outlineAboutChars {
		s = s[:runeFloor(s, outlineAboutChars-3)] + "..."
	}
	return s
}

// joinDefs lists defs within n bytes, with a count of those left out.
func joinDefs(defs []string, n int) string {
	var b strings.Builder
	for i, d := range defs {
		more := ""
		if i+1 < len(defs) {
			more = fmt.Sprintf(", +%d more", len(defs)-i-1)
		}
		if i > 0 && b.Len()+2+len(d)+len(more) > n {
			fmt.Fprintf(&b, ", +%d more", len(defs)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d)
	}
	return b.String()
}

// renderOutline renders the entries within maxChars: every item in detail
// if that fits, else one line per item, else as many lines as fit and a
// pointer to the rest.
func renderOutline(docs []outlineDoc, kind string, maxChars int) string {
	total := 0
	for _, d := range docs {
		total += utf8.RuneCountInString(d.text)
	}
	header := fmt.Sprintf("outline of %s (%s, %s chars in all):\n", numfmt.Plural(len(docs), "item"), kind, numfmt.Group(int64(total)))
	entries := make([]outlineEntry, len(docs))
	for i, d := range docs {
		entries[i] = describe(d)
	}
	detailed := func(e outlineEntry) string {
		s := fmt.Sprintf("%s (%s, %s)", e.name, e.lines, e.chars)
		if e.about != "" {
			s += ": " + e.about
		}
		if len(e.defs) > 0 {
			s += "\n  " + e.defsLabel + ": " + joinDefs(e.defs, outlineDefsChars)
		}
		return s + "\n"
	}
	// compact is one line per item within about room bytes: the
	// description gets three fifths of what the name leaves, the
	// definitions the rest.
	compact := func(e outlineEntry, room int) string {
		s := fmt.Sprintf("%s (%s)", e.name, e.lines)
		left := max(room-len(s), minCompactRoom)
		aboutRoom, defsRoom := left*3/5, left*2/5
		if len(e.defs) == 0 {
			aboutRoom = left
		}
		if e.about == "" {
			defsRoom = left
		}
		if e.about != "" {
			s += ": " + cutRepr(e.about, min(aboutRoom, outlineAboutChars))
		}
		if len(e.defs) > 0 {
			s += " | " + joinDefs(e.defs, min(defsRoom, outlineDefsChars))
		}
		return s + "\n"
	}
	var b strings.Builder
	b.WriteString(header)
	for _, e := range entries {
		b.WriteString(detailed(e))
	}
	if b.Len() <= maxChars {
		return strings.TrimRight(b.String(), "\n")
	}
	// One line per item, sharing the room evenly.
	room := (maxChars-len(header))/len(entries) - 1
	if room >= minCompactLine {
		b.Reset()
		b.WriteString(header)
		for _, e := range entries {
			line := compact(e, room)
			if len(line) > room+1 { // a long name: cut the line
				line = line[:runeFloor(line, room-3)] + "...\n"
			}
			b.WriteString(line)
		}
		if b.Len() <= maxChars {
			return strings.TrimRight(b.String(), "\n")
		}
	}
	// As many short lines as fit, then where the rest is.
	b.Reset()
	b.WriteString(header)
	for i, e := range entries {
		line := compact(e, minCompactLine)
		tail := fmt.Sprintf(
			"[... %s not shown: outline(peek(var, %d, None)) outlines the rest]",
			numfmt.Plural(len(entries)-i, "more item"),
			i,
		)
		if kind != "dict" && !strings.HasPrefix(kind, "list") && kind != "tuple" {
			tail = fmt.Sprintf("[... %s not shown: pass a larger max_chars]", numfmt.Plural(len(entries)-i, "more item"))
		}
		if b.Len()+len(line)+len(tail) > maxChars {
			b.WriteString(tail)
			return b.String()
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n")
}
