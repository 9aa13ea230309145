package orchestrator

import (
	"context"
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/llm"
)

// clampMarker ends a message of the last turn cut to fit the history budget.
func clampMarker(step int) string {
	return fmt.Sprintf("[engine] … cut to fit the history budget; the full output is in outputs[%d]", step)
}

// fitHistory keeps the dynamic section within Config.DynamicBudget before a
// request: it folds every turn but the last into the summary, then cuts the
// largest messages of the last turn (observation, tool results, reply text).
// It returns how many tokens the section is still over (0 when it fits):
// a request over the budget is then marked in the trajectory and metrics,
// never sent silently.
func (r *run) fitHistory(ctx context.Context) int {
	cfg := r.t.cfg
	tok := cfg.Tokenizer
	budget := cfg.DynamicBudget
	if r.env.dynamicTokens(tok) <= budget {
		return 0
	}
	r.maybeCompress(ctx, true)
	over := r.env.dynamicTokens(tok) - budget
	if over <= 0 || len(r.env.Turns) == 0 {
		return max(over, 0)
	}
	last := r.env.Turns[len(r.env.Turns)-1]
	texts := []*string{&last.Engine}
	for i := range last.ToolResults {
		texts = append(texts, &last.ToolResults[i].Content)
	}
	if len(last.Reply.ToolCalls) == 0 {
		texts = append(texts, &last.Reply.Content)
	}
	marker := clampMarker(last.Step)
	minKeep := tok.Count(marker) + 16
	for range texts {
		// Cut the largest message by what is over, keeping a short head.
		var big *string
		n := 0
		for _, p := range texts {
			if c := tok.Count(*p); c > n {
				big, n = p, c
			}
		}
		if big == nil || n <= minKeep {
			break
		}
		*big = clampText(tok, *big, max(n-over-1, minKeep), marker)
		last.tokens = 0
		over = r.env.dynamicTokens(tok) - budget
		if over <= 0 {
			return 0
		}
	}
	return max(over, 0)
}

// clampText cuts s to at most maxTokens tokens: its head at a line
// boundary (or mid-line when the first line alone is too long), then
// marker, then s's last line when it is short (the engine's "N iterations
// left").
func clampText(tok *llm.Tokenizer, s string, maxTokens int, marker string) string {
	if tok.Count(s) <= maxTokens {
		return s
	}
	tail := ""
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && tok.Count(s[i+1:]) <= 24 {
		tail = "\n" + s[i+1:]
		s = s[:i]
	}
	room := maxTokens - tok.Count(marker) - tok.Count(tail) - 1
	head := ""
	if room > 0 {
		lines := strings.Split(s, "\n")
		lo, hi := 0, len(lines)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if tok.Count(strings.Join(lines[:mid], "\n")) <= room {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		head = strings.Join(lines[:lo], "\n")
		if lo == 0 {
			// The first line alone is too long: cut it by bytes.
			b, e := 0, len(lines[0])
			for b < e {
				mid := (b + e + 1) / 2
				if tok.Count(lines[0][:mid]) <= room {
					b = mid
				} else {
					e = mid - 1
				}
			}
			for b > 0 && b < len(lines[0]) && lines[0][b]&0xC0 == 0x80 {
				b--
			}
			head = lines[0][:b]
		}
	}
	if head != "" {
		head += "\n"
	}
	return head + marker + tail
}
