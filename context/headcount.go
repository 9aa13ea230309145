package rlmctx

import (
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
)

// headCount is the token count of a large document's summary excerpt
// (the first tokenSample bytes of its value's JSON encoding, which its
// token estimate counts; see countTokens), made by countHead as the
// document is loaded. bytes is 0 when there is none.
type headCount struct {
	tokens, bytes int
}

// headPrefixFactor bounds the text countHead decodes to that many times
// the excerpt's size: a document whose first items take more (deeply
// indented, or one huge first item) is counted later, from its value.
const headPrefixFactor = 4

// headFirstItems is how many items countHead decodes first; nextHead
// says how many next, until their encoding holds the excerpt.
const headFirstItems = 16

// countHead counts the tokens of the summary excerpt of a JSON (lines
// with lines) document over the estimate threshold from the first items
// of doc, a memory map checked as UTF-8, before its values are made:
// counting makes garbage about 90 times the excerpt (22 MB for 256 KB,
// the tokenizer's regular expression allocates a match per pre-token),
// which beside a small heap is collected as it is made, while on top of
// an 85 MB document's values it stayed resident at the process's peak.
// The excerpt is a prefix of the encoding, so that of the first items is
// the value's once their encoding is longer than it. It returns the zero
// headCount when the document is small, not a list or dict, or its first
// items are not found within headPrefixFactor excerpts of text.
func countHead(doc []byte, lines bool, source string) headCount {
	limit, sample := tokenSample()
	if limit <= 0 || int64(len(doc)) <= limit {
		return headCount{}
	}
	prefix := doc[:min(len(doc), headPrefixFactor*sample)]
	var e string
	for h := headFirstItems; h <= len(prefix); h = nextHead(h, len(e), sample) {
		v, err := decodeDocument(prefix, lines, true, source, h)
		if err != nil {
			return headCount{}
		}
		var n int
		switch x := v.(type) {
		case []any:
			n = len(x)
		case *Dict:
			n = x.Len()
		default:
			return headCount{}
		}
		e = pyjson.Excerpt(v, sample+1)
		switch {
		case len(e) > sample:
			e = e[:sample]
		case n < h && len(prefix) == len(doc):
			// The whole document: its excerpt is all of it.
		case n < h:
			return headCount{} // the prefix ends between lines
		default:
			continue
		}
		return headCount{tokens: llm.DefaultTokenizer().Count(e), bytes: len(e)}
	}
	return headCount{}
}

// nextHead is how many items countHead decodes after h items whose
// encoding took n bytes, short of the excerpt's sample: as many as the
// items so far make it likely to hold, with a quarter to spare, and at
// least twice h (a list of 1,000 records of 250 bytes takes two decodes,
// not seven).
func nextHead(h, n, sample int) int {
	return max(2*h, int(int64(h)*int64(sample)/int64(max(n, 1))*5/4)+1)
}

// estimate is the token estimate of a value of size bytes from its
// head's count, as countTokens makes it, and whether there is one.
func (h headCount) estimate(size int64) (int, bool) {
	limit, _ := tokenSample()
	if h.bytes == 0 || limit <= 0 || size <= limit {
		return 0, false
	}
	return int(float64(h.tokens) * float64(size) / float64(h.bytes)), true
}
