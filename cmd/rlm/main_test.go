package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// runCLI runs rlm with args and returns exit status, stdout and stderr.
func runCLI(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runCLIOn(t, stdin, env, &out, &errb, args...)
	return code, out.String(), errb.String()
}

// runCLIOn runs rlm with args, writing to stdout and stderr, and returns
// the exit status.
func runCLIOn(tb testing.TB, stdin string, env map[string]string, stdout, stderr io.Writer, args ...string) int {
	tb.Helper()
	if _, ok := env["RLM_RUNS_DIR"]; !ok {
		// Kept runs go to a temporary directory, not the package's .rlm.
		e := map[string]string{"RLM_RUNS_DIR": tb.TempDir()}
		for k, v := range env {
			e[k] = v
		}
		env = e
	}
	e := &cliEnv{
		stdin:  strings.NewReader(stdin),
		stdout: stdout,
		stderr: stderr,
		getenv: func(k string) string { return env[k] },
	}
	return runMain(context.Background(), e, args)
}

func TestMainFrame(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderrIn string
	}{
		{name: "no args prints usage", args: nil, code: 2, stderrIn: "usage: rlm <command>"},
		{name: "help", args: []string{"-h"}, code: 0, stdout: "commands:"},
		{name: "--version", args: []string{"--version"}, code: 0, stdout: "rlm "},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderrIn: `unknown command "frobnicate"`},
		{name: "version", args: []string{"version"}, code: 0, stdout: "rlm "},
		{name: "version bad flag", args: []string{"version", "--nope"}, code: 2, stderrIn: "flag provided but not defined: -nope"},
		{name: "version -h", args: []string{"version", "-h"}, code: 0, stdout: "usage: rlm version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", nil, tt.args...)
			assert.Equal(t, tt.code, code, "stderr: %s", errOut)
			if tt.stdout != "" {
				assert.Contains(t, out, tt.stdout)
			}
			if tt.stderrIn != "" {
				assert.Contains(t, errOut, tt.stderrIn)
			}
		})
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", nil, name, "-h")
			assert.Equal(t, 0, code, "stderr: %s", errOut)
			assert.Contains(t, out, "usage: rlm "+name, "help asked for goes to stdout")
			assert.Empty(t, errOut)
		})
	}
}

// TestBadInvocationsExit2 checks, for every command and store/bench
// subcommand, that an unknown flag, a malformed flag value and an unknown
// subcommand or stray argument print a usage message and exit 2, and that
// -h exits 0. A newly registered command fails it until it is listed here.
func TestBadInvocationsExit2(t *testing.T) {
	// Each entry: the command words, and a flag with a malformed value
	// ("" if the command has no flag taking a value).
	cmds := []struct {
		words    []string
		badValue []string
	}{
		{[]string{"run"}, []string{"--max-concurrency", "lots"}},
		{[]string{"exec"}, []string{"--request-timeout", "soon"}},
		{[]string{"repl"}, []string{"--rpm", "x"}},
		{[]string{"bench"}, []string{"--n", "many"}},
		{[]string{"bench", "gen"}, []string{"--seed", "s"}},
		{[]string{"store"}, nil},
		{[]string{"store", "put"}, []string{"--persist=maybe"}},
		{[]string{"store", "ls"}, nil},
		{[]string{"store", "show"}, nil},
		{[]string{"store", "cat"}, nil},
		{[]string{"store", "rm"}, nil},
		{[]string{"store", "clear"}, nil},
		{[]string{"store", "summarize"}, []string{"--tokens", "many"}},
		{[]string{"version"}, nil},
		{[]string{"completion"}, nil},
		{[]string{"config"}, nil},
		{[]string{"runs"}, nil},
		{[]string{"runs", "ls"}, nil},
		{[]string{"runs", "show"}, nil},
		{[]string{"runs", "rm"}, nil},
		{[]string{"runs", "gc"}, nil},
		{[]string{"serve"}, []string{"--max-runs", "many"}},
		{[]string{"worker"}, []string{"--max-runs", "many"}},
		{[]string{"steward"}, nil},
		{[]string{"steward", "propose"}, []string{"--meta-notes-tokens", "x"}},
		{[]string{"steward", "drift"}, []string{"--window", "many"}},
		{[]string{"steward", "apply"}, nil},
		{[]string{"view"}, []string{"--open=maybe"}},
	}
	listed := map[string]bool{}
	for _, c := range cmds {
		listed[c.words[0]] = true
	}
	for name := range commands {
		assert.True(t, listed[name], "command %q is not covered by this test", name)
	}
	// The store is opened only after flags parse; point it at a temp dir
	// so nothing is created in the working directory either way.
	env := map[string]string{"RLM_STORE": t.TempDir()}

	type tcase struct {
		name     string
		args     []string
		code     int
		stderrIn []string
	}
	var tests []tcase
	for _, c := range cmds {
		base := strings.Join(c.words, " ")
		usageLine := "usage: rlm " + base
		tests = append(tests,
			tcase{base + " unknown flag", append(append([]string{}, c.words...), "--no-such-flag"), 2,
				[]string{"flag provided but not defined: -no-such-flag", usageLine}},
			tcase{base + " -h", append(append([]string{}, c.words...), "-h"), 0, []string{usageLine}},
		)
		if c.badValue != nil {
			tests = append(tests, tcase{base + " bad value", append(append([]string{}, c.words...), c.badValue...), 2,
				[]string{"invalid", usageLine}})
		}
	}
	tests = append(
		tests,
		tcase{"unknown command", []string{"frobnicate", "--x"}, 2, []string{`unknown command "frobnicate"`, "usage: rlm <command>"}},
		tcase{"unknown store subcommand", []string{"store", "frob"}, 2, []string{`unknown store subcommand "frob"`}},
		tcase{"store without subcommand", []string{"store"}, 2, []string{"usage: rlm store"}},
		tcase{"bench stray argument", []string{"bench", "frob"}, 2, []string{`unexpected argument "frob"`}},
		tcase{"run stray argument", []string{"run", "--query", "q", "frob"}, 2, []string{`unexpected argument "frob"`}},
		tcase{"repl stray argument", []string{"repl", "frob"}, 2, []string{`unexpected argument "frob"`}},
		tcase{"serve stray argument", []string{"serve", "frob"}, 2, []string{`unexpected argument "frob"`}},
		tcase{"worker without a cluster", []string{"worker"}, 2, []string{"--cluster-db URL or set RLM_CLUSTER_DB"}},
		tcase{
			"worker with an HTTP flag",
			[]string{"worker", "--addr", "127.0.0.1:1", "--cluster-db", "postgres://x"},
			2,
			[]string{"--addr is a flag of rlm serve"},
		},
		tcase{
			"serve cluster without run directories",
			[]string{"serve", "--cluster-db", "postgres://x", "--no-keep"},
			2,
			[]string{"--no-keep: a cluster replica keeps"},
		},
		tcase{
			"serve cluster short lease",
			[]string{"serve", "--cluster-db", "postgres://x", "--lease-ttl", "10ms"},
			2,
			[]string{"--lease-ttl must be at least 1s"},
		},
		tcase{
			"worker stray argument",
			[]string{"worker", "--cluster-db", "postgres://x", "frob"},
			2,
			[]string{`unexpected argument "frob"`},
		},
		tcase{"version stray argument", []string{"version", "frob"}, 2, []string{`unexpected argument "frob"`}},
		tcase{"unknown runs subcommand", []string{"runs", "frob"}, 2, []string{`unknown runs subcommand "frob"`}},
		tcase{"runs gc without age", []string{"runs", "gc"}, 2, []string{"--older-than AGE"}},
		tcase{"runs gc bad age", []string{"runs", "gc", "--older-than", "soon"}, 2, []string{`bad age "soon"`}},
		tcase{"runs show without id", []string{"runs", "show"}, 2, []string{"one run ID"}},
		tcase{"runs show bad id", []string{"runs", "show", "../x"}, 1, []string{"bad run id"}},
		tcase{"run resume with a query", []string{"run", "--resume", "x", "--query", "q"}, 2, []string{"--query cannot be changed"}},
		tcase{"unknown steward subcommand", []string{"steward", "frob"}, 2, []string{`unknown steward subcommand "frob"`}},
		tcase{"steward rollback bad version", []string{"steward", "rollback", "x"}, 2, []string{`bad version "x"`}},
		tcase{"help command", []string{"help", "run"}, 0, []string{"usage: rlm run"}},
		tcase{"help unknown command", []string{"help", "frob"}, 2, []string{`unknown command "frob"`}},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", env, tt.args...)
			assert.Equal(t, tt.code, code, "stderr: %s", errOut)
			if code == 0 { // help asked for: on stdout
				out, errOut = errOut, out
			}
			assert.Empty(t, out, "usage after a bad invocation goes to stderr, help asked for to stdout")
			for _, want := range tt.stderrIn {
				assert.Contains(t, errOut, want)
			}
		})
	}
}
