package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oomDump is the start of what Go prints when it runs out of memory.
const oomDump = `runtime: out of memory: cannot allocate 268435456-byte block (7995392 in use)
fatal error: out of memory

goroutine 1 gp=0x172e9c4681e0 m=4 mp=0x172e9c4b5808 [running]:
runtime.throw({0xcb7664?, 0x423585?})
	/usr/local/go/src/runtime/panic.go:1229 +0x48
goroutine 7 gp=0x172e9c468000 m=nil [GC worker (idle)]:
runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)
`

// TestFilterCrash: the crash filter copies ordinary output through,
// replaces the runtime's dump of an out-of-memory or stack-overflow crash
// by one line, and leaves any other crash (a bug) whole.
func TestFilterCrash(t *testing.T) {
	panicDump := "panic: runtime error: index out of range [3] with length 1\n\ngoroutine 1 [running]:\nmain.main()\n"
	tests := []struct {
		name, in, want string
	}{
		{"ordinary lines", "WARNING: DATA RACE\nRead at 0x00c0000a4000\n", "WARNING: DATA RACE\nRead at 0x00c0000a4000\n"},
		{"no final newline", "a log line", "a log line"},
		{"out of memory", "a log line\n" + oomDump, "a log line\nrlm: MemoryError: out of memory: the system refused rlm more memory"},
		{
			"out of memory in a goroutine",
			"fatal error: runtime: out of memory\n\nruntime stack:\nruntime.throw()\n",
			"rlm: MemoryError: out of memory",
		},
		{
			"no thread for cgo",
			"runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\nPC=0x7fbcb0ccdeec m=3\n\ngoroutine 0 gp=0x1a8f9a504f00 m=3 [idle]:\n",
			"rlm: MemoryError: out of memory",
		},
		{
			"stack overflow",
			"runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=0x1af56ebe0390\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw()\n",
			"rlm: RecursionError: maximum recursion depth exceeded (the Go stack overflowed)",
		},
		{
			"another fatal error stays whole",
			"fatal error: concurrent map writes\n\ngoroutine 1 [running]:\nmain.f()\n",
			"fatal error: concurrent map writes\n\ngoroutine 1 [running]:\nmain.f()\n",
		},
		{"a panic passes through", panicDump, panicDump},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			filterCrash(strings.NewReader(tt.in), &out)
			assert.True(t, strings.HasPrefix(out.String(), tt.want), "got %q", out.String())
			assert.NotContains(t, strings.TrimPrefix(out.String(), tt.in), "goroutine ", "no dump")
			if strings.Contains(tt.want, "Error:") {
				assert.Equal(t, 1, strings.Count(strings.TrimPrefix(out.String(), "a log line\n"), "\n"), "one line: %q", out.String())
			}
		})
	}
}

// TestOutOfMemoryUnderUlimit runs rlm exec under an address-space limit
// (ulimit -v) with memory limits above it, so that Go itself runs out of
// memory: the process reports one MemoryError line instead of the
// runtime's goroutine dump. The race detector's runtime cannot start
// under such a limit, so this test runs only without -race.
func TestOutOfMemoryUnderUlimit(t *testing.T) {
	if raceEnabled {
		t.Skip("the race runtime cannot start under ulimit -v; run without -race")
	}
	if testing.Short() {
		t.Skip("child process; skipped with -short")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh for ulimit")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	code := "s = 'a' * (2**28)\nt = s + s\nu = t + t\nv = u + u\nprint(len(v))"
	cmd, _, stderr := childCommand(context.Background(), t, nil, "-c", `ulimit -v 2000000 && exec "$0" "$@"`,
		exe, "exec", "--max-memory", "4G", "--max-session-memory", "8G", "-c", code)
	cmd.Path, cmd.Args[0] = sh, sh
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr:\n%s", tail(stderr.String(), 2000))
	assert.Equal(t, 2, ee.ExitCode(), "the runtime's exit status")
	out := stderr.String()
	assert.True(t, strings.Contains(out, "rlm: MemoryError: out of memory"), "MemoryError line:\n%s", tail(out, 2000))
	assert.False(t, strings.Contains(out, "goroutine "), "no goroutine dump:\n%s", tail(out, 2000))
	assert.Less(t, strings.Count(out, "\n"), 5, "a short report:\n%s", tail(out, 2000))
}
