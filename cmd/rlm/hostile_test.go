package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childEnv marks a re-executed test binary that runs the rlm command
// instead of the tests: hostile snippets run in a separate process, so a
// host crash, a runaway allocation or a hang is observed rather than
// suffered.
const childEnv = "RLM_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// Limits every hostile snippet runs under (issue 15's table used 512M and
// 20s; smaller here so that the suite stays fast).
const (
	hostileMemory  = 256 << 20
	hostileTimeout = 2 * time.Second
	// hostileKill is when the harness gives up on a child: well past the
	// step timeout, so a hang shows as a failure instead of a stuck suite.
	hostileKill = 60 * time.Second
)

// hostileSnippet is one row of the hostile-code table: model-written code
// that tries to exhaust memory, time or the Go stack. Each must end with
// exit status 1 and the Python-style error line want on stderr (e.g.
// "MemoryError", "TimeoutError", "ValueError: Exceeds the limit").
type hostileSnippet struct {
	name string
	code string
	want string
	// args are extra rlm exec flags (e.g. a smaller --max-recursion).
	args []string
}

// hostileSnippets is the table of issue 15: each class of attack and its
// neighbours. Other limits (depth, recursion) append their rows here.
var hostileSnippets = []hostileSnippet{
	// Memory.
	{name: "repeat str", code: "s = 'a' * 10**10", want: "MemoryError"},
	{name: "repeat list", code: "x = [0] * 10**10", want: "MemoryError"},
	// Time.
	{name: "busy loop", code: "while True:\n    pass", want: "TimeoutError"},
	// Depth: values nested far beyond the recursion limit, and cycles.
	{name: "str of a deep list", code: deepListCode + "s = str(x)", want: "RecursionError: maximum recursion depth exceeded while getting the repr of an object"},
	{name: "str of a deep tuple", code: "x = ()\nfor i in range(200000):\n    x = (x,)\ns = str(x)", want: "RecursionError: maximum recursion depth exceeded while getting the repr of an object"},
	{name: "helpers on a deep list", code: deepListCode + "y = [peek(x), search(x, 'a'), chunk(x, 1), summarize(x), find_relevant([x, 'a'], 'a')]\nprint(y)", want: "RecursionError: maximum recursion depth exceeded while getting the repr of an object"},
	{name: "deep comparison", code: deepListCode + "y = []\nfor i in range(200000):\n    y = [y]\nprint(x == y)", want: "RecursionError: maximum recursion depth exceeded in comparison"},
	{name: "json.dumps of a deep list", code: deepListCode + "s = json.dumps(x)", want: "RecursionError: maximum recursion depth exceeded while encoding a JSON object"},
	{name: "json.loads of deep nesting", code: "x = json.loads('[' * 10**6)", want: "RecursionError: maximum recursion depth exceeded while decoding a JSON array from a unicode string"},
	{name: "deepcopy of a deep list", code: "import copy\n" + deepListCode + "y = copy.deepcopy(x)", want: "RecursionError: maximum recursion depth exceeded while calling a Python object"},
	{name: "SUBMIT of a cyclic list", code: "x = []\nx.append(x)\nSUBMIT(x)", want: "ValueError: SUBMIT: output 'answer' cannot be submitted: Circular reference detected"},
	{name: "SUBMIT of a deep list", code: deepListCode + "SUBMIT(x)", want: "RecursionError: SUBMIT: output 'answer' cannot be submitted: maximum recursion depth exceeded"},
}

// deepListCode builds x, a list nested 200,000 levels deep.
const deepListCode = "x = []\nfor i in range(200000):\n    x = [x]\n"

// hostileResult is what one child process did.
type hostileResult struct {
	code    int
	stderr  string
	elapsed time.Duration
	maxRSS  int64 // peak resident set size in bytes
}

// runHostile runs rlm exec on code in a child process with the hostile
// limits plus args.
func runHostile(t *testing.T, code string, args ...string) hostileResult {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), hostileKill)
	defer cancel()
	full := append([]string{"exec", "--max-memory", formatSize(hostileMemory), "--step-timeout", hostileTimeout.String()}, args...)
	full = append(full, "-c", code)
	cmd := exec.CommandContext(ctx, exe, full...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	res := hostileResult{elapsed: time.Since(start), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		t.Fatalf("no answer after %s (killed); stderr:\n%s", hostileKill, tail(res.stderr, 2000))
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.maxRSS = int64(ru.Maxrss) << 10 // kilobytes on Linux
	}
	return res
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// TestHostileSnippets runs each hostile snippet through rlm exec in a
// child process and asserts that it ends with exit status 1 and a
// Python-style error instead of a crash, a hang or a runaway allocation.
// Under -v it logs the time to the error and the peak RSS as a ratio to
// the memory limit (a report, not an assertion: timings vary with load).
func TestHostileSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes; skipped with -short")
	}
	for _, tt := range hostileSnippets {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runHostile(t, tt.code, tt.args...)
			t.Logf("%-28s time to error %6.2fs (%.2f x step timeout)  peak RSS %5d MB (%.2f x limit)",
				tt.name, res.elapsed.Seconds(), res.elapsed.Seconds()/hostileTimeout.Seconds(),
				res.maxRSS>>20, float64(res.maxRSS)/float64(hostileMemory))
			assert.Equal(t, 1, res.code, "stderr:\n%s", tail(res.stderr, 2000))
			assert.Contains(t, res.stderr, tt.want)
			assert.NotContains(t, res.stderr, "goroutine ", "Go runtime dump")
			assert.NotContains(t, res.stderr, "fatal error")
			assert.True(t, strings.Count(res.stderr, "\n") < 40, "short error, got:\n%s", tail(res.stderr, 2000))
		})
	}
}
