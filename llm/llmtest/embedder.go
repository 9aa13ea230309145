package llmtest

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/rlmhq/rlm/llm"
)

// DefaultDim is HashEmbedder's vector size when Dim is 0.
const DefaultDim = 64

// HashEmbedder is a deterministic offline [llm.Embedder]: each text's
// vector is the normalised sum of signed hash buckets of its lower-cased
// words (and word bigrams), so texts sharing words are close in cosine
// similarity. The zero value is ready to use.
type HashEmbedder struct {
	Dim   int          // vector size (default 64)
	calls atomic.Int64 // Embed calls
	texts atomic.Int64 // texts embedded
}

var _ llm.Embedder = (*HashEmbedder)(nil)

// Embed returns one unit vector per text.
func (h *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h.calls.Add(1)
	h.texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = HashVector(t, h.Dim)
	}
	return out, nil
}

// Calls returns the number of Embed calls.
func (h *HashEmbedder) Calls() int { return int(h.calls.Load()) }

// Texts returns the number of texts embedded.
func (h *HashEmbedder) Texts() int { return int(h.texts.Load()) }

// HashVector is the vector HashEmbedder gives text (dim 0 = DefaultDim).
func HashVector(text string, dim int) []float32 {
	if dim <= 0 {
		dim = DefaultDim
	}
	v := make([]float64, dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	add := func(tok string, w float64) {
		f := fnv.New64a()
		f.Write([]byte(tok))
		x := f.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[int(x%uint64(dim))] += sign * w
	}
	for i, w := range words {
		add(w, 1)
		if i > 0 {
			add(words[i-1]+" "+w, 0.5)
		}
	}
	if len(words) == 0 {
		add("\x00empty", 1)
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	out := make([]float32, dim)
	for i, x := range v {
		if norm > 0 {
			out[i] = float32(x / norm)
		}
	}
	return out
}

// Cosine is [llm.Cosine], kept here for tests written against llmtest.
func Cosine(a, b []float32) float64 { return llm.Cosine(a, b) }
