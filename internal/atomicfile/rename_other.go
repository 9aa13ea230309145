//go:build !unix

package atomicfile

import "os"

// rename moves the temporary file over path.
func rename(tmp, path string) error { return os.Rename(tmp, path) }
