package main

import (
	"bytes"
	"cmp"
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

// childCommand prepares rlm with args in a child process (the test binary
// re-executed, see TestMain) in a temporary directory, with env added to
// the test's environment and stdout and stderr captured.
func childCommand(ctx context.Context, t *testing.T, env map[string]string, args ...string) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd = exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = t.TempDir()
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd, stdout, stderr
}

// Limits every hostile snippet runs under unless its row says otherwise
// (issue 15's table used 512M and 20s). The step timeout is long so that a
// memory row ends by memory even on a loaded machine; time rows set a
// short one.
const (
	hostileMemory  = 256 << 20
	hostileTimeout = 20 * time.Second
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
	// timeout replaces hostileTimeout as --step-timeout (time rows).
	timeout time.Duration
	// memory replaces hostileMemory as --max-memory.
	memory int64
}

// hostileSnippets is the table of issue 15: each class of attack and its
// neighbours. Other limits (depth, recursion) append their rows here.
var hostileSnippets = []hostileSnippet{
	// Memory: builtins refuse before allocating.
	{name: "repeat str", code: "s = 'a' * 10**10", want: "MemoryError"},
	{name: "repeat list", code: "x = [0] * 10**10", want: "MemoryError"},
	{name: "str.replace", code: "s = ('a'*10**6).replace('a', 'b'*10**4)", want: "MemoryError"},
	{name: "dict.fromkeys(range)", code: "x = dict.fromkeys(range(10**8))", want: "MemoryError"},
	{name: "set(range)", code: "x = set(range(10**8))", want: "MemoryError"},
	{name: "str.expandtabs", code: "s = ('\t'*10**6).expandtabs(2000)", want: "MemoryError"},
	{name: "list(range)", code: "x = list(range(10**9))", want: "MemoryError"},
	{name: "sorted(range)", code: "x = sorted(range(10**9))", want: "MemoryError"},
	{name: "str.join", code: "s = ''.join(['a'*10**6]*2000)", want: "MemoryError"},
	{name: "join of a generator", code: "s = ''.join('a'*10**5 for _ in range(10**5))", want: "MemoryError", memory: 64 << 20},
	{name: "format width", code: "s = '{:>2000000000}'.format(1)", want: "MemoryError"},
	{name: "percent width", code: "s = '%2000000000d' % 1", want: "MemoryError"},
	{name: "str.center", code: "s = 'a'.center(10**10)", want: "MemoryError"},
	{name: "re.findall", code: "import re\nx = re.findall('a', 'a'*10**8)", want: "MemoryError"},
	{name: "re.sub", code: "import re\nx = re.sub('a', 'b'*10**4, 'a'*10**6)", want: "MemoryError"},
	{name: "bigint squaring", code: "x = 7\nwhile True:\n    x = x * x", want: "MemoryError"},
	{name: "bigint power", code: "x = 10 ** (10 ** 9)", want: "MemoryError"},
	{name: "math.factorial", code: "import math\nx = math.factorial(10**7)", want: "MemoryError"},
	{name: "math.comb", code: "import math\nx = math.comb(10**7, 5*10**6)", want: "MemoryError"},
	// Memory: growth in interpreted code (the interpreter's grow check,
	// the watchdog behind it).
	{name: "comprehension growth", code: "x = ['a'*1000 + str(i) for i in range(10**8)]", want: "MemoryError", memory: 64 << 20},
	{name: "append growth", code: "x = []\nwhile True:\n    x.append('%d' % len(x) * 100)", want: "MemoryError", memory: 64 << 20},
	{name: "list comprehension of ints", code: "x = [i for i in range(10**9)]", want: "MemoryError", memory: 64 << 20},
	{name: "dict comprehension", code: "x = {i: i for i in range(10**9)}", want: "MemoryError", memory: 64 << 20},
	{name: "string doubling", code: "s = 'a'\nwhile True:\n    s = s + s", want: "MemoryError: cannot allocate", memory: 64 << 20},
	{name: "list doubling", code: "x = [0]\nwhile True:\n    x = x + x", want: "MemoryError: cannot allocate", memory: 64 << 20},
	// Time.
	{name: "busy loop", code: "while True:\n    pass", want: "TimeoutError", timeout: 2 * time.Second},
	{name: "3-argument pow", code: "x = pow(5, 7**(2**20), 3**(2**16)+2)", want: "TimeoutError", timeout: 2 * time.Second},
	{
		name: "int(str) digits",
		code: "x = int('9' * 5*10**6)",
		want: "ValueError: Exceeds the limit (4300 digits) for integer string conversion: value has 5000000 digits",
	},
	{
		name: "str(int) digits",
		code: "x = '%d' % 10**100000",
		want: "ValueError: Exceeds the limit (4300 digits) for integer string conversion",
	},
	// Depth: values nested far beyond the recursion limit, and cycles.
	{
		name: "str of a deep list",
		code: deepListCode + "s = str(x)",
		want: "RecursionError: maximum recursion depth exceeded while getting the repr of an object",
	},
	{
		name: "str of a deep tuple",
		code: deepTupleCode + "s = str(x)",
		want: "RecursionError: maximum recursion depth exceeded while getting the repr of an object",
	},
	{
		name: "helpers on a deep list",
		code: deepListCode + "y = [peek(x), search(x, 'a'), chunk(x, 1), summarize(x), find_relevant([x, 'a'], 'a')]\nprint(y)",
		want: "RecursionError: maximum recursion depth exceeded while getting the repr of an object",
	},
	{
		name: "deep comparison",
		code: deepListCode + "y = []\nfor i in range(200000):\n    y = [y]\nprint(x == y)",
		want: "RecursionError: maximum recursion depth exceeded in comparison",
	},
	{
		name: "dict key of a deep tuple",
		code: deepTupleCode + "d = {x: 1}",
		want: "RecursionError: maximum recursion depth exceeded while calling a Python object",
	},
	{
		name: "set membership of a deep tuple",
		code: deepTupleCode + "s = set([1])\nprint(x in s)",
		want: "RecursionError: maximum recursion depth exceeded while calling a Python object",
	},
	{
		name: "hash of a deep tuple",
		code: deepTupleCode + "print(hash(x))",
		want: "RecursionError: maximum recursion depth exceeded while calling a Python object",
	},
	{
		name: "deep tuple comparison",
		code: deepTupleCode + "y = ()\nfor i in range(200000):\n    y = (y,)\nprint(x == y)",
		want: "RecursionError: maximum recursion depth exceeded in comparison",
	},
	{
		name: "sorting deep tuples",
		code: deepTupleCode + "y = (x,)\nprint(sorted([x, y]))",
		want: "RecursionError: maximum recursion depth exceeded in comparison",
	},
	{
		name: "percent format of a deep tuple",
		code: deepTupleCode + "print('%s' % (x,))",
		want: "RecursionError: maximum recursion depth exceeded while getting the repr of an object",
	},
	{
		name: "json.dumps of a deep list",
		code: deepListCode + "s = json.dumps(x)",
		want: "RecursionError: maximum recursion depth exceeded while encoding a JSON object",
	},
	{
		name: "json.loads of deep nesting",
		code: "x = json.loads('[' * 10**6)",
		want: "RecursionError: maximum recursion depth exceeded while decoding a JSON array from a unicode string",
	},
	{
		name: "deepcopy of a deep list",
		code: "import copy\n" + deepListCode + "y = copy.deepcopy(x)",
		want: "RecursionError: maximum recursion depth exceeded while calling a Python object",
	},
	{
		name: "SUBMIT of a cyclic list",
		code: "x = []\nx.append(x)\nSUBMIT(x)",
		want: "ValueError: SUBMIT: output 'answer' cannot be submitted: Circular reference detected",
	},
	{
		name:    "SUBMIT of a shared value",
		code:    sharedCode + "SUBMIT(x)",
		want:    "\nTimeoutError: time limit exceeded",
		timeout: 2 * time.Second,
	},
	{name: "str of a shared value", code: sharedCode + "s = str(x)", want: "\nTimeoutError: time limit exceeded", timeout: 2 * time.Second},
	{
		name: "SUBMIT of a deep list",
		code: deepListCode + "SUBMIT(x)",
		want: "RecursionError: SUBMIT: output 'answer' cannot be submitted: maximum recursion depth exceeded",
	},
}

// sharedCode builds x, a list shared at every level of its nesting: 2**80
// leaves in 81 small lists, so walking it is bounded by time, not depth.
const sharedCode = "x = [1]\nfor i in range(80):\n    x = [x, x]\n"

// deepListCode and deepTupleCode build x, a list or a tuple nested
// 200,000 levels deep.
const (
	deepListCode  = "x = []\nfor i in range(200000):\n    x = [x]\n"
	deepTupleCode = "x = ()\nfor i in range(200000):\n    x = (x,)\n"
)

// hostileResult is what one child process did.
type hostileResult struct {
	code    int
	stderr  string
	elapsed time.Duration
	maxRSS  int64 // peak resident set size in bytes
}

// runHostile runs rlm exec on code in a child process with the given
// limits plus args.
func runHostile(t *testing.T, code string, memory int64, timeout time.Duration, args ...string) hostileResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileKill)
	defer cancel()
	full := append([]string{"exec", "--max-memory", formatSize(memory), "--step-timeout", timeout.String()}, args...)
	full = append(full, "-c", code)
	cmd, _, stderr := childCommand(ctx, t, nil, full...)
	start := time.Now()
	err := cmd.Run()
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
			timeout := cmp.Or(tt.timeout, hostileTimeout)
			memory := cmp.Or(tt.memory, hostileMemory)
			res := runHostile(t, tt.code, memory, timeout, tt.args...)
			t.Logf("%-28s time to error %6.2fs (%.2f x step timeout)  peak RSS %5d MB (%.2f x limit)",
				tt.name, res.elapsed.Seconds(), res.elapsed.Seconds()/timeout.Seconds(),
				res.maxRSS>>20, float64(res.maxRSS)/float64(memory))
			assert.Equal(t, 1, res.code, "stderr:\n%s", tail(res.stderr, 2000))
			assert.Contains(t, res.stderr, tt.want)
			assert.NotContains(t, res.stderr, "goroutine ", "Go runtime dump")
			assert.NotContains(t, res.stderr, "fatal error")
			assert.True(t, strings.Count(res.stderr, "\n") < 40, "short error, got:\n%s", tail(res.stderr, 2000))
		})
	}
}

// TestSessionMemoryAcrossSteps: steps that each keep memory end, once the
// session's total passes --max-session-memory, with a MemoryError for the
// offending step; the session (and the process) goes on.
func TestSessionMemoryAcrossSteps(t *testing.T) {
	steps := "a = 'x' * (30 * 2**20)\nb = 'x' * (30 * 2**20)\nc = 'x' * (30 * 2**20)\nd = 'x' * (30 * 2**20)\nprint('alive', len(a) + len(c))\n"
	code, out, errOut := runCLI(t, steps, nil, "repl", "--max-memory", "64M", "--max-session-memory", "100M")
	assert.Equal(t, 1, code, "a failed input: %s", errOut)
	assert.Contains(t, errOut, "MemoryError: cannot allocate 30 MB")
	assert.Contains(t, errOut, "session memory limit (100 MB across steps)")
	assert.Equal(t, "alive 62914560\n", out)
}
