//go:build !unix

package server

// openFileLimit is the process's limit on open files: unknown here.
func openFileLimit() int { return 0 }
