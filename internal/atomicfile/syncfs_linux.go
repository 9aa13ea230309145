package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// syncFS makes everything written to the file system holding dir durable
// (syncfs(2)); a missing dir has nothing to sync.
func syncFS(dir string) error {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	if _, _, e := syscall.Syscall(sysSyncfs, d.Fd(), 0, 0); e != 0 {
		return e
	}
	return nil
}
