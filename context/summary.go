package rlmctx

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/numfmt"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/internal/pylines"
	"github.com/rlmhq/rlm/llm"
)

// MaxSummaryTokens is the token cap of one rendered summary line
// ("- NAME: SUMMARY"), whatever the variable's size.
const MaxSummaryTokens = 60

// summary levels, most detailed first: preview runes and listed keys. The
// preview shrinks first: a structure's keys (a record's fields, a dict's
// paths) tell a model more than the opening of its first item, which a
// model that saw two of six keys printed whole to learn the rest.
var summaryLevels = []struct{ preview, keys int }{
	{80, 8}, {60, 8}, {40, 8}, {28, 8}, {20, 6}, {12, 6}, {0, 6}, {0, 5}, {0, 4}, {0, 3}, {12, 2}, {0, 2}, {0, 1}, {0, 0},
}

// summarize builds v's deterministic summary of its Go value val,
// shrinking the preview and the structure lists until the line fits
// MaxSummaryTokens. items is how many items v has when val is only the
// first of them (-1: val is the whole value).
func summarize(v *Variable, val any, items int) string {
	tok := llm.DefaultTokenizer()
	var s string
	for _, lv := range summaryLevels {
		s = describe(v, val, items, lv.preview, lv.keys)
		if tok.Count(summaryLine(v.Name, s)) <= MaxSummaryTokens {
			return s
		}
	}
	return fitSummary(v.Name, s)
}

// fitSummary cuts s (at a character boundary, marked with an ellipsis) so
// that its line fits MaxSummaryTokens; only a name that alone is longer can
// make the line exceed the cap.
func fitSummary(name, s string) string {
	tok := llm.DefaultTokenizer()
	if tok.Count(summaryLine(name, s)) <= MaxSummaryTokens {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r) // the longest fitting prefix has lo <= n < hi runes
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if tok.Count(summaryLine(name, string(r[:mid])+"…")) <= MaxSummaryTokens {
			lo = mid
		} else {
			hi = mid
		}
	}
	return string(r[:lo]) + "…"
}

// typeLabel renders a type for a summary, a long custom name shortened.
func typeLabel(t VarType) string {
	if t.IsCustom() {
		return customPrefix + escapeShort(t.CustomName(), 24)
	}
	return string(t)
}

func describe(v *Variable, val any, items, previewRunes, maxKeys int) string {
	var parts []string
	head := typeLabel(v.Type)
	count := func(n int) int {
		if items >= 0 {
			return items
		}
		return n
	}
	switch x := val.(type) {
	case string:
		parts = append(parts, head)
		parts = append(parts, sizeText(v))
		parts = append(parts, numfmt.Plural(pylines.Count(x), "line"))
	case []any:
		parts = append(parts, head+" list of "+numfmt.Plural(count(len(x)), itemWord(v.Type)))
		parts = append(parts, sizeText(v))
		if st := listStructure(v.Type, x, maxKeys); st != "" {
			parts = append(parts, st)
		}
	case *Dict:
		switch v.Type {
		case Files:
			parts = append(parts, head+" dict of "+numfmt.Plural(count(x.Len()), "file"))
			parts = append(parts, sizeText(v))
			if maxKeys > 0 && x.Len() > 0 {
				parts = append(parts, "paths "+pathList(x.Keys(), maxKeys))
			}
			previewRunes = 0 // the paths say more than a JSON excerpt
		default:
			parts = append(parts, head+" dict of "+numfmt.Plural(count(x.Len()), "key"))
			parts = append(parts, sizeText(v))
			if maxKeys > 0 && x.Len() > 0 {
				parts = append(parts, "keys "+keyList(x.Keys(), maxKeys))
			}
		}
	default:
		parts = append(parts, head+" "+kindName(val))
		parts = append(parts, sizeText(v))
	}
	s := strings.Join(parts, ", ")
	if p := preview(v, val, previewRunes); p != "" {
		s += "; preview " + p
	}
	if v.Note != "" {
		s += "; " + v.Note
	}
	return s
}

func itemWord(t VarType) string {
	switch t {
	case Conversation:
		return "message"
	}
	return "item"
}

// listStructure describes the items of a list: message roles, tool names,
// or the key set of the first dict items, or the item kinds.
func listStructure(t VarType, list []any, maxKeys int) string {
	if len(list) == 0 || maxKeys == 0 {
		return ""
	}
	n := min(len(list), inferSample)
	switch t {
	case Conversation:
		counts := map[string]int{}
		var order []string
		for _, it := range list {
			d, ok := it.(*Dict)
			if !ok {
				continue
			}
			r, _ := d.Get("role")
			rs, _ := r.(string)
			if counts[rs] == 0 {
				order = append(order, rs)
			}
			counts[rs]++
		}
		var b []string
		for i, r := range order {
			if i >= maxKeys {
				b = append(b, "…")
				break
			}
			b = append(b, fmt.Sprintf("%s %d", r, counts[r]))
		}
		return "roles " + strings.Join(b, " ")
	case ToolOutputs:
		seen := map[string]bool{}
		var names []string
		for _, it := range list[:n] {
			if d, ok := it.(*Dict); ok {
				for _, k := range []string{"tool", "tool_name"} {
					if x, ok := d.Get(k); ok {
						if s, ok := x.(string); ok && !seen[s] {
							seen[s] = true
							names = append(names, s)
						}
					}
				}
			}
		}
		if len(names) > 0 {
			return "tools " + keyList(names, maxKeys)
		}
	}
	// Key set of the first dict items, else the item kinds.
	var keys []string
	seen := map[string]bool{}
	allDict := true
	kinds := map[string]bool{}
	for _, it := range list[:n] {
		kinds[kindName(it)] = true
		d, ok := it.(*Dict)
		if !ok {
			allDict = false
			continue
		}
		if len(keys) < 4*maxKeys+1 {
			for _, k := range d.Keys() {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	if allDict {
		return "items are dicts with keys " + keyList(keys, maxKeys)
	}
	ks := make([]string, 0, len(kinds))
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return "items " + strings.Join(ks, "/")
}

// keyList renders up to max keys, escaped and shortened.
func keyList(keys []string, max int) string {
	return bracketList(keys, max, func(k string) string { return escapeShort(k, 24) })
}

// bracketList renders "[a, b, …]" with up to max items, each through show.
func bracketList(items []string, max int, show func(string) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range items {
		if i >= max {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(show(it))
	}
	b.WriteByte(']')
	return b.String()
}

// escapeShort quotes nothing but escapes control characters and cuts s to
// max runes with an ellipsis.
func escapeShort(s string, max int) string {
	q := strconv.Quote(truncRunes(s, max))
	q = q[1 : len(q)-1]
	if utf8.RuneCountInString(s) > max || len(s) > 4*max {
		q += "…"
	}
	return q
}

// truncWords is truncRunes cut back to the last word or item boundary
// (a space, or a comma or semicolon, kept) when one lies in the second
// half of the cut, so a preview does not end mid-word ("To whom it may
// con…").
func truncWords(s string, max int) string {
	cut := truncRunes(s, max)
	if len(cut) == len(s) {
		return s
	}
	if r, _ := utf8.DecodeRuneInString(s[len(cut):]); unicode.IsSpace(r) {
		return cut
	}
	i := strings.LastIndexFunc(cut, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == ';' })
	if i < len(cut)/2 {
		return cut
	}
	if cut[i] == ',' || cut[i] == ';' {
		i++
	}
	return strings.TrimRightFunc(cut[:i], unicode.IsSpace)
}

func truncRunes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// preview is a short escaped excerpt of the beginning of the value.
func preview(v *Variable, val any, runes int) string {
	if runes <= 0 {
		return ""
	}
	var src string
	switch x := val.(type) {
	case string:
		if x == "" {
			return `""`
		}
		src = truncWords(x, runes)
	case []any:
		if v.Type == Conversation && len(x) > 0 {
			if d, ok := x[0].(*Dict); ok {
				c, _ := d.Get("content")
				r, _ := d.Get("role")
				rs, _ := r.(string)
				cs, ok := c.(string)
				if !ok {
					cs = pyjson.Excerpt(c, runes*4)
				}
				p := strconv.Quote(truncWords(cs, runes))
				if len(cs) > len(truncWords(cs, runes)) {
					p += "…"
				}
				return "first " + escapeShort(rs, 16) + ": " + p
			}
		}
		src = pyjson.Excerpt(x, runes*4)
	case *Dict:
		src = pyjson.Excerpt(x, runes*4)
	default:
		return pyjson.Excerpt(x, 64)
	}
	cut := trimUTF8(truncWords(trimUTF8(src), runes)) // drop a sequence split by a byte limit
	var p string
	if _, ok := val.(string); ok {
		p = strconv.Quote(cut)
	} else {
		p = cut // compact JSON: already escaped, one line
	}
	if int64(len(cut)) < v.SizeBytes {
		p += "…"
	}
	return p
}

// sizeText renders bytes and tokens.
func sizeText(v *Variable) string {
	n, est := v.Tokens()
	t := numfmt.Plural(n, "token")
	if est {
		t = "~" + t + " (est.)"
	}
	return humanBytes(v.SizeBytes) + ", " + t
}

// humanBytes renders a size exactly below 10 KB, else in KB, MB or GB with
// one decimal.
func humanBytes(n int64) string {
	switch {
	case n < 10<<10:
		return numfmt.Plural(int(n), "byte")
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}

// utf8ValidTail reports whether s does not end inside a UTF-8 sequence.
func utf8ValidTail(s string) bool {
	if s == "" {
		return true
	}
	r, size := utf8.DecodeLastRuneInString(s)
	return r != utf8.RuneError || size > 1
}

// pathList renders up to max paths, long ones shortened in the middle so
// the file name stays visible.
func pathList(paths []string, max int) string {
	return bracketList(paths, max, func(p string) string {
		const limit = 36
		if utf8.RuneCountInString(p) > limit {
			r := []rune(p)
			p = string(r[:limit/3]) + "…" + string(r[len(r)-(2*limit/3):])
		}
		q := strconv.Quote(p)
		return q[1 : len(q)-1]
	})
}
