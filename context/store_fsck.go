package rlmctx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rlmhq/rlm/internal/pyjson"
)

// ProblemKind classifies what [Store.Fsck] found.
type ProblemKind string

// Problem kinds.
const (
	// ProblemCorrupt: unreadable metadata, or a missing or truncated value
	// file. Repair rebuilds the metadata when the value file is intact,
	// else moves the entry to the quarantine directory.
	ProblemCorrupt ProblemKind = "corrupt"
	// ProblemNewerFormat: written by a newer rlm. Never touched.
	ProblemNewerFormat ProblemKind = "newer-format"
	// ProblemOrphan: a value file without metadata. Repair moves it to the
	// quarantine directory.
	ProblemOrphan ProblemKind = "orphan"
	// ProblemForeign: a file rlm did not write. Never touched.
	ProblemForeign ProblemKind = "foreign"
)

// Problem is one thing wrong in a store directory.
type Problem struct {
	Kind ProblemKind
	// File is the metadata or value file's name in the store directory.
	File string
	// Key is the variable's key when it can be told ("" otherwise).
	Key string
	// Detail says what is wrong.
	Detail string
	// Action is what repair did: "rebuilt" (the metadata was written anew
	// from the intact value file), "quarantined" or "" (nothing).
	Action string
	// Moved lists where repair moved the entry's files.
	Moved []string
	// Value is the path of the value file holding the data after repair
	// ("" if there is none): store it again under Key to recover it.
	Value string
}

// FsckReport is what [Store.Fsck] found and did.
type FsckReport struct {
	// Entries is the number of readable variables.
	Entries int
	// Problems lists what is wrong, by file name.
	Problems []Problem
	// Quarantine is the directory repair moved files to ("" if none):
	// nothing is deleted, and it holds a README.txt saying what each file
	// was and why it was moved.
	Quarantine string
}

// Fsck checks the store directory: every metadata file readable, every
// value file present, of the size its metadata says, and referenced. With
// repair false it changes nothing. With repair true it fixes what it can
// without deleting anything: damaged metadata whose value file is intact
// is written anew (type inferred, scope global, version 1; the damaged
// file is kept in the quarantine directory), other unreadable entries and
// value files without metadata are moved to a new directory under
// .quarantine in the store. Entries written by a newer rlm and foreign
// files are reported and never touched.
func (s *Store) Fsck(repair bool) (*FsckReport, error) {
	if s.cfg.Dir == "" {
		return &FsckReport{}, nil
	}
	var rep *FsckReport
	err := s.withDiskLock(func() error {
		sv, err := s.surveyLocked()
		if err != nil {
			return err
		}
		rep = &FsckReport{Entries: len(sv.entries)}
		q := &quarantine{dir: s.cfg.Dir}
		for _, name := range sortedKeys(sv.bad) {
			p := s.checkBad(sv, name, sv.bad[name], repair, q)
			if p.Action == "rebuilt" {
				rep.Entries++
			}
			rep.Problems = append(rep.Problems, p)
		}
		for _, name := range sv.orphans() {
			p := Problem{
				Kind:   ProblemOrphan,
				File:   name,
				Detail: "value file without metadata (a write that never completed, or metadata deleted by hand)",
			}
			p.Key, _ = keyFromFileName(valueFileStem(name))
			if repair {
				moved, err := q.move(name, fmt.Sprintf("value file without metadata; its key was probably %q", p.Key))
				if err != nil {
					return err
				}
				p.Action, p.Moved, p.Value = "quarantined", []string{moved}, moved
			}
			rep.Problems = append(rep.Problems, p)
		}
		for _, name := range sv.foreign {
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemForeign, File: name, Detail: "not a store file; left untouched"})
		}
		sort.SliceStable(rep.Problems, func(i, j int) bool { return rep.Problems[i].File < rep.Problems[j].File })
		if err := q.finish(); err != nil {
			return err
		}
		rep.Quarantine = q.path
		s.mu.Lock()
		s.refreshLocked()
		s.mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// checkBad reports (and with repair, fixes) the unreadable metadata file
// name.
func (s *Store) checkBad(sv *survey, name string, err error, repair bool, q *quarantine) Problem {
	stem := strings.TrimSuffix(name, metaSuffix)
	p := Problem{Kind: ProblemCorrupt, File: name, Detail: err.Error()}
	p.Key, _ = keyFromFileName(stem)
	switch {
	case errors.Is(err, ErrNewerFormat):
		p.Kind = ProblemNewerFormat
		p.Detail += "; left untouched (use a newer rlm to read it)"
		return p
	case errors.Is(err, errForeign):
		p.Kind = ProblemForeign
		p.Detail += "; left untouched"
		return p
	case !errors.Is(err, ErrCorrupt):
		return p // an I/O error: nothing to repair
	}
	if !repair {
		return p
	}
	values := sv.values[stem]
	var ee *entryError
	if errors.As(err, &ee) && ee.damaged && p.Key != "" && len(values) == 1 {
		if err := s.rebuildMeta(p.Key, values[0], q, name); err == nil {
			p.Action, p.Value = "rebuilt", filepath.Join(s.cfg.Dir, values[0])
			p.Moved = q.movedOf(name)
			return p
		} else {
			p.Detail += fmt.Sprintf("; cannot rebuild: %v", err)
		}
	}
	reason := fmt.Sprintf("unreadable store entry (%v)", err)
	for _, f := range append([]string{name}, values...) {
		moved, err := q.move(f, reason)
		if err != nil {
			p.Detail += fmt.Sprintf("; could not move %s: %v", f, err)
			continue
		}
		p.Moved = append(p.Moved, moved)
		if f != name {
			p.Value = moved
		}
	}
	p.Action = "quarantined"
	return p
}

// quarantineKeyLocked moves key's unreadable metadata file and its value
// files to q (under the disk lock).
func (s *Store) quarantineKeyLocked(q *quarantine, key string, why error) error {
	stem := keyFileName(key)
	des, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		return err
	}
	reason := fmt.Sprintf("unreadable entry of key %q (%v), moved aside before the key was written again", key, why)
	if _, err := q.move(stem+metaSuffix, reason); err != nil {
		return err
	}
	for _, de := range des {
		if valueFileStem(de.Name()) == stem {
			if _, err := q.move(de.Name(), reason); err != nil {
				return err
			}
		}
	}
	return q.finish()
}

// rebuildMeta writes new metadata for key from its intact value file,
// after copying the damaged metadata file to the quarantine directory.
func (s *Store) rebuildMeta(key, valueFile string, q *quarantine, damaged string) error {
	path := filepath.Join(s.cfg.Dir, valueFile)
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	typ, enc := Text, encText
	if strings.HasSuffix(valueFile, ".json") {
		data, err := readFileExact(path)
		if err != nil {
			return err
		}
		v, err := pyjson.DecodeOwned(data, valueFile)
		if err != nil {
			return err
		}
		typ, enc = InferType(v), encJSON
	} else if err := checkUTF8File(path); err != nil {
		return err
	}
	if err := q.copy(damaged, fmt.Sprintf("damaged metadata of key %q, replaced by metadata rebuilt from %s", key, valueFile)); err != nil {
		return err
	}
	now := time.Now().UTC()
	e := &entry{
		ref:       Ref{ID: uuid.NewString(), Key: key, Scope: ScopeGlobal, Type: typ, SizeBytes: fi.Size(), CreatedAt: now, Version: 1},
		updatedAt: now,
		persist:   true,
		valueFile: valueFile,
	}
	if _, err := s.writeMeta(e, enc); err != nil {
		return err
	}
	return syncDir(s.cfg.Dir)
}

// checkUTF8File fails if the file at path is not UTF-8.
func checkUTF8File(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return copyUTF8(io.Discard, f, path)
}

// quarantine moves files out of the store directory into
// .quarantine/TIMESTAMP-RANDOM, created on first use, and records why in
// its README.txt.
type quarantine struct {
	dir   string // the store directory
	path  string // the quarantine directory, once created
	notes []string
	moved map[string][]string // original name -> paths in quarantine
}

func (q *quarantine) ensure() error {
	if q.path != "" {
		return nil
	}
	p := filepath.Join(q.dir, quarantineDirName, time.Now().UTC().Format("20060102T150405Z")+"-"+randomSuffix())
	if err := os.MkdirAll(p, 0o755); err != nil {
		return err
	}
	q.path, q.moved = p, map[string][]string{}
	return nil
}

// move renames the store file name into the quarantine directory.
func (q *quarantine) move(name, why string) (string, error) {
	if err := q.ensure(); err != nil {
		return "", err
	}
	dst := filepath.Join(q.path, name)
	if err := os.Rename(filepath.Join(q.dir, name), dst); err != nil {
		return "", err
	}
	q.notes = append(q.notes, fmt.Sprintf("%s: moved here from the store: %s", name, why))
	q.moved[name] = append(q.moved[name], dst)
	return dst, nil
}

// copy copies the store file name into the quarantine directory.
func (q *quarantine) copy(name, why string) error {
	if err := q.ensure(); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(q.dir, name))
	if err != nil {
		return err
	}
	dst := filepath.Join(q.path, name)
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return err
	}
	q.notes = append(q.notes, fmt.Sprintf("%s: copied here from the store: %s", name, why))
	q.moved[name] = append(q.moved[name], dst)
	return nil
}

func (q *quarantine) movedOf(name string) []string { return q.moved[name] }

// finish writes README.txt and makes the moves durable.
func (q *quarantine) finish() error {
	if q.path == "" {
		return nil
	}
	text := "Files moved or copied out of the rlm store at " + q.dir + " by a repair.\n" +
		"Nothing was deleted. A value file (NAME.v-XXXXXXXX.txt holds raw text,\n" +
		".json a JSON value) can be stored again under its key to recover it.\n\n" +
		strings.Join(q.notes, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(q.path, "README.txt"), []byte(text), 0o644); err != nil {
		return err
	}
	if err := syncDir(q.path); err != nil {
		return err
	}
	return syncDir(q.dir)
}
