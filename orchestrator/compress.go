package orchestrator

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rlmhq/rlm/llm"
)

// StepDigest is what the rolling summary keeps of one compressed step.
type StepDigest struct {
	Step        int      `json:"step"`
	NoCode      bool     `json:"no_code,omitempty"`
	Code        string   `json:"code,omitempty"` // first line of the first block
	Blocks      int      `json:"blocks,omitempty"`
	Defined     []string `json:"defined,omitempty"` // names first defined in this step
	OutputChars int      `json:"output_chars"`
	OutputHead  string   `json:"output_head,omitempty"`
	Error       string   `json:"error,omitempty"`
	Reply       string   `json:"reply,omitempty"` // head of a reply without code
}

// Ref is the variable holding the step's full output.
func (d StepDigest) Ref() string { return fmt.Sprintf("outputs[%d]", d.Step) }

func (d StepDigest) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "- step %d: ", d.Step)
	if d.NoCode {
		fmt.Fprintf(&b, "no code (reply: %s)", quoteShort(d.Reply, 80))
		return b.String()
	}
	fmt.Fprintf(&b, "ran %s", quoteShort(d.Code, 80))
	if d.Blocks > 1 {
		fmt.Fprintf(&b, " (+%d blocks)", d.Blocks-1)
	}
	if len(d.Defined) > 0 {
		fmt.Fprintf(&b, "; defined %s", joinCapped(d.Defined, 8))
	}
	if d.OutputChars > 0 {
		fmt.Fprintf(&b, "; printed %d chars, first line %s -> %s", d.OutputChars, quoteShort(d.OutputHead, 80), d.Ref())
	}
	if d.Error != "" {
		fmt.Fprintf(&b, "; error %s", quoteShort(d.Error, 100))
	}
	if d.OutputChars == 0 {
		// Every line cites where the step's full text is, even when it
		// printed nothing (what it computed is in the names it defined).
		fmt.Fprintf(&b, "; printed nothing (%s is empty)", d.Ref())
	}
	return b.String()
}

// quoteShort quotes the first line of s, cut to n bytes, in backticks.
// Backticks inside become ' so quoted text (model output, printed data)
// cannot close the quote and pass for engine text.
func quoteShort(s string, n int) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "`", "'")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > n {
		cut := n
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return "`" + s + "`"
}

func joinCapped(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// summaryEntry is one line of the deterministic rolling summary: one step,
// or a merged range of steps once the summary passes its own budget.
type summaryEntry struct {
	from, to int
	errors   int
	defined  []string
	text     string // for single steps
}

func (e summaryEntry) render() string {
	if e.from == e.to && e.text != "" {
		return e.text
	}
	s := fmt.Sprintf("- steps %d-%d: condensed", e.from, e.to)
	if len(e.defined) > 0 {
		s += "; defined " + joinCapped(e.defined, 10)
	}
	if e.errors > 0 {
		s += fmt.Sprintf("; %d failed", e.errors)
	}
	return s + fmt.Sprintf("; full outputs in outputs[%d]..outputs[%d]", e.from, e.to)
}

const summaryHeader = "[engine] Summary of earlier steps (compressed by the engine; every name they defined is still in the REPL, and outputs[N] holds step N's full output):"

// stepCite finds a summary line's citations: "step 4", "steps 2-5",
// "steps 2–5", "outputs[4]".
var stepCite = regexp.MustCompile(`\bsteps?\s+(\d+)(?:\s*(?:-|–|\.\.|to)\s*(\d+))?|outputs\[(\d+)\]`)

// checkSummary accepts a summarizer's summary only as the deterministic
// one is written: every line cites the steps it summarises, and only
// steps already compressed (1 to last). The engine falls back to the
// deterministic summary otherwise.
func checkSummary(s string, last int) error {
	for i, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		cites := stepCite.FindAllStringSubmatch(line, -1)
		if len(cites) == 0 {
			return fmt.Errorf("%w: line %d cites no step (%s)", ErrUncitedSummary, i+1, quoteShort(line, 60))
		}
		for _, c := range cites {
			for _, n := range c[1:] {
				if k, err := strconv.Atoi(n); n != "" && (err != nil || k < 1 || k > last) {
					return fmt.Errorf("%w: line %d cites step %s, but steps 1-%d are the ones summarised", ErrUncitedSummary, i+1, n, last)
				}
			}
		}
	}
	return nil
}

// Summarizer writes the rolling summary of compressed steps, incrementally:
// prev is its own previous summary (the deterministic one the first time or
// after a failure; without header), steps only the newly compressed steps;
// the result replaces prev. Each call is counted in Metrics.SummarizerCalls. The engine caps it to its budget and falls back
// to the deterministic summary on error.
type Summarizer interface {
	Summarize(ctx context.Context, prev string, steps []StepDigest) (string, error)
}

// LLMSummarizer writes the rolling summary with a model.
type LLMSummarizer struct {
	Model     llm.ChatModel
	ModelName string
	MaxTokens int // of the summary (default 400)
}

// countTokens counts the tokens of s (a variable so that a test can count
// what Summarize tokenizes).
var countTokens = func(tok *llm.Tokenizer, s string) int { return tok.Count(s) }

// maxStepLines bounds the new-steps part of a summarizer prompt, in
// multiples of the summary's own size: a forced fold of many steps sends
// the newest ones and a count of the rest.
const maxStepLines = 3

// Summarize implements Summarizer. The prompt is bounded: the previous
// summary (cut to MaxTokens) and the lines of the new steps (cut to
// 3*MaxTokens, oldest dropped first), never the whole history.
func (s *LLMSummarizer) Summarize(ctx context.Context, prev string, steps []StepDigest) (string, error) {
	max := s.MaxTokens
	if max <= 0 {
		max = 400
	}
	tok := llm.TokenizerForModel(s.ModelName)
	var b strings.Builder
	b.WriteString(
		"Update the running summary of an exploration session with the new steps: keep what still matters from the current summary and add the new facts. Keep decision-critical facts (numbers, names, locations found, dead ends). Write short bullets; every bullet must cite its step numbers and the variable holding the full output, e.g. (step 4, outputs[4]). Do not alter quoted text.\n\nCurrent summary:\n",
	)
	if prev == "" {
		prev = "(empty)"
	}
	b.WriteString(truncateToTokens(tok, prev, max, "- … (cut)"))
	b.WriteString("\n\nNew steps:\n")
	lines := make([]string, len(steps))
	counts := make([]int, len(steps))
	total := 0
	for i, d := range steps {
		lines[i] = d.line()
		counts[i] = countTokens(tok, lines[i]+"\n")
		total += counts[i]
	}
	// Oldest lines first out, each counted once (linear in the steps):
	// the sum of the lines' counts bounds the count of their join.
	limit := maxStepLines * max
	skipped := 0
	for len(lines) > 1 && total > limit {
		total -= counts[0]
		lines, counts = lines[1:], counts[1:]
		skipped++
	}
	// The bound is checked on the text as sent, in case a tokenizer
	// merges across lines (never seen: one count, no loop).
	for len(lines) > 1 && countTokens(tok, strings.Join(lines, "\n")) > limit {
		lines = lines[1:]
		skipped++
	}
	if skipped > 0 {
		fmt.Fprintf(
			&b,
			"- (%d earlier steps not shown: steps %d-%d, outputs[%d]..outputs[%d])\n",
			skipped,
			steps[0].Step,
			steps[skipped-1].Step,
			steps[0].Step,
			steps[skipped-1].Step,
		)
	}
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString(fmt.Sprintf("\n\nReply with the updated summary only, under %d tokens.", max))
	resp, err := s.Model.Chat(
		ctx,
		llm.Request{Model: s.ModelName, MaxTokens: max, Messages: []llm.Message{{Role: llm.RoleUser, Content: b.String()}}},
	)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(resp.Content), nil
}

// CompressionArtifact records one compression pass (seed 003).
type CompressionArtifact struct {
	Section    string   `json:"section"`
	PreTokens  int      `json:"pre_tokens"`
	PostTokens int      `json:"post_tokens"`
	Steps      []int    `json:"steps"`
	Losses     []string `json:"losses"`
	KeptRefs   []string `json:"kept_refs"`
	Summarizer string   `json:"summarizer"`
}
