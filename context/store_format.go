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
	"unicode/utf8"
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
	metaFormatName    = "rlm-store/"
	metaFormat        = metaFormatName + "1"
	metaSuffix        = ".meta.json"
	lockName          = ".lock"
	tmpPrefix         = ".tmp-"
	ownerSuffix       = ".owner"
	spillPrefix       = ".spill-"
	sumDirName        = ".summaries"
	quarantineDirName = ".quarantine"
	encText           = "text"
	encJSON           = "json"
)

// valueFileStem returns the key file stem of a value file name
// (STEM.v-XXXXXXXX.txt or .json), or "" if name is not one.
func valueFileStem(name string) string {
	if name != filepath.Base(name) {
		return ""
	}
	rest, ok := strings.CutSuffix(name, ".txt")
	if !ok {
		if rest, ok = strings.CutSuffix(name, ".json"); !ok {
			return ""
		}
	}
	i := strings.LastIndex(rest, ".v-")
	if i <= 0 || !isHex(rest[i+3:]) {
		return ""
	}
	return rest[:i]
}

func isValueFileName(name string) bool { return valueFileStem(name) != "" }

// isHex reports whether s is a non-empty run of lower-case hex digits.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return s != ""
}

type fileStamp struct {
	mod  int64
	size int64
	ino  uint64
}

func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{mod: fi.ModTime().UnixNano(), size: fi.Size(), ino: inode(fi)}
}

// entryError is a problem with one store entry: its message reads as is,
// and it wraps the kind (ErrCorrupt, ErrNewerFormat or errForeign).
type entryError struct {
	kind error
	msg  string
	// damaged: the metadata file itself is not valid JSON of its format
	// (a stray comma); the value file may well be intact.
	damaged bool
}

func (e *entryError) Error() string { return e.msg }
func (e *entryError) Unwrap() error { return e.kind }

// errForeign: a *.meta.json file that rlm did not write (left alone).
var errForeign = errors.New("rlmctx: not an rlm store metadata file")

func corruptf(format string, args ...any) error {
	return &entryError{kind: ErrCorrupt, msg: fmt.Sprintf(format, args...)}
}

// isNewerFormat reports whether format names a later version of this
// store's format ("rlm-store/2" and so on).
func isNewerFormat(format string) bool {
	v, ok := strings.CutPrefix(format, metaFormatName)
	return ok && format != metaFormat && v != ""
}

// readMetaFile reads and validates one metadata file (name in Dir). Its
// errors wrap ErrCorrupt (unreadable metadata, missing or truncated value
// file), ErrNewerFormat (written by a newer rlm) or errForeign; I/O errors
// (fs.ErrNotExist when the file is gone) are returned as they are. It
// never modifies the directory.
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
		return nil, &entryError{kind: errForeign, msg: "metadata file too large (not written by rlm)"}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	// The format is read first, on its own: a newer format may change
	// the other fields' types.
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, &entryError{kind: ErrCorrupt, msg: fmt.Sprintf("corrupted metadata: %v", err), damaged: true}
	}
	if isNewerFormat(head.Format) {
		return nil, &entryError{
			kind: ErrNewerFormat,
			msg:  fmt.Sprintf("written by a newer rlm (format %q; this rlm reads %q)", head.Format, metaFormat),
		}
	}
	if head.Format != metaFormat {
		return nil, &entryError{kind: errForeign, msg: fmt.Sprintf("not an rlm store metadata file (format %q)", head.Format)}
	}
	var m onDiskMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &entryError{kind: ErrCorrupt, msg: fmt.Sprintf("corrupted metadata: %v", err), damaged: true}
	}
	if m.Encoding != encText && m.Encoding != encJSON {
		return nil, &entryError{kind: ErrNewerFormat, msg: fmt.Sprintf("unknown value encoding %q (written by a newer rlm?)", m.Encoding)}
	}
	if m.Ref.Key == "" || keyFileName(m.Ref.Key)+metaSuffix != name {
		return nil, corruptf("metadata names key %q, which does not map to this file", m.Ref.Key)
	}
	if valueFileStem(m.ValueFile) != keyFileName(m.Ref.Key) {
		return nil, corruptf("bad value file name %q", m.ValueFile)
	}
	vfi, err := os.Stat(filepath.Join(s.cfg.Dir, m.ValueFile))
	if err != nil {
		return nil, corruptf("value file %s missing: %v", m.ValueFile, err)
	}
	if vfi.Size() != m.Ref.SizeBytes {
		return nil, corruptf("value file %s has %d bytes, metadata says %d (truncated?)", m.ValueFile, vfi.Size(), m.Ref.SizeBytes)
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
	if !utf8.ValidString(key) {
		return fmt.Errorf("%w %q: not valid UTF-8 (keys are text; rename it)", ErrBadKey, key)
	}
	return nil
}

// writeMeta writes e's metadata file atomically.
func (s *Store) writeMeta(e *entry, enc string) (fileStamp, error) {
	m := onDiskMeta{
		Format:    metaFormat,
		Ref:       e.ref,
		UpdatedAt: e.updatedAt,
		Persist:   true,
		Encoding:  enc,
		ValueFile: e.valueFile,
		SHA256:    e.hash,
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fileStamp{}, err
	}
	name := keyFileName(e.ref.Key) + metaSuffix
	if err := s.writeFileAtomic(s.cfg.Dir, name, append(data, '\n')); err != nil {
		return fileStamp{}, err
	}
	fi, err := os.Stat(filepath.Join(s.cfg.Dir, name))
	if err != nil {
		return fileStamp{}, err
	}
	return stampOf(fi), nil
}
