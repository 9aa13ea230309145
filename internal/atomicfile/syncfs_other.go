//go:build !unix

package atomicfile

import (
	"errors"
	"os"
)

// syncFS syncs dir itself where the platform offers nothing wider: the
// files under it were written through the OS cache, which a killed
// process does not lose.
func syncFS(dir string) error {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // best effort, as Write's directory sync
	return nil
}
