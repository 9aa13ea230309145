//go:build unix

package runs

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists (EPERM: it exists but
// belongs to someone else).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
