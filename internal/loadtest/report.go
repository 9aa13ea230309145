package loadtest

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Goals of issue 30, marked beside the figures (never asserted).
const (
	goalThroughput = 0.5                   // served/direct from DefaultClients clients
	goalAddedP50   = 2 * time.Millisecond  // at one client
	goalAddedP99   = 10 * time.Millisecond // at one client
	goalCPUPerRun  = time.Millisecond      // server CPU per run
	missMark       = " (goal %s: missed)"
)

// Report prints the results as a table: per phase the direct and served
// throughputs and their ratio, the served latency added to direct at p50
// and p99, and the server's CPU time per run, each marked when it misses
// the goal.
func Report(w io.Writer, cfg Config, results []Result) error {
	cfg = cfg.withDefaults()
	var b strings.Builder
	fmt.Fprintf(
		&b,
		"rlm serve load test: each run = 1 root call + 1 llm_query; upstream latency %s; direct = the same client making the 2 upstream calls itself\n",
		cfg.Latency,
	)
	args := "(defaults)"
	if len(cfg.ServeArgs) > 0 {
		args = strings.Join(cfg.ServeArgs, " ")
	}
	fmt.Fprintf(&b, "rlm serve flags: %s\n", args)
	if cfg.ClusterDB != "" {
		fmt.Fprintf(
			&b,
			"cluster: %d replica(s) sharing one PostgreSQL database, clients taking them in turn; server CPU/run is all replicas' together\n",
			cfg.Replicas,
		)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(
		tw,
		"clients\trequests\tdirect req/s\tserved req/s\tratio\tdirect p50\tdirect p99\tadded p50\tadded p99\tserver CPU/run\tdb commits/run\tdb rows/run\terrors",
	)
	for _, r := range results {
		ratio := 0.0
		if d := r.Direct.Throughput(); d > 0 {
			ratio = r.Served.Throughput() / d
		}
		ratioS := fmt.Sprintf("%.2fx", ratio)
		if r.Clients >= DefaultClients && ratio < goalThroughput {
			ratioS += fmt.Sprintf(missMark, fmt.Sprintf(">= %.2fx", goalThroughput))
		}
		addP50 := r.Served.Quantile(0.5) - r.Direct.Quantile(0.5)
		addP99 := r.Served.Quantile(0.99) - r.Direct.Quantile(0.99)
		p50S, p99S := ms(addP50), ms(addP99)
		if r.Clients == 1 {
			if addP50 > goalAddedP50 {
				p50S += fmt.Sprintf(missMark, "<= "+ms(goalAddedP50))
			}
			if addP99 > goalAddedP99 {
				p99S += fmt.Sprintf(missMark, "<= "+ms(goalAddedP99))
			}
		}
		cpuS := "n/a"
		if c := r.CPUPerRun(); c >= 0 {
			cpuS = ms(c)
			if c > goalCPUPerRun {
				cpuS += fmt.Sprintf(missMark, "<= "+ms(goalCPUPerRun))
			}
		}
		commits, rows := "n/a", "n/a"
		if r.Served.DBCommits >= 0 && r.Requests > 0 {
			commits = fmt.Sprintf("%.1f", float64(r.Served.DBCommits)/float64(r.Requests))
			rows = fmt.Sprintf("%.1f", float64(r.Served.DBRows)/float64(r.Requests))
		}
		fmt.Fprintf(tw, "%d\t%d\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d direct, %d served\n",
			r.Clients, r.Requests, r.Direct.Throughput(), r.Served.Throughput(), ratioS,
			ms(r.Direct.Quantile(0.5)), ms(r.Direct.Quantile(0.99)), p50S, p99S, cpuS, commits, rows, r.Direct.Errors, r.Served.Errors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		for _, s := range []struct {
			side string
			st   Stats
		}{{"direct", r.Direct}, {"served", r.Served}} {
			if s.st.FirstError != nil {
				if _, err := fmt.Fprintf(w, "%d clients, %s: first error: %v\n", r.Clients, s.side, s.st.FirstError); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
