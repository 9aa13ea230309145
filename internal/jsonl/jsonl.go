// Package jsonl holds what the project's append-only JSON Lines files
// (run trajectories, model recordings) share: repairing the tail a killed
// writer left behind.
package jsonl

import (
	"bytes"
	"io"
	"os"
)

// CutTorn truncates f after its last newline (a line torn by a killed
// writer) and returns the new size. A file without a newline is emptied.
func CutTorn(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	for end := size; end > 0; {
		start := max(end-chunk, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep := start + int64(i) + 1
			if keep < size {
				return keep, f.Truncate(keep)
			}
			return size, nil
		}
		end = start
	}
	return 0, f.Truncate(0)
}
