package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// DefaultCommitInterval is how long a [Committer] lets writes gather
// before it commits them.
const DefaultCommitInterval = 50 * time.Millisecond

// Committer makes the writes of many files under one directory durable
// against a power loss in batches (group commit): a writer writes its file
// (or replaces it with Write and [Deferred]), which already survives the
// process being killed, and calls Note; within the commit interval one
// sync of the directory's whole file system (syncfs(2) on Linux, sync(2)
// on other Unix systems) makes every noted write durable at once, where
// an fsync per file per write would cost each writer a disk flush on its
// hot path. Writers do not wait for the commit; [Committer.Flush] does.
// A failed commit is kept: Err and every later Flush report it. The
// methods are safe for concurrent use; the zero value is not usable.
type Committer struct {
	dir      string
	interval time.Duration

	mu      sync.Mutex
	pending bool // a write was noted and no commit started since
	timer   *time.Timer
	closed  bool
	removes []string // old files swapped out by Write, removed at the next commit

	commitMu sync.Mutex // serializes commits
	err      error      // the first failed commit (under mu)
	commits  int        // commits made (under mu)
}

// NewCommitter returns a committer for the files under dir (which need
// not exist yet) committing every interval (DefaultCommitInterval when
// interval is not positive).
func NewCommitter(dir string, interval time.Duration) *Committer {
	if interval <= 0 {
		interval = DefaultCommitInterval
	}
	return &Committer{dir: dir, interval: interval}
}

// Note records that a file under the committer's directory was written:
// the next commit, within the interval, makes it durable. After Close,
// Note commits at once.
func (c *Committer) Note() {
	c.mu.Lock()
	c.noteLocked()
}

// remove has the next commit remove path (a file Write swapped out).
func (c *Committer) remove(path string) {
	c.mu.Lock()
	c.removes = append(c.removes, path)
	c.noteLocked()
}

// noteLocked schedules a commit (or, after Close, commits) and unlocks
// c.mu.
func (c *Committer) noteLocked() {
	if c.closed {
		c.pending = true
		c.mu.Unlock()
		_ = c.Flush()
		return
	}
	if !c.pending {
		c.pending = true
		if c.timer == nil {
			c.timer = time.AfterFunc(c.interval, func() { _ = c.Flush() })
		} else {
			c.timer.Reset(c.interval)
		}
	}
	c.mu.Unlock()
}

// Flush commits what was noted so far, if anything, and waits for it.
func (c *Committer) Flush() error {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	c.mu.Lock()
	pending, removes := c.pending, c.removes
	c.pending, c.removes = false, nil
	c.mu.Unlock()
	for _, path := range removes {
		_ = os.Remove(path)
	}
	if pending {
		// Writes noted from here on wait for the next commit: this one
		// may have started before they were made.
		err := syncFS(c.dir)
		c.mu.Lock()
		c.commits++
		if err != nil && c.err == nil {
			c.err = fmt.Errorf("atomicfile: commit %s: %w", c.dir, err)
		}
		c.mu.Unlock()
	}
	return c.Err()
}

// Err returns the first failed commit's error, or nil.
func (c *Committer) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Commits returns how many commits (file system syncs) were made.
func (c *Committer) Commits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.commits
}

// Close commits what is pending and stops the timer; later Notes commit
// at once.
func (c *Committer) Close() error {
	c.mu.Lock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	return c.Flush()
}

// withDir calls f with dir opened, or does nothing when dir does not exist
// (nothing was written under it).
func withDir(dir string, f func(*os.File) error) error {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	return f(d)
}
