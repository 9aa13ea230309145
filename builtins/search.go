package builtins

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/internal/pyre"
	"github.com/rlmhq/rlm/sandbox"
)

// Preview bounds: context kept around a match and the longest match text reported.
const (
	previewContext = 60
	maxMatchText   = 200
	itemPreview    = 200
)

// search(var, pattern, regex=False, max_results=10, field=None)
// Find pattern (a Python regex if regex=True) in a str, list or dict; returns a list of dicts {line, offset, match, preview} per match in a str, {index or key, preview} per matching item (a multi-line str item adds its first match's line and count of matches; a dict item's preview is the whole item, field the matching field; field='x' searches only it); regex=True adds groups; if max_results cut the list, its last dict has more.
func search(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		v          starlark.Value
		pattern    string
		regex      bool
		maxResults                = intOrNone{N: 10}
		field      starlark.Value = starlark.None
	)
	if err := unpack(thread, name, args, kwargs, "var", &v, "pattern", &pattern, "regex?", &regex, "max_results?", &maxResults, "field?", &field); err != nil {
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
	sr := &searcher{thread: thread, limit: limit}
	if field != starlark.None {
		if _, err := field.Hash(); err != nil {
			return nil, typeErr("%s: field must be a dict key such as a str, got %s", name, pyTypeName(field))
		}
		sr.field = field
	}
	if regex {
		var err error
		if sr.m, err = pyre.Compile(pattern); err != nil {
			return nil, valueErr("%s: %v", name, err)
		}
		// Patterns RE2 cannot run (lookaround, backreferences) run on a
		// backtracking engine, bounded by the step's time.
		sr.m = sr.m.WithBudget(sandbox.ThreadContext(thread), sandbox.MatchBudget(thread))
		sr.regex = true
		sr.groups = newGroupFinder(sr.m)
	} else {
		sr.m = pyre.Literal(pattern)
	}
	switch v := v.(type) {
	case starlark.String:
		if sr.field != nil {
			return nil, typeErr("%s: field= searches one field of the dicts in a list or dict; var is a str", name)
		}
		sr.searchText(string(v))
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		for i := 0; i < seq.Len() && !sr.done(); i++ {
			item, err := sandbox.Unproxy(thread, seq.Index(i))
			if err != nil {
				return nil, err
			}
			sr.searchValue("index", starlark.MakeInt(i), item)
		}
	case starlark.IterableMapping:
		for _, kv := range v.Items() {
			if sr.done() {
				break
			}
			val, err := sandbox.Unproxy(thread, kv[1])
			if err != nil {
				return nil, err
			}
			sr.searchValue("key", kv[0], val)
		}
	default:
		return nil, typeErr("%s: var must be a str, list, tuple or dict, got %s", name, pyTypeName(v))
	}
	if sr.stop != nil {
		// A limit (memory, time) stopped the step while the results grew.
		return nil, sr.stop
	}
	if err := sr.m.Err(); err != nil {
		// A step stopped by a limit reports the limit; else the budget ran out.
		return nil, &sandbox.PyError{
			Kind: "TimeoutError",
			Msg: name + ": the regular expression " + strconv.Quote(
				pattern,
			) + " backtracked until the step's time ran out; avoid nested quantifiers like (a+)+, anchor it, or search a smaller part",
			Err: err,
		}
	}
	if sr.field != nil && sr.withField == 0 {
		return nil, sr.noFieldErr(name)
	}
	results := sr.results
	if results == nil {
		results = []starlark.Value{}
	}
	if sr.more > 0 {
		results[len(results)-1].(starlark.HasSetKey).SetKey(starlark.String("more"), starlark.MakeInt(sr.more))
	}
	return starlark.NewList(results), nil
}

// maxMoreCount bounds how many matches past max_results search counts for
// the more entry.
const maxMoreCount = 100_000

// searcher collects the results of one search call.
type searcher struct {
	thread *starlark.Thread
	stop   error // the limit that stopped the step, once search saw it
	m      *pyre.Matcher
	regex  bool
	groups *groupFinder // nil: no capture groups
	field  starlark.Value
	limit  int // < 0: no limit

	results    []starlark.Value
	more       int // matches past the limit, counted up to maxMoreCount
	withField  int // items that have field
	fieldsSeen []string
}

// done reports whether the results are full and the matches past them
// counted, or a limit stopped the step.
func (sr *searcher) done() bool { return sr.more >= maxMoreCount || sr.stop != nil }

// stopEvery is how many results search builds between looks at whether
// a limit stopped the step (e.g. the memory watchdog, as the results grow).
const stopEvery = 4096

// stopped reports whether the step was stopped, after n results.
func (sr *searcher) stopped(n int) bool {
	if sr.stop == nil && n%stopEvery == 0 {
		sr.stop = sandbox.Interrupted(sr.thread)
	}
	return sr.stop != nil
}

// add appends a result, or counts it once the results are full.
func (sr *searcher) add(build func() starlark.Value) {
	if sr.limit > 0 && len(sr.results) >= sr.limit {
		sr.more++
		return
	}
	if sr.stopped(len(sr.results)) {
		return
	}
	sr.results = append(sr.results, build())
}

// searchValue searches one list item or dict value: the fields of a dict
// (or only sr.field), else its text.
func (sr *searcher) searchValue(keyName string, key, item starlark.Value) {
	mp, isMap := asMapping(item)
	if sr.field != nil {
		if !isMap {
			return
		}
		fv, found, err := mp.Get(sr.field)
		if err != nil || !found {
			if len(sr.fieldsSeen) == 0 {
				for _, kv := range mp.Items() {
					sr.fieldsSeen = append(sr.fieldsSeen, sandbox.ReprLimit(kv[0], 40))
				}
			}
			return
		}
		sr.withField++
		fv, err = sandbox.Unproxy(sr.thread, fv)
		if err != nil {
			return
		}
		text := itemText(sr.thread, fv)
		if start, end := sr.m.First(text); start >= 0 {
			sr.add(func() starlark.Value { return sr.itemResult(keyName, key, sr.field, mp, text, start, end) })
		}
		return
	}
	if isMap {
		for _, kv := range mp.Items() {
			fv, err := sandbox.Unproxy(sr.thread, kv[1])
			if err != nil {
				continue
			}
			text := itemText(sr.thread, fv)
			if start, end := sr.m.First(text); start >= 0 {
				sr.add(func() starlark.Value { return sr.itemResult(keyName, key, kv[0], mp, text, start, end) })
				return
			}
		}
		return
	}
	text := itemText(sr.thread, item)
	if start, end := sr.m.First(text); start >= 0 {
		if _, isStr := item.(starlark.String); !isStr {
			// The text is a rendering made for the search: keep only
			// the preview, not the whole rendering.
			sr.add(func() starlark.Value { return sr.itemResult(keyName, key, nil, nil, text, start, end) })
			return
		}
		// A str item: a hit that slices the item, which it keeps anyway.
		sr.add(func() starlark.Value {
			h := &itemHit{keyName: starlark.String(keyName), key: key, text: text, start: start, end: end}
			if sr.regex {
				h.groups = noGroups
				if sr.groups != nil {
					g := sr.groups.at(text, start, end)
					h.groups = &g
				}
			}
			if strings.IndexByte(text, '\n') >= 0 {
				// Counted after the groups, which are the matcher's last.
				h.count = sr.count(text)
			}
			h.Init(h)
			return &h.LazyDict
		})
	}
}

// count returns how many matches text holds.
func (sr *searcher) count(text string) int {
	n := 0
	sr.m.FindAll(text, -1, func(int, int) bool { n++; return true })
	return n
}

// itemResult is the result for a matching item: its index or key, the
// matching field of a dict item, for a regex the match and groups, and a
// preview (the whole dict item, cut around the match).
func (sr *searcher) itemResult(
	keyName string,
	key, field starlark.Value,
	mp starlark.IterableMapping,
	text string,
	start, end int,
) *starlark.Dict {
	kv := []any{keyName, key}
	if field != nil {
		kv = append(kv, "field", field)
	}
	if sr.regex {
		kv = append(kv, "match", starlark.String(cutMatch(text[start:end])))
		if sr.groups != nil {
			kv = append(kv, "groups", sr.groups.at(text, start, end))
		}
	}
	var p string
	if mp != nil {
		p = dictPreview(sr.thread, mp, field, text, start, end)
	} else {
		p = itemPreviewAround(text, start, end)
	}
	return resultDict(append(kv, "preview", starlark.String(p))...)
}

func (sr *searcher) noFieldErr(name string) error {
	if len(sr.fieldsSeen) == 0 {
		return typeErr("%s: field= searches one field of the dicts in a list or dict, and var holds no dict", name)
	}
	return valueErr(
		"%s: no item has the field %s; the first item's fields are %s",
		name,
		sandbox.ReprLimit(sr.field, 60),
		strings.Join(sr.fieldsSeen, ", "),
	)
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
// line around it; past the limit it counts the matches for more.
func (sr *searcher) searchText(s string) {
	line, counted := 1, 0
	text := &s // shared by the hits
	find, limit := -1, 0
	if sr.limit > 0 {
		find, limit = sr.limit+maxMoreCount, sr.limit
	}
	// Hits are allocated in slabs and listed once at the end: neither the
	// hits nor the list are allocated one by one or regrown as they come.
	// This runs for every hit (see BenchmarkSearchHits and
	// TestSearchHitBytes).
	var (
		hits  slabs[textHit]
		ghits slabs[groupHit]
		n     int
	)
	sr.m.FindAll(s, find, func(start, end int) bool {
		if limit > 0 && n >= limit {
			sr.more++
			return true
		}
		if sr.stopped(n) {
			return false
		}
		n++
		line += strings.Count(s[counted:start], "\n")
		counted = start
		h := textHit{text: text, line: line, offset: sandbox.CharOffset(s, start), start: start, end: end}
		if sr.groups != nil {
			g := ghits.next(limit)
			*g = groupHit{textHit: h, groups: sr.groups.at(s, start, end)}
			g.Init(g)
			return true
		}
		p := hits.next(limit)
		*p = h
		p.Init(p)
		return true
	})
	if sr.groups != nil {
		sr.results = ghits.list(func(h *groupHit) starlark.Value { return &h.LazyDict })
	} else {
		sr.results = hits.list(func(h *textHit) starlark.Value { return &h.LazyDict })
	}
}

// cutMatch cuts a long match to maxMatchText bytes, marked.
func cutMatch(match string) string {
	if len(match) > maxMatchText {
		return match[:runeFloor(match, maxMatchText)] + "..."
	}
	return match
}

// preview returns the line around s[start:end], cut to about
// previewContext characters on each side with "..." marks, other control
// characters than tab and carriage return escaped.
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
	if lo == ls && hi == le && plainASCII(s[lo:hi]) {
		return s[lo:hi] // the whole line, as is: no copy
	}
	var b strings.Builder
	b.Grow(hi - lo + 6) // exact unless characters are escaped
	if lo > ls {
		b.WriteString("...")
	}
	writeEscaped(&b, s[lo:hi])
	if hi < le {
		b.WriteString("...")
	}
	return b.String()
}

// writeEscaped writes s with invalid bytes and control characters other
// than tab, newline and carriage return escaped (as repr escapes them), so
// that a preview is the text itself wherever it is printable: a model
// that prints a hit (repr) sees '\t' for a tab, as Python shows it, and can
// copy a preview into a pattern.
func writeEscaped(b *strings.Builder, s string) {
	if plainASCII(s) {
		b.WriteString(s)
		return
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\n' || r == '\t' || r == '\r':
			b.WriteByte(byte(r))
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

// plainASCII reports whether s holds only printable ASCII (and spaces),
// which writeEscaped copies as is.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
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

func itemPreviewAround(text string, start, end int) string {
	if len(text) <= itemPreview {
		if plainASCII(text) {
			return text
		}
		var b strings.Builder
		writeEscaped(&b, text)
		return b.String()
	}
	return preview(text, start, end)
}

// Dict item previews: the whole item up to dictPreviewChars, else each
// other field's value cut to otherFieldChars around the matching field.
const (
	dictPreviewChars = 300
	otherFieldChars  = 60
)

// dictPreview shows a matching dict item: its repr when short, else every
// field with long values cut and the matching field's value (text, where
// the match is start..end) shown around the match; fields that do not fit
// are left out, marked "...".
func dictPreview(thread *starlark.Thread, mp starlark.IterableMapping, field starlark.Value, text string, start, end int) string {
	if full := sandbox.ReprLimit(mp, dictPreviewChars+1); len(full) <= dictPreviewChars {
		return full
	}
	items := mp.Items()
	parts := make([]string, len(items))
	matched := -1
	for i, kv := range items {
		k := cutRepr(sandbox.ReprLimit(kv[0], otherFieldChars+1), otherFieldChars)
		var v string
		if eq, err := starlark.Equal(kv[0], field); err == nil && eq && matched < 0 {
			matched = i
			v = itemPreviewAround(text, start, end)
			if _, ok := kv[1].(starlark.String); ok {
				v = "'" + v + "'"
			}
		} else {
			v = cutRepr(sandbox.ReprLimit(kv[1], otherFieldChars+1), otherFieldChars)
		}
		parts[i] = k + ": " + v
	}
	used := 2
	if matched >= 0 {
		used += len(parts[matched]) + 2
	}
	var b strings.Builder
	b.WriteByte('{')
	sep := func() {
		if b.Len() > 1 {
			b.WriteString(", ")
		}
	}
	left := false
	for i, p := range parts {
		if i != matched {
			if used+len(p)+2 > dictPreviewChars {
				left = true
				continue
			}
			used += len(p) + 2
		}
		sep()
		b.WriteString(p)
	}
	if left {
		sep()
		b.WriteString("...")
	}
	b.WriteByte('}')
	return b.String()
}

// cutRepr cuts a rendering to at most n bytes, marked with "...".
func cutRepr(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeFloor(s, n-3)] + "..."
}

// groupFinder finds the capture groups of a match that a pyre.Matcher
// reported. It reruns the expression anchored at the match, starting one
// character earlier so that \b, \B and ^ see the character before it, on
// the match's line (the whole rest of the text for a match over lines).
// A match found by the backtracking engine (a pattern RE2 cannot run, or
// a non-ASCII line) comes with its groups: m.LastGroups.
type groupFinder struct {
	first *regexp.Regexp // \A(?:expr): a match at offset 0
	next  *regexp.Regexp // \A(?s:.)(?:expr): a match after a character
	n     int
	m     *pyre.Matcher
}

// newGroupFinder returns nil for a matcher without capture groups.
func newGroupFinder(m *pyre.Matcher) *groupFinder {
	re := m.Regexp()
	if m.NumGroups() == 0 {
		return nil
	}
	if re == nil {
		return &groupFinder{n: m.NumGroups(), m: m}
	}
	first, err1 := regexp.Compile(`\A(?:` + re.String() + `)`)
	next, err2 := regexp.Compile(`\A(?s:.)(?:` + re.String() + `)`)
	if err1 != nil || err2 != nil {
		return nil
	}
	return &groupFinder{first: first, next: next, n: re.NumSubexp(), m: m}
}

// at returns the groups of the match text[start:end] as a tuple (None for
// a group that took no part), as re's m.groups() does.
func (g *groupFinder) at(text string, start, end int) starlark.Tuple {
	if loc := g.m.LastGroups(); loc != nil {
		out := make(starlark.Tuple, g.n)
		for i := range out {
			out[i] = starlark.None
			if 2*i+1 < len(loc) && loc[2*i] >= 0 {
				out[i] = starlark.String(cutMatch(text[loc[2*i]:loc[2*i+1]]))
			}
		}
		return out
	}
	if g.first == nil {
		return make(starlark.Tuple, g.n)
	}
	lo, re := start, g.first
	if start > 0 {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		lo, re = start-size, g.next
	}
	hi := len(text)
	if !strings.Contains(text[start:end], "\n") {
		if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
			hi = end + i
		}
	}
	loc := re.FindStringSubmatchIndex(text[lo:hi])
	out := make(starlark.Tuple, g.n)
	for i := range out {
		out[i] = starlark.None
		if loc != nil && loc[2*i+2] >= 0 {
			out[i] = starlark.String(cutMatch(text[lo+loc[2*i+2] : lo+loc[2*i+3]]))
		}
	}
	return out
}
