package rlmctx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// tempMaxAge is how old a temporary file (or spill directory) must be
// before it is removed when no owner lock tells whether its writer is
// alive: files of older rlm versions, of stores on file systems without
// working locks, or caught in the instant before their owner file exists.
const tempMaxAge = time.Hour

// survey is what one pass over the store directory found. It never
// changes the directory.
type survey struct {
	entries map[string]*entry   // readable entries, by key
	metas   map[string]string   // stem -> its metadata file name
	bad     map[string]error    // metadata file name -> why it cannot be read
	values  map[string][]string // stem -> value file names
	temps   []string            // temporary files and spill directories
	foreign []string            // files rlm did not write
}

// surveyLocked reads the store directory; called under the disk lock.
func (s *Store) surveyLocked() (*survey, error) {
	des, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.cfg.Dir, err)
	}
	sv := &survey{entries: map[string]*entry{}, metas: map[string]string{}, bad: map[string]error{}, values: map[string][]string{}}
	for _, de := range des {
		name := de.Name()
		switch {
		case name == lockName || name == sumDirName || name == quarantineDirName:
		case strings.HasPrefix(name, tmpPrefix) || strings.HasPrefix(name, spillPrefix):
			sv.temps = append(sv.temps, name)
		case strings.HasSuffix(name, metaSuffix):
			sv.metas[strings.TrimSuffix(name, metaSuffix)] = name
			e, err := s.readMetaFile(name)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					sv.bad[name] = err
				}
				continue
			}
			sv.entries[e.ref.Key] = e
		case isValueFileName(name):
			stem := valueFileStem(name)
			sv.values[stem] = append(sv.values[stem], name)
		default:
			sv.foreign = append(sv.foreign, name)
		}
	}
	return sv, nil
}

// superseded lists value files left behind by a writer killed between its
// renames: files of a key whose readable metadata names another value file
// (an older version, or a newer one never committed). Files of a key whose
// metadata cannot be read are never listed.
func (sv *survey) superseded() []string {
	var out []string
	for _, e := range sv.entries {
		for _, v := range sv.values[valueFileStem(e.valueFile)] {
			if v != e.valueFile {
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}

// orphans lists value files of keys that have no metadata file at all.
func (sv *survey) orphans() []string {
	var out []string
	for stem, vs := range sv.values {
		if _, ok := sv.metas[stem]; !ok {
			out = append(out, vs...)
		}
	}
	sort.Strings(out)
	return out
}

// scan loads all metadata; called under the disk lock. It deletes only
// what is provably not data: superseded value files of readable keys and
// temporary files whose writer is gone (cleanTemps). Whatever cannot be
// read is reported by Warnings and left as it is for Fsck.
func (s *Store) scan() error {
	sv, err := s.surveyLocked()
	if err != nil {
		return err
	}
	var warns []string
	for _, name := range sortedKeys(sv.bad) {
		err := sv.bad[name]
		switch {
		case errors.Is(err, ErrNewerFormat):
			warns = append(warns, fmt.Sprintf("store: skipped %s: %v; left untouched (use a newer rlm to read it)", name, err))
		case errors.Is(err, errForeign):
			warns = append(warns, fmt.Sprintf("store: skipped %s: %v", name, err))
		default:
			warns = append(warns, fmt.Sprintf("store: skipped %s: %v; nothing was deleted", name, err))
		}
	}
	for _, name := range sv.orphans() {
		warns = append(warns, fmt.Sprintf("store: value file %s has no metadata; left as is", name))
	}
	for _, name := range sv.foreign {
		warns = append(warns, fmt.Sprintf("store: ignored foreign file %s", name))
	}
	for _, name := range sv.superseded() {
		os.Remove(filepath.Join(s.cfg.Dir, name))
	}
	s.cleanTemps(sv.temps)
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, e := range sv.entries {
		if cur, ok := s.entries[k]; ok && cur.ref.Version >= e.ref.Version {
			continue
		}
		s.entries[k] = e
	}
	s.warnings = append(s.warnings, warns...)
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// tempToken is the owner token in a temporary name: ".tmp-TOKEN-RANDOM",
// ".tmp-TOKEN.owner", ".spill-TOKEN-RANDOM" (for files of older versions
// of rlm TOKEN is a process id, which has no owner file).
func tempToken(name string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(name, tmpPrefix), spillPrefix)
	if i := strings.IndexAny(rest, "-."); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// cleanTemps removes the temporary files and spill directories among
// names whose writer is gone, telling that by lock and age, never by
// process id (a writer in another PID namespace, say a second container
// on the same volume, has ids that mean nothing here):
//   - a file whose owner file (.tmp-TOKEN.owner) is locked belongs to an
//     open store and is kept;
//   - one whose owner file exists unlocked belongs to a store that closed
//     or died, and is removed with the owner file;
//   - one without an owner file (or where locks do not work) is removed
//     once older than tempMaxAge.
//
// Called under the disk lock, but writers create temporary files without
// it, so only the rules above protect them.
func (s *Store) cleanTemps(names []string) {
	owners := map[string]*os.File{} // token -> owner file we locked
	alive := map[string]bool{}      // token -> owner locked by another store
	defer func() {
		for _, f := range owners {
			os.Remove(f.Name())
			f.Close()
		}
	}()
	ownerState := func(tok string) (dead, known bool) {
		if _, ok := owners[tok]; ok {
			return true, true
		}
		if a, ok := alive[tok]; ok {
			return !a, true
		}
		if tok == s.token {
			return false, true
		}
		f, err := os.OpenFile(filepath.Join(s.cfg.Dir, tmpPrefix+tok+ownerSuffix), os.O_RDWR, 0)
		if err != nil {
			return false, false
		}
		locked, known := tryFlock(f)
		if !known {
			f.Close()
			return false, false
		}
		if !locked {
			f.Close()
			alive[tok] = true
			return false, true
		}
		owners[tok] = f
		return true, true
	}
	now := time.Now()
	for _, name := range names {
		if strings.HasSuffix(name, ownerSuffix) {
			ownerState(tempToken(name)) // a dead owner's file goes too
			continue
		}
		dead, known := ownerState(tempToken(name))
		path := filepath.Join(s.cfg.Dir, name)
		if !known {
			fi, err := os.Lstat(path)
			dead = err == nil && now.Sub(fi.ModTime()) > tempMaxAge
		}
		if dead {
			os.RemoveAll(path)
		}
	}
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
