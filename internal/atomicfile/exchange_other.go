//go:build !linux

package atomicfile

import "errors"

// exchange is not available: Write renames.
func exchange(string, string) error { return errors.ErrUnsupported }
