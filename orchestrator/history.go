package orchestrator

import (
	"context"
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/llm"
)

// maybeCompress compresses the oldest turns into the rolling summary when
// the dynamic section passes CompressAt of its budget. The last turn is
// always kept verbatim.
// With force, every turn but the last is folded.
func (r *run) maybeCompress(ctx context.Context, force bool) {
	cfg := r.t.cfg
	tok := cfg.Tokenizer
	pre := r.env.dynamicTokens(tok)
	limit := int(cfg.CompressAt * float64(cfg.DynamicBudget))
	if (pre <= limit && !force) || len(r.env.Turns) < 2 {
		return
	}
	target := cfg.DynamicBudget / 2
	if force {
		target = 0
	}
	// Choose how many of the oldest turns to fold: enough to get under the
	// target, never the last one.
	n := 0
	rest := pre
	for n < len(r.env.Turns)-1 && rest > target {
		rest -= r.env.Turns[n].count(tok)
		n++
	}
	folded := r.env.Turns[:n]
	art := CompressionArtifact{Section: SectionDynamic, PreTokens: pre, Summarizer: "deterministic"}
	digests := make([]StepDigest, 0, n)
	for _, t := range folded {
		d := t.digest
		digests = append(digests, d)
		art.Steps = append(art.Steps, t.Step)
		if t.NoCode {
			art.Losses = append(art.Losses, fmt.Sprintf("step %d: reply without code (%d tokens)", t.Step, t.count(tok)))
			continue
		}
		art.Losses = append(art.Losses, fmt.Sprintf("step %d: reply and observation excerpt (%d tokens)", t.Step, t.count(tok)))
		art.KeptRefs = append(art.KeptRefs, d.Ref())
	}
	r.env.Turns = append([]*exchange(nil), r.env.Turns[n:]...)

	summaryBudget := cfg.DynamicBudget / 4
	detPrev := r.summaryBody() // before the new steps
	for _, d := range digests {
		e := summaryEntry{from: d.Step, to: d.Step, text: d.line(), defined: d.Defined}
		if d.Error != "" || d.NoCode {
			e.errors = 1
		}
		r.summary = append(r.summary, e)
	}
	// The deterministic summary stays within its budget whichever
	// summarizer writes the prompt's: it is the fallback.
	for len(r.summary) > 1 && tok.Count(r.summaryBody()) > summaryBudget {
		a, b := r.summary[0], r.summary[1]
		m := summaryEntry{
			from:    a.from,
			to:      b.to,
			errors:  a.errors + b.errors,
			defined: append(append([]string(nil), a.defined...), b.defined...),
		}
		r.summary = append([]summaryEntry{m}, r.summary[2:]...)
		art.Losses = append(art.Losses, fmt.Sprintf("steps %d-%d: per-step lines condensed", m.from, m.to))
	}
	body := ""
	if cfg.Summarizer != nil {
		// Incremental: the summarizer updates its own previous summary
		// with the newly compressed steps only (the deterministic one
		// the first time, or after it failed).
		prev := r.llmSummary
		if prev == "" {
			prev = detPrev
		}
		s, err := cfg.Summarizer.Summarize(ctx, prev, digests)
		if err == nil || llm.KindOf(err) != llm.KindBudget {
			r.t.addMetrics(func(m *Metrics) { m.SummarizerCalls++ })
		}
		if err == nil {
			err = checkSummary(s, digests[len(digests)-1].Step)
		}
		if err == nil && strings.TrimSpace(s) != "" {
			art.Summarizer = "llm"
			body = truncateToTokens(tok, strings.TrimSpace(s), summaryBudget, "- … (summary cut to its budget)")
			r.llmSummary = body
		} else {
			r.llmSummary = ""
			if err != nil {
				art.Losses = append(art.Losses, "llm summarizer failed or its summary was rejected, deterministic summary used: "+err.Error())
			}
		}
	}
	if body == "" {
		body = r.summaryBody()
	}
	r.env.Summary = summaryHeader + "\n" + body
	art.PostTokens = r.env.dynamicTokens(tok)
	r.t.addMetrics(func(m *Metrics) { m.Compressions++ })
	r.t.traj.emit(EventCompression, r.id, r.iterations, art)
}

func (r *run) summaryBody() string {
	lines := make([]string, len(r.summary))
	for i, e := range r.summary {
		lines[i] = e.render()
	}
	return strings.Join(lines, "\n")
}
