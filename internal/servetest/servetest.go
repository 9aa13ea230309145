// Package servetest starts an rlm serve process for the tests of other
// packages (the SDK conformance suite, the examples) and waits until it
// listens.
package servetest

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Start starts cmd, an rlm serve listening on a free loopback port (its
// JSON log on stderr, which Start reads), waits for its "listening" line
// and returns its base URL (http://ADDR/v1). The process gets SIGTERM at
// the end of the test, and is killed if it has not exited 10 s later.
// The test fails if the process stops, or does not listen within 30 s.
func Start(t testing.TB, cmd *exec.Cmd) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	exited := make(chan string, 1) // what it said before it stopped without listening
	go func() {
		sc := bufio.NewScanner(stderr)
		var said []string
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				addr <- line.Addr
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
			said = append(said, sc.Text())
		}
		exited <- strings.Join(said, "\n")
	}()
	select {
	case a := <-addr:
		return "http://" + a + "/v1"
	case said := <-exited:
		t.Fatalf("rlm serve stopped without listening:\n%s", said)
	case <-time.After(30 * time.Second):
		t.Fatal("rlm serve did not start listening within 30s")
	}
	return ""
}
