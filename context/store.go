package rlmctx

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
)

// Store defaults.
const (
	DefaultMaxMemoryBytes = 256 << 20
	DefaultMmapThreshold  = 1 << 20
	DefaultSummaryTokens  = 500
	// DefaultSummarizeInputBytes bounds the excerpt sent to a Summarizer.
	DefaultSummarizeInputBytes = 256 << 10
)

// Scopes. A scope is advisory metadata used to filter List.
const ScopeGlobal = "global"

// AgentScope is the scope "agent:ID".
func AgentScope(id string) string { return "agent:" + id }

// SessionScope is the scope "session:ID".
func SessionScope(id string) string { return "session:" + id }

// ValidateScope accepts global, agent:ID and session:ID.
func ValidateScope(s string) error {
	if s == ScopeGlobal {
		return nil
	}
	for _, p := range []string{"agent:", "session:"} {
		if id, ok := strings.CutPrefix(s, p); ok && id != "" {
			return nil
		}
	}
	return fmt.Errorf("%w %q: use global, agent:ID or session:ID", ErrBadScope, s)
}

// Summarizer writes a summary of text in at most maxTokens tokens, usually
// with an LLM. Store.Summarize uses it when configured.
type Summarizer interface {
	Summarize(ctx context.Context, text string, maxTokens int) (string, error)
}

// StoreConfig configures [OpenStore]. Zero fields take defaults.
type StoreConfig struct {
	// Dir holds persisted and spilled values. "" keeps everything in memory
	// (no persistence, no spilling).
	Dir string
	// MaxMemoryBytes is the ceiling on values held in memory; above it the
	// least recently used are spilled to disk (default 256 MB).
	MaxMemoryBytes int64
	// MmapThreshold: text values at least this large are served from a
	// memory map when read from disk (default 1 MB; negative disables).
	MmapThreshold int64
	// Summarizer, if set, writes Summarize results (cached by content hash).
	Summarizer Summarizer
	// SummarizeInputBytes bounds the excerpt given to the Summarizer
	// (default 256 KB).
	SummarizeInputBytes int
}

func (c StoreConfig) withDefaults() StoreConfig {
	if c.MaxMemoryBytes <= 0 {
		c.MaxMemoryBytes = DefaultMaxMemoryBytes
	}
	if c.MmapThreshold == 0 {
		c.MmapThreshold = DefaultMmapThreshold
	}
	if c.SummarizeInputBytes <= 0 {
		c.SummarizeInputBytes = DefaultSummarizeInputBytes
	}
	return c
}

// Ref is a metadata-only handle to a stored variable: no value.
type Ref struct {
	ID        string    `json:"id"`
	Key       string    `json:"key"`
	Scope     string    `json:"scope"`
	Type      VarType   `json:"type"`
	SizeBytes int64     `json:"size_bytes"`
	CreatedAt time.Time `json:"created_at"`
	Version   int64     `json:"version"`
}

// String renders the ref in one line.
func (r Ref) String() string {
	return fmt.Sprintf("%s (%s, %s, %s, version %d, id %s)", r.Key, r.Type, r.Scope, humanBytes(r.SizeBytes), r.Version, r.ID)
}

// Meta is what List reports for each variable.
type Meta struct {
	Ref
	UpdatedAt time.Time
	Persisted bool // on disk in Dir, survives the process
	InMemory  bool // value currently loaded
	Spilled   bool // value spilled to a temporary file
	Mapped    bool // value served from a memory map
}

// Filter selects variables in List. Empty fields match everything; a Scope
// ending in '*' matches by prefix (e.g. "agent:*").
type Filter struct {
	Scope string
	Type  VarType
}

func (f Filter) match(r Ref) bool {
	if f.Type != "" && r.Type != f.Type {
		return false
	}
	if f.Scope == "" {
		return true
	}
	if p, ok := strings.CutSuffix(f.Scope, "*"); ok {
		return strings.HasPrefix(r.Scope, p)
	}
	return r.Scope == f.Scope
}

// SetOption configures Set and SetIfVersion.
type SetOption func(*setOptions)

type setOptions struct {
	scope   string
	typ     VarType
	persist bool
}

// WithScope sets the variable's scope (default global, or the existing one).
func WithScope(scope string) SetOption { return func(o *setOptions) { o.scope = scope } }

// WithStoreType overrides type inference.
func WithStoreType(t VarType) SetOption { return func(o *setOptions) { o.typ = t } }

// WithPersist writes the variable to Dir so it survives the process. Once
// persisted, later writes of the key are persisted too.
func WithPersist() SetOption { return func(o *setOptions) { o.persist = true } }

// Store is the variable store of the Context Store spec: values set under
// string keys, read back whole (Get) or as metadata-only handles (Ref),
// optionally persisted, spilled to disk over a memory ceiling, loaded
// lazily, with compare-and-swap across goroutines and processes. All
// methods are safe for concurrent use.
type Store struct {
	cfg StoreConfig

	// diskMu serializes this process's holders of the lock file (flock is
	// per open file, so it does not exclude goroutines).
	diskMu   sync.Mutex
	lockFile *os.File

	mu       sync.Mutex
	entries  map[string]*entry
	memBytes int64
	tick     uint64
	closed   bool
	spillDir string
	sums     map[string]string // summary cache: hash/maxTokens -> text
	warnings []string
}

type entry struct {
	ref       Ref
	updatedAt time.Time
	persist   bool
	// value, when loaded.
	value  any
	loaded bool
	mapped bool
	// on-disk value: file name in Dir (persisted) or path in the spill dir.
	valueFile string
	spillPath string
	hash      string // sha256 of the stored form, "" if unknown
	lastUse   uint64
	stamp     fileStamp // of the meta file when last read/written
}

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

// OpenStore opens (creating if needed) a store. It reads only metadata;
// values are read on first Get. Corrupted or foreign files in Dir are
// reported by Warnings and skipped. Leftovers of killed writers are removed.
func OpenStore(cfg StoreConfig) (*Store, error) {
	s := &Store{cfg: cfg.withDefaults(), entries: map[string]*entry{}, sums: map[string]string{}}
	if s.cfg.Dir == "" {
		return s, nil
	}
	if err := os.MkdirAll(s.cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("store %s: %w", s.cfg.Dir, err)
	}
	lf, err := os.OpenFile(filepath.Join(s.cfg.Dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.cfg.Dir, err)
	}
	s.lockFile = lf
	if err := s.withDiskLock(s.scan); err != nil {
		lf.Close()
		return nil, err
	}
	return s, nil
}

// Dir is the store directory ("" for memory-only stores).
func (s *Store) Dir() string { return s.cfg.Dir }

// Warnings lists problems found when opening (corrupted or foreign files).
func (s *Store) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

// withDiskLock runs fn holding the cross-process lock (and diskMu).
func (s *Store) withDiskLock(fn func() error) error {
	s.diskMu.Lock()
	defer s.diskMu.Unlock()
	if s.isClosed() {
		return ErrStoreClosed
	}
	if s.lockFile == nil {
		return fn()
	}
	if err := flock(s.lockFile); err != nil {
		return fmt.Errorf("store %s: locking: %w", s.cfg.Dir, err)
	}
	defer funlock(s.lockFile)
	return fn()
}

// scan loads all metadata; called under the disk lock.
func (s *Store) scan() error {
	des, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.cfg.Dir, err)
	}
	referenced := map[string]bool{}
	var valueFiles []string
	var warns []string
	entries := map[string]*entry{}
	for _, de := range des {
		name := de.Name()
		switch {
		case name == lockName || name == sumDirName:
			continue
		case strings.HasPrefix(name, tmpPrefix) || strings.HasPrefix(name, spillPrefix):
			if !pidAlive(pidOf(name)) {
				os.RemoveAll(filepath.Join(s.cfg.Dir, name))
			}
			continue
		case strings.HasSuffix(name, metaSuffix):
			e, err := s.readMetaFile(name)
			if err != nil {
				warns = append(warns, fmt.Sprintf("store: skipped %s: %v", name, err))
				continue
			}
			if prev, dup := entries[e.ref.Key]; dup {
				warns = append(warns, fmt.Sprintf("store: skipped %s: key %q already stored in %s", name, e.ref.Key, prev.valueFile))
				continue
			}
			entries[e.ref.Key] = e
			referenced[e.valueFile] = true
		case isValueFileName(name):
			valueFiles = append(valueFiles, name)
		default:
			warns = append(warns, fmt.Sprintf("store: ignored foreign file %s", name))
		}
	}
	// Value files no metadata points to are leftovers of a writer killed
	// between its two renames (we hold the lock, so none is in progress).
	for _, name := range valueFiles {
		if !referenced[name] {
			os.Remove(filepath.Join(s.cfg.Dir, name))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, e := range entries {
		if cur, ok := s.entries[k]; ok && cur.ref.Version >= e.ref.Version {
			continue
		}
		s.entries[k] = e
	}
	s.warnings = append(s.warnings, warns...)
	return nil
}

// pidOf parses the pid in ".tmp-PID-..." or ".spill-PID-...".
func pidOf(name string) int {
	rest := strings.TrimPrefix(strings.TrimPrefix(name, tmpPrefix), spillPrefix)
	p, _, _ := strings.Cut(rest, "-")
	n, err := strconv.Atoi(p)
	if err != nil {
		return -1
	}
	return n
}

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

// ---- writing ----

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

// prepared is a value ready to commit.
type prepared struct {
	key   string
	value any
	typ   VarType
	size  int64
	opts  setOptions
	// temp file (persisted writes)
	tmp, enc, sum string
	// lazy: the value is only on disk (SetTextFile); read on first Get.
	lazy bool
}

func (s *Store) prepare(key string, value any, opts []SetOption) (*prepared, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	var o setOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.scope != "" {
		if err := ValidateScope(o.scope); err != nil {
			return nil, err
		}
	}
	v, err := pyjson.Normalize(value)
	if err != nil {
		return nil, fmt.Errorf("store key %q: %w", key, err)
	}
	t := o.typ
	if t == "" {
		t = InferType(v)
	} else if err := checkType(t, v); err != nil {
		return nil, fmt.Errorf("store key %q: %w", key, err)
	}
	if o.persist && s.cfg.Dir == "" {
		return nil, fmt.Errorf("store key %q: cannot persist: the store has no directory", key)
	}
	return &prepared{key: key, value: v, typ: t, size: pyjson.Size(v), opts: o}, nil
}

// Set stores value under key and returns its ref. The value is kept as
// given (normalized): do not modify it afterwards.
func (s *Store) Set(key string, value any, opts ...SetOption) (Ref, error) {
	p, err := s.prepare(key, value, opts)
	if err != nil {
		return Ref{}, err
	}
	return s.commit(p, nil)
}

// SetIfVersion stores value only if the key's current version is version
// (0: the key must not exist), else fails with ErrVersionMismatch. The check
// and write are atomic across goroutines and, for a store with a directory,
// across processes: such writes are persisted.
func (s *Store) SetIfVersion(key string, value any, version int64, opts ...SetOption) (Ref, error) {
	if s.cfg.Dir != "" {
		opts = append(opts, WithPersist())
	}
	p, err := s.prepare(key, value, opts)
	if err != nil {
		return Ref{}, err
	}
	return s.commit(p, &version)
}

// Update applies fn to the current value (exists=false if absent) and
// stores the result with compare-and-swap, retrying on conflicts.
func (s *Store) Update(key string, fn func(old any, exists bool) (any, error), opts ...SetOption) (Ref, error) {
	for {
		old, ref, err := s.GetRef(key)
		exists := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Ref{}, err
		}
		nv, err := fn(old, exists)
		if err != nil {
			return Ref{}, err
		}
		r, err := s.SetIfVersion(key, nv, ref.Version, opts...)
		if errors.Is(err, ErrVersionMismatch) {
			continue
		}
		return r, err
	}
}

func (s *Store) commit(p *prepared, expect *int64) (Ref, error) {
	if s.isClosed() {
		return Ref{}, ErrStoreClosed
	}
	// Write the value file before taking locks when persisting is known.
	wantPersist := p.opts.persist
	if !wantPersist && s.cfg.Dir != "" {
		s.mu.Lock()
		if e := s.entries[p.key]; e != nil && e.persist {
			wantPersist = true
		}
		s.mu.Unlock()
	}
	if wantPersist {
		tmp, enc, size, sum, err := writeTemp(s.cfg.Dir, p.value)
		if err != nil {
			return Ref{}, fmt.Errorf("store key %q: writing: %w", p.key, err)
		}
		p.tmp, p.enc, p.size, p.sum = tmp, enc, size, sum
		defer func() {
			if p.tmp != "" {
				os.Remove(p.tmp)
			}
		}()
	}
	var ref Ref
	var oldFiles []string
	err := s.withDiskLock(func() error {
		var err error
		ref, oldFiles, err = s.commitLocked(p, expect)
		return err
	})
	if err != nil {
		return Ref{}, err
	}
	for _, f := range oldFiles {
		os.Remove(f)
	}
	s.evict(p.key)
	return ref, nil
}

// commitLocked runs under the disk lock.
func (s *Store) commitLocked(p *prepared, expect *int64) (Ref, []string, error) {
	var disk *entry
	if s.cfg.Dir != "" {
		d, err := s.readMetaFile(keyFileName(p.key) + metaSuffix)
		if err == nil {
			disk = d
		} else if !errors.Is(err, fs.ErrNotExist) {
			disk = nil // corrupted metadata: overwrite it
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Ref{}, nil, ErrStoreClosed
	}
	cur := s.entries[p.key]
	if disk != nil && (cur == nil || disk.ref.Version > cur.ref.Version || disk.ref.ID != cur.ref.ID) {
		if cur != nil {
			s.unload(cur)
		}
		cur = disk
		s.entries[p.key] = disk
	}
	if cur != nil && cur.persist && disk == nil && s.cfg.Dir != "" {
		// Deleted on disk by another process.
		s.unload(cur)
		delete(s.entries, p.key)
		cur = nil
	}
	var curVersion int64
	if cur != nil {
		curVersion = cur.ref.Version
	}
	if expect != nil && *expect != curVersion {
		return Ref{}, nil, fmt.Errorf("store key %q: %w: expected version %d, current is %d", p.key, ErrVersionMismatch, *expect, curVersion)
	}
	now := time.Now().UTC()
	ref := Ref{ID: uuid.NewString(), Key: p.key, Scope: ScopeGlobal, Type: p.typ, SizeBytes: p.size, CreatedAt: now, Version: curVersion + 1}
	if cur != nil {
		ref.ID, ref.CreatedAt, ref.Scope = cur.ref.ID, cur.ref.CreatedAt, cur.ref.Scope
	}
	if p.opts.scope != "" {
		ref.Scope = p.opts.scope
	}
	persist := p.opts.persist || (cur != nil && cur.persist)
	var old []string
	e := &entry{ref: ref, updatedAt: now, persist: persist, value: p.value, loaded: !p.lazy}
	if persist {
		if p.tmp == "" {
			// Became sticky-persisted between the check and the lock.
			tmp, enc, size, sum, err := writeTemp(s.cfg.Dir, p.value)
			if err != nil {
				return Ref{}, nil, fmt.Errorf("store key %q: writing: %w", p.key, err)
			}
			p.tmp, p.enc, p.size, p.sum = tmp, enc, size, sum
		}
		stem := keyFileName(p.key)
		ext := ".json"
		if p.enc == encText {
			ext = ".txt"
		}
		e.valueFile = stem + ".v-" + randomSuffix() + ext
		e.hash = p.sum
		if err := os.Rename(p.tmp, filepath.Join(s.cfg.Dir, e.valueFile)); err != nil {
			return Ref{}, nil, fmt.Errorf("store key %q: %w", p.key, err)
		}
		p.tmp = ""
		stamp, err := s.writeMeta(e, p.enc)
		if err != nil {
			os.Remove(filepath.Join(s.cfg.Dir, e.valueFile))
			return Ref{}, nil, fmt.Errorf("store key %q: %w", p.key, err)
		}
		e.stamp = stamp
		if err := syncDir(s.cfg.Dir); err != nil {
			return Ref{}, nil, fmt.Errorf("store key %q: %w", p.key, err)
		}
	}
	if cur != nil {
		if cur.valueFile != "" && cur.valueFile != e.valueFile {
			old = append(old, filepath.Join(s.cfg.Dir, cur.valueFile))
		}
		if cur.spillPath != "" {
			old = append(old, cur.spillPath)
		}
		s.unload(cur)
	}
	s.tick++
	e.lastUse = s.tick
	s.entries[p.key] = e
	if e.loaded {
		s.memBytes += ref.SizeBytes
	}
	return ref, old, nil
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

// unload drops e's in-memory value (caller holds mu).
func (s *Store) unload(e *entry) {
	if e.loaded && !e.mapped {
		s.memBytes -= e.ref.SizeBytes
	}
	e.value, e.loaded, e.mapped = nil, false, false
}

// evict spills least recently used values until memory use is under the
// ceiling. keep is not spilled.
func (s *Store) evict(keep string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evictLocked(keep)
}

// evictLocked is evict with mu held.
func (s *Store) evictLocked(keep string) {
	if s.cfg.Dir == "" || s.closed {
		return
	}
	if s.memBytes <= s.cfg.MaxMemoryBytes {
		return
	}
	var cands []*entry
	for k, e := range s.entries {
		if e.loaded && !e.mapped && k != keep {
			cands = append(cands, e)
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].lastUse < cands[j].lastUse })
	for _, e := range cands {
		if s.memBytes <= s.cfg.MaxMemoryBytes {
			return
		}
		if !e.persist && e.spillPath == "" {
			if err := s.spill(e); err != nil {
				s.warnings = append(s.warnings, fmt.Sprintf("store: could not spill %q: %v", e.ref.Key, err))
				continue
			}
		}
		s.unload(e)
	}
}

// spill writes a non-persisted value to this process's spill directory.
func (s *Store) spill(e *entry) error {
	if s.spillDir == "" {
		d, err := os.MkdirTemp(s.cfg.Dir, fmt.Sprintf("%s%d-*", spillPrefix, os.Getpid()))
		if err != nil {
			return err
		}
		s.spillDir = d
	}
	tmp, enc, _, sum, err := writeTemp(s.spillDir, e.value)
	if err != nil {
		return err
	}
	path := tmp + "." + enc
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	e.spillPath, e.hash = path, sum
	return nil
}

// ---- reading ----

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// lookup returns the current entry for key, refreshing it from disk when
// another process changed, created or deleted it. Caller holds mu.
func (s *Store) lookup(key string) (*entry, error) {
	if s.closed {
		return nil, ErrStoreClosed
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	e := s.entries[key]
	if s.cfg.Dir == "" || (e != nil && !e.persist) {
		if e == nil {
			return nil, fmt.Errorf("store key %q: %w", key, ErrNotFound)
		}
		return e, nil
	}
	name := keyFileName(key) + metaSuffix
	fi, err := os.Stat(filepath.Join(s.cfg.Dir, name))
	if err != nil {
		if e != nil {
			s.unload(e)
			delete(s.entries, key)
		}
		return nil, fmt.Errorf("store key %q: %w", key, ErrNotFound)
	}
	if e != nil && stampOf(fi) == e.stamp {
		return e, nil
	}
	d, err := s.readMetaFile(name)
	if err != nil {
		if e != nil {
			return e, nil // keep what we have; a writer may be mid-rename
		}
		return nil, fmt.Errorf("store key %q: %w", key, err)
	}
	if e != nil && e.ref.Version == d.ref.Version && e.ref.ID == d.ref.ID {
		e.stamp = d.stamp
		return e, nil
	}
	if e != nil {
		s.unload(e)
	}
	s.entries[key] = d
	return d, nil
}

// Get returns key's value, reading it from disk on first use.
func (s *Store) Get(key string) (any, error) {
	v, _, err := s.GetRef(key)
	return v, err
}

// GetRef returns key's value together with the ref it belongs to (use the
// version for SetIfVersion).
func (s *Store) GetRef(key string) (any, Ref, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		e, err := s.lookup(key)
		if err != nil {
			return nil, Ref{}, err
		}
		s.tick++
		e.lastUse = s.tick
		if e.loaded {
			return e.value, e.ref, nil
		}
		err = s.load(e)
		if err == nil {
			s.evictLocked(key)
			return e.value, e.ref, nil
		}
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			e.stamp = fileStamp{} // replaced meanwhile: re-read metadata
			continue
		}
		return nil, Ref{}, fmt.Errorf("store key %q: %w", key, err)
	}
}

// load reads e's value from disk (caller holds mu).
func (s *Store) load(e *entry) error {
	path := e.spillPath
	if path == "" {
		if e.valueFile == "" {
			return fmt.Errorf("%w: no stored value", ErrNotFound)
		}
		path = filepath.Join(s.cfg.Dir, e.valueFile)
	}
	isText := strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, "."+encText)
	if isText && s.cfg.MmapThreshold > 0 && e.ref.SizeBytes >= s.cfg.MmapThreshold {
		str, mapped, err := mmapString(path)
		if err != nil {
			return err
		}
		e.value, e.loaded, e.mapped = str, true, mapped
		if !mapped {
			s.memBytes += e.ref.SizeBytes
		}
		return nil
	}
	data, err := readFileExact(path)
	if err != nil {
		return err
	}
	var v any
	if isText {
		v = bytesToString(data)
	} else if v, err = pyjson.DecodeOwned(data, path); err != nil {
		return err
	}
	e.value, e.loaded = v, true
	s.memBytes += e.ref.SizeBytes
	return nil
}

// Ref returns key's metadata without its value (O(1)).
func (s *Store) Ref(key string) (Ref, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(key)
	if err != nil {
		return Ref{}, err
	}
	return e.ref, nil
}

// Resolve returns the value a ref points to. A ref whose variable was
// deleted (or deleted and set again) fails with ErrNotFound.
func (s *Store) Resolve(ref Ref) (any, error) {
	v, cur, err := s.GetRef(ref.Key)
	if err != nil {
		return nil, err
	}
	if ref.ID != "" && cur.ID != ref.ID {
		return nil, fmt.Errorf("store key %q: %w: the ref is stale (the variable was deleted and set again)", ref.Key, ErrNotFound)
	}
	return v, nil
}

// Has reports whether key exists.
func (s *Store) Has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.lookup(key)
	return err == nil
}

// List returns the metadata of the variables matching f, sorted by key,
// including those another process persisted, changed or deleted since open.
func (s *Store) List(f Filter) []Meta {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshLocked()
	out := make([]Meta, 0, len(s.entries))
	for _, e := range s.entries {
		if f.match(e.ref) {
			out = append(out, Meta{Ref: e.ref, UpdatedAt: e.updatedAt, Persisted: e.persist, InMemory: e.loaded && !e.mapped, Spilled: e.spillPath != "", Mapped: e.mapped})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// refreshLocked brings the persisted entries up to date with the
// directory's metadata files. A key only this store holds in memory keeps
// its value (as Get does). Caller holds mu.
func (s *Store) refreshLocked() {
	if s.cfg.Dir == "" || s.closed {
		return
	}
	des, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		return
	}
	onDisk := map[string]bool{}
	for _, de := range des {
		if name := de.Name(); strings.HasSuffix(name, metaSuffix) {
			onDisk[name] = true
		}
	}
	known := map[string]bool{}
	for k, e := range s.entries {
		name := keyFileName(k) + metaSuffix
		known[name] = true
		if e.persist {
			s.lookup(k) // re-reads changed metadata, drops deleted keys
		}
	}
	for name := range onDisk {
		if known[name] {
			continue
		}
		// Corrupted files were reported by OpenStore; skip them quietly.
		if e, err := s.readMetaFile(name); err == nil && s.entries[e.ref.Key] == nil {
			s.entries[e.ref.Key] = e
		}
	}
}

// MemoryBytes is the size of the values currently held in memory (memory
// mapped values not counted).
func (s *Store) MemoryBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.memBytes
}

// Delete removes key from memory and disk.
func (s *Store) Delete(key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	var files []string
	err := s.withDiskLock(func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return ErrStoreClosed
		}
		e, err := s.lookup(key)
		if err != nil {
			return err
		}
		if e.persist {
			if err := os.Remove(filepath.Join(s.cfg.Dir, keyFileName(key)+metaSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("store key %q: %w", key, err)
			}
			if err := syncDir(s.cfg.Dir); err != nil {
				return err
			}
			files = append(files, filepath.Join(s.cfg.Dir, e.valueFile))
		}
		if e.spillPath != "" {
			files = append(files, e.spillPath)
		}
		s.unload(e)
		delete(s.entries, key)
		return nil
	})
	for _, f := range files {
		os.Remove(f)
	}
	return err
}

// Clear removes every variable, in memory and on disk (including variables
// persisted by other processes).
func (s *Store) Clear() error {
	return s.withDiskLock(func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return ErrStoreClosed
		}
		for k, e := range s.entries {
			if e.spillPath != "" {
				os.Remove(e.spillPath)
			}
			s.unload(e)
			delete(s.entries, k)
		}
		if s.cfg.Dir == "" {
			return nil
		}
		des, err := os.ReadDir(s.cfg.Dir)
		if err != nil {
			return err
		}
		for _, de := range des {
			n := de.Name()
			if strings.HasSuffix(n, metaSuffix) {
				if err := os.Remove(filepath.Join(s.cfg.Dir, n)); err != nil {
					return err
				}
			}
		}
		for _, de := range des {
			n := de.Name()
			if isValueFileName(n) || n == sumDirName {
				os.RemoveAll(filepath.Join(s.cfg.Dir, n))
			}
		}
		s.sums = map[string]string{}
		return syncDir(s.cfg.Dir)
	})
}

// PersistForSubAgent makes sure key is persisted and returns the absolute
// path of its value file: raw text for text values, JSON otherwise.
func (s *Store) PersistForSubAgent(key string) (string, error) {
	if s.cfg.Dir == "" {
		return "", fmt.Errorf("store key %q: cannot persist: the store has no directory", key)
	}
	for {
		v, ref, err := s.GetRef(key)
		if err != nil {
			return "", err
		}
		s.mu.Lock()
		e := s.entries[key]
		if e != nil && e.persist && e.ref.Version == ref.Version {
			p := filepath.Join(s.cfg.Dir, e.valueFile)
			s.mu.Unlock()
			return filepath.Abs(p)
		}
		s.mu.Unlock()
		_, err = s.SetIfVersion(key, v, ref.Version, WithStoreType(ref.Type), WithScope(ref.Scope))
		if err != nil && !errors.Is(err, ErrVersionMismatch) {
			return "", err
		}
	}
}

// Close releases the store. Memory-mapped values stay valid.
func (s *Store) Close() error {
	s.diskMu.Lock() // wait for a write in progress
	defer s.diskMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.spillDir != "" {
		os.RemoveAll(s.spillDir)
	}
	if s.lockFile != nil {
		return s.lockFile.Close()
	}
	return nil
}

// ---- summaries ----

// Summarize returns a summary of key's value in at most maxTokens tokens
// (default 500): written by the configured Summarizer, else the value's
// beginning cut to the token budget. Results are cached by content hash.
func (s *Store) Summarize(ctx context.Context, key string, maxTokens int) (string, error) {
	if maxTokens <= 0 {
		maxTokens = DefaultSummaryTokens
	}
	v, ref, err := s.GetRef(key)
	if err != nil {
		return "", err
	}
	h, err := s.contentHash(ref, v)
	if err != nil {
		return "", err
	}
	mode := "trunc"
	if s.cfg.Summarizer != nil {
		mode = "llm"
	}
	ck := fmt.Sprintf("%s-%s-%d", h, mode, maxTokens)
	s.mu.Lock()
	cached, ok := s.sums[ck]
	s.mu.Unlock()
	if ok {
		return cached, nil
	}
	if s.cfg.Dir != "" {
		if b, err := os.ReadFile(filepath.Join(s.cfg.Dir, sumDirName, ck+".txt")); err == nil {
			s.mu.Lock()
			s.sums[ck] = string(b)
			s.mu.Unlock()
			return string(b), nil
		}
	}
	var out string
	if s.cfg.Summarizer != nil {
		out, err = s.cfg.Summarizer.Summarize(ctx, excerpt(v, s.cfg.SummarizeInputBytes), maxTokens)
		if err != nil {
			return "", fmt.Errorf("store key %q: summarizing: %w", key, err)
		}
	} else {
		out = truncateTokens(v, maxTokens)
	}
	s.mu.Lock()
	s.sums[ck] = out
	s.mu.Unlock()
	if s.cfg.Dir != "" && mode == "llm" {
		dir := filepath.Join(s.cfg.Dir, sumDirName)
		if os.MkdirAll(dir, 0o755) == nil {
			_ = writeFileAtomic(dir, ck+".txt", []byte(out))
		}
	}
	return out, nil
}

// contentHash returns the sha256 of the stored form of v, the value of ref.
func (s *Store) contentHash(ref Ref, v any) (string, error) {
	key := ref.Key
	s.mu.Lock()
	e := s.entries[key]
	if e != nil && e.hash != "" && e.ref.Version == ref.Version && e.ref.ID == ref.ID {
		h := e.hash
		s.mu.Unlock()
		return h, nil
	}
	s.mu.Unlock()
	h := sha256.New()
	if str, ok := v.(string); ok {
		io.WriteString(h, str)
	} else if err := pyjson.Encode(h, v); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	s.mu.Lock()
	if e := s.entries[key]; e != nil && e.ref.Version == ref.Version && e.ref.ID == ref.ID {
		e.hash = sum
	}
	s.mu.Unlock()
	return sum, nil
}

// valueText is the text form of a value (raw for strings, else JSON), at
// most max bytes (max < 0: all).
func valueText(v any, max int) string {
	if str, ok := v.(string); ok {
		if max >= 0 && len(str) > max {
			return str[:max]
		}
		return str
	}
	return pyjson.Excerpt(v, max)
}

// truncateTokens cuts the value's text to maxTokens tokens.
func truncateTokens(v any, maxTokens int) string {
	tok := llm.DefaultTokenizer()
	full := valueText(v, maxTokens*8+8)
	s := trimUTF8(full)
	for tok.Count(s) > maxTokens {
		s = trimUTF8(s[:len(s)*9/10])
	}
	if size := pyjson.Size(v); int64(len(s)) < size {
		s += fmt.Sprintf("… [truncated; %s total]", humanBytes(size))
	}
	return s
}

// trimUTF8 drops a trailing partial UTF-8 sequence.
func trimUTF8(s string) string {
	for i := 0; i < 4 && len(s) > 0; i++ {
		if utf8ValidTail(s) {
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}

// excerpt is the text sent to a Summarizer: all of it when small, else the
// head and evenly spaced samples with markers of what was left out.
func excerpt(v any, max int) string {
	var text string
	if str, ok := v.(string); ok {
		text = str
	} else {
		text = valueText(v, 4*max)
	}
	if len(text) <= max {
		return text
	}
	const parts = 8
	per := max/parts - 40 // room for the omission markers
	if per < 16 {
		per = 16
	}
	var b strings.Builder
	for i := 0; i < parts; i++ {
		start := int(int64(len(text)-per) * int64(i) / int64(parts-1))
		if i > 0 {
			fmt.Fprintf(&b, "\n[… %s omitted …]\n", humanBytes(int64(start)))
		}
		b.WriteString(trimUTF8(text[start : start+per]))
	}
	return b.String()
}

// Describe returns key's value as a Variable named after the key (not
// checked as an identifier), with its deterministic summary.
func (s *Store) Describe(key string) (*Variable, error) {
	v, ref, err := s.GetRef(key)
	if err != nil {
		return nil, err
	}
	vr := &Variable{Name: key, Type: ref.Type, Value: v, Source: StorePrefix + key}
	vr.measure()
	vr.Summary = summarize(vr)
	return vr, nil
}

// SetTextFile stores the text file at path under key without reading it
// into memory: it is copied into the store (checked to be UTF-8) and
// persisted, and later Gets serve it from a memory map. Use it for texts
// larger than RAM. The type is text unless WithStoreType names a custom type.
func (s *Store) SetTextFile(key, path string, opts ...SetOption) (Ref, error) {
	if s.cfg.Dir == "" {
		return Ref{}, fmt.Errorf("store key %q: cannot persist: the store has no directory", key)
	}
	if err := checkKey(key); err != nil {
		return Ref{}, err
	}
	o := setOptions{persist: true}
	for _, opt := range opts {
		opt(&o)
	}
	o.persist = true
	if o.scope != "" {
		if err := ValidateScope(o.scope); err != nil {
			return Ref{}, err
		}
	}
	if o.typ == "" {
		o.typ = Text
	} else if o.typ != Text && !o.typ.IsCustom() {
		return Ref{}, fmt.Errorf("store key %q: %w: a text file can be text or custom:NAME, not %s", key, ErrBadType, o.typ)
	}
	tmp, size, err := copyTextTemp(s.cfg.Dir, path)
	if err != nil {
		return Ref{}, err
	}
	p := &prepared{key: key, typ: o.typ, size: size, opts: o, tmp: tmp, enc: encText, lazy: true}
	defer func() {
		if p.tmp != "" {
			os.Remove(p.tmp)
		}
	}()
	var ref Ref
	var oldFiles []string
	err = s.withDiskLock(func() error {
		var err error
		ref, oldFiles, err = s.commitLocked(p, nil)
		return err
	})
	if err != nil {
		return Ref{}, err
	}
	for _, f := range oldFiles {
		os.Remove(f)
	}
	return ref, nil
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
