package bench

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/llm"
)

// tokenizer is the encoding sizes are measured in.
func tokenizer() *llm.Tokenizer { return llm.DefaultTokenizer() }

var (
	ratioMu sync.Mutex
	ratios  = map[string]float64{}
)

// bytesPerToken measures, once per name, the bytes per token of text made
// by gen from a fixed sample stream, so target sizes in tokens become byte
// budgets without counting the whole output.
func bytesPerToken(name string, gen func(r *rand.Rand, b *strings.Builder)) float64 {
	ratioMu.Lock()
	defer ratioMu.Unlock()
	if f, ok := ratios[name]; ok {
		return f
	}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < 96<<10 {
		gen(r, &b)
	}
	f := float64(b.Len()) / float64(tokenizer().Count(b.String()))
	ratios[name] = f
	return f
}

// byteBudget is the number of bytes of gen's text that make about tokens.
func byteBudget(name string, tokens int, gen func(r *rand.Rand, b *strings.Builder)) int {
	return int(float64(tokens) * bytesPerToken(name, gen))
}

// CountTokens counts the tokens of s exactly with the default encoding,
// splitting large texts at token-piece boundaries (after a newline, before a
// letter or digit) and counting the pieces in parallel. The sum equals the
// count of the whole text because the o200k and cl100k pre-tokenizers
// never join a newline to a following letter or digit.
func CountTokens(s string) int { return countExact(tokenizer(), s) }

// countChunk is the piece size of countExact (a variable for tests).
var countChunk = 1 << 20

func countExact(tok *llm.Tokenizer, s string) int {
	chunk := countChunk
	if len(s) <= 2*chunk {
		return tok.Count(s)
	}
	var parts []string
	for len(s) > 0 {
		if len(s) <= chunk {
			parts = append(parts, s)
			break
		}
		cut := safeCut(s, chunk)
		if cut <= 0 {
			cut = len(s)
		}
		parts = append(parts, s[:cut])
		s = s[cut:]
	}
	workers := runtime.GOMAXPROCS(0)
	counts := make([]int, len(parts))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				counts[i] = tok.Count(parts[i])
			}
		}()
	}
	for i := range parts {
		next <- i
	}
	close(next)
	wg.Wait()
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// safeCut returns the first index >= at where s[i-1] is '\n' and s[i] is an
// ASCII letter or digit, or -1.
func safeCut(s string, at int) int {
	for i := at; i < len(s); i++ {
		if s[i-1] != '\n' {
			continue
		}
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return i
		}
	}
	return -1
}
