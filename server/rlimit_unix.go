//go:build unix

package server

import "syscall"

// openFileLimit is the process's soft limit on open files (0: unknown).
func openFileLimit() int {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
