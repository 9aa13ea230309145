package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// flagGroups sorts every command's flags by purpose for -h: a flag is
// listed under the first group naming it, whatever command defines it.
// TestEveryFlagIsGrouped fails for a flag no group names.
var flagGroups = []struct {
	title string
	flags []string
}{
	{"task", []string{"query", "var", "session", "store", "store-read", "output", "output-schema", "protocol", "c", "clock"}},
	{"model", []string{"base-url", "api-key", "model", "sub-model", "embedding-model", "temperature", "max-output-tokens",
		"request-timeout", "max-retries", "max-concurrency", "rpm", "tpm", "embed-batch-size", "cache-dir", "prices",
		"max-response-size", "record", "replay"}},
	{"budgets", []string{"max-iterations", "child-iterations", "max-total-iterations", "max-errors", "max-depth",
		"max-llm-calls", "max-tokens", "max-cost", "timeout", "max-active-time", "history-tokens", "summarizer"}},
	{"sandbox limits (each code step)", []string{"max-steps", "step-timeout", "max-memory", "max-session-memory",
		"max-recursion", "max-output-bytes", "observation-tokens"}},
	{"context size", []string{"warn-size", "chunk-threshold", "chunk-size", "max-context-size"}},
	{"meta document", []string{"meta", "meta-notes-tokens", "meta-tokens", "meta-tokens-per-var", "max-meta-tokens"}},
	{"output and kept runs", []string{"json", "quiet", "v", "verbose", "trajectory", "trajectory-full", "resume", "from-divergence", "save",
		"no-keep", "runs-dir", "o", "open"}},
	{"server", []string{"addr", "token-file", "log-level", "max-runs", "queue", "max-body", "max-body-memory", "max-json-values",
		"max-json-depth", "max-conns", "read-header-timeout", "read-timeout", "write-timeout", "stream-write-timeout",
		"idle-timeout", "stream-keepalive", "cors-origin", "retain-trajectory-bytes", "drain-timeout", "resume-runs",
		"resume-from-divergence"}},
	{
		"cluster",
		[]string{"cluster-db", "blobs", "blobs-cache", "max-var-size", "lease-ttl", "work", "max-cells", "sweep", "sweep-concurrency"},
	},
	{"benchmark", []string{"task", "sizes", "n", "modes", "parallel", "out", "dry-run", "seed", "context-window", "index", "size"}},
	{"store", []string{"persist", "scope", "type", "repair", "tokens"}},
	{"selection", []string{"older-than", "since", "bench", "all", "by", "reason", "window", "alpha", "threshold"}},
}

// commandExamples are the examples each command's -h ends with.
var commandExamples = map[string]string{
	"run": `  rlm run --query "Which packages changed their licence?" --var log=changelog.txt
  rlm run -v --query "Summarize each file" --var src=./pkg --output "items: list[{file: str, summary: str}], total: int"
  rlm run --resume 20260101-120000-abcdef123456 --max-llm-calls 200`,
	"exec": `  rlm exec --var doc=README.md -c 'print(search(doc, "install")[:3])'
  rlm exec --var data=records.jsonl script.py
  rlm exec -c 'help(search)'`,
	"repl":   `  rlm repl --var doc=README.md`,
	"serve":  `  RLM_MODEL=llama3.1 OPENAI_BASE_URL=http://localhost:11434/v1 rlm serve --addr 127.0.0.1:8088`,
	"worker": `  RLM_CLUSTER_DB=postgres://rlm@db:5432/rlm rlm worker --model gpt-4.1-mini --max-runs 32`,
	"bench": `  rlm bench --task niah --sizes 8k,128k --modes rlm,direct --n 5
  RLM_CLUSTER_DB=postgres://rlm@db:5432/rlm rlm bench --task niah,pairs --sizes 8k,128k --n 50 --model gpt-4.1-mini --sweep nightly`,
	"bench status": `  RLM_CLUSTER_DB=postgres://rlm@db:5432/rlm rlm bench status nightly`,
	"bench report": `  RLM_CLUSTER_DB=postgres://rlm@db:5432/rlm rlm bench report nightly --out bench-out`,
	"view":         `  rlm view 20260101-120000-abcdef123456 --open`,
	"runs": `  rlm runs ls
  rlm runs show 20260101-120000-abcdef123456
  rlm runs gc --older-than 30d`,
	"store": `  rlm store put notes notes.txt
  rlm store ls
  rlm run --query "..." --var notes=store:notes`,
	"steward": `  rlm steward propose --since 7d
  rlm steward review
  rlm steward apply --all`,
	"config":     `  rlm config serve --max-runs 16`,
	"completion": `  source <(rlm completion bash)`,
	"version":    `  rlm --version`,
}

// printFlagHelp prints fs's flags grouped by purpose, then cmd's
// examples. Flags no group names come last, under "other".
func printFlagHelp(w io.Writer, fs *flag.FlagSet, cmd string) {
	var all []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if cmd == "worker" && slices.Contains(serveOnlyFlags, f.Name) {
			return // refused by rlm worker (workerFlagsOnly)
		}
		all = append(all, f)
	})
	if len(all) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	seen := map[string]bool{}
	section := func(title string, names []string) {
		sub := flag.NewFlagSet("", flag.ContinueOnError)
		for _, f := range all {
			if !seen[f.Name] && slices.Contains(names, f.Name) {
				sub.Var(f.Value, f.Name, f.Usage)
				sub.Lookup(f.Name).DefValue = f.DefValue
				if r, ok := f.Value.(interface{ Readable() string }); ok && f.Value.String() == f.DefValue {
					sub.Lookup(f.Name).DefValue = r.Readable()
				}
				seen[f.Name] = true
			}
		}
		n := 0
		sub.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			return
		}
		if len(all) > n || title != "other" {
			fmt.Fprintf(w, "\n %s:\n", title)
		}
		sub.SetOutput(w)
		sub.PrintDefaults()
	}
	for _, g := range flagGroups {
		section(g.title, g.flags)
	}
	var rest []string
	for _, f := range all {
		if !seen[f.Name] {
			rest = append(rest, f.Name)
		}
	}
	section("other", rest)
	if ex := commandExamples[strings.TrimSpace(cmd)]; ex != "" {
		fmt.Fprintf(w, "\nexamples:\n%s\n", ex)
	}
}
