package server

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/sandbox"
	openai "github.com/sashabaranov/go-openai"
)

// Load benchmark parameters: 64 concurrent runs, each making 3 upstream
// calls (two root turns and a sub-call) to a fake upstream answering
// after upstreamLatency, with at most upstreamLimit calls in flight.
const (
	loadRuns        = 64
	callsPerRun     = 3
	upstreamLatency = 20 * time.Millisecond
	upstreamLimit   = 16
)

// BenchmarkServeLoad sends 64 concurrent chat completions (the "sub" run:
// root turn, llm_query sub-call, root turn with SUBMIT) through the
// go-openai client to rlm serve over loopback, and, as the baseline in
// the same run, the same 64x3 calls straight to the fake upstream with the
// same in-flight limit. It reports runs/s, the p50 and p99 latency added
// over the upstream's (a run's latency minus 3 upstream latencies), the
// ratio of the served p50 to the direct p50, and peak RSS; it fails if a
// response is missing or malformed or the upstream saw more than 16 calls
// in flight.
//
//	go test -run '^$' -bench ServeLoad -benchtime 3x ./server/
func BenchmarkServeLoad(b *testing.B) {
	up := llmtest.NewServer(b).RequireKey(canaryKey)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		r := rootReply(c)
		r.Delay = upstreamLatency
		return r
	})
	ts := newTestServerOn(b, up, func(c *Config) {
		c.MaxRuns, c.Queue = loadRuns, loadRuns
		c.LLM.MaxConcurrency = upstreamLimit
		c.RunsDir = "" // memory only: the benchmark measures the server, not the disk
		// A step that prints a sub-call's result waits for it, queueing
		// behind the upstream limit: the default step time, not the
		// tests' short one.
		c.Engine.Limits.Timeout = sandbox.DefaultLimits().Timeout
	})
	client := ts.client(nil)
	direct := openai.DefaultConfig(canaryKey)
	direct.BaseURL = up.URL()
	directClient := openai.NewClientWithConfig(direct)

	var served, baseline []time.Duration
	var mu sync.Mutex
	var servedWall time.Duration
	b.ResetTimer()
	for range b.N {
		// Baseline: the same calls sent directly, 16 in flight at most.
		sem := make(chan struct{}, upstreamLimit)
		var wg sync.WaitGroup
		for range loadRuns {
			wg.Go(func() {
				start := time.Now()
				for range callsPerRun {
					sem <- struct{}{}
					_, err := directClient.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
						Model: subModel, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}})
					<-sem
					if err != nil {
						b.Error(err)
					}
				}
				mu.Lock()
				baseline = append(baseline, time.Since(start))
				mu.Unlock()
			})
		}
		wg.Wait()

		start := time.Now()
		for range loadRuns {
			wg.Go(func() {
				t0 := time.Now()
				resp, err := client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
					Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "sub"}}})
				d := time.Since(t0)
				switch {
				case err != nil:
					b.Error(err)
					return
				case len(resp.Choices) != 1 || resp.Choices[0].Message.Content != "sub:hello" ||
					resp.Choices[0].FinishReason != openai.FinishReasonStop || resp.Usage.TotalTokens == 0:
					b.Errorf("malformed response: %+v", resp)
					return
				}
				mu.Lock()
				served = append(served, d)
				mu.Unlock()
			})
		}
		wg.Wait()
		servedWall += time.Since(start)
	}
	b.StopTimer()
	if len(served) != loadRuns*b.N {
		b.Fatalf("%d of %d runs answered", len(served), loadRuns*b.N)
	}
	if m := up.MaxInFlight(); m > upstreamLimit {
		b.Fatalf("upstream saw %d calls in flight, over the limit %d", m, upstreamLimit)
	}
	upstream := callsPerRun * upstreamLatency
	p := func(ds []time.Duration, q float64) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[min(len(s)-1, int(q*float64(len(s))))]
	}
	b.ReportMetric(float64(len(served))/servedWall.Seconds(), "runs/s")
	b.ReportMetric(float64(p(served, 0.5)-upstream)/1e6, "p50-added-ms")
	b.ReportMetric(float64(p(served, 0.99)-upstream)/1e6, "p99-added-ms")
	b.ReportMetric(float64(p(served, 0.5))/float64(p(baseline, 0.5)), "p50-vs-direct")
	b.ReportMetric(float64(p(served, 0.99))/float64(p(baseline, 0.99)), "p99-vs-direct")
	b.ReportMetric(float64(up.MaxInFlight()), "max-in-flight")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
}

// peakRSS is the process's peak resident set (VmHWM), in bytes; 0 where
// /proc is not available.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}
