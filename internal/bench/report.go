package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Summary aggregates the results of one task × size × mode.
type Summary struct {
	Task string `json:"task"`
	Size int    `json:"size"`
	Mode string `json:"mode"`
	N    int    `json:"n"`
	// MeanScore with its 95% confidence interval: Wilson's when every
	// score is 0 or 1, else Student's t clipped to [0, 1] ([0, 1] for one
	// fractional score).
	MeanScore float64 `json:"mean_score"`
	CILow     float64 `json:"ci_low"`
	CIHigh    float64 `json:"ci_high"`
	// Means per item.
	ContextTokens    float64 `json:"context_tokens"`
	RootPromptTokens float64 `json:"root_prompt_tokens"`
	SubPromptTokens  float64 `json:"sub_prompt_tokens"`
	EmbedTokens      float64 `json:"embed_tokens"`
	TotalTokens      float64 `json:"total_tokens"`
	Calls            float64 `json:"calls"`
	Iterations       float64 `json:"iterations"`
	WallSeconds      float64 `json:"wall_seconds"`
	// CostUSD is the total over the items; CostKnown is false if any
	// item's cost was unknown (unpriced model).
	CostUSD   float64 `json:"cost_usd"`
	CostKnown bool    `json:"cost_known"`
	// Failures counts items by failure kind.
	Failures map[string]int `json:"failures,omitempty"`
}

// Summarize groups results by task, size and mode, sorted that way (modes
// in the order rlm, direct, then by name).
func Summarize(results []Result) []Summary {
	type gk struct {
		task string
		size int
		mode string
	}
	groups := map[gk][]Result{}
	for _, r := range results {
		k := gk{r.Task, r.Size, r.Mode}
		groups[k] = append(groups[k], r)
	}
	out := make([]Summary, 0, len(groups))
	for k, rs := range groups {
		s := Summary{Task: k.task, Size: k.size, Mode: k.mode, N: len(rs), CostKnown: true}
		scores := make([]float64, len(rs))
		for i, r := range rs {
			scores[i] = r.Score
			s.ContextTokens += float64(r.ContextTokens)
			s.RootPromptTokens += float64(r.RootPromptTokens)
			s.SubPromptTokens += float64(r.SubPromptTokens)
			s.EmbedTokens += float64(r.EmbedTokens)
			s.TotalTokens += float64(r.TotalTokens)
			s.Calls += float64(r.Calls)
			s.Iterations += float64(r.Iterations)
			s.WallSeconds += r.WallSeconds
			s.CostUSD += r.CostUSD
			if r.Calls > 0 && !r.CostKnown {
				s.CostKnown = false
			}
			if r.Failure != "" {
				if s.Failures == nil {
					s.Failures = map[string]int{}
				}
				s.Failures[r.Failure]++
			}
		}
		n := float64(len(rs))
		for _, p := range []*float64{&s.ContextTokens, &s.RootPromptTokens, &s.SubPromptTokens, &s.EmbedTokens, &s.TotalTokens, &s.Calls, &s.Iterations, &s.WallSeconds} {
			*p /= n
		}
		s.MeanScore, s.CILow, s.CIHigh = meanCI(scores)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		if a.Size != b.Size {
			return a.Size < b.Size
		}
		return modeRank(a.Mode) < modeRank(b.Mode) || modeRank(a.Mode) == modeRank(b.Mode) && a.Mode < b.Mode
	})
	return out
}

func modeRank(m string) int {
	switch m {
	case ModeRLM:
		return 0
	case ModeDirect:
		return 1
	}
	return 2
}

// tQuantile975 are Student's t 0.975 quantiles for 1..30 degrees of freedom.
var tQuantile975 = []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// z975 is the standard normal 0.975 quantile.
const z975 = 1.959963984540054

// meanCI is the mean of scores in [0, 1] and its 95% confidence interval.
// When every score is 0 or 1 (exact-match tasks) it is the Wilson score
// interval, which stays inside [0, 1] and keeps a width for n = 1 and for
// all-equal outcomes (10 of 10 right gives [0.72, 1], not [1, 1]).
// Otherwise it is Student's t interval clipped to [0, 1]; one fractional
// score says nothing about the spread, so its interval is [0, 1].
func meanCI(xs []float64) (mean, lo, hi float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0, 0
	}
	binary := true
	for _, x := range xs {
		mean += x
		binary = binary && (x == 0 || x == 1)
	}
	mean /= float64(n)
	if binary {
		lo, hi = wilson(mean, n)
		return mean, lo, hi
	}
	if n == 1 {
		return mean, 0, 1
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	df := n - 1
	t := z975 + 2.4/float64(df) // within 0.3% of the exact quantile beyond 30
	if df <= len(tQuantile975) {
		t = tQuantile975[df-1]
	}
	half := t * sd / math.Sqrt(float64(n))
	return mean, math.Max(0, mean-half), math.Min(1, mean+half)
}

// wilson is the 95% Wilson score interval of a proportion p over n trials.
func wilson(p float64, n int) (lo, hi float64) {
	nf := float64(n)
	z2 := z975 * z975
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z975 / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return math.Max(0, center-half), math.Min(1, center+half)
}

// ReportFiles are the files [WriteReport] writes.
const (
	ReportMarkdown = "report.md"
	ResultsFile    = "results.jsonl"
)

// WriteReport writes report.md (a Markdown table per task) and one SVG
// chart per task (chart-TASK.svg: score and tokens against context size,
// one line per mode) to dir. It returns the paths written.
func WriteReport(dir string, results []Result, title string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: report: %w", err)
	}
	sums := Summarize(results)
	var written []string
	var b strings.Builder
	if title == "" {
		title = "rlm bench"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(
		&b,
		"%d results. Scores are means with 95%% confidence intervals (Wilson for exact-match 0/1 scores, Student's t otherwise); token, call, iteration and time columns are means per item; cost is the total. Raw results: [%s](%s).\n",
		len(results),
		ResultsFile,
		ResultsFile,
	)
	for _, task := range summaryTasks(sums) {
		fmt.Fprintf(&b, "\n## %s\n\n", task)
		b.WriteString(
			"| size | mode | n | score (95% CI) | root prompt tok | sub prompt tok | embed tok | total tok | LLM calls | cost USD | wall s | iterations | failures |\n",
		)
		b.WriteString("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, s := range sums {
			if s.Task != task {
				continue
			}
			cost := fmt.Sprintf("%.4f", s.CostUSD)
			if !s.CostKnown {
				cost = "unknown"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %.3f [%.3f, %.3f] | %.0f | %.0f | %.0f | %.0f | %.1f | %s | %.1f | %.1f | %s |\n",
				FormatSize(s.Size), s.Mode, s.N, s.MeanScore, s.CILow, s.CIHigh, s.RootPromptTokens, s.SubPromptTokens,
				s.EmbedTokens, s.TotalTokens, s.Calls, cost, s.WallSeconds, s.Iterations, formatFailures(s.Failures))
		}
		chart := "chart-" + task + ".svg"
		if err := writeChart(filepath.Join(dir, chart), task, sums); err != nil {
			return written, err
		}
		written = append(written, filepath.Join(dir, chart))
		fmt.Fprintf(&b, "\n![%s: score and tokens against context size](%s)\n", task, chart)
	}
	path := filepath.Join(dir, ReportMarkdown)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return written, fmt.Errorf("bench: report: %w", err)
	}
	return append(written, path), nil
}

func summaryTasks(sums []Summary) []string {
	var out []string
	for _, s := range sums {
		if len(out) == 0 || out[len(out)-1] != s.Task {
			out = append(out, s.Task)
		}
	}
	return out
}

func formatFailures(f map[string]int) string {
	if len(f) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range sortedKeys(f) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, f[k]))
	}
	return strings.Join(parts, ", ")
}
