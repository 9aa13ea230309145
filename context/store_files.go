package rlmctx

import (
	"bufio"
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

// createTemp writes a new temporary file in dir with fill, fsyncs and
// closes it, and returns its path and size. On error the file is removed.
func createTemp(dir string, fill func(w *hookWriter) error) (path string, size int64, err error) {
	f, err := os.CreateTemp(dir, fmt.Sprintf("%s%d-*", tmpPrefix, os.Getpid()))
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
func writeTemp(dir string, value any) (path, enc string, size int64, sum string, err error) {
	str, isText := value.(string)
	enc = encJSON
	if isText {
		enc = encText
	}
	path, size, err = createTemp(dir, func(hw *hookWriter) error {
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

// writeFileAtomic writes data to dir/name via a fsynced temp file and rename.
func writeFileAtomic(dir, name string, data []byte) error {
	tmp, _, err := createTemp(dir, func(hw *hookWriter) error {
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
func copyTextTemp(dir, path string) (tmp string, size int64, err error) {
	in, err := os.Open(path)
	if err != nil {
		return "", 0, pathError(path, err)
	}
	defer in.Close()
	return createTemp(dir, func(hw *hookWriter) error {
		buf := make([]byte, 1<<20)
		carry := 0 // bytes of an incomplete UTF-8 sequence kept from the last read
		for {
			n, rerr := in.Read(buf[carry:])
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
				return pyjson.UTF8Error(path, buf[:cut], hw.n)
			}
			if _, err := hw.Write(buf[:cut]); err != nil {
				return err
			}
			carry = copy(buf, buf[cut:end])
			if rerr == io.EOF {
				return nil
			}
			if rerr != nil {
				return fmt.Errorf("%s: %w", path, rerr)
			}
		}
	})
}
