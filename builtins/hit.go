package builtins

import (
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox"
)

// textHit is one search() result on a text: the dict {line, offset,
// match, preview} as a sandbox.LazyDict whose values are made when read,
// the match and the preview sliced from the text the hit points into. A
// hit costs this struct (64 bytes) instead of a dict, a preview string
// and a match string (over 550 bytes). Init must be called with the hit
// itself.
type textHit struct {
	sandbox.LazyDict
	text       *string // the searched text, shared by the search's hits
	line       int
	offset     int // in code points
	start, end int // the match, in bytes of *text
}

// groupHit is a textHit with the capture groups of a regular expression:
// the dict {line, offset, match, groups, preview}.
type groupHit struct {
	textHit
	groups starlark.Tuple
}

var (
	_ sandbox.DictFields = (*textHit)(nil)
	_ sandbox.DictFields = (*groupHit)(nil)
)

// FieldCount is 4: line, offset, match, preview.
func (h *textHit) FieldCount() int { return 4 }

// FieldKey returns the i-th key.
func (h *textHit) FieldKey(i int) starlark.String { return hitKeys[i] }

// FieldValue returns the i-th value.
func (h *textHit) FieldValue(i int) starlark.Value {
	switch i {
	case 0:
		return starlark.MakeInt(h.line)
	case 1:
		return starlark.MakeInt(h.offset)
	case 2:
		return starlark.String(cutMatch((*h.text)[h.start:h.end]))
	}
	return starlark.String(preview(*h.text, h.start, h.end))
}

// FieldCount is 5: line, offset, match, groups, preview.
func (h *groupHit) FieldCount() int { return 5 }

// FieldKey returns the i-th key.
func (h *groupHit) FieldKey(i int) starlark.String { return groupHitKeys[i] }

// FieldValue returns the i-th value.
func (h *groupHit) FieldValue(i int) starlark.Value {
	switch {
	case i == 3:
		return h.groups
	case i > 3:
		i--
	}
	return h.textHit.FieldValue(i)
}

// The keys of a text search result.
var (
	keyLine      = starlark.String("line")
	keyOffset    = starlark.String("offset")
	keyMatch     = starlark.String("match")
	keyGroups    = starlark.String("groups")
	keyPreview   = starlark.String("preview")
	keyCount     = starlark.String("count")
	hitKeys      = [...]starlark.String{keyLine, keyOffset, keyMatch, keyPreview}
	groupHitKeys = [...]starlark.String{keyLine, keyOffset, keyMatch, keyGroups, keyPreview}
)

// slabs allocates values of T in slabs that double from minSlab to
// maxSlab values, never more than a limit in all: many small values in a
// few allocations, none moved or regrown.
type slabs[T any] struct {
	full [][]T
	cur  []T
	n    int
}

// The sizes of the slabs of search() hits.
const (
	minSlab = 16
	maxSlab = 4096
)

// next returns a new zero T; limit (> 0) is the most values there will
// be, 0 when unknown.
func (s *slabs[T]) next(limit int) *T {
	if len(s.cur) == cap(s.cur) {
		if s.cur != nil {
			s.full = append(s.full, s.cur)
		}
		size := min(max(2*cap(s.cur), minSlab), maxSlab)
		if limit > 0 {
			size = min(size, limit-s.n)
		}
		s.cur = make([]T, 0, size)
	}
	s.cur = s.cur[:len(s.cur)+1]
	s.n++
	return &s.cur[len(s.cur)-1]
}

// list returns the values in order, each as f gives it.
func (s *slabs[T]) list(f func(*T) starlark.Value) []starlark.Value {
	out := make([]starlark.Value, 0, s.n)
	for _, sl := range append(s.full, s.cur) {
		for i := range sl {
			out = append(out, f(&sl[i]))
		}
	}
	return out
}

// itemHit is the search() result for a str list item or dict value:
// {index or key, [line, count,] [match, [groups,]] preview}, the preview
// and match sliced from the item when read. An item of several lines (a
// document) adds the line of its first match and how many matches it
// holds, so that one result per item does not hide the others.
type itemHit struct {
	sandbox.LazyDict
	keyName    starlark.String // "index" or "key"
	key        starlark.Value
	text       string
	start, end int             // the first match, in bytes of text
	count      int             // matches in text; 0: a one-line item (no line, count)
	groups     *starlark.Tuple // regex=True: the match's groups (nil: none); the match is shown
}

var _ sandbox.DictFields = (*itemHit)(nil)

// noGroups marks an itemHit of a regex without capture groups.
var noGroups = new(starlark.Tuple)

// The fields of an itemHit, in order; FieldCount and FieldKey pick those
// the hit has.
const (
	fieldKey = iota
	fieldLine
	fieldCount
	fieldMatch
	fieldGroups
	fieldPreview
)

// field maps the i-th field of h to its kind.
func (h *itemHit) field(i int) int {
	if i > 0 && h.count == 0 {
		i += 2 // no line, count
	}
	if h.groups == nil && i >= fieldMatch {
		i += 2 // no match, groups
	} else if h.groups != nil && *h.groups == nil && i >= fieldGroups {
		i++ // no groups
	}
	return i
}

// FieldCount is 2 (key, preview), plus line and count for an item of
// several lines, plus the match of a regex and its groups.
func (h *itemHit) FieldCount() int {
	n := 2
	if h.count > 0 {
		n += 2
	}
	switch {
	case h.groups == nil:
	case *h.groups == nil:
		n++
	default:
		n += 2
	}
	return n
}

// FieldKey returns the i-th key.
func (h *itemHit) FieldKey(i int) starlark.String {
	switch h.field(i) {
	case fieldKey:
		return h.keyName
	case fieldLine:
		return keyLine
	case fieldCount:
		return keyCount
	case fieldMatch:
		return keyMatch
	case fieldGroups:
		return keyGroups
	}
	return keyPreview
}

// FieldValue returns the i-th value.
func (h *itemHit) FieldValue(i int) starlark.Value {
	switch h.field(i) {
	case fieldKey:
		return h.key
	case fieldLine:
		return starlark.MakeInt(1 + strings.Count(h.text[:h.start], "\n"))
	case fieldCount:
		return starlark.MakeInt(h.count)
	case fieldMatch:
		return starlark.String(cutMatch(h.text[h.start:h.end]))
	case fieldGroups:
		return *h.groups
	}
	return starlark.String(itemPreviewAround(h.text, h.start, h.end))
}
