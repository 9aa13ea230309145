package rlmctx

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlmhq/rlm/internal/pyjson"
)

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
		if _, err := s.tempPattern(); err != nil {
			return err
		}
		d, err := os.MkdirTemp(s.cfg.Dir, spillPrefix+s.token+"-*")
		if err != nil {
			return err
		}
		s.spillDir = d
	}
	tmp, enc, _, sum, err := s.writeTemp(s.spillDir, e.value)
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
	v, mapped, err := readStored(path, isText, e.ref.SizeBytes, s.cfg.MmapThreshold)
	if err != nil {
		return err
	}
	if mapped {
		e.value, e.loaded, e.mapped = v, true, true
		return nil
	}
	e.value, e.loaded = v, true
	s.memBytes += e.ref.SizeBytes
	return nil
}

// readStored reads a value in its stored form (text: its UTF-8 bytes, any
// other value: its JSON) from the file at path: a text of at least
// mmapThreshold bytes (> 0) is served from a memory map.
func readStored(path string, isText bool, size, mmapThreshold int64) (v any, mapped bool, err error) {
	if isText && mmapThreshold > 0 && size >= mmapThreshold {
		return mmapString(path)
	}
	data, err := readFileExact(path)
	if err != nil {
		return nil, false, err
	}
	if isText {
		return bytesToString(data), false, nil
	}
	v, err = pyjson.DecodeOwned(data, path)
	return v, false, err
}
