//go:build unix

package runs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// oldLockFile is the file in which earlier versions held the run lock
// (they created it in every run directory); locked still honours it.
const oldLockFile = ".lock"

// lockDir takes the run lock of dir, an exclusive flock on the directory
// itself, which the kernel releases when the process dies, even with
// SIGKILL; it fails with ErrRunning if another process (or another Run of
// this one) holds it. Locking the directory, not a file in it, saves a
// file creation per run.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func flock(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return ErrRunning
		}
		return err
	}
	return nil
}

// locked reports whether a process holds the run lock of dir (or, for a
// run of an earlier version, its lock file).
func locked(dir string, _ Meta) bool {
	f, err := lockDir(dir)
	if err != nil {
		return errors.Is(err, ErrRunning)
	}
	f.Close()
	if old, err := os.Open(filepath.Join(dir, oldLockFile)); err == nil {
		defer old.Close()
		return errors.Is(flock(old), ErrRunning)
	}
	return false
}
