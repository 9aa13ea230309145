package llm

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

// Price is a model's price in USD per 1M tokens.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"` // 0 = same as Input
	Output      float64 `json:"output"`
}

// PriceTable maps model names to prices. It is safe for concurrent use.
// Lookups ignore a provider prefix ("openai/gpt-4o") and a date suffix
// ("gpt-4o-2024-08-06").
type PriceTable struct {
	mu sync.RWMutex
	m  map[string]Price
}

// builtinPrices are OpenAI list prices (USD per 1M tokens, standard tier).
var builtinPrices = map[string]Price{
	"gpt-4o":                 {Input: 2.50, CachedInput: 1.25, Output: 10.00},
	"gpt-4o-mini":            {Input: 0.15, CachedInput: 0.075, Output: 0.60},
	"gpt-4.1":                {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"gpt-4.1-mini":           {Input: 0.40, CachedInput: 0.10, Output: 1.60},
	"gpt-4.1-nano":           {Input: 0.10, CachedInput: 0.025, Output: 0.40},
	"gpt-5":                  {Input: 1.25, CachedInput: 0.125, Output: 10.00},
	"gpt-5-mini":             {Input: 0.25, CachedInput: 0.025, Output: 2.00},
	"gpt-5-nano":             {Input: 0.05, CachedInput: 0.005, Output: 0.40},
	"o3":                     {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"o4-mini":                {Input: 1.10, CachedInput: 0.275, Output: 4.40},
	"text-embedding-3-small": {Input: 0.02},
	"text-embedding-3-large": {Input: 0.13},
	"text-embedding-ada-002": {Input: 0.10},
}

// DefaultPrices returns a new table holding the built-in prices.
func DefaultPrices() *PriceTable {
	t := &PriceTable{m: make(map[string]Price, len(builtinPrices))}
	for k, v := range builtinPrices {
		t.m[k] = v
	}
	return t
}

// LoadPrices returns the built-in prices overridden and extended by a JSON
// file of the form {"model": {"input": 2.5, "cached_input": 1.25, "output": 10}}
// (USD per 1M tokens).
func LoadPrices(path string) (*PriceTable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("llm: read price file: %w", err)
	}
	var m map[string]Price
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf(
			"llm: price file %s: %w (want {\"model\": {\"input\": USD per 1M, \"cached_input\": ..., \"output\": ...}})",
			path,
			err,
		)
	}
	t := DefaultPrices()
	for k, v := range m {
		if v.Input < 0 || v.Output < 0 || v.CachedInput < 0 {
			return nil, fmt.Errorf("llm: price file %s: negative price for %q", path, k)
		}
		t.Set(k, v)
	}
	return t, nil
}

// Set adds or replaces a model's price.
func (t *PriceTable) Set(model string, p Price) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]Price{}
	}
	t.m[strings.ToLower(model)] = p
}

var dateSuffix = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2}|\d{4})$`)

// normalizeModel lowercases, strips a provider prefix and a date suffix.
func normalizeModel(model string) []string {
	m := strings.ToLower(strings.TrimSpace(model))
	cands := []string{m}
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
		cands = append(cands, m)
	}
	if d := dateSuffix.ReplaceAllString(m, ""); d != m {
		cands = append(cands, d)
	}
	return cands
}

// Lookup returns the price of model and whether it is known.
func (t *PriceTable) Lookup(model string) (Price, bool) {
	if t == nil {
		return Price{}, false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, c := range normalizeModel(model) {
		if p, ok := t.m[c]; ok {
			return p, true
		}
	}
	return Price{}, false
}

// Cost returns the USD cost of u on model, and false if the model's price
// is unknown (the cost is then unknown, not zero).
func (t *PriceTable) Cost(model string, u Usage) (float64, bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.cost(u), true
}

func (p Price) cost(u Usage) float64 {
	cached := min(u.CachedTokens, u.PromptTokens)
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	return (float64(u.PromptTokens-cached)*p.Input + float64(cached)*cachedPrice + float64(u.CompletionTokens)*p.Output) / 1e6
}

// contextWindows are total context windows (prompt + output) in tokens.
var contextWindows = map[string]int{
	"gpt-4o":                 128_000,
	"gpt-4o-mini":            128_000,
	"gpt-4-turbo":            128_000,
	"gpt-4":                  8_192,
	"gpt-3.5-turbo":          16_385,
	"gpt-4.1":                1_047_576,
	"gpt-4.1-mini":           1_047_576,
	"gpt-4.1-nano":           1_047_576,
	"gpt-5":                  400_000,
	"gpt-5-mini":             400_000,
	"gpt-5-nano":             400_000,
	"o1":                     200_000,
	"o3":                     200_000,
	"o3-mini":                200_000,
	"o4-mini":                200_000,
	"text-embedding-3-small": 8_191,
	"text-embedding-3-large": 8_191,
	"text-embedding-ada-002": 8_191,
}

// ContextWindow returns the context window in tokens (prompt plus output)
// of a known model, ignoring provider prefixes and date suffixes. Unknown
// models (including most local ones, whose window is a server setting)
// report false.
func ContextWindow(model string) (int, bool) {
	for _, c := range normalizeModel(model) {
		if n, ok := contextWindows[c]; ok {
			return n, true
		}
	}
	return 0, false
}
