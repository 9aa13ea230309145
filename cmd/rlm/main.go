// Command rlm runs Recursive Language Model tasks. Its commands, one file
// each (this package holds flags, I/O and exit codes only; the work is in
// the packages it calls):
//
//	rlm run      answer a query over externalized context with a root model exploring it through code
//	rlm exec     run exploration code over context variables (works offline)
//	rlm repl     interactive exploration of context variables with the same helpers
//	rlm serve    serve RLM runs over an OpenAI-compatible HTTP API, with a run API, the store and metrics
//	rlm bench    benchmark externalized against direct prompting
//	rlm runs     list, show and remove the kept run directories
//	rlm view     render a trajectory (or two, compared) as one self-contained HTML page
//	rlm store    manage the persistent variable store
//	rlm steward  keep the meta document from the evidence of kept runs
//	rlm version  print the rlm version (also rlm --version)
//	rlm completion  print a shell completion script (bash, zsh, fish)
//	rlm config   print a command's effective settings (flags, environment, settings file)
//
// Exit status: 0 success, 1 an error, 2 bad usage, 3 a drift found by rlm
// steward drift, 130 interrupted.
//
// The commands use the standard library's flag package with a small
// dispatcher (register, newFlagSet, parseFlags) rather than a CLI
// framework such as cobra: what a framework would add is here in a few
// hundred lines that the tests pin (help on stdout and errors on stderr,
// flags grouped by purpose from one table, examples, shell completion
// generated from the help, a settings file below the flags and the
// environment), and flag's one-dash-or-two syntax, its Value types and
// its error messages stay what users and scripts already rely on.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
)

// command is one rlm subcommand. run parses args itself (with a FlagSet
// whose output goes to stderr) and returns an error; errUsage-wrapped errors
// exit 2.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

// cliEnv is the process environment seen by a command, swappable in tests.
type cliEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// resuming marks rlm run's second pass over the arguments of a run
	// given with --resume.
	resuming bool
	// showSettings makes a command print its effective settings and stop
	// once its flags are parsed (rlm config).
	showSettings bool
	// setMemoryLimit, if set, sets the process's soft memory limit
	// (debug.SetMemoryLimit); tests leave it nil.
	setMemoryLimit func(int64)
	// setGCPercent, if set, sets the garbage collector's target
	// percentage and returns the previous one (debug.SetGCPercent); tests
	// leave it nil.
	setGCPercent func(int) int
	// heapShares, if set, reads the heap's scannable bytes and its bytes
	// in use (see loadedGCPercent); tests leave it nil.
	heapShares func() (scannable, inUse uint64)
}

// errUsage marks bad invocations (exit status 2).
var errUsage = errors.New("usage")

// exitError carries a specific exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// commands is filled by each subcommand's file in init.
var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: rlm <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'rlm <command> -h' (or 'rlm help <command>') for a command's flags; 'rlm --version' prints the version.")
}

// runMain is main without os.Exit, for tests. It returns the exit status.
func runMain(ctx context.Context, env *cliEnv, args []string) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		args = []string{"version"}
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 2 && args[0] == "help" {
			// rlm help CMD is rlm CMD -h.
			if _, ok := commands[args[1]]; ok {
				return runMain(ctx, env, []string{args[1], "-h"})
			}
			fmt.Fprintf(env.stderr, "rlm: unknown command %q\n\n", args[1])
			usage(env.stderr)
			return 2
		}
		if len(args) == 0 {
			usage(env.stderr)
			return 2
		}
		usage(env.stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "rlm: unknown command %q\n\n", args[0])
		usage(env.stderr)
		return 2
	}
	err := c.run(ctx, env, args[1:])
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errShowedSettings) {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintf(env.stderr, "rlm %s: %s\n", c.name, termSafe(env.stderr, ee.err.Error()))
		}
		return ee.code
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		// Ctrl-C (or SIGTERM): say so rather than "context canceled".
		fmt.Fprintf(env.stderr, "rlm %s: interrupted\n", c.name)
		return 130
	}
	fmt.Fprintf(env.stderr, "rlm %s: %s\n", c.name, termSafe(env.stderr, err.Error()))
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

func main() {
	if os.Getenv(crashFilterEnv) == "1" {
		runCrashFilter()
		return
	}
	guardCrashes(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl-C stops the run cleanly (partial answer, trajectory
	// closed); a second one kills the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
		setMemoryLimit: func(n int64) { debug.SetMemoryLimit(n) },
		setGCPercent:   debug.SetGCPercent, heapShares: heapShares}
	os.Exit(runMain(ctx, env, os.Args[1:]))
}

// usageOutput is a FlagSet's output: stderr for usage after a bad
// invocation, stdout for the help asked for with -h (so that
// rlm run -h | less shows it).
type usageOutput struct {
	stdout, stderr io.Writer
	help           bool
	// env and name are the flag set's command, for the settings file;
	// settingsRead is set once the file has been applied.
	env          *cliEnv
	name         string
	settingsRead bool
}

func (u *usageOutput) Write(p []byte) (int, error) {
	if u.help {
		return u.stdout.Write(p)
	}
	return u.stderr.Write(p)
}

// newFlagSet returns a FlagSet for a subcommand that reports errors to
// stderr, help to stdout, and leaves exiting to runMain.
func newFlagSet(env *cliEnv, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("rlm "+name, flag.ContinueOnError)
	fs.SetOutput(&usageOutput{stdout: env.stdout, stderr: env.stderr, env: env, name: name})
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: rlm %s %s\n\nflags:\n", name, synopsis)
		printFlagHelp(fs.Output(), fs, name)
	}
	return fs
}

// parseFlags parses args, mapping flag errors to errUsage (exit 2). -h
// prints the full usage; a bad flag prints its error, the synopsis and a
// pointer to -h, so the error is not buried under the flag list.
func parseFlags(fs *flag.FlagSet, args []string) error {
	full := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = full
	switch {
	case err == nil:
		return applySettings(fs)
	case errors.Is(err, flag.ErrHelp):
		if u, ok := fs.Output().(*usageOutput); ok {
			u.help = true
			defer func() { u.help = false }()
		}
		full()
		return err
	}
	out := fs.Output()
	var b strings.Builder
	fs.SetOutput(&b)
	full()
	fs.SetOutput(out)
	synopsis, _, _ := strings.Cut(b.String(), "\n")
	fmt.Fprintf(out, "%s\nRun '%s -h' for the list of flags.\n", synopsis, fs.Name())
	return &exitError{code: 2, err: errors.New("")}
}
