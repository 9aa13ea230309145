package rlmctx

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// onDiskMeta is the metadata file's format.
type onDiskMeta struct {
	Format    string    `json:"format"`
	Ref       Ref       `json:"ref"`
	UpdatedAt time.Time `json:"updated_at"`
	Persist   bool      `json:"persist"`
	Encoding  string    `json:"encoding"` // "text" or "json"
	ValueFile string    `json:"value_file"`
	SHA256    string    `json:"sha256,omitempty"`
}

const (
	metaFormat  = "rlm-store/1"
	metaSuffix  = ".meta.json"
	lockName    = ".lock"
	tmpPrefix   = ".tmp-"
	spillPrefix = ".spill-"
	sumDirName  = ".summaries"
	encText     = "text"
	encJSON     = "json"
)

func isValueFileName(name string) bool {
	i := strings.LastIndex(name, ".v-")
	return i > 0 && (strings.HasSuffix(name, ".txt") || strings.HasSuffix(name, ".json"))
}

type fileStamp struct {
	mod  int64
	size int64
	ino  uint64
}

func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{mod: fi.ModTime().UnixNano(), size: fi.Size(), ino: inode(fi)}
}

// readMetaFile reads and validates one metadata file (name in Dir).
func (s *Store) readMetaFile(name string) (*entry, error) {
	path := filepath.Join(s.cfg.Dir, name)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > 1<<20 {
		return nil, errors.New("metadata file too large (not written by rlm)")
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	var m onDiskMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("corrupted metadata: %v", err)
	}
	if m.Format != metaFormat {
		return nil, fmt.Errorf("not an rlm store metadata file (format %q)", m.Format)
	}
	if m.Ref.Key == "" || keyFileName(m.Ref.Key)+metaSuffix != name {
		return nil, fmt.Errorf("metadata names key %q, which does not map to this file", m.Ref.Key)
	}
	if m.Encoding != encText && m.Encoding != encJSON {
		return nil, fmt.Errorf("unknown value encoding %q", m.Encoding)
	}
	if m.ValueFile == "" || m.ValueFile != filepath.Base(m.ValueFile) || !strings.HasPrefix(m.ValueFile, keyFileName(m.Ref.Key)+".v-") {
		return nil, fmt.Errorf("bad value file name %q", m.ValueFile)
	}
	vfi, err := os.Stat(filepath.Join(s.cfg.Dir, m.ValueFile))
	if err != nil {
		return nil, fmt.Errorf("value file %s missing: %v", m.ValueFile, err)
	}
	if vfi.Size() != m.Ref.SizeBytes {
		return nil, fmt.Errorf("value file %s has %d bytes, metadata says %d (truncated?)", m.ValueFile, vfi.Size(), m.Ref.SizeBytes)
	}
	return &entry{ref: m.Ref, updatedAt: m.UpdatedAt, persist: true, valueFile: m.ValueFile, hash: m.SHA256, stamp: stampOf(fi)}, nil
}

// keyFileName maps a key to a safe, reversible file name stem: lower-case
// ASCII letters, digits, '-', '_' and non-leading '.' are kept, every other
// byte is %XX. Upper-case letters are escaped too, so keys differing only
// in case never share a file on case-insensitive file systems (macOS,
// Windows), where reserved names such as CON cannot arise either. Stems
// over 180 bytes are cut and suffixed with ~ and a hash (those keys are
// recovered from the metadata).
func keyFileName(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '.' && i > 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		}
	}
	s := b.String()
	if len(s) > 180 {
		cut := 120
		for cut > 0 && (s[cut-1] == '%' || (cut > 1 && s[cut-2] == '%')) {
			cut--
		}
		sum := sha256.Sum256([]byte(key))
		s = s[:cut] + "~" + hex.EncodeToString(sum[:16])
	}
	return s
}

// keyFromFileName inverts keyFileName for stems without a hash suffix.
func keyFromFileName(stem string) (string, bool) {
	if strings.Contains(stem, "~") {
		return "", false
	}
	var b []byte
	for i := 0; i < len(stem); i++ {
		if stem[i] != '%' {
			b = append(b, stem[i])
			continue
		}
		if i+2 >= len(stem) {
			return "", false
		}
		v, err := strconv.ParseUint(stem[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b = append(b, byte(v))
		i += 2
	}
	return string(b), true
}

func checkKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrBadKey)
	}
	return nil
}

// writeMeta writes e's metadata file atomically.
func (s *Store) writeMeta(e *entry, enc string) (fileStamp, error) {
	m := onDiskMeta{Format: metaFormat, Ref: e.ref, UpdatedAt: e.updatedAt, Persist: true, Encoding: enc, ValueFile: e.valueFile, SHA256: e.hash}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fileStamp{}, err
	}
	name := keyFileName(e.ref.Key) + metaSuffix
	if err := writeFileAtomic(s.cfg.Dir, name, append(data, '\n')); err != nil {
		return fileStamp{}, err
	}
	fi, err := os.Stat(filepath.Join(s.cfg.Dir, name))
	if err != nil {
		return fileStamp{}, err
	}
	return stampOf(fi), nil
}
