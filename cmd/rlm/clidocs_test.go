package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the generated docs/cli.md")

// cliReferenceFile is the generated CLI reference, from this package.
const cliReferenceFile = "../../docs/cli.md"

// machineDefault matches the defaults that depend on the machine the help
// is printed on (half of its memory), so the page is the same everywhere.
var machineDefault = regexp.MustCompile(`(half of the machine's memory) \(default [^)]*\)`)

// subName is what a subcommand's name looks like.
var subName = regexp.MustCompile(`^[a-z][a-z-]*$`)

// helpOf runs rlm args... with no environment and returns what it printed
// on stdout, with machine-dependent defaults replaced.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errb := runCLI(t, "", map[string]string{"HOME": t.TempDir(), "RLM_RUNS_DIR": ""}, args...)
	require.Equal(t, 0, code, "rlm %s: %s", strings.Join(args, " "), errb)
	require.NotEmpty(t, out, "rlm %s prints its help on stdout", strings.Join(args, " "))
	return machineDefault.ReplaceAllString(strings.TrimRight(out, "\n"), "$1 (default: half of this machine's memory)")
}

// cliReference renders docs/cli.md: rlm -h, then each command's -h and each
// subcommand's -h where it says more than the command's.
func cliReference(t *testing.T) string {
	var b strings.Builder
	b.WriteString("<!-- Generated from the commands' -h by `go generate ./docs` (TestCLIReference in cmd/rlm); DO NOT EDIT. -->\n\n")
	b.WriteString("# CLI reference\n\n")
	b.WriteString("Every command and subcommand of `rlm` with its usage and flags, as `rlm CMD -h`\n" +
		"prints them (on stdout; `rlm help CMD` is the same). Flags are grouped by purpose.\n" +
		"A flag can also be set by its environment variable where it names one, or in the\n" +
		"settings file (`rlm config CMD` prints the effective values; see\n" +
		"[operations.md](operations.md#configuration)). Defaults that depend on the\n" +
		"machine are shown as such.\n\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "- [`rlm %s`](#rlm-%s): %s\n", n, n, commands[n].summary)
	}
	fmt.Fprintf(&b, "\n## rlm\n\n```text\n%s\n```\n", helpOf(t, "-h"))
	subs := map[string][]string{}
	for _, w := range completionWords(context.Background(), &cliEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}) {
		subs[w.name] = w.subs
	}
	for _, n := range names {
		help := helpOf(t, n, "-h")
		fmt.Fprintf(&b, "\n## rlm %s\n\n%s.\n\n```text\n%s\n```\n", n, upperFirst(commands[n].summary), help)
		seen := map[string]string{body(help): "rlm " + n}
		for _, s := range subs[n] {
			if !subName.MatchString(s) {
				continue // an example's argument, e.g. a run ID after rlm view
			}
			sh := helpOf(t, n, s, "-h")
			name := "rlm " + n + " " + s
			if prev, ok := seen[body(sh)]; ok {
				fmt.Fprintf(&b, "\n### %s\n\nThe flags of `%s`.\n\n```text\n%s\n```\n", name, prev, usageLine(sh))
				continue
			}
			seen[body(sh)] = name
			fmt.Fprintf(&b, "\n### %s\n\n```text\n%s\n```\n", name, sh)
		}
	}
	return b.String()
}

// body is a help text without its usage line.
func body(help string) string {
	_, rest, _ := strings.Cut(help, "\n")
	return rest
}

// usageLine is a help text's first line.
func usageLine(help string) string {
	first, _, _ := strings.Cut(help, "\n")
	return first
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// The committed docs/cli.md is what the commands' help says: regenerate it
// with go generate ./docs (or go test ./cmd/rlm -run TestCLIReference
// -update) after changing a flag or a command.
func TestCLIReference(t *testing.T) {
	want := cliReference(t)
	for _, n := range []string{"run", "exec", "repl", "serve", "bench", "view", "store", "runs", "steward"} {
		assert.Contains(t, want, "\n## rlm "+n+"\n", n)
	}
	assert.Contains(t, want, "### rlm store put\n")
	assert.NotRegexp(t, `half of the machine's memory \(default \d`, want)
	if *update {
		require.NoError(t, os.WriteFile(cliReferenceFile, []byte(want), 0o644))
	}
	got, err := os.ReadFile(cliReferenceFile)
	require.NoError(t, err)
	assert.Equal(t, want, string(got), "docs/cli.md is stale: run go generate ./docs")
}
