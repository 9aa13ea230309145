package builtins

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/internal/numfmt"
	"github.com/rlmhq/rlm/internal/pylines"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/sandbox"
)

// maxSummaryParts bounds the map-reduce of summarize over a variable larger
// than the model's context window.
const maxSummaryParts = 16

// summarize(var, max_tokens=500)
// Summarize a variable with a sub-model in at most max_tokens tokens; returns a future str (stripped).
func summarize(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		v         starlark.Value
		maxTokens = 500
	)
	if err := unpack(thread, name, args, kwargs, "var", &v, "max_tokens?", &maxTokens); err != nil {
		return nil, err
	}
	if maxTokens <= 0 {
		return nil, valueErr("%s: max_tokens must be positive, got %d", name, maxTokens)
	}
	if err := checkFutures(thread, v); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if h.Model == nil {
		h.note(fmt.Sprintf("%s: no model configured; returning an extractive summary (first and last lines)", name))
		return deferred.Resolved(name, starlark.String(extractiveSummary(v, maxTokens))), nil
	}
	text := itemText(thread, v)
	model := h.subModel("")
	replyTokens := maxTokens + maxTokens/2
	if _, err := h.fitPrompt(name, model, summaryPrompt(text, maxTokens, ""), false); err == nil {
		req := llm.Request{
			Model:     model,
			Messages:  []llm.Message{{Role: llm.RoleUser, Content: summaryPrompt(text, maxTokens, "")}},
			MaxTokens: replyTokens,
		}
		return h.startChat(thread, name, req)
	}
	// Too large for one call: summarize parts, then the part summaries.
	window := h.contextWindow(model)
	partBytes := (window - h.maxOutput() - 200) * 3 // about 3 bytes per token, conservatively
	parts := chunkText(text, max(partBytes, 1000), 0)
	if len(parts) > maxSummaryParts {
		n, _ := llm.TokenizerForModel(model).CountLarge(text)
		return nil, fmt.Errorf(
			"%s: %w: var is about %d tokens, more than %d windows of %s; chunk it (chunk(var, size)) and summarize or search the pieces you need",
			name,
			ErrContextWindow,
			n,
			maxSummaryParts,
			modelLabel(model),
		)
	}
	key := chatKey(
		llm.Request{Model: model, MaxTokens: replyTokens, Messages: []llm.Message{{Role: "summarize-map-reduce", Content: text}}},
	)
	tr := h.startOp(name, model, summaryPrompt(text, maxTokens, ""))
	return h.spawn(thread, name, key, tr, func(ctx context.Context) (starlark.Value, error) {
		partial := make([]string, len(parts))
		errs := make([]error, len(parts))
		var wg sync.WaitGroup
		for i, p := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				note := fmt.Sprintf("This is part %d of %d of a larger text. ", i+1, len(parts))
				resp, err := h.Model.Chat(
					ctx,
					llm.Request{
						Model:     model,
						MaxTokens: replyTokens,
						Messages:  []llm.Message{{Role: llm.RoleUser, Content: summaryPrompt(p.text, maxTokens, note)}},
					},
				)
				if err != nil {
					errs[i] = err
					return
				}
				tr.addUsage(resp.Usage)
				partial[i] = resp.Content
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				err = fmt.Errorf("%s: %w", name, err)
				tr.end("", llm.Usage{}, err)
				return nil, err
			}
		}
		combined := strings.Join(partial, "\n\n")
		resp, err := h.Model.Chat(ctx, llm.Request{Model: model, MaxTokens: replyTokens, Messages: []llm.Message{{Role: llm.RoleUser,
			Content: summaryPrompt(
				combined,
				maxTokens,
				"These are summaries of consecutive parts of one text; write one summary of the whole text. ",
			)}}})
		if err != nil {
			err = fmt.Errorf("%s: %w", name, err)
			tr.end("", llm.Usage{}, err)
			return nil, err
		}
		tr.addUsage(resp.Usage)
		tr.end(resp.Content, llm.Usage{}, nil)
		return starlark.String(strings.TrimSpace(resp.Content)), nil
	}), nil
}

func summaryPrompt(text string, maxTokens int, note string) string {
	return fmt.Sprintf(
		"%sSummarize the following in at most %d tokens. Keep concrete names, numbers, dates and facts; do not add anything that is not in the text.\n\n%s",
		note,
		maxTokens,
		text,
	)
}

// extractiveSummary describes v without a model: its shape, then its first
// and last lines (or items) within about maxTokens tokens.
func extractiveSummary(v starlark.Value, maxTokens int) string {
	tok := llm.DefaultTokenizer()
	var b strings.Builder
	b.WriteString("[extractive summary: no model configured] ")
	var lines []string
	hidden := 0 // lines of a large string's middle, never split out
	nonEmpty := func(s string) {
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
	}
	// No item can show more than the whole summary's share of text.
	itemMax := maxTokens*16 + 64
	switch v := v.(type) {
	case starlark.String:
		s := string(v)
		fmt.Fprintf(&b, "str of %s, %s.\n", numfmt.Plural(utf8.RuneCountInString(s), "char"), numfmt.Plural(pylines.Count(s), "line"))
		if side := maxTokens * 16; len(s) > 4*side {
			// Only the ends can be shown: split just those.
			head := s[:runeFloor(s, side)]
			if nl := strings.LastIndexByte(head, '\n'); nl >= 0 {
				head = head[:nl+1]
			}
			tail := s[runeCeil(s, len(s)-side):]
			if nl := strings.IndexByte(tail, '\n'); nl >= 0 && nl < len(tail)-1 {
				tail = tail[nl+1:]
			}
			hidden = strings.Count(s[len(head):len(s)-len(tail)], "\n")
			nonEmpty(head)
			nonEmpty(tail)
		} else {
			nonEmpty(s)
		}
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		fmt.Fprintf(&b, "%s of %s items.\n", pyTypeName(v), numfmt.Group(int64(seq.Len())))
		for i := 0; i < seq.Len(); i++ {
			lines = append(lines, fmt.Sprintf("[%d] %s", i, oneLine(sandbox.StrLimit(seq.Index(i), itemMax))))
		}
	case starlark.IterableMapping:
		items := v.Items()
		keys := make([]string, 0, len(items))
		for _, kv := range items {
			keys = append(keys, oneLine(sandbox.StrLimit(kv[0], itemMax)))
		}
		fmt.Fprintf(&b, "dict of %s keys: %s.\n", numfmt.Group(int64(len(items))), oneLine(strings.Join(keys, ", ")))
		for _, kv := range items {
			lines = append(lines, oneLine(sandbox.StrLimit(kv[0], itemMax)+": "+sandbox.StrLimit(kv[1], itemMax)))
		}
	default:
		fmt.Fprintf(&b, "%s: %s", pyTypeName(v), oneLine(sandbox.ReprLimit(v, itemMax)))
		return b.String()
	}
	budget := maxTokens - tok.Count(b.String())
	headBudget := budget * 2 / 3
	var head, tail []string
	used := 0
	i := 0
	for ; i < len(lines); i++ {
		n := tok.Count(lines[i]) + 1
		if used+n > headBudget {
			break
		}
		head = append(head, lines[i])
		used += n
	}
	if len(head) == 0 && len(lines) > 0 && budget > 0 {
		// A first line longer than the budget: keep its start.
		l := lines[0]
		head = append(head, l[:runeFloor(l, budget*3)]+"...")
		used, i = budget, 1
	}
	j := len(lines) - 1
	for ; j >= i; j-- {
		n := tok.Count(lines[j]) + 1
		if used+n > budget {
			break
		}
		tail = append([]string{lines[j]}, tail...)
		used += n
	}
	b.WriteString(strings.Join(head, "\n"))
	if skipped := j - i + 1 + hidden; skipped > 0 {
		fmt.Fprintf(&b, "\n[... %s omitted ...]", numfmt.Plural(skipped, "line"))
	}
	if len(tail) > 0 {
		b.WriteString("\n" + strings.Join(tail, "\n"))
	}
	return b.String()
}

// oneLine cuts s to its first 200 characters on one line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > itemPreview {
		s = s[:runeFloor(s, itemPreview)] + "..."
	}
	return s
}
