package llm

import (
	"strings"
	"sync"

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
}

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
		return nil, &Error{Kind: KindBadRequest, Message: "unknown token encoding " + encoding + " (use o200k_base or cl100k_base)", Err: err}
	}
	t := &Tokenizer{codec: c, name: encoding, EstimateThreshold: DefaultEstimateThreshold}
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
	n, err := t.codec.Count(s)
	if err != nil {
		// Invalid UTF-8 in replace mode does not error; be safe anyway.
		return len(s) / 3
	}
	return n
}

// CountLarge counts exactly up to EstimateThreshold bytes; above it, it
// tokenizes evenly spaced samples and scales, reporting estimated=true.
// Use it for sizing context variables, never for prompts or budgets.
func (t *Tokenizer) CountLarge(s string) (n int, estimated bool) {
	limit := t.EstimateThreshold
	if limit <= 0 || len(s) <= limit {
		return t.Count(s), false
	}
	const samples = 64
	sampleLen := limit / samples
	var toks, bytes int
	for i := 0; i < samples; i++ {
		start := int(int64(len(s)-sampleLen) * int64(i) / int64(samples-1))
		end := start + sampleLen
		// Align to rune and whitespace boundaries so samples tokenize naturally.
		for start > 0 && start < len(s) && !isBoundary(s[start]) {
			start++
		}
		for end < len(s) && !isBoundary(s[end]) {
			end++
		}
		if start >= end {
			continue
		}
		toks += t.Count(s[start:end])
		bytes += end - start
	}
	if bytes == 0 {
		return t.Count(s), false
	}
	return int(float64(toks) * float64(len(s)) / float64(bytes)), true
}

func isBoundary(b byte) bool { return b == ' ' || b == '\n' || b == '\t' }

// CountTokens counts tokens in s exactly with the default encoding.
func CountTokens(s string) int { return DefaultTokenizer().Count(s) }
