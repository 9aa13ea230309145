package rlmctx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
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

	// token names this store's temporary files; owner is the locked file
	// proving they are in use (see tempPattern).
	token       string
	ownerMu     sync.Mutex
	owner       *os.File
	ownerClosed bool

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

// OpenStore opens (creating if needed) a store. It reads only metadata;
// values are read on first Get. It never deletes data: entries that cannot
// be read (damaged, or written by a newer rlm) and foreign files are
// reported by Warnings and left as they are for [Store.Fsck]. Leftovers of
// killed writers (temporary files whose owner is gone, value files
// superseded by their key's readable metadata) are removed.
func OpenStore(cfg StoreConfig) (*Store, error) {
	s := &Store{cfg: cfg.withDefaults(), entries: map[string]*entry{}, sums: map[string]string{}, token: randomSuffix() + randomSuffix()}
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

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
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

// documentFile returns the file holding key's value when the value is a
// JSON document ("" for another type, or one held only in memory), and
// its metadata. The file may be replaced or removed once the lock is
// released: a reader that finds it gone asks GetRef.
func (s *Store) documentFile(key string) (string, Ref, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(key)
	if err != nil || e.ref.Type != JSON {
		return "", Ref{}, err
	}
	s.tick++
	e.lastUse = s.tick
	switch {
	case e.spillPath != "":
		return e.spillPath, e.ref, nil
	case e.valueFile != "":
		return filepath.Join(s.cfg.Dir, e.valueFile), e.ref, nil
	}
	return "", e.ref, nil
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
			out = append(
				out,
				Meta{
					Ref:       e.ref,
					UpdatedAt: e.updatedAt,
					Persisted: e.persist,
					InMemory:  e.loaded && !e.mapped,
					Spilled:   e.spillPath != "",
					Mapped:    e.mapped,
				},
			)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
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
	return s.withDiskLock(func() error {
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
			// Under the lock, so no scan sees a value file without metadata.
			os.Remove(filepath.Join(s.cfg.Dir, e.valueFile))
		}
		if e.spillPath != "" {
			os.Remove(e.spillPath)
		}
		s.unload(e)
		delete(s.entries, key)
		return nil
	})
}

// Clear removes every variable, in memory and on disk (including variables
// persisted by other processes): every variable List shows. Entries that
// cannot be read (see Fsck) and those of a newer rlm are left as they are.
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
		sv, err := s.surveyLocked()
		if err != nil {
			return err
		}
		for _, e := range sv.entries {
			stem := keyFileName(e.ref.Key)
			if err := os.Remove(filepath.Join(s.cfg.Dir, stem+metaSuffix)); err != nil {
				return err
			}
			for _, v := range sv.values[stem] {
				os.Remove(filepath.Join(s.cfg.Dir, v))
			}
		}
		os.RemoveAll(filepath.Join(s.cfg.Dir, sumDirName))
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
	s.releaseOwner()
	if s.lockFile != nil {
		return s.lockFile.Close()
	}
	return nil
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
	tmp, size, err := s.copyTextTemp(s.cfg.Dir, path)
	if errors.Is(err, errUTF16) {
		// Rare, and needs converting: decode it in memory.
		l, err := LoadSource(context.Background(), path, LoadOptions{Format: FormatText})
		if err != nil {
			return Ref{}, err
		}
		return s.Set(key, l.Value, WithScope(o.scope), WithStoreType(o.typ), WithPersist())
	}
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
