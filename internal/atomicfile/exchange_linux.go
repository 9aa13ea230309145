package atomicfile

import "golang.org/x/sys/unix"

// exchange swaps the files at tmp and path atomically (renameat2(2) with
// RENAME_EXCHANGE): path then holds tmp's content and tmp the old one. It
// fails when path does not exist or the file system cannot exchange.
func exchange(tmp, path string) error {
	return unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
}
