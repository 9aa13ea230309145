package orchestrator

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
)

// BenchmarkNeedle runs the scripted needle task end to end (real go-openai
// client against the fake server) at 1, 10 and 100 MB and reports the
// first root request's tokens (system+meta, and with the query) and the
// total tokens of the run tree.
func BenchmarkNeedle(b *testing.B) {
	for _, mb := range []int{1, 10, 100} {
		text := needleText(mb<<20, 0.63)
		c := bigContext(b, text)
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			var res *Result
			for i := 0; i < b.N; i++ {
				srv := needleServer(b)
				e := newE2E(b, srv, llm.Limits{})
				var err error
				res, err = New(e.config()).Run(context.Background(), c)
				require.NoError(b, err)
				require.Equal(b, StopSubmit, res.StopReason, "err: %v", res.Err)
				require.Equal(b, "482913", res.Answer)
			}
			first := res.Metrics.FirstPrefixTokens
			b.ReportMetric(float64(first), "root-prefix-tokens")
			b.ReportMetric(float64(res.Usage.PromptTokens+res.Usage.CompletionTokens), "total-tokens")
			b.ReportMetric(float64(res.Usage.Calls), "llm-calls")
			ctxTokens, _ := c.Vars[0].Tokens()
			b.ReportMetric(float64(ctxTokens), "context-tokens")
			b.ReportMetric(float64(res.Usage.PromptTokens+res.Usage.CompletionTokens)/float64(ctxTokens), "total/context-tokens")
			b.ReportMetric(float64(res.Metrics.MaxRequestTokens), "max-request-tokens")
		})
	}
}
