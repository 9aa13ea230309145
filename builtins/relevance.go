package builtins

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/sandbox"
)

// String variables are split into line-aligned chunks of this many bytes
// (with this overlap) for find_relevant.
const (
	relevanceChunk   = 1500
	relevanceOverlap = 150
	// maxEmbedBytes bounds the text of one item sent to the embedder (the
	// common embedding models accept about 8,000 tokens).
	maxEmbedBytes = 24000
)

// relItem is one rankable item of a variable.
type relItem struct {
	text string
	key  starlark.Value // index (int) or key
	item starlark.Value // the item itself (for strings: the chunk text)
	line int            // for string chunks: 1-based first line
}

// find_relevant(var, query, top_k=5)
// Rank the items of a list, the values of a dict or the chunks of a string by relevance to query (embeddings, else BM25); returns a future list of dicts {index or key, score, item, method}.
func findRelevant(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		v     starlark.Value
		query string
		topK  = 5
	)
	if err := unpack(thread, name, args, kwargs, "var", &v, "query", &query, "top_k?", &topK); err != nil {
		return nil, err
	}
	if topK <= 0 {
		return nil, valueErr("%s: top_k must be positive, got %d", name, topK)
	}
	if strings.TrimSpace(query) == "" {
		return nil, valueErr("%s: query must not be empty", name)
	}
	items, keyName, err := relevanceItems(thread, name, v)
	if err != nil {
		return nil, err
	}
	if h.Embedder == nil {
		h.note(fmt.Sprintf("%s: no embedding model configured; ranking with BM25 (results have method 'bm25')", name))
		tr := h.startOp(name, "", query)
		scores := bm25(query, items)
		ranked := rankResults(items, scores, topK, keyName, "bm25")
		if tr != nil {
			tr.op.Method, tr.op.Items = "bm25", len(items)
			tr.end(opResult(ranked), llm.Usage{}, nil)
		}
		return deferred.Resolved(name, ranked), nil
	}
	key := relevanceKey(h.EmbeddingModel, query, topK, items)
	tr := h.startOp(name, h.EmbeddingModel, query)
	if tr != nil {
		tr.op.Method, tr.op.Items = "embedding", len(items)
	}
	return h.spawn(thread, name, key, tr, func(ctx context.Context) (starlark.Value, error) {
		scores, embedded, err := h.embedScores(ctx, query, items)
		if tr != nil {
			tr.op.Embedded = embedded
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", name, err)
			tr.end("", llm.Usage{}, err)
			return nil, err
		}
		ranked := rankResults(items, scores, topK, keyName, "embedding")
		tr.end(opResult(ranked), llm.Usage{}, nil)
		return ranked, nil
	}), nil
}

// relevanceItems splits v into items: list items, dict values, string chunks.
func relevanceItems(thread *starlark.Thread, helper string, v starlark.Value) ([]relItem, string, error) {
	var items []relItem
	switch v := v.(type) {
	case starlark.String:
		for i, p := range chunkText(string(v), relevanceChunk, relevanceOverlap) {
			items = append(items, relItem{text: p.text, key: starlark.MakeInt(i), item: starlark.String(p.text), line: p.line})
		}
		return items, "index", nil
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		for i := 0; i < seq.Len(); i++ {
			x, err := sandbox.Unproxy(thread, seq.Index(i))
			if err != nil {
				return nil, "", err
			}
			items = append(items, relItem{text: itemText(thread, x), key: starlark.MakeInt(i), item: x})
		}
		return items, "index", nil
	case starlark.IterableMapping:
		for _, kv := range v.Items() {
			x, err := sandbox.Unproxy(thread, kv[1])
			if err != nil {
				return nil, "", err
			}
			text := itemText(thread, x)
			if k, ok := kv[0].(starlark.String); ok {
				text = string(k) + ": " + text
			}
			items = append(items, relItem{text: text, key: kv[0], item: x})
		}
		return items, "key", nil
	}
	return nil, "", typeErr("%s: var must be a str, list, tuple or dict, got %s", helper, pyTypeName(v))
}

// rankResults returns the top k items by score as a list of dicts.
func rankResults(items []relItem, scores []float64, k int, keyName, method string) *starlark.List {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	if len(order) > k {
		order = order[:k]
	}
	out := make([]starlark.Value, 0, len(order))
	for _, i := range order {
		it := items[i]
		d := starlark.NewDict(5)
		d.SetKey(starlark.String(keyName), it.key)
		if it.line > 0 {
			d.SetKey(starlark.String("line"), starlark.MakeInt(it.line))
		}
		d.SetKey(starlark.String("score"), starlark.Float(math.Round(scores[i]*1e4)/1e4))
		d.SetKey(starlark.String("item"), it.item)
		d.SetKey(starlark.String("method"), starlark.String(method))
		out = append(out, d)
	}
	return starlark.NewList(out)
}

func relevanceKey(model, query string, k int, items []relItem) string {
	hs := sha256.New()
	fmt.Fprintf(hs, "find_relevant\x00%s\x00%d\x00%d\x00%s\x00", model, k, len(query), query)
	for _, it := range items {
		fmt.Fprintf(hs, "%d\x00%s\x00%s\x00", len(it.text), sandbox.Repr(it.key), it.text)
	}
	return fmt.Sprintf("%x", hs.Sum(nil))
}

// embedScores embeds the query and the items (reusing cached vectors by
// content hash) and returns the cosine similarity of each item and the
// number of texts it sent to the embedder.
func (h *Host) embedScores(ctx context.Context, query string, items []relItem) ([]float64, int, error) {
	texts := make([]string, 0, len(items)+1)
	texts = append(texts, query)
	for _, it := range items {
		texts = append(texts, it.text)
	}
	vecs := make([][]float32, len(texts))
	keys := make([][32]byte, len(texts))
	var missing []int
	h.mu.Lock()
	for i, t := range texts {
		if len(t) > maxEmbedBytes {
			t = t[:runeFloor(t, maxEmbedBytes)]
			texts[i] = t
		}
		keys[i] = sha256.Sum256([]byte(h.EmbeddingModel + "\x00" + t))
		if v, ok := h.embCache[keys[i]]; ok {
			vecs[i] = v
		} else {
			missing = append(missing, i)
		}
	}
	h.mu.Unlock()
	if len(missing) > 0 {
		batch := make([]string, len(missing))
		for j, i := range missing {
			batch[j] = texts[i]
		}
		got, err := h.Embedder.Embed(ctx, batch)
		if err != nil {
			return nil, len(batch), err
		}
		if len(got) != len(batch) {
			return nil, len(batch), fmt.Errorf("embedder returned %d vectors for %d texts", len(got), len(batch))
		}
		h.mu.Lock()
		for j, i := range missing {
			vecs[i] = got[j]
			h.embCache[keys[i]] = got[j]
		}
		h.mu.Unlock()
	}
	scores := make([]float64, len(items))
	for i := range items {
		scores[i] = llm.Cosine(vecs[0], vecs[i+1])
	}
	return scores, len(missing), nil
}

// bm25 scores each item against the query with Okapi BM25 (k1=1.2, b=0.75).
func bm25(query string, items []relItem) []float64 {
	const k1, b = 1.2, 0.75
	qterms := uniqueTerms(tokenize(query))
	scores := make([]float64, len(items))
	if len(items) == 0 || len(qterms) == 0 {
		return scores
	}
	tfs := make([]map[string]int, len(items))
	lens := make([]int, len(items))
	df := map[string]int{}
	total := 0
	for i, it := range items {
		tf := map[string]int{}
		toks := tokenize(it.text)
		for _, t := range toks {
			if _, want := qterms[t]; want {
				tf[t]++
			}
		}
		for t := range tf {
			df[t]++
		}
		tfs[i], lens[i] = tf, len(toks)
		total += len(toks)
	}
	avg := float64(total) / float64(len(items))
	if avg == 0 {
		avg = 1
	}
	n := float64(len(items))
	for i := range items {
		var s float64
		for t := range qterms {
			f := float64(tfs[i][t])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			s += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(lens[i])/avg))
		}
		scores[i] = s
	}
	return scores
}

// tokenize lower-cases s and splits it into letter/digit words.
func tokenize(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func uniqueTerms(ts []string) map[string]struct{} {
	m := make(map[string]struct{}, len(ts))
	for _, t := range ts {
		m[t] = struct{}{}
	}
	return m
}
