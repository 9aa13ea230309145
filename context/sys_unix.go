//go:build unix

package rlmctx

import (
	"errors"
	"os"
	"syscall"
)

// mmapString maps a whole file read-only and returns it as a string. The
// mapping is never unmapped (the string may be held anywhere); it costs
// address space, and page cache that the kernel can reclaim. Files in the
// store are replaced by rename, never modified in place, so the mapped
// contents cannot change underneath.
func mmapString(path string) (string, bool, error) {
	b, err := mapFile(path, syscall.MAP_SHARED)
	if err != nil || b == nil {
		return "", false, err
	}
	return bytesToString(b), true, nil
}

// mapFile maps a whole file read-only (nil for an empty file).
func mapFile(path string, flags int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size == 0 {
		return nil, nil
	}
	if int64(int(size)) != size {
		return nil, errors.New("file too large to map")
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, flags)
}

// flock takes an exclusive advisory lock on f, blocking.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// funlock releases flock.
func funlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// tryFlock tries to take an exclusive advisory lock on f without waiting.
// known is false when the lock state cannot be told (never on unix).
func tryFlock(f *os.File) (locked, known bool) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, true
		}
		return err == nil, err == nil
	}
}

// inode is the file's inode number.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// mapDocument maps a whole file read-only and private, for a JSON document
// decoded once from it (see loadMappedJSON): its pages are read in as the
// decoder reaches them and released behind it (dropPages), so the file
// never needs to be resident all at once. The mapping is never unmapped
// (a variable may decode its document again); it costs address space only.
func mapDocument(path string) ([]byte, error) {
	b, err := mapFile(path, syscall.MAP_PRIVATE)
	if err == nil && b == nil {
		err = errors.New("cannot map an empty file")
	}
	return b, err
}

// dropPages releases the whole pages of a mapped document within b from
// this process's memory; the file's contents are read in again if they
// are touched later.
func dropPages(b []byte) {
	ps := os.Getpagesize()
	if len(b) < ps {
		return
	}
	_ = syscall.Madvise(b[:len(b)&^(ps-1)], syscall.MADV_DONTNEED)
}
