package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
)

func init() {
	register(&command{name: "worker", summary: "execute the runs of a cluster of rlm serve replicas (no HTTP)", run: runWorker})
}

const workerSynopsis = "--cluster-db URL [--blobs URL] [model flags] [budgets] [limits] [--max-runs N] [--lease-ttl D] [--drain-timeout D] [--store DIR] [--runs-dir DIR] [--meta FILE] [--meta-notes-tokens N]"

// runWorker is rlm serve without HTTP: it claims the cluster's queued runs
// (and those whose owner died) and executes them, --max-runs at once,
// until SIGTERM, when its runs get --drain-timeout and the rest are
// released to the other processes.
func runWorker(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "worker", workerSynopsis)
	o := &serveOptions{worker: true}
	return runServeFlags(ctx, env, fs, o, args)
}

// serveOnlyFlags are rlm serve's flags that mean nothing without HTTP.
var serveOnlyFlags = []string{"addr", "token-file", "queue", "max-body", "max-body-memory", "max-json-values", "max-json-depth",
	"max-conns", "read-header-timeout", "read-timeout", "write-timeout", "stream-write-timeout", "idle-timeout",
	"stream-keepalive", "cors-origin", "retain-trajectory-bytes", "no-keep", "resume-runs", "work", "max-var-size"}

// workerFlagsOnly refuses the flags of rlm serve's HTTP side, which a
// worker would otherwise ignore.
func workerFlagsOnly(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(serveOnlyFlags, f.Name) {
			err = fmt.Errorf("%w: --%s is a flag of rlm serve; rlm worker serves no HTTP", errUsage, f.Name)
		}
	})
	return err
}
