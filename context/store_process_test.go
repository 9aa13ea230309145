//go:build unix

package rlmctx

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	helperEnv    = "RLMCTX_STORE_HELPER"
	helperDirEnv = "RLMCTX_STORE_DIR"
	helperNEnv   = "RLMCTX_STORE_N"
)

// TestHelperProcess is not a test: the tests below run the test binary as a
// child process in one of these modes.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process for other tests")
	}
	dir := os.Getenv(helperDirEnv)
	n, _ := strconv.Atoi(os.Getenv(helperNEnv))
	s, err := OpenStore(StoreConfig{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	switch mode {
	case "pause-mid-write":
		// Write a large value; halfway through, announce it and hang until killed.
		testHookWrite = func(written int64) {
			if written >= int64(n)/2 {
				os.Stdout.WriteString("MID\n")
				select {}
			}
		}
		_, err = s.Set("big", strings.Repeat("b", n), WithPersist())
	case "pause-then-finish":
		// As pause-mid-write, but go on when a line arrives on stdin.
		var once bool
		testHookWrite = func(written int64) {
			if written >= int64(n)/2 && !once {
				once = true
				os.Stdout.WriteString("MID\n")
				bufio.NewReader(os.Stdin).ReadString('\n')
			}
		}
		_, err = s.Set("big", strings.Repeat("b", n), WithPersist())
	case "write-loop":
		for i := 0; ; i++ {
			c := string(rune('c' + i%20))
			if _, err = s.Set("big", strings.Repeat(c, n), WithPersist()); err != nil {
				break
			}
			fmt.Fprintf(os.Stdout, "COMMITTED %d\n", i)
		}
	case "increment":
		for i := 0; i < n && err == nil; i++ {
			_, err = s.Update("counter", func(old any, ok bool) (any, error) {
				if !ok {
					return int64(1), nil
				}
				return old.(int64) + 1, nil
			})
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	s.Close()
	os.Exit(0)
}

// helperCmd returns a command running TestHelperProcess in mode; a child
// still running when the test ends (say, after a failed assertion) is killed.
func helperCmd(t *testing.T, mode, dir string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDirEnv+"="+dir, helperNEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	t.Cleanup(func() {
		if cmd.Process != nil && cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

// waitLine reads lines from r until one starts with prefix.
func waitLine(t *testing.T, r *bufio.Reader, prefix string) {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		require.NoError(t, err, "child exited before printing %q", prefix)
		if strings.HasPrefix(line, prefix) {
			return
		}
	}
}

func TestStoreSIGKILLMidWrite(t *testing.T) {
	const size = 8 << 20
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: dir})
	old := strings.Repeat("a", size)
	_, err := s.Set("big", old, WithPersist())
	require.NoError(t, err)
	require.NoError(t, s.Close())

	cmd := helperCmd(t, "pause-mid-write", dir, size)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	waitLine(t, bufio.NewReader(out), "MID")
	tmps, _ := filepath.Glob(filepath.Join(dir, tmpPrefix+"*"))
	assert.NotEmpty(t, tmps, "the child is mid-write: its temp file exists")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	s2, err := OpenStore(StoreConfig{Dir: dir})
	require.NoError(t, err)
	defer s2.Close()
	assert.Empty(t, s2.Warnings(), "opens cleanly")
	v, ref, err := s2.GetRef("big")
	require.NoError(t, err)
	str, _ := v.(string)
	assert.Len(t, str, size)
	assert.True(t, str == old, "old value intact (not the child's half-written b's)")
	assert.EqualValues(t, 1, ref.Version)
	tmps, _ = filepath.Glob(filepath.Join(dir, tmpPrefix+"*"))
	assert.Empty(t, tmps, "the dead writer's temp file was cleaned up")
}

// TestStoreOtherProcessTempSurvivesOpen: opening the store (rlm store ls)
// while another process is mid-write leaves that writer's temp file alone,
// and the writer then commits.
func TestStoreOtherProcessTempSurvivesOpen(t *testing.T) {
	const size = 4 << 20
	dir := t.TempDir()
	cmd := helperCmd(t, "pause-then-finish", dir, size)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	waitLine(t, bufio.NewReader(out), "MID")
	tmps, _ := filepath.Glob(filepath.Join(dir, tmpPrefix+"*-*"))
	require.Len(t, tmps, 1, "the child is mid-write")
	old := time.Now().Add(-2 * tempMaxAge)
	require.NoError(t, os.Chtimes(tmps[0], old, old)) // age alone does not condemn it

	s := openStore(t, StoreConfig{Dir: dir})
	assert.Empty(t, s.List(Filter{}))
	assert.FileExists(t, tmps[0], "the live writer's temp file survives another process's open")
	require.NoError(t, s.Close())

	_, err = in.Write([]byte("go\n"))
	require.NoError(t, err)
	require.NoError(t, cmd.Wait(), "the writer commits")
	s2 := openStore(t, StoreConfig{Dir: dir})
	ref, err := s2.Ref("big")
	require.NoError(t, err)
	assert.EqualValues(t, size, ref.SizeBytes)
}

func TestStoreSIGKILLWriteLoop(t *testing.T) {
	const size = 2 << 20
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: dir})
	_, err := s.Set("big", strings.Repeat("a", size), WithPersist())
	require.NoError(t, err)
	require.NoError(t, s.Close())

	cmd := helperCmd(t, "write-loop", dir, size)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r := bufio.NewReader(out)
	waitLine(t, r, "COMMITTED 2")
	go io.Copy(io.Discard, r)
	time.Sleep(3 * time.Millisecond) // land somewhere inside a later write
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	s2, err := OpenStore(StoreConfig{Dir: dir})
	require.NoError(t, err)
	defer s2.Close()
	assert.Empty(t, s2.Warnings())
	v, ref, err := s2.GetRef("big")
	require.NoError(t, err)
	str := v.(string)
	require.Len(t, str, size, "a complete value")
	assert.Equal(t, strings.Repeat(str[:1], size), str, "one whole version, not a mix")
	assert.GreaterOrEqual(t, ref.Version, int64(4))
	// The store stays writable (the dead child's lock was released).
	_, err = s2.SetIfVersion("big", "next", ref.Version)
	require.NoError(t, err)
}

func TestStoreCASTwoProcesses(t *testing.T) {
	const perProcess = 40
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for i := 0; i < 2; i++ {
		cmd := helperCmd(t, "increment", dir, perProcess)
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	// This process increments too, concurrently.
	s := openStore(t, StoreConfig{Dir: dir})
	for i := 0; i < perProcess; i++ {
		_, err := s.Update("counter", func(old any, ok bool) (any, error) {
			if !ok {
				return int64(1), nil
			}
			return old.(int64) + 1, nil
		})
		require.NoError(t, err)
	}
	for _, c := range cmds {
		require.NoError(t, c.Wait())
	}
	v, ref, err := s.GetRef("counter")
	require.NoError(t, err)
	assert.Equal(t, int64(3*perProcess), v, "no lost update across processes")
	assert.EqualValues(t, 3*perProcess, ref.Version)
}
