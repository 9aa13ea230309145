package orchestrator

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
)

// promptModel answers every request with a fixed summary and keeps the
// last prompt.
type promptModel struct{ prompt string }

func (m *promptModel) Chat(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.prompt = req.Messages[len(req.Messages)-1].Content
	return &llm.Response{Content: "- summary (step 1, outputs[1])\n"}, nil
}

func manyDigests(n int) []StepDigest {
	steps := make([]StepDigest, n)
	for i := range steps {
		steps[i] = StepDigest{Step: i + 1, Code: fmt.Sprintf("x%d = search(context, 'needle %d')", i, i), OutputChars: 120,
			OutputHead: fmt.Sprintf("found %d hits near line %d", i%7, i*13)}
	}
	return steps
}

// TestLLMSummarizerDropIsLinear: a forced fold of many steps drops the
// oldest lines with each line tokenized once, not the whole remaining text
// once per dropped line; the prompt keeps its bound, the newest steps and
// the count of the rest.
func TestLLMSummarizerDropIsLinear(t *testing.T) {
	counted := 0
	orig := countTokens
	countTokens = func(tok *llm.Tokenizer, s string) int { counted += len(s); return tok.Count(s) }
	defer func() { countTokens = orig }()

	for _, n := range []int{10, 300, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			counted = 0
			steps := manyDigests(n)
			linesChars := 0
			for _, d := range steps {
				linesChars += len(d.line()) + 1
			}
			m := &promptModel{}
			s := &LLMSummarizer{Model: m, MaxTokens: 200}
			out, err := s.Summarize(context.Background(), "", steps)
			require.NoError(t, err)
			assert.Equal(t, "- summary (step 1, outputs[1])", out)
			assert.LessOrEqual(t, counted, 3*linesChars, "tokenized %d chars for %d chars of step lines", counted, linesChars)
			_, newSteps, ok := strings.Cut(m.prompt, "New steps:\n")
			require.True(t, ok)
			newSteps, _, _ = strings.Cut(newSteps, "\n\nReply with")
			assert.Contains(t, newSteps, fmt.Sprintf("- step %d: ", n), "the newest step is kept")
			if n > 100 {
				assert.Contains(t, newSteps, "earlier steps not shown: steps 1-")
				shown := newSteps[strings.Index(newSteps, ")\n")+2:]
				assert.LessOrEqual(t, llm.TokenizerForModel("").Count(shown), maxStepLines*200, "the step lines keep their bound")
			} else {
				assert.NotContains(t, newSteps, "not shown")
			}
		})
	}
}

// threadCPU is the CPU time of the calling OS thread (the machine is
// shared: wall time measures the other processes too).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLLMSummarizerDrop times (CPU time of the thread) a forced fold of 250 and of 2,000 steps
// into a 400-token summary (the prompt's step lines are cut to 1,200
// tokens, oldest first) and reports their ratio: about 8 when the drop is
// linear in the steps, about 64 when quadratic.
func BenchmarkLLMSummarizerDrop(b *testing.B) {
	small, big := manyDigests(250), manyDigests(2000)
	s := &LLMSummarizer{Model: &promptModel{}}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var tSmall, tBig time.Duration
	for b.Loop() {
		t0 := threadCPU()
		_, err := s.Summarize(context.Background(), "", small)
		require.NoError(b, err)
		t1 := threadCPU()
		_, err = s.Summarize(context.Background(), "", big)
		require.NoError(b, err)
		tSmall, tBig = tSmall+t1-t0, tBig+threadCPU()-t1
	}
	n := float64(b.N)
	b.ReportMetric(float64(tSmall.Microseconds())/n/1000, "cpu-ms-250-steps")
	b.ReportMetric(float64(tBig.Microseconds())/n/1000, "cpu-ms-2000-steps")
	b.ReportMetric(float64(tBig)/float64(tSmall), "x-2000-vs-250")
}
