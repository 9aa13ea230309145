// Package atomicfile writes files so that a reader, or a process that
// restarts after a crash, sees the old content or the new one, never a
// torn mix: data goes to a synced temporary file in the same directory,
// which is then renamed over the target. A [Committer] batches the syncs
// of many such writes (group commit).
package atomicfile

import (
	"os"
	"path/filepath"
)

// Option changes how Write writes.
type Option func(*options)

type options struct {
	noSync bool
	commit *Committer
}

// NoSync skips the fsyncs: a killed process still leaves the old or the
// new content, only a power loss may lose the update. For frequent
// progress writes.
func NoSync() Option { return func(o *options) { o.noSync = true } }

// Deferred skips the fsyncs and notes the write to c instead, whose next
// commit (within its interval) makes it durable against a power loss
// together with the other writes noted meanwhile. A killed process still
// leaves the old or the new content. Where the file system can (Linux's
// renameat2 RENAME_EXCHANGE), Write swaps the new file with the old one
// rather than renaming over it, and c removes the old one, under its
// temporary name, at its next commit; a killed process may leave it
// there.
func Deferred(c *Committer) Option {
	return func(o *options) { o.noSync, o.commit = true, c }
}

// Write replaces path with data atomically (temporary file, fsync,
// rename, then an fsync of the directory where the platform allows it).
func Write(path string, data []byte, perm os.FileMode, opts ...Option) error {
	s, err := NewSpare(path)
	if err != nil {
		return err
	}
	return s.Write(data, perm, opts...)
}

// Spare is the temporary file of one [Write] to path, made ahead of it:
// a writer that knows it will replace path makes the spare where the
// time is free (a server's run, while it waits on its model) and spends
// on its path only the write and the rename, not the new file. An unused
// spare is removed with Close.
type Spare struct {
	f    *os.File
	path string
}

// NewSpare makes the temporary file of a write to path, in path's
// directory.
func NewSpare(path string) (*Spare, error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return nil, err
	}
	return &Spare{f: f, path: path}, nil
}

// Write replaces the spare's path with data atomically, as [Write] does,
// through the spare's file. A spare writes once: later calls fail with
// os.ErrClosed.
func (s *Spare) Write(data []byte, perm os.FileMode, opts ...Option) error {
	if s.f == nil {
		return os.ErrClosed
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	f, path := s.f, s.path
	s.f = nil
	tmp := f.Name()
	_, err := f.Write(data)
	if err == nil && perm != 0o600 {
		// CreateTemp made it 0600.
		err = f.Chmod(perm)
	}
	if err == nil && !o.noSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && o.commit != nil && exchangeOld(tmp, path) {
		// The old content is at tmp: the committer removes it with its
		// next commit, off the writer's path (freeing the old file
		// was most of a rename's cost).
		o.commit.remove(tmp) // noted, as syncDir notes
		return nil
	}
	if err == nil {
		err = rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	o.syncDir(filepath.Dir(tmp))
	return nil
}

// Close removes the spare's file if it was not written; it is a no-op
// after Write.
func (s *Spare) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	f := s.f
	s.f = nil
	f.Close()
	return os.Remove(f.Name())
}

// exchangeOld swaps the written tmp with the existing file path and
// reports whether it did. It does not where the file system cannot, when
// path does not exist, and when path is not a regular file (swapped back:
// a rename then refuses a directory as it always did).
func exchangeOld(tmp, path string) bool {
	if exchange(tmp, path) != nil {
		return false
	}
	if fi, err := os.Lstat(tmp); err == nil && fi.Mode().IsRegular() {
		return true
	}
	_ = exchange(tmp, path)
	return false
}

// syncDir makes a written file's directory entry durable as o asks:
// noted to the committer, synced (best effort: not every file system
// syncs directories), or neither with NoSync.
func (o options) syncDir(dir string) {
	if o.commit != nil {
		o.commit.Note()
	}
	if o.noSync {
		return
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Create writes data to path, a new file, in place: with the options'
// syncs, but without a temporary file and a rename, and failing with an
// error satisfying errors.Is(err, fs.ErrExist) if path exists. It is
// not atomic: until it returns, a reader may see the file partly
// written, and a killed process may leave it so. It is for a new file
// whose readers can tell (another file, replaced atomically after it,
// says whether it is complete, as a run's run.json does for its
// result.json) and cope with a torn one; an existing file is replaced
// with Write.
func Create(path string, data []byte, perm os.FileMode, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && !o.noSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	o.syncDir(filepath.Dir(path))
	return nil
}
