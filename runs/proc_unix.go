//go:build unix

package runs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile is the file a run's process holds an exclusive flock on while
// it writes the run; the kernel releases it when the process dies, even
// with SIGKILL.
const lockFile = ".lock"

// lockDir takes the run lock of dir, failing with ErrRunning if another
// process (or another Run of this one) holds it.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, err
	}
	return f, nil
}

// locked reports whether a process holds the run lock of dir.
func locked(dir string, _ Meta) bool {
	f, err := lockDir(dir)
	if err != nil {
		return errors.Is(err, ErrRunning)
	}
	f.Close()
	return false
}
