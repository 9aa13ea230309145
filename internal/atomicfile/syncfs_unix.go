//go:build unix && !linux

package atomicfile

import "syscall"

// syncFS makes everything written durable: without syncfs(2), sync(2)
// flushes every file system.
func syncFS(string) error {
	syscall.Sync()
	return nil
}
