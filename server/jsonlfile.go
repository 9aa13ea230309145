package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
)

// lineBuffer is the read buffer of a trajectory streamed from its file:
// what one reader holds, however large the file or its lines.
const lineBuffer = 64 << 10

// lineFile reads the complete lines of a JSONL file (a torn last line is
// left out) through a buffer of lineBuffer bytes.
type lineFile struct {
	*bufio.Reader
	f *os.File
}

// Close closes the file.
func (l *lineFile) Close() error { return l.f.Close() }

// openLines opens the JSONL file at path positioned at its line index
// skip (0: the start). A missing file reads as empty.
func openLines(path string, skip int) (*lineFile, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.Open(os.DevNull)
	}
	if err != nil {
		return nil, err
	}
	end, err := lastNewline(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &lineFile{Reader: bufio.NewReaderSize(io.NewSectionReader(f, 0, end), lineBuffer), f: f}
	for n := 0; n < skip; {
		b, err := l.ReadSlice('\n')
		if len(b) > 0 && b[len(b)-1] == '\n' {
			n++
		}
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			f.Close()
			return nil, err
		}
	}
	return l, nil
}

// lastNewline returns the size of f up to and including its last newline,
// reading backwards a block at a time.
func lastNewline(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 4096)
	for end := st.Size(); end > 0; {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// nextLine calls piece with the pieces of the next line (its newline
// removed) as they are read, without holding more than the buffer; false
// at the end of the file.
func (l *lineFile) nextLine(piece func([]byte) error) (bool, error) {
	for started := false; ; started = true {
		b, err := l.ReadSlice('\n')
		if len(b) == 0 && err == io.EOF {
			return started, nil
		}
		if err == nil {
			return true, piece(trimNL(b))
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err == io.EOF {
				return true, piece(trimNL(b))
			}
			return started, err
		}
		if err := piece(b); err != nil {
			return true, err
		}
	}
}
