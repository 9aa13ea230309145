package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrite: each way of writing replaces the content, with the
// permissions asked, and leaves no temporary file behind; a deferred
// write is committed by its committer, which removes the old file a
// deferred write swapped out (on Linux).
func TestWrite(t *testing.T) {
	c := NewCommitter(t.TempDir(), time.Hour)
	tests := []struct {
		name string
		perm os.FileMode
		opts []Option
	}{
		{"synced", 0o644, nil},
		{"no sync", 0o600, []Option{NoSync()}},
		{"deferred", 0o644, []Option{Deferred(c)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			require.NoError(t, Write(path, []byte("old"), tt.perm, tt.opts...))
			require.NoError(t, Write(path, []byte("new"), tt.perm, tt.opts...))
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "new", string(b))
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, tt.perm, fi.Mode().Perm())
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			if tt.name == "deferred" && runtime.GOOS == "linux" {
				require.Len(t, ents, 2, "the old file, swapped out, until the commit")
				old, err := os.ReadFile(filepath.Join(dir, ents[0].Name()))
				require.NoError(t, err)
				assert.Equal(t, "old", string(old))
				require.NoError(t, c.Flush())
				ents, err = os.ReadDir(dir)
				require.NoError(t, err)
			}
			assert.Len(t, ents, 1, "no temporary file left")
		})
	}
	require.NoError(t, Write(filepath.Join(t.TempDir(), "g"), []byte("x"), 0o600, Deferred(c)))
	before := c.Commits()
	require.NoError(t, c.Flush())
	assert.Equal(t, before+1, c.Commits(), "the deferred writes are committed by one sync")
	require.NoError(t, c.Flush())
	assert.Equal(t, before+1, c.Commits(), "nothing noted: no sync")
}

// TestCommitterGroups: writes noted by many writers at once are made
// durable by a few file system syncs, within the interval, without the
// writers waiting; Close commits what is left.
func TestCommitterGroups(t *testing.T) {
	dir := t.TempDir()
	c := NewCommitter(dir, 20*time.Millisecond)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				require.NoError(t, Write(filepath.Join(dir, fmt.Sprintf("f%d", i)), []byte(strconv.Itoa(j)), 0o600, Deferred(c)))
			}
		}()
	}
	wg.Wait()
	assert.Less(t, c.Commits(), 64*10/4, "640 writes, far fewer syncs")
	assert.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return !c.pending
	}, 5*time.Second, 5*time.Millisecond, "committed within the interval")
	c.Note()
	require.NoError(t, c.Close())
	c.mu.Lock()
	assert.False(t, c.pending, "Close commits")
	c.mu.Unlock()
	n := c.Commits()
	c.Note()
	assert.Equal(t, n+1, c.Commits(), "after Close a note commits at once")
	require.NoError(t, c.Err())
}

// killEnv makes the test binary a writer that replaces a file in a loop
// until it is killed (TestKilledWriterLeavesWholeFile).
const killEnv = "ATOMICFILE_TEST_KILL_WRITER"

// TestKilledWriterLeavesWholeFile: a process killed with SIGKILL while it
// replaces a file again and again with deferred (unsynced) writes leaves
// one whole version of the content, never a torn or empty one.
func TestKilledWriterLeavesWholeFile(t *testing.T) {
	if path := os.Getenv(killEnv); path != "" {
		c := NewCommitter(filepath.Dir(path), time.Millisecond)
		for i := 0; ; i++ {
			data := fmt.Sprintf("%08d %0*d", i, 64<<10, i)
			if err := Write(path, []byte(data), 0o600, Deferred(c)); err != nil {
				panic(err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "run.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesWholeFile$")
	cmd.Env = append(os.Environ(), killEnv+"="+path)
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(path)
		return len(b) > 0 && b[0] >= '0' && string(b[:8]) > "00000010"
	}, 30*time.Second, time.Millisecond, "the writer writes")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Len(t, b, 9+64<<10, "a whole version")
	i, err := strconv.Atoi(string(b[:8]))
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%08d %0*d", i, 64<<10, i), string(b))
}

// TestWriteOverDirectory: replacing a directory fails (rename(2) refuses
// it without the stat os.Rename adds) and leaves the directory as it was,
// with no temporary file beside it.
func TestWriteOverDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	require.NoError(t, os.Mkdir(path, 0o755))
	c := NewCommitter(dir, time.Hour)
	for _, opts := range [][]Option{{NoSync()}, {Deferred(c)}} {
		require.Error(t, Write(path, []byte("x"), 0o600, opts...))
		require.NoError(t, c.Flush())
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.True(t, fi.IsDir())
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, ents, 1, "no temporary file left")
	}
}

// TestCreate: Create writes a new file in place, with the permissions
// asked and each way of syncing (a deferred one noted to its committer),
// and refuses an existing file with fs.ErrExist, leaving it as it was.
func TestCreate(t *testing.T) {
	c := NewCommitter(t.TempDir(), time.Hour)
	tests := []struct {
		name string
		opts []Option
	}{
		{"synced", nil},
		{"no sync", []Option{NoSync()}},
		{"deferred", []Option{Deferred(c)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "result.json")
			require.NoError(t, Create(path, []byte("new"), 0o600, tt.opts...))
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "new", string(b))
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

			err = Create(path, []byte("again"), 0o640, tt.opts...)
			assert.ErrorIs(t, err, fs.ErrExist)
			b, err = os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "new", string(b), "an existing file is left as it was")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file")
		})
	}
	before := c.Commits()
	require.NoError(t, c.Flush())
	assert.Equal(t, before+1, c.Commits(), "the deferred Create was noted and is committed")
}

// TestSpare: a spare made ahead of a write is the temporary file the
// write then fills and renames over its path (with the permissions
// asked); it writes once; an unused spare's Close removes its file.
func TestSpare(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	s, err := NewSpare(path)
	require.NoError(t, err)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	assert.True(t, strings.HasPrefix(ents[0].Name(), ".result.json.tmp"), "the spare, hidden beside path")
	require.NoError(t, s.Write([]byte("done"), 0o644, NoSync()))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "done", string(b))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	ents, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "the spare became path")
	assert.ErrorIs(t, s.Write([]byte("again"), 0o644, NoSync()), os.ErrClosed)
	require.NoError(t, s.Close(), "a no-op after Write")

	unused, err := NewSpare(filepath.Join(dir, "run.json"))
	require.NoError(t, err)
	require.NoError(t, unused.Close())
	ents, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "an unused spare is removed")
	require.NoError(t, (*Spare)(nil).Close())
}
