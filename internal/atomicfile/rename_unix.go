//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// rename moves the temporary file over path with rename(2) alone:
// os.Rename first stats the target to refuse replacing a directory, a
// path lookup that cost a server writing many runs about 1% of its CPU;
// the kernel refuses a file renamed over a directory by itself (EISDIR).
func rename(tmp, path string) error {
	if err := syscall.Rename(tmp, path); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	return nil
}
