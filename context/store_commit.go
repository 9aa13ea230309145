package rlmctx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"
	"github.com/rlmhq/rlm/internal/pyjson"
)

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
		tmp, enc, size, sum, err := s.writeTemp(s.cfg.Dir, p.value)
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
	var unreadable error // the key's metadata file exists but cannot be read
	if s.cfg.Dir != "" {
		d, err := s.readMetaFile(keyFileName(p.key) + metaSuffix)
		if err == nil {
			disk = d
		} else if !errors.Is(err, fs.ErrNotExist) {
			unreadable = err
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
		return Ref{}, nil, fmt.Errorf(
			"store key %q: %w: expected version %d, current is %d",
			p.key,
			ErrVersionMismatch,
			*expect,
			curVersion,
		)
	}
	now := time.Now().UTC()
	ref := Ref{
		ID:        uuid.NewString(),
		Key:       p.key,
		Scope:     ScopeGlobal,
		Type:      p.typ,
		SizeBytes: p.size,
		CreatedAt: now,
		Version:   curVersion + 1,
	}
	if cur != nil {
		ref.ID, ref.CreatedAt, ref.Scope = cur.ref.ID, cur.ref.CreatedAt, cur.ref.Scope
	}
	if p.opts.scope != "" {
		ref.Scope = p.opts.scope
	}
	persist := p.opts.persist || (cur != nil && cur.persist)
	if persist && unreadable != nil {
		// Never overwrite what cannot be read: a newer rlm's entry is
		// refused, a damaged one moved aside first.
		if !errors.Is(unreadable, ErrCorrupt) && !errors.Is(unreadable, errForeign) {
			return Ref{}, nil, fmt.Errorf("store key %q: %w", p.key, unreadable)
		}
		q := &quarantine{dir: s.cfg.Dir}
		if err := s.quarantineKeyLocked(q, p.key, unreadable); err != nil {
			return Ref{}, nil, fmt.Errorf("store key %q: moving the unreadable entry aside: %w", p.key, err)
		}
		s.warnings = append(
			s.warnings,
			fmt.Sprintf("store: key %q had an unreadable entry (%v); moved it to %s before writing", p.key, unreadable, q.path),
		)
	}
	var old []string
	e := &entry{ref: ref, updatedAt: now, persist: persist, value: p.value, loaded: !p.lazy}
	if persist {
		if p.tmp == "" {
			// Became sticky-persisted between the check and the lock.
			tmp, enc, size, sum, err := s.writeTemp(s.cfg.Dir, p.value)
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
