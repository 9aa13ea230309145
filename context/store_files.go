package rlmctx

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// testHookWrite, if set, is called while a value file is written with the
// bytes written so far (tests use it to kill a writer mid-write).
var testHookWrite func(written int64)

// randomSuffix returns 8 random hex characters.
func randomSuffix() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// tempPattern returns the os.CreateTemp pattern of this store's temporary
// files, ".tmp-TOKEN-*". The first call creates the owner file
// ".tmp-TOKEN.owner" and holds an exclusive lock on it until Close: while
// it is locked, no other process removes files named with TOKEN (see
// cleanTemps). The lock is taken before the file gets its final name, so
// an owner file is never seen unlocked while its store is open.
func (s *Store) tempPattern() (string, error) {
	s.ownerMu.Lock()
	defer s.ownerMu.Unlock()
	if s.owner != nil {
		return tmpPrefix + s.token + "-*", nil
	}
	if s.ownerClosed {
		return "", ErrStoreClosed
	}
	name := filepath.Join(s.cfg.Dir, tmpPrefix+s.token+ownerSuffix)
	f, err := os.OpenFile(name+".new", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	if err := flock(f); err != nil {
		f.Close()
		os.Remove(name + ".new")
		return "", err
	}
	if err := os.Rename(name+".new", name); err != nil {
		f.Close()
		os.Remove(name + ".new")
		return "", err
	}
	s.owner = f
	return tmpPrefix + s.token + "-*", nil
}

// releaseOwner removes and unlocks the owner file (at Close).
func (s *Store) releaseOwner() {
	s.ownerMu.Lock()
	defer s.ownerMu.Unlock()
	s.ownerClosed = true
	if s.owner == nil {
		return
	}
	os.Remove(filepath.Join(s.cfg.Dir, tmpPrefix+s.token+ownerSuffix))
	s.owner.Close()
	s.owner = nil
}

// writeTemp is writeTemp with this store's temporary file names.
func (s *Store) writeTemp(dir string, value any) (path, enc string, size int64, sum string, err error) {
	pat, err := s.tempPattern()
	if err != nil {
		return "", "", 0, "", err
	}
	return writeTemp(dir, pat, value)
}

// writeFileAtomic is writeFileAtomic with this store's temporary file names.
func (s *Store) writeFileAtomic(dir, name string, data []byte) error {
	pat, err := s.tempPattern()
	if err != nil {
		return err
	}
	return writeFileAtomic(dir, pat, name, data)
}

// copyTextTemp is copyTextTemp with this store's temporary file names.
func (s *Store) copyTextTemp(dir, path string) (string, int64, error) {
	pat, err := s.tempPattern()
	if err != nil {
		return "", 0, err
	}
	return copyTextTemp(dir, pat, path)
}

// createTemp writes a new temporary file in dir named after pattern (see
// tempPattern) with fill, fsyncs and closes it, and returns its path and
// size. On error the file is removed.
func createTemp(dir, pattern string, fill func(w *hookWriter) error) (path string, size int64, err error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return "", 0, err
	}
	hw := &hookWriter{w: f}
	if err = fill(hw); err != nil {
		return "", 0, err
	}
	if err = f.Sync(); err != nil {
		return "", 0, err
	}
	if err = f.Close(); err != nil {
		return "", 0, err
	}
	return f.Name(), hw.n, nil
}

// writeTemp writes value's stored form to a new temporary file in dir,
// fsyncs it and returns its path, encoding, size and sha256 (or "").
func writeTemp(dir, pattern string, value any) (path, enc string, size int64, sum string, err error) {
	str, isText := value.(string)
	enc = encJSON
	if isText {
		enc = encText
	}
	path, size, err = createTemp(dir, pattern, func(hw *hookWriter) error {
		if isText {
			const chunk = 1 << 20
			for i := 0; i < len(str); i += chunk {
				if _, err := io.WriteString(hw, str[i:min(i+chunk, len(str))]); err != nil {
					return err
				}
			}
			return nil
		}
		bw := bufio.NewWriterSize(hw, 1<<20)
		if err := pyjson.Encode(bw, value); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return "", "", 0, "", err
	}
	return path, enc, size, "", nil // the hash is computed when needed
}

type hookWriter struct {
	w *os.File
	n int64
}

// WriteString writes without copying s (os.File.WriteString does not), so
// writing a large text allocates nothing.
func (h *hookWriter) WriteString(s string) (int, error) {
	n, err := h.w.WriteString(s)
	h.n += int64(n)
	if testHookWrite != nil {
		testHookWrite(h.n)
	}
	return n, err
}

func (h *hookWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	h.n += int64(n)
	if testHookWrite != nil {
		testHookWrite(h.n)
	}
	return n, err
}

// writeFileAtomic writes data to dir/name via a fsynced temp file (named
// after pattern) and rename.
func writeFileAtomic(dir, pattern, name string, data []byte) error {
	tmp, _, err := createTemp(dir, pattern, func(hw *hookWriter) error {
		_, err := hw.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// copyTextTemp streams path into a fsynced temporary file in dir, checking
// UTF-8 on the way, and returns the temp path and size.
// A UTF-8 byte order mark is dropped; a UTF-16 one fails with errUTF16
// (such files are decoded in memory).
func copyTextTemp(dir, pattern, path string) (tmp string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, pathError(path, err)
	}
	defer f.Close()
	in := bufio.NewReaderSize(f, 4096)
	head, _ := in.Peek(len(bomUTF8))
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		in.Discard(len(bomUTF8))
	case bytes.HasPrefix(head, bomUTF16LE), bytes.HasPrefix(head, bomUTF16BE):
		return "", 0, errUTF16
	}
	return createTemp(dir, pattern, func(hw *hookWriter) error {
		return copyUTF8(hw, in, path)
	})
}

// errUTF16: a text file in UTF-16, which copyTextTemp does not convert.
var errUTF16 = errors.New("rlmctx: UTF-16 text")

// copyUTF8 copies r to w in pieces, failing (naming path and the offset)
// at the first byte that is not UTF-8.
func copyUTF8(w io.Writer, r io.Reader, path string) error {
	buf := make([]byte, 1<<20)
	carry := 0 // bytes of an incomplete UTF-8 sequence kept from the last read
	var off int64
	for {
		n, rerr := r.Read(buf[carry:])
		end := carry + n
		cut := end
		if rerr == nil {
			// Hold back a trailing incomplete sequence.
			for i := end - 1; i >= 0 && i >= end-utf8.UTFMax; i-- {
				if utf8.RuneStart(buf[i]) {
					if !utf8.FullRune(buf[i:end]) {
						cut = i
					}
					break
				}
			}
		}
		if !utf8.Valid(buf[:cut]) {
			return pyjson.UTF8Error(path, buf[:cut], off)
		}
		if _, err := w.Write(buf[:cut]); err != nil {
			return err
		}
		off += int64(cut)
		carry = copy(buf, buf[cut:end])
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("%s: %w", path, rerr)
		}
	}
}
