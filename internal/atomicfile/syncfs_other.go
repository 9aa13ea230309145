//go:build !unix

package atomicfile

import "os"

// syncFS syncs dir itself where the platform offers nothing wider: the
// files under it were written through the OS cache, which a killed
// process does not lose.
func syncFS(dir string) error {
	return withDir(dir, func(d *os.File) error {
		_ = d.Sync() // best effort, as Write's directory sync
		return nil
	})
}
