package rlmctx

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

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
