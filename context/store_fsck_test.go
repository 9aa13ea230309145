package rlmctx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// damages are edits of a metadata file that make it unreadable to this
// version of rlm, none of which touch the value file.
var damages = []struct {
	name   string
	edit   func(meta string) string
	kind   error
	report ProblemKind
}{
	{"stray comma", func(m string) string { return strings.Replace(m, `"format"`, `,"format"`, 1) }, ErrCorrupt, ProblemCorrupt},
	{
		"future format",
		func(m string) string { return strings.Replace(m, metaFormat, "rlm-store/2", 1) },
		ErrNewerFormat,
		ProblemNewerFormat,
	},
	{
		"unknown encoding",
		func(m string) string { return strings.Replace(m, `"encoding": "text"`, `"encoding": "zstd"`, 1) },
		ErrNewerFormat,
		ProblemNewerFormat,
	},
}

// putDamaged stores a text value under "precious", closes the store and
// applies edit to its metadata file.
func putDamaged(t *testing.T, dir string, edit func(string) string) {
	t.Helper()
	s := openStore(t, StoreConfig{Dir: dir})
	_, err := s.Set("precious", strings.Repeat("precious data\n", 1000), WithPersist())
	require.NoError(t, err)
	require.NoError(t, s.Close())
	meta := filepath.Join(dir, "precious"+metaSuffix)
	b, err := os.ReadFile(meta)
	require.NoError(t, err)
	damaged := edit(string(b))
	require.NotEqual(t, string(b), damaged)
	require.NoError(t, os.WriteFile(meta, []byte(damaged), 0o644))
}

// TestStoreReadPathsNeverDelete: an entry this rlm cannot read survives
// every read path untouched (issue 16: ls deleted a 114 MB value over one
// stray comma in its metadata).
func TestStoreReadPathsNeverDelete(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			dir := t.TempDir()
			putDamaged(t, dir, d.edit)
			before := dirFiles(t, dir)

			s, err := OpenStore(StoreConfig{Dir: dir})
			require.NoError(t, err)
			assert.Contains(t, strings.Join(s.Warnings(), "\n"), "skipped precious.meta.json")
			assert.Empty(t, s.List(Filter{}))
			_, err = s.Get("precious")
			require.ErrorIs(t, err, d.kind)
			assert.False(t, s.Has("precious"))
			rep, err := s.Fsck(false)
			require.NoError(t, err)
			require.Len(t, rep.Problems, 1)
			assert.Equal(t, d.report, rep.Problems[0].Kind)
			assert.Equal(t, "precious", rep.Problems[0].Key)
			assert.Empty(t, rep.Problems[0].Action)
			require.NoError(t, s.Close())

			// A second open (another ls) changes nothing either.
			s2 := openStore(t, StoreConfig{Dir: dir})
			s2.List(Filter{})
			require.NoError(t, s2.Close())
			assert.Equal(t, before, dirFiles(t, dir), "no file changed or deleted")
		})
	}
}

// TestStoreNewerFormatUntouched: an entry of a newer rlm is refused by
// writes, kept by Clear and left alone by repair.
func TestStoreNewerFormatUntouched(t *testing.T) {
	dir := t.TempDir()
	putDamaged(t, dir, damages[1].edit)
	before := dirFiles(t, dir)
	s := openStore(t, StoreConfig{Dir: dir})
	_, err := s.Set("precious", "overwrite", WithPersist())
	require.ErrorIs(t, err, ErrNewerFormat)
	assert.Contains(t, err.Error(), `written by a newer rlm (format "rlm-store/2"`)
	_, err = s.SetIfVersion("precious", "overwrite", 0)
	require.ErrorIs(t, err, ErrNewerFormat)
	require.NoError(t, s.Clear())
	rep, err := s.Fsck(true)
	require.NoError(t, err)
	require.Len(t, rep.Problems, 1)
	assert.Empty(t, rep.Problems[0].Action)
	assert.Empty(t, rep.Quarantine)
	require.NoError(t, s.Close())
	assert.Equal(t, before, dirFiles(t, dir))
}

// TestStoreFsckRepair: repair rebuilds damaged metadata of an intact value,
// moves what cannot be rebuilt to the quarantine directory, and deletes
// nothing.
func TestStoreFsckRepair(t *testing.T) {
	dir := t.TempDir()
	putDamaged(t, dir, damages[0].edit)
	s := openStore(t, StoreConfig{Dir: dir})
	_, err := s.Set("data", map[string]any{"a": []any{int64(1), int64(2)}}, WithPersist())
	require.NoError(t, err)
	_, err = s.Set("trunc", "0123456789", WithPersist())
	require.NoError(t, err)
	_, err = s.Set("fine", "ok", WithPersist())
	require.NoError(t, err)
	require.NoError(t, s.Close())
	// data: damaged metadata over a JSON value; trunc: a truncated value;
	// lost: a value file whose metadata is gone.
	dm := filepath.Join(dir, "data"+metaSuffix)
	require.NoError(t, os.WriteFile(dm, []byte("{garbage"), 0o644))
	tv, _ := filepath.Glob(filepath.Join(dir, "trunc.v-*.txt"))
	require.NoError(t, os.WriteFile(tv[0], []byte("01234"), 0o644))
	lost := "lost.v-0123abcd.txt"
	require.NoError(t, os.WriteFile(filepath.Join(dir, lost), []byte("orphaned"), 0o644))

	s = openStore(t, StoreConfig{Dir: dir})
	rep, err := s.Fsck(true)
	require.NoError(t, err)
	byFile := map[string]Problem{}
	for _, p := range rep.Problems {
		byFile[p.File] = p
	}
	require.Len(t, byFile, 4, "%+v", rep.Problems)
	assert.Equal(t, "rebuilt", byFile["precious"+metaSuffix].Action)
	assert.Equal(t, "rebuilt", byFile["data"+metaSuffix].Action)
	tp := byFile["trunc"+metaSuffix]
	assert.Equal(t, "quarantined", tp.Action, "a truncated value is not passed off as whole")
	assert.Equal(t, ProblemOrphan, byFile[lost].Kind)
	assert.Equal(t, "lost", byFile[lost].Key)
	assert.Equal(t, 3, rep.Entries, "fine, precious and data")
	require.NotEmpty(t, rep.Quarantine)

	v, err := s.Get("precious")
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("precious data\n", 1000), v)
	ref, err := s.Ref("data")
	require.NoError(t, err)
	assert.Equal(t, JSON, ref.Type)
	assert.False(t, s.Has("trunc"))
	b, err := os.ReadFile(tp.Value)
	require.NoError(t, err)
	assert.Equal(t, "01234", string(b), "the damaged value is kept")
	b, err = os.ReadFile(filepath.Join(rep.Quarantine, lost))
	require.NoError(t, err)
	assert.Equal(t, "orphaned", string(b))
	b, err = os.ReadFile(filepath.Join(rep.Quarantine, "data"+metaSuffix))
	require.NoError(t, err)
	assert.Equal(t, "{garbage", string(b), "the damaged metadata is kept")
	readme, err := os.ReadFile(filepath.Join(rep.Quarantine, "README.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), lost)

	// Repaired: a new open is clean, a second fsck finds nothing.
	require.NoError(t, s.Close())
	s = openStore(t, StoreConfig{Dir: dir})
	assert.Empty(t, s.Warnings())
	rep, err = s.Fsck(true)
	require.NoError(t, err)
	assert.Empty(t, rep.Problems)
	assert.Empty(t, rep.Quarantine)
}

// TestStoreTempFilesOfOtherWriters: temporary files are removed by lock
// and age only. A writer in another PID namespace has a process id that is
// dead here: its fresh temp file must survive.
func TestStoreTempFilesOfOtherWriters(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: dir})
	_, err := s.Set("k", "v", WithPersist())
	require.NoError(t, err)
	old := time.Now().Add(-2 * tempMaxAge)
	write := func(name string, age time.Time) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o644))
		require.NoError(t, os.Chtimes(p, age, age))
		return p
	}
	otherNS := write(".tmp-999999999-123", time.Now())     // a writer elsewhere, fresh
	stale := write(".tmp-999999999-456", old)              // nobody's, old
	ownTemp := write(tmpPrefix+s.token+"-789", old)        // the open store's, old
	deadOwner := write(".tmp-0123456789abcdef.owner", old) // an owner that died
	deadTemp := write(".tmp-0123456789abcdef-1", time.Now())
	_, err = s.tempPattern() // s now holds its owner lock
	require.NoError(t, err)

	s2 := openStore(t, StoreConfig{Dir: dir})
	assert.Empty(t, s2.Warnings())
	assert.FileExists(t, otherNS, "a fresh temp file of an unknown writer is kept")
	assert.NoFileExists(t, stale, "an old one without owner is removed")
	assert.FileExists(t, ownTemp, "a locked owner's temp file is kept however old")
	assert.NoFileExists(t, deadTemp, "an unlocked owner's temp file is removed")
	assert.NoFileExists(t, deadOwner)
	require.NoError(t, s.Close())
	s3 := openStore(t, StoreConfig{Dir: dir})
	assert.NoFileExists(t, ownTemp, "removed once its store closed")
	assert.FileExists(t, otherNS)
	require.NoError(t, s3.Close())
}
