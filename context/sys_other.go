//go:build !unix

package rlmctx

import (
	"errors"
	"os"
)

func mmapString(path string) (string, bool, error) {
	b, err := readFileExact(path)
	if err != nil {
		return "", false, err
	}
	return bytesToString(b), false, nil
}

func flock(f *os.File) error   { return nil }
func funlock(f *os.File) error { return nil }

// tryFlock cannot tell whether another process holds a lock here.
func tryFlock(f *os.File) (locked, known bool) { return false, false }

func inode(fi os.FileInfo) uint64 { return 0 }

// mapDocument is not available here: documents are read into memory.
func mapDocument(path string) ([]byte, error) { return nil, errors.ErrUnsupported }

func dropPages(b []byte) {}
