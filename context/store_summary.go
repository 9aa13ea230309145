package rlmctx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
)

// Summarize returns a summary of key's value in at most maxTokens tokens
// (default 500): written by the configured Summarizer, else the value's
// beginning cut to the token budget. Results are cached by content hash.
func (s *Store) Summarize(ctx context.Context, key string, maxTokens int) (string, error) {
	if maxTokens <= 0 {
		maxTokens = DefaultSummaryTokens
	}
	v, ref, err := s.GetRef(key)
	if err != nil {
		return "", err
	}
	h, err := s.contentHash(ref, v)
	if err != nil {
		return "", err
	}
	mode := "trunc"
	if s.cfg.Summarizer != nil {
		mode = "llm"
	}
	ck := fmt.Sprintf("%s-%s-%d", h, mode, maxTokens)
	s.mu.Lock()
	cached, ok := s.sums[ck]
	s.mu.Unlock()
	if ok {
		return cached, nil
	}
	if s.cfg.Dir != "" {
		if b, err := os.ReadFile(filepath.Join(s.cfg.Dir, sumDirName, ck+".txt")); err == nil {
			s.mu.Lock()
			s.sums[ck] = string(b)
			s.mu.Unlock()
			return string(b), nil
		}
	}
	var out string
	if s.cfg.Summarizer != nil {
		out, err = s.cfg.Summarizer.Summarize(ctx, excerpt(v, s.cfg.SummarizeInputBytes), maxTokens)
		if err != nil {
			return "", fmt.Errorf("store key %q: summarizing: %w", key, err)
		}
	} else {
		out = truncateTokens(v, maxTokens)
	}
	s.mu.Lock()
	s.sums[ck] = out
	s.mu.Unlock()
	if s.cfg.Dir != "" && mode == "llm" {
		dir := filepath.Join(s.cfg.Dir, sumDirName)
		if os.MkdirAll(dir, 0o755) == nil {
			_ = s.writeFileAtomic(dir, ck+".txt", []byte(out))
		}
	}
	return out, nil
}

// Hash returns the sha256 (hex) of the stored form of key's value, with
// its ref: the content hash a compare-and-swap writer checks (its Version
// is what [Store.SetIfVersion] takes). It fails with ErrNotFound for a
// missing key.
func (s *Store) Hash(key string) (string, Ref, error) {
	v, ref, err := s.GetRef(key)
	if err != nil {
		return "", Ref{}, err
	}
	h, err := s.contentHash(ref, v)
	if err != nil {
		return "", Ref{}, err
	}
	return h, ref, nil
}

// contentHash returns the sha256 of the stored form of v, the value of ref.
func (s *Store) contentHash(ref Ref, v any) (string, error) {
	key := ref.Key
	s.mu.Lock()
	e := s.entries[key]
	if e != nil && e.hash != "" && e.ref.Version == ref.Version && e.ref.ID == ref.ID {
		h := e.hash
		s.mu.Unlock()
		return h, nil
	}
	s.mu.Unlock()
	h := sha256.New()
	if str, ok := v.(string); ok {
		io.WriteString(h, str)
	} else if err := pyjson.Encode(h, v); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	s.mu.Lock()
	if e := s.entries[key]; e != nil && e.ref.Version == ref.Version && e.ref.ID == ref.ID {
		e.hash = sum
	}
	s.mu.Unlock()
	return sum, nil
}

// valueText is the text form of a value (raw for strings, else JSON), at
// most max bytes (max < 0: all).
func valueText(v any, max int) string {
	if str, ok := v.(string); ok {
		if max >= 0 && len(str) > max {
			return str[:max]
		}
		return str
	}
	return pyjson.Excerpt(v, max)
}

// truncateTokens cuts the value's text to maxTokens tokens.
func truncateTokens(v any, maxTokens int) string {
	tok := llm.DefaultTokenizer()
	full := valueText(v, maxTokens*8+8)
	s := trimUTF8(full)
	for tok.Count(s) > maxTokens {
		s = trimUTF8(s[:len(s)*9/10])
	}
	if size := pyjson.Size(v); int64(len(s)) < size {
		s += fmt.Sprintf("… [truncated; %s total]", humanBytes(size))
	}
	return s
}

// trimUTF8 drops a trailing partial UTF-8 sequence.
func trimUTF8(s string) string {
	for i := 0; i < 4 && len(s) > 0; i++ {
		if utf8ValidTail(s) {
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}

// excerpt is the text sent to a Summarizer: all of it when small, else the
// head and evenly spaced samples with markers of what was left out.
func excerpt(v any, max int) string {
	var text string
	if str, ok := v.(string); ok {
		text = str
	} else {
		text = valueText(v, 4*max)
	}
	if len(text) <= max {
		return text
	}
	const parts = 8
	per := max/parts - 40 // room for the omission markers
	if per < 16 {
		per = 16
	}
	var b strings.Builder
	for i := 0; i < parts; i++ {
		start := int(int64(len(text)-per) * int64(i) / int64(parts-1))
		if i > 0 {
			fmt.Fprintf(&b, "\n[… %s omitted …]\n", humanBytes(int64(start)))
		}
		b.WriteString(trimUTF8(text[start : start+per]))
	}
	return b.String()
}

// Describe returns key's value as a Variable named after the key (not
// checked as an identifier), with its deterministic summary.
func (s *Store) Describe(key string) (*Variable, error) {
	v, ref, err := s.GetRef(key)
	if err != nil {
		return nil, err
	}
	vr := &Variable{Name: key, Type: ref.Type, Value: v, Source: StorePrefix + key}
	vr.measure()
	return vr, nil
}
