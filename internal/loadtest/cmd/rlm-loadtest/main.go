// Command rlm-loadtest measures what rlm serve adds to its upstream's
// latency and throughput (see package loadtest). make loadtest builds rlm
// and runs it:
//
//	rlm-loadtest [-rlm bin/rlm] [-clients 64] [-requests 640] [-single 200]
//	             [-latency 20ms] [-serve-args '--max-runs 64'] [-server-log FILE]
//	             [-cluster-db URL [-replicas 1,3]] [-upstream-in-process]
//
// The fake upstream runs as a child process (rlm-loadtest -serve-upstream),
// so that the direct client, like rlm serve, calls a model living in
// another process; -upstream-in-process keeps it beside the direct client,
// as before.
//
// It prints one table row per phase: the loaded one (-clients clients,
// -requests requests) and the one-client one (-single requests; 0 skips
// it), each measured direct to the fake upstream and through rlm serve.
// With -cluster-db the servers are replicas of one cluster, started
// -replicas at a time (one table per count, in the same run), and the
// table adds the database's commits and written rows per run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/rlmhq/rlm/internal/loadtest"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "rlm-loadtest:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("rlm-loadtest", flag.ContinueOnError)
	rlm := fs.String("rlm", "bin/rlm", "the rlm `BINARY` to serve with")
	clients := fs.Int("clients", loadtest.DefaultClients, "concurrent clients of the loaded phase")
	requests := fs.Int("requests", loadtest.DefaultRequests, "requests of the loaded phase")
	single := fs.Int("single", loadtest.DefaultSingleRequests, "requests of the one-client phase (0: skip it)")
	latency := fs.Duration("latency", loadtest.DefaultLatency, "the fake upstream's latency per call")
	serveArgs := fs.String("serve-args", "", "extra rlm serve `FLAGS`, space-separated (e.g. '--max-runs 64')")
	serverLog := fs.String("server-log", "", "write the server's log to `FILE`")
	clusterDB := fs.String("cluster-db", "", "run the servers as replicas of the cluster whose PostgreSQL database is at `URL`")
	replicaList := fs.String(
		"replicas",
		"1",
		"comma-separated replica `COUNTS` to measure one after the other (more than 1 needs -cluster-db)",
	)
	inProcess := fs.Bool("upstream-in-process", false,
		"run the fake upstream inside this process, beside the direct client (by default it is a child process, as a real model is another machine)")
	serveUpstream := fs.Bool("serve-upstream", false, "only serve the fake upstream, printing its URL (the child process of a load test)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *serveUpstream {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return loadtest.ServeUpstream(ctx, stdout, *latency)
	}
	var counts []int
	for _, f := range strings.Split(*replicaList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-replicas: %q is not a count", f)
		}
		counts = append(counts, n)
	}
	cfg := loadtest.Config{
		Command:   []string{*rlm},
		ServeArgs: strings.Fields(*serveArgs),
		Latency:   *latency,
		Phases:    []loadtest.Phase{{Clients: *clients, Requests: *requests}},
	}
	if !*inProcess {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("the fake upstream's process: %w", err)
		}
		cfg.UpstreamCommand = []string{self, "-serve-upstream", "-latency", latency.String()}
	}
	if *single > 0 {
		cfg.Phases = append(cfg.Phases, loadtest.Phase{Clients: 1, Requests: *single})
	}
	if *serverLog != "" {
		f, err := os.Create(*serverLog)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.ServerLog = f
	}
	cfg.ClusterDB = *clusterDB
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	for i, n := range counts {
		cfg.Replicas = n
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		results, err := loadtest.Run(ctx, cfg)
		if rerr := loadtest.Report(stdout, cfg, results); err == nil {
			err = rerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
