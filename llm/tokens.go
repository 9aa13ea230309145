package llm

import (
	"hash/maphash"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names accepted by [NewTokenizer].
const (
	EncodingO200k  = "o200k_base"
	EncodingCl100k = "cl100k_base"
)

// DefaultEstimateThreshold is the text size in bytes above which
// [Tokenizer.CountLarge] estimates from samples instead of counting exactly.
const DefaultEstimateThreshold = 4 << 20

// Tokenizer counts tokens offline with a tiktoken BPE encoding. It is safe
// for concurrent use.
type Tokenizer struct {
	codec tokenizer.Codec
	name  string
	// EstimateThreshold is the size above which CountLarge samples.
	EstimateThreshold int

	// counts remembers the counts of long texts (the system prompt and
	// other sections sent again with every request), by content hash
	// (nil: no cache). Copies of a Tokenizer share it.
	counts *countCache
}

// countCache maps content hashes to token counts.
type countCache struct {
	mu sync.Mutex
	m  map[countKey]int
	// seeds of the two 64-bit halves of a key: 128 bits, so that two
	// texts of a process share a count by chance with probability about
	// 2^-100 for a full cache.
	seeds [2]maphash.Seed
}

// countKey is a text's 128-bit hash.
type countKey [2]uint64

func newCountCache() *countCache {
	return &countCache{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

func (c *countCache) key(s string) countKey {
	return countKey{maphash.String(c.seeds[0], s), maphash.String(c.seeds[1], s)}
}

// Count cache: texts of at least countCacheMin bytes are remembered, up to
// countCacheMax entries (then the cache starts over). Hashing costs a small
// fraction of tokenizing, so short texts that repeat (a server's per-run meta
// prompt and query, counted for every request) are worth remembering too.
const (
	countCacheMin = 128
	countCacheMax = 4096
)

var (
	tokMu    sync.Mutex
	tokCache = map[string]*Tokenizer{}
)

// NewTokenizer returns the tokenizer for an encoding name ("o200k_base" or
// "cl100k_base"). Tokenizers are cached and shared.
func NewTokenizer(encoding string) (*Tokenizer, error) {
	tokMu.Lock()
	defer tokMu.Unlock()
	if t, ok := tokCache[encoding]; ok {
		return t, nil
	}
	c, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return nil, &Error{
			Kind:    KindBadRequest,
			Message: "unknown token encoding " + encoding + " (use o200k_base or cl100k_base)",
			Err:     err,
		}
	}
	t := &Tokenizer{codec: c, name: encoding, EstimateThreshold: DefaultEstimateThreshold, counts: newCountCache()}
	tokCache[encoding] = t
	return t, nil
}

// DefaultTokenizer returns the o200k_base tokenizer.
func DefaultTokenizer() *Tokenizer {
	t, err := NewTokenizer(EncodingO200k)
	if err != nil {
		panic(err) // compiled-in tables: cannot fail
	}
	return t
}

// TokenizerForModel picks the encoding a model uses: cl100k_base for the
// GPT-4 and GPT-3.5 families and text-embedding-ada/3 models, o200k_base
// otherwise (including non-OpenAI models, where it is the best offline guess).
func TokenizerForModel(model string) *Tokenizer {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	cl := (strings.HasPrefix(m, "gpt-4") && !strings.HasPrefix(m, "gpt-4o") && !strings.HasPrefix(m, "gpt-4.")) ||
		strings.HasPrefix(m, "gpt-3.5") || strings.HasPrefix(m, "gpt-35") || strings.HasPrefix(m, "text-embedding")
	if cl {
		t, _ := NewTokenizer(EncodingCl100k)
		return t
	}
	return DefaultTokenizer()
}

// Name is the encoding name.
func (t *Tokenizer) Name() string { return t.name }

// Count returns the exact number of tokens in s.
func (t *Tokenizer) Count(s string) int {
	if s == "" {
		return 0
	}
	cache := t.counts != nil && len(s) >= countCacheMin && len(s) <= DefaultEstimateThreshold
	var key countKey
	if cache {
		key = t.counts.key(s)
		t.counts.mu.Lock()
		n, ok := t.counts.m[key]
		t.counts.mu.Unlock()
		if ok {
			return n
		}
	}
	n, err := t.codec.Count(s)
	if err != nil {
		// Invalid UTF-8 in replace mode does not error; be safe anyway.
		return len(s) / 3
	}
	if cache {
		t.counts.mu.Lock()
		if t.counts.m == nil || len(t.counts.m) >= countCacheMax {
			t.counts.m = map[countKey]int{}
		}
		t.counts.m[key] = n
		t.counts.mu.Unlock()
	}
	return n
}

// CountLarge counts exactly up to EstimateThreshold bytes; above it, it
// tokenizes evenly spaced samples (at most maxEstimateBytes in all) and
// scales, reporting estimated=true. Use it for sizing context variables,
// never for prompts or budgets.
func (t *Tokenizer) CountLarge(s string) (n int, estimated bool) {
	limit := t.EstimateThreshold
	if limit <= 0 || len(s) <= limit {
		return t.Count(s), false
	}
	var toks, bytes int
	for _, sp := range sampleSpans(s, t.EstimateSample()) {
		toks += t.Count(s[sp[0]:sp[1]])
		bytes += sp[1] - sp[0]
	}
	if bytes == 0 {
		return t.Count(s), false
	}
	return int(float64(toks) * float64(len(s)) / float64(bytes)), true
}

// EstimateSample is how many bytes an estimate above the threshold
// tokenizes: CountLarge's samples together, and the opening of a value's
// JSON encoding that a structured value's estimate counts.
func (t *Tokenizer) EstimateSample() int { return EstimateSample(t.EstimateThreshold) }

// EstimateSample is [Tokenizer.EstimateSample] for a tokenizer with the
// given estimate threshold (a caller that needs no tokenizer yet: making
// one loads its vocabulary, ~16 MB).
func EstimateSample(threshold int) int { return min(threshold, maxEstimateBytes) }

// Sampling for CountLarge: estimateSamples spans of about limit/64 bytes,
// evenly spaced, each starting and ending at whitespace when there is some
// within maxSampleAlign bytes (so words tokenize as in the full text), else
// at a UTF-8 character boundary.
const (
	estimateSamples = 64
	maxSampleAlign  = 256
)

// maxEstimateBytes bounds what CountLarge tokenizes above the threshold:
// 64 samples of 4 KB estimate a large text within a few percent, while
// tokenizing the threshold's 4 MB cost rlm run about 0.5 s of CPU and,
// through the tokenizer's garbage, 1.2x the text in peak memory
// (context's BenchmarkLoadText100MB, LoadVar+AutoChunk+Summary).
const maxEstimateBytes = estimateSamples << 12

// sampleSpans returns the [start, end) byte ranges of s that CountLarge
// tokenizes; together they are at most limit + 2*64*maxSampleAlign bytes
// whatever the text looks like.
func sampleSpans(s string, limit int) [][2]int {
	sampleLen := max(limit/estimateSamples, 1)
	spans := make([][2]int, 0, estimateSamples)
	prevEnd := 0
	for i := 0; i < estimateSamples; i++ {
		start := int(int64(len(s)-sampleLen) * int64(i) / int64(estimateSamples-1))
		start = max(alignSample(s, start), prevEnd)
		end := alignSample(s, min(start+sampleLen, len(s)))
		if start >= end {
			continue
		}
		spans = append(spans, [2]int{start, end})
		prevEnd = end
	}
	return spans
}

// alignSample moves i forward to the next whitespace byte within
// maxSampleAlign bytes, else to the next UTF-8 character start.
func alignSample(s string, i int) int {
	if i <= 0 || i >= len(s) {
		return min(max(i, 0), len(s))
	}
	for j := i; j < len(s) && j < i+maxSampleAlign; j++ {
		if isBoundary(s[j]) {
			return j
		}
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

func isBoundary(b byte) bool { return b == ' ' || b == '\n' || b == '\t' }

// CountTokens counts tokens in s exactly with the default encoding.
func CountTokens(s string) int { return DefaultTokenizer().Count(s) }
