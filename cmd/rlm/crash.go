package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// When Go itself runs out of memory (under `ulimit -v`, or when the
// sandbox's checks underestimate an allocation) or overflows its stack,
// the runtime prints "fatal error: ..." followed by the stack of every
// goroutine, hundreds of lines, and exits with status 2. No recover,
// debug.SetTraceback or GOTRACEBACK=none changes that: the runtime forces
// full tracebacks for its own throws. So that such a crash ends with one
// clear Python-style line instead, rlm exec, run, repl, bench and serve route
// file descriptor 2 through a small filter process (rlm itself, started
// with crashFilterEnv):
//
//   - rlm's own messages do not pass through it: os.Stderr becomes a
//     duplicate of the original standard error, so terminal detection,
//     colours and the order of messages are unchanged;
//   - only what the Go runtime writes to descriptor 2 reaches the filter
//     (a crash, a race detector report, a log line written before the
//     switch); it copies that through line by line until a fatal runtime
//     error begins, then reads the rest and replaces the dump of an
//     out-of-memory or stack-overflow crash by one line (crashLine). Any
//     other crash, a bug, is copied through whole;
//   - the filter ignores SIGINT, SIGTERM and SIGQUIT and ends when its input
//     closes, that is when rlm exits by any means (kill -9 included). It
//     holds no lock and no other descriptor of rlm's, so a killed run is
//     seen as killed and can be resumed at once; rlm keeps its process id
//     and receives its signals as before.
//
// The exit status of a crash stays the runtime's 2. Setting GOTRACEBACK
// (to any value) turns the filter off, for debugging the runtime's dump.

// crashFilterEnv marks the process that filters rlm's descriptor 2.
const crashFilterEnv = "RLM_CRASH_FILTER"

// crashCommands are the commands that run model-written code.
var crashCommands = map[string]bool{"exec": true, "run": true, "repl": true, "bench": true, "serve": true}

// guardCrashes starts the crash filter for a command that runs model
// code, making os.Stderr a duplicate of the original standard error and
// descriptor 2 the filter's input. It does nothing when it cannot (the
// crash is then reported as the runtime reports it).
func guardCrashes(args []string) {
	if len(args) == 0 || !crashCommands[args[0]] || os.Getenv("GOTRACEBACK") != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	// The original standard error, close-on-exec, for rlm's own messages.
	orig, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 2, syscall.F_DUPFD_CLOEXEC, 3)
	if errno != 0 {
		return
	}
	stderr := os.NewFile(orig, "/dev/stderr")
	pr, pw, err := os.Pipe()
	if err != nil {
		stderr.Close()
		return
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), crashFilterEnv+"=1")
	// The filter writes to its descriptor 3; its own standard error
	// (package init messages) goes nowhere.
	cmd.Stdin, cmd.ExtraFiles = pr, []*os.File{stderr}
	err = cmd.Start()
	pr.Close()
	if err == nil {
		err = syscall.Dup3(int(pw.Fd()), 2, 0)
	}
	pw.Close()
	if err != nil {
		stderr.Close()
		return
	}
	os.Stderr = stderr
	// The filter ends when descriptor 2 closes, with rlm; nothing waits
	// for it but init.
	_ = cmd.Process.Release()
}

// runCrashFilter is the filter process: it copies standard input to
// descriptor 3 (rlm's original standard error) through filterCrash until
// its input closes.
func runCrashFilter() {
	signal.Ignore(os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT)
	filterCrash(os.Stdin, os.NewFile(3, "stderr"))
}

// filterCrash copies r to w line by line until a fatal runtime error
// begins; then it reads the rest and writes crashLine's line for an
// out-of-memory or stack-overflow crash, or the crash text unchanged.
func filterCrash(r io.Reader, w io.Writer) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if crashStart(line) {
			rest, _ := io.ReadAll(br)
			text := line + string(rest)
			if msg, ok := crashLine(text); ok {
				io.WriteString(w, msg+"\n")
			} else {
				io.WriteString(w, text)
			}
			return
		}
		if line != "" {
			if _, werr := io.WriteString(w, line); werr != nil {
				io.Copy(io.Discard, br) // keep draining: rlm must not block on a full pipe
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// crashStart reports whether line begins the report of a fatal runtime
// error.
func crashStart(line string) bool {
	for _, p := range []string{"fatal error: ", "runtime: out of memory", "runtime: goroutine stack exceeds", "runtime: cannot allocate memory", "runtime: failed to create new OS thread", "runtime/cgo: pthread_create failed"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// crashLine is the one line that replaces the runtime's report of an
// out-of-memory or stack-overflow crash; ok is false for other crashes.
func crashLine(text string) (msg string, ok bool) {
	head := text
	if i := strings.Index(text, "\ngoroutine "); i >= 0 {
		head = text[:i]
	}
	if i := strings.Index(head, "\nruntime stack:"); i >= 0 {
		head = head[:i]
	}
	switch {
	case strings.Contains(head, "out of memory") || strings.Contains(head, "cannot allocate memory") ||
		strings.Contains(head, "failed to create new OS thread") || strings.Contains(head, "failed to reserve") ||
		strings.Contains(head, "pthread_create failed"):
		return "rlm: MemoryError: out of memory: the system refused rlm more memory (an address-space limit such as ulimit -v, or the machine's memory) before rlm's own limits were reached; lower --max-memory and --max-session-memory below what the system allows, or raise that limit", true
	case strings.Contains(head, "stack overflow") || strings.Contains(head, "goroutine stack exceeds"):
		return "rlm: RecursionError: maximum recursion depth exceeded (the Go stack overflowed); lower --max-recursion", true
	}
	return "", false
}
