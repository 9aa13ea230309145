package bench

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// DryRunConfig configures [DryRun]. Zero fields take [Config]'s defaults.
type DryRunConfig struct {
	Tasks []string
	Sizes []int
	N     int
	Seed  uint64
	// Direct and RLM render each mode's first request; nil skips a mode.
	Direct Prompter
	RLM    Prompter
}

// DryRow is the dry-run measurement of one task item: exact prompt tokens
// of the direct request and of the first RLM root request.
type DryRow struct {
	Task         string  `json:"task"`
	Size         int     `json:"size"`
	Index        int     `json:"index"`
	ContextBytes int     `json:"context_bytes"`
	DirectTokens int     `json:"direct_prompt_tokens"`
	RLMTokens    int     `json:"rlm_root_prompt_tokens"`
	GenSeconds   float64 `json:"gen_seconds"`   // generating the task
	CountSeconds float64 `json:"count_seconds"` // rendering and counting the direct prompt
}

// DryRun generates every task item and counts the prompt tokens each mode
// would send first, calling no model.
func DryRun(ctx context.Context, cfg DryRunConfig, onRow func(DryRow)) ([]DryRow, error) {
	c := Config{Tasks: cfg.Tasks, Sizes: cfg.Sizes, N: cfg.N}.withDefaults()
	var rows []DryRow
	for _, kind := range c.Tasks {
		for _, size := range c.Sizes {
			for i := 0; i < c.N; i++ {
				if err := ctx.Err(); err != nil {
					return rows, err
				}
				t0 := time.Now()
				t, err := Generate(kind, size, cfg.Seed, i)
				if err != nil {
					return rows, err
				}
				row := DryRow{Task: kind, Size: size, Index: i, GenSeconds: time.Since(t0).Seconds()}
				for _, v := range t.Vars {
					row.ContextBytes += len(v.Text())
				}
				if cfg.Direct != nil {
					t1 := time.Now()
					req, err := cfg.Direct.FirstRequest(t)
					if err != nil {
						return rows, fmt.Errorf("bench: direct prompt of %s: %w", kind, err)
					}
					row.DirectTokens = RequestTokens(req)
					row.CountSeconds = time.Since(t1).Seconds()
				}
				if cfg.RLM != nil {
					req, err := cfg.RLM.FirstRequest(t)
					if err != nil {
						return rows, fmt.Errorf("bench: rlm prompt of %s: %w", kind, err)
					}
					row.RLMTokens = RequestTokens(req)
				}
				rows = append(rows, row)
				if onRow != nil {
					onRow(row)
				}
			}
		}
	}
	return rows, nil
}

// FormatDryRun renders dry-run rows as a Markdown table.
func FormatDryRun(rows []DryRow) string {
	var b strings.Builder
	b.WriteString("| task | size | item | context MB | direct prompt tokens | RLM root prompt tokens | direct/RLM | gen s | count s |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		ratio := "-"
		if r.RLMTokens > 0 && r.DirectTokens > 0 {
			ratio = fmt.Sprintf("%.1f×", float64(r.DirectTokens)/float64(r.RLMTokens))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.2f | %d | %d | %s | %.2f | %.2f |\n", r.Task, FormatSize(r.Size), r.Index,
			float64(r.ContextBytes)/1e6, r.DirectTokens, r.RLMTokens, ratio, r.GenSeconds, r.CountSeconds)
	}
	return b.String()
}
