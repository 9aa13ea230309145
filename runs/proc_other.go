//go:build !unix

package runs

import "os"

// processAlive reports whether process pid may exist.
func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
