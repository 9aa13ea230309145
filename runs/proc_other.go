//go:build !unix

package runs

import "os"

// lockDir is a no-op without flock: liveness falls back to the pid.
func lockDir(string) (*os.File, error) { return nil, nil }

// locked reports whether the run's process may still exist.
func locked(_ string, m Meta) bool {
	if m.PID <= 0 {
		return false
	}
	_, err := os.FindProcess(m.PID)
	return err == nil
}
