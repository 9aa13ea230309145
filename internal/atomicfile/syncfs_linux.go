package atomicfile

import (
	"os"
	"syscall"
)

// syncFS makes everything written to the file system holding dir durable
// (syncfs(2)); a missing dir has nothing to sync.
func syncFS(dir string) error {
	return withDir(dir, func(d *os.File) error {
		if _, _, e := syscall.Syscall(sysSyncfs, d.Fd(), 0, 0); e != 0 {
			return e
		}
		return nil
	})
}
