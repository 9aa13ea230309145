package rlmctx

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/numfmt"
	"github.com/rlmhq/rlm/internal/pyjson"
)

// Default size limits (spec SPEC-25.04).
const (
	DefaultWarnThreshold  = 100 << 10
	DefaultChunkThreshold = 1 << 20
	DefaultMaxTotalSize   = 10 << 20
)

// SizeConfig holds the size limits. Zero fields take the defaults.
type SizeConfig struct {
	// WarnThreshold: a variable larger than this gets a LargeVariable warning.
	WarnThreshold int64
	// ChunkThreshold: a variable larger than this needs chunking.
	ChunkThreshold int64
	// MaxTotalSize: the total size above which TotalSizeExceeded is reported.
	MaxTotalSize int64
	// ChunkSize is the maximum piece size AutoChunk cuts (default
	// WarnThreshold, so the spec's suggested chunk count matches).
	ChunkSize int64
}

// DefaultSizeConfig returns the spec's defaults: warn 100 KB, chunk 1 MB,
// total 10 MB.
func DefaultSizeConfig() SizeConfig { return SizeConfig{}.withDefaults() }

func (c SizeConfig) withDefaults() SizeConfig {
	if c.WarnThreshold <= 0 {
		c.WarnThreshold = DefaultWarnThreshold
	}
	if c.ChunkThreshold <= 0 {
		c.ChunkThreshold = DefaultChunkThreshold
	}
	if c.MaxTotalSize <= 0 {
		c.MaxTotalSize = DefaultMaxTotalSize
	}
	if c.ChunkSize <= 0 {
		c.ChunkSize = min(c.WarnThreshold, c.ChunkThreshold)
	}
	return c
}

// SizeWarningKind is one of the spec's three warning kinds.
type SizeWarningKind int

// Size warning kinds.
const (
	LargeVariable     SizeWarningKind = iota + 1 // size > WarnThreshold
	RequiresChunking                             // size > ChunkThreshold
	TotalSizeExceeded                            // total > MaxTotalSize
)

func (k SizeWarningKind) String() string {
	switch k {
	case LargeVariable:
		return "large_variable"
	case RequiresChunking:
		return "requires_chunking"
	case TotalSizeExceeded:
		return "total_size_exceeded"
	}
	return fmt.Sprintf("SizeWarningKind(%d)", int(k))
}

// SizeWarning reports a size limit issue.
type SizeWarning struct {
	Kind SizeWarningKind
	// Name and Size: the variable (LargeVariable, RequiresChunking).
	Name string
	Size int64
	// Threshold crossed (LargeVariable: WarnThreshold; RequiresChunking:
	// ChunkThreshold).
	Threshold int64
	// SuggestedChunks = Size/ChunkSize + 1 (RequiresChunking).
	SuggestedChunks int
	// Total and Max (TotalSizeExceeded).
	Total, Max int64
}

func (w SizeWarning) String() string {
	switch w.Kind {
	case LargeVariable:
		return fmt.Sprintf("variable %s is large: %s (warning threshold %s)", w.Name, humanBytes(w.Size), humanBytes(w.Threshold))
	case RequiresChunking:
		return fmt.Sprintf(
			"variable %s needs chunking: %s is over %s; suggested %d chunks",
			w.Name,
			humanBytes(w.Size),
			humanBytes(w.Threshold),
			w.SuggestedChunks,
		)
	case TotalSizeExceeded:
		return fmt.Sprintf("total context size %s exceeds the maximum %s", humanBytes(w.Total), humanBytes(w.Max))
	}
	return w.Kind.String()
}

// CheckSizeLimits returns a warning for each variable over the warning or
// chunk threshold (the larger applies) and one if the total is over the
// maximum, in variable order.
func (c *ExternalizedContext) CheckSizeLimits(cfg SizeConfig) []SizeWarning {
	cfg = cfg.withDefaults()
	var out []SizeWarning
	for _, v := range c.Vars {
		switch {
		case v.SizeBytes > cfg.ChunkThreshold:
			out = append(out, SizeWarning{Kind: RequiresChunking, Name: v.Name, Size: v.SizeBytes, Threshold: cfg.ChunkThreshold,
				SuggestedChunks: int(v.SizeBytes/cfg.ChunkSize) + 1})
		case v.SizeBytes > cfg.WarnThreshold:
			out = append(out, SizeWarning{Kind: LargeVariable, Name: v.Name, Size: v.SizeBytes, Threshold: cfg.WarnThreshold})
		}
	}
	if c.TotalSizeBytes > cfg.MaxTotalSize {
		out = append(out, SizeWarning{Kind: TotalSizeExceeded, Total: c.TotalSizeBytes, Max: cfg.MaxTotalSize})
	}
	return out
}

// ChunkSuffix names the companion variable AutoChunk adds: NAME_chunks.
const ChunkSuffix = "_chunks"

// AutoChunk gives every variable over cfg.ChunkThreshold a companion list
// variable NAME_chunks holding its pieces, each at most cfg.ChunkSize
// bytes. A text is cut at line boundaries, else word boundaries, else
// between characters; joined the pieces equal the original exactly and
// share its memory. A list is cut into lists of consecutive items, a dict
// into dicts of consecutive keys (an item larger than the chunk size is a
// piece alone); concatenated (merged) they equal the original. Lists and
// dicts that would make one piece are left alone. The original's summary
// mentions the chunks. A name already taken is left alone. It returns the
// names added.
func (c *ExternalizedContext) AutoChunk(cfg SizeConfig) []string {
	cfg = cfg.withDefaults()
	var added []string
	for _, v := range c.Vars {
		sizes := v.itemSizes
		v.itemSizes = nil
		if v.SizeBytes <= cfg.ChunkThreshold || strings.HasSuffix(v.Name, ChunkSuffix) {
			continue
		}
		name := v.Name + ChunkSuffix
		if _, taken := c.Get(name); taken {
			continue
		}
		var list []any // the pieces; nil when made from the document
		var ends []int // where the pieces of a list or dict end
		isDict := v.docDict
		if sizes != nil && v.released && v.chunkOf == nil {
			// A JSON document outlined at load: cut by its items' sizes,
			// without its Go value (the pieces are made from the text).
			ends = chunkEnds(sizes, cfg.ChunkSize)
		} else {
			switch x := v.GoValue().(type) {
			case string:
				for _, p := range ChunkText(x, int(cfg.ChunkSize)) {
					list = append(list, p)
				}
			case []any, *Dict:
				_, isDict = x.(*Dict)
				if sizes == nil {
					sizes = itemSizes(x)
				}
				ends = chunkEnds(sizes, cfg.ChunkSize)
				list = pieces(x, ends) // views of the items
			default:
				continue
			}
		}
		var what, joined string
		switch {
		case ends == nil:
			what, joined = "(str)", "cut at line ends; joined they equal "+v.Name
		case isDict:
			what, joined = "(dicts of consecutive keys)", "merged in order they equal "+v.Name
		default:
			what, joined = "(lists of consecutive items)", "sum("+name+", []) equals "+v.Name
		}
		n := len(list)
		if list == nil {
			n = len(ends)
		}
		if n < 2 {
			continue
		}
		cv := &Variable{Name: name, Type: JSON, SizeBytes: v.SizeBytes, ItemCount: n,
			tokensFrom: v, Source: v.Name, released: list == nil,
			Note: fmt.Sprintf("the pieces of %s, each <= %s, %s", v.Name, humanBytes(cfg.ChunkSize), joined)}
		if list != nil {
			cv.Value = list // else nil, not a typed nil []any
		}
		if ends != nil {
			cv.chunkOf, cv.ends = v, ends
		}
		cv.describeFn = func(cv *Variable) string {
			return fitSummary(cv.Name, fmt.Sprintf("json list of %s %s, %s; %s", numfmt.Plural(n, "chunk"), what, sizeText(cv), cv.Note))
		}
		v.SetNote(joinNote(v.Note, fmt.Sprintf("also split into %s (%s)", name, numfmt.Plural(n, "chunk"))))
		c.add(cv, false)
		added = append(added, name)
	}
	return added
}

// chunkEnds cuts items of these JSON sizes into runs of consecutive items
// whose JSON form ([a, b] or {"k": v}) is at most max bytes (an item
// larger than max is a run alone), returning each run's end index (see
// [itemSizes] and [pieces]).
func chunkEnds(sizes []int64, max int64) []int {
	var ends []int
	start, size := 0, int64(2) // the brackets
	for i, n := range sizes {
		n += 2 // ", "
		if i > start && size+n > max {
			ends = append(ends, i)
			start, size = i, 2
		}
		size += n
	}
	if start < len(sizes) {
		ends = append(ends, len(sizes))
	}
	return ends
}

// itemSizes is the JSON size of each item of a list, or of each entry
// ("k": v) of a dict, without separators; nil for other values.
func itemSizes(val any) []int64 {
	switch x := val.(type) {
	case []any:
		sizes := make([]int64, len(x))
		for i, it := range x {
			sizes[i] = encodedSize(it)
		}
		return sizes
	case *Dict:
		sizes := make([]int64, 0, x.Len())
		for k, e := range x.All() {
			sizes = append(sizes, encodedSize(k)+2+encodedSize(e)) // "k": v
		}
		return sizes
	}
	return nil
}

// encodedSize is the length of v's JSON encoding (pyjson.Size counts a
// string as its raw length).
func encodedSize(v any) int64 {
	if _, ok := v.(string); ok {
		return pyjson.Size([]any{v}) - 2
	}
	return pyjson.Size(v)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// ChunkText cuts s into consecutive pieces of at most max bytes (max >= 4),
// preferring to cut after a newline, else after a space or tab, else
// between UTF-8 characters (not inside a CRLF pair).
// strings.Join(pieces, "") == s.
func ChunkText(s string, max int) []string {
	if max < utf8.UTFMax {
		max = utf8.UTFMax
	}
	if len(s) == 0 {
		return nil
	}
	out := make([]string, 0, len(s)/max+1)
	for len(s) > max {
		w := s[:max]
		cut := strings.LastIndexByte(w, '\n') + 1
		if cut <= 0 {
			cut = strings.LastIndexAny(w, " \t") + 1
		}
		if cut <= 0 {
			cut = max
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			if cut > 1 && s[cut-1] == '\r' && s[cut] == '\n' {
				cut-- // keep a CRLF pair together
			}
			if cut == 0 {
				cut = max
			}
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}
