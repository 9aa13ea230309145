package rlmctx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openStore(t *testing.T, cfg StoreConfig) *Store {
	t.Helper()
	s, err := OpenStore(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStoreOperations(t *testing.T) {
	for _, persist := range []bool{false, true} {
		t.Run(fmt.Sprintf("persist=%v", persist), func(t *testing.T) {
			s := openStore(t, StoreConfig{Dir: t.TempDir()})
			var opts []SetOption
			if persist {
				opts = append(opts, WithPersist())
			}
			ref, err := s.Set("doc", "hello", opts...)
			require.NoError(t, err)
			assert.Equal(t, "doc", ref.Key)
			assert.Equal(t, ScopeGlobal, ref.Scope)
			assert.Equal(t, Text, ref.Type)
			assert.EqualValues(t, 5, ref.SizeBytes)
			assert.EqualValues(t, 1, ref.Version)
			assert.NotEmpty(t, ref.ID)
			assert.False(t, ref.CreatedAt.IsZero())

			assert.True(t, s.Has("doc"))
			assert.False(t, s.Has("other"))
			v, err := s.Get("doc")
			require.NoError(t, err)
			assert.Equal(t, "hello", v)
			r2, err := s.Ref("doc")
			require.NoError(t, err)
			assert.Equal(t, ref, r2)
			v, err = s.Resolve(ref)
			require.NoError(t, err)
			assert.Equal(t, "hello", v)

			// Overwrite: version bumps, id and creation time stay.
			ref3, err := s.Set("doc", dict("a", int64(1)), WithScope(AgentScope("7")))
			require.NoError(t, err)
			assert.EqualValues(t, 2, ref3.Version)
			assert.Equal(t, ref.ID, ref3.ID)
			assert.Equal(t, ref.CreatedAt, ref3.CreatedAt)
			assert.Equal(t, JSON, ref3.Type)
			assert.Equal(t, "agent:7", ref3.Scope)
			v, err = s.Resolve(ref) // old ref, same variable: current value
			require.NoError(t, err)
			assert.Equal(t, `{"a": 1}`, pyjson.Excerpt(v, -1))

			_, err = s.Get("missing")
			require.ErrorIs(t, err, ErrNotFound)
			_, err = s.Ref("missing")
			require.ErrorIs(t, err, ErrNotFound)
			_, err = s.Set("", "x")
			require.ErrorIs(t, err, ErrBadKey)

			require.NoError(t, s.Delete("doc"))
			assert.False(t, s.Has("doc"))
			require.ErrorIs(t, s.Delete("doc"), ErrNotFound)
			_, err = s.Resolve(ref)
			require.ErrorIs(t, err, ErrNotFound)
			ref4, err := s.Set("doc", "again", opts...)
			require.NoError(t, err)
			assert.NotEqual(t, ref.ID, ref4.ID)
			assert.EqualValues(t, 1, ref4.Version)
			_, err = s.Resolve(ref)
			require.ErrorIs(t, err, ErrNotFound, "stale ref of a deleted variable")

			_, err = s.Set("x", int64(1), opts...)
			require.NoError(t, err)
			require.Len(t, s.List(Filter{}), 2)
			require.NoError(t, s.Clear())
			assert.Empty(t, s.List(Filter{}))
			assert.False(t, s.Has("x"))
			entries, _ := os.ReadDir(s.Dir())
			for _, e := range entries {
				assert.True(t, strings.HasPrefix(e.Name(), "."), "left after Clear: %s", e.Name())
			}

			require.NoError(t, s.Close())
			_, err = s.Set("y", "z")
			require.ErrorIs(t, err, ErrStoreClosed)
			_, err = s.Get("y")
			require.ErrorIs(t, err, ErrStoreClosed)
		})
	}
}

func TestStoreListFilters(t *testing.T) {
	s := openStore(t, StoreConfig{})
	set := func(key string, v any, opts ...SetOption) {
		_, err := s.Set(key, v, opts...)
		require.NoError(t, err)
	}
	set("g1", "text")
	set("a1", []any{int64(1)}, WithScope("agent:1"))
	set("a2", dict("memories", []any{}), WithScope("agent:2"))
	set("s1", dict("result", "ok"), WithScope(SessionScope("x")))
	set("t1", "x", WithScope("agent:1"), WithStoreType(Custom("note")))

	keys := func(f Filter) []string {
		var out []string
		for _, m := range s.List(f) {
			out = append(out, m.Key)
		}
		return out
	}
	tests := []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"a1", "a2", "g1", "s1", "t1"}},
		{Filter{Scope: "global"}, []string{"g1"}},
		{Filter{Scope: "agent:1"}, []string{"a1", "t1"}},
		{Filter{Scope: "agent:*"}, []string{"a1", "a2", "t1"}},
		{Filter{Scope: "session:x"}, []string{"s1"}},
		{Filter{Type: Text}, []string{"g1"}},
		{Filter{Type: WorkingMemory}, []string{"a2"}},
		{Filter{Type: Custom("result")}, []string{"s1"}},
		{Filter{Scope: "agent:1", Type: Custom("note")}, []string{"t1"}},
		{Filter{Scope: "nobody"}, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, keys(tt.f), "%+v", tt.f)
	}
	_, err := s.Set("bad", "x", WithScope("team:1"))
	require.ErrorIs(t, err, ErrBadScope)
	_, err = s.Set("bad", "x", WithScope("agent:"))
	require.ErrorIs(t, err, ErrBadScope)
	_, err = s.Set("bad", []any{}, WithStoreType(Text))
	require.ErrorIs(t, err, ErrBadType)
	_, err = s.Set("p", "x", WithPersist())
	require.Error(t, err, "memory-only store cannot persist")
}

func TestStorePersistLazyAndNaturalForm(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: dir, MmapThreshold: 1 << 10})
	big := strings.Repeat("line of raw text with \"quotes\" and \\ slashes\n", 100)
	_, err := s.Set("big", big, WithPersist(), WithScope("session:9"))
	require.NoError(t, err)
	_, err = s.Set("obj", dict("b", int64(2), "a", []any{1.5, "x"}), WithPersist())
	require.NoError(t, err)
	_, err = s.Set("temp", "not persisted")
	require.NoError(t, err)
	require.NoError(t, s.Close())

	// Natural form on disk: raw text, plain JSON, small metadata.
	txt, _ := filepath.Glob(filepath.Join(dir, "big.v-*.txt"))
	require.Len(t, txt, 1)
	raw, err := os.ReadFile(txt[0])
	require.NoError(t, err)
	assert.Equal(t, big, string(raw))
	js, _ := filepath.Glob(filepath.Join(dir, "obj.v-*.json"))
	require.Len(t, js, 1)
	raw, err = os.ReadFile(js[0])
	require.NoError(t, err)
	assert.Equal(t, `{"b": 2, "a": [1.5, "x"]}`, string(raw))
	meta, err := os.ReadFile(filepath.Join(dir, "big.meta.json"))
	require.NoError(t, err)
	assert.Less(t, len(meta), 1024)
	assert.NotContains(t, string(meta), "raw text")

	s2 := openStore(t, StoreConfig{Dir: dir, MmapThreshold: 1 << 10})
	assert.Empty(t, s2.Warnings())
	list := s2.List(Filter{})
	require.Len(t, list, 2, "non-persisted values are gone")
	for _, m := range list {
		assert.False(t, m.InMemory, "lazy: nothing loaded on open")
		assert.True(t, m.Persisted)
	}
	assert.Zero(t, s2.MemoryBytes())
	ref, err := s2.Ref("big")
	require.NoError(t, err)
	assert.Equal(t, "session:9", ref.Scope)
	v, err := s2.Get("big")
	require.NoError(t, err)
	assert.Equal(t, big, v)
	v, err = s2.Get("obj")
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, v.(*Dict).Keys())
	for _, m := range s2.List(Filter{}) {
		if m.Key == "big" {
			assert.True(t, m.Mapped, "big text served from a memory map")
			assert.False(t, m.InMemory)
		} else {
			assert.True(t, m.InMemory)
		}
	}
	assert.EqualValues(t, pyjson.Size(v), s2.MemoryBytes(), "mapped text not counted")

	// Persistence is sticky: a plain Set of a persisted key is persisted.
	_, err = s2.Set("obj", "now text")
	require.NoError(t, err)
	s3 := openStore(t, StoreConfig{Dir: dir})
	v, err = s3.Get("obj")
	require.NoError(t, err)
	assert.Equal(t, "now text", v)
	js, _ = filepath.Glob(filepath.Join(dir, "obj.v-*"))
	assert.Len(t, js, 1, "old value file removed")
}

func TestStoreKeyMapping(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: dir})
	keys := []string{
		"../../etc/passwd", "/abs/path", "a/b\\c", ".hidden", "..", "CON", "with space",
		"ünïcode 🙂", "%41", "a.meta.json", "x.v-1234.txt", strings.Repeat("long/", 100), "nul\x00byte",
		"Doc", "doc", "DOC", "%4doc", "Aa", "aA", "NUL", "com1",
	}
	folded := map[string]string{} // case-folded stem -> key
	for _, k := range keys {
		lower := strings.ToLower(keyFileName(k))
		assert.NotContains(t, folded, lower, "%q and %q would share a file on a case-insensitive file system", k, folded[lower])
		folded[lower] = k
		_, err := s.Set(k, "v:"+k, WithPersist())
		require.NoError(t, err, k)
		stem := keyFileName(k)
		assert.NotContains(t, stem, "/")
		assert.NotContains(t, stem, "\\")
		assert.NotContains(t, stem, "\x00")
		assert.False(t, strings.HasPrefix(stem, "."), stem)
		assert.LessOrEqual(t, len(stem+metaSuffix), 255)
		if back, ok := keyFromFileName(stem); ok {
			assert.Equal(t, k, back, "reversible")
		} else {
			assert.Contains(t, stem, "~", "only hashed long keys are not reversible from the name")
		}
	}
	// Nothing escaped the directory.
	var outside []string
	filepath.WalkDir(filepath.Dir(dir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			outside = append(outside, p)
		}
		return nil
	})
	assert.Empty(t, outside)

	s2 := openStore(t, StoreConfig{Dir: dir})
	assert.Empty(t, s2.Warnings())
	var got []string
	for _, m := range s2.List(Filter{}) {
		got = append(got, m.Key)
		v, err := s2.Get(m.Key)
		require.NoError(t, err)
		assert.Equal(t, "v:"+m.Key, v)
	}
	assert.ElementsMatch(t, keys, got, "List shows the original keys")
}

func TestStoreCorruptedAndForeignFiles(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: dir})
	_, err := s.Set("good", "fine", WithPersist())
	require.NoError(t, err)
	_, err = s.Set("trunc", "0123456789", WithPersist())
	require.NoError(t, err)
	_, err = s.Set("gone", "x", WithPersist())
	require.NoError(t, err)
	_, err = s.Set("moved", "x", WithPersist())
	require.NoError(t, err)
	require.NoError(t, s.Close())

	// Damage: garbage metadata, truncated value, missing value, a metadata
	// file copied under another name, foreign files, leftovers of a killed
	// writer.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.meta.json"), []byte("{not json"), 0o644))
	tv, _ := filepath.Glob(filepath.Join(dir, "trunc.v-*.txt"))
	require.NoError(t, os.WriteFile(tv[0], []byte("01234"), 0o644))
	gv, _ := filepath.Glob(filepath.Join(dir, "gone.v-*.txt"))
	require.NoError(t, os.Remove(gv[0]))
	require.NoError(t, os.Rename(filepath.Join(dir, "moved.meta.json"), filepath.Join(dir, "renamed.meta.json")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.meta.json"), []byte(`{"format": "v9"}`), 0o644))
	stale := filepath.Join(dir, ".tmp-999999999-123")
	require.NoError(t, os.WriteFile(stale, []byte("half a value"), 0o644))
	old := time.Now().Add(-2 * tempMaxAge)
	require.NoError(t, os.Chtimes(stale, old, old))
	orphan := filepath.Join(dir, "good.v-deadbeef.txt")
	require.NoError(t, os.WriteFile(orphan, []byte("uncommitted"), 0o644))
	movedValue, _ := filepath.Glob(filepath.Join(dir, "moved.v-*.txt"))
	require.Len(t, movedValue, 1)
	files := dirFiles(t, dir)

	s2, err := OpenStore(StoreConfig{Dir: dir})
	require.NoError(t, err, "never fatal")
	defer s2.Close()
	w := strings.Join(s2.Warnings(), "\n")
	assert.Contains(t, w, "junk.meta.json: corrupted metadata")
	assert.Contains(t, w, "trunc.meta.json: value file")
	assert.Contains(t, w, "truncated?")
	assert.Contains(t, w, "gone.meta.json: value file")
	assert.Contains(t, w, "renamed.meta.json: metadata names key \"moved\"")
	assert.Contains(t, w, "ignored foreign file notes.md")
	assert.Contains(t, w, "other.meta.json: not an rlm store metadata file")
	assert.Contains(t, w, filepath.Base(movedValue[0])+" has no metadata; left as is")
	assert.Len(t, s2.Warnings(), 7)
	assert.NoFileExists(t, stale, "old leftover of a dead writer removed")
	assert.NoFileExists(t, orphan, "value file superseded by its key's metadata removed")
	delete(files, filepath.Base(stale))
	delete(files, filepath.Base(orphan))
	assert.Equal(t, files, dirFiles(t, dir), "nothing else was changed or deleted")
	v, err := s2.Get("good")
	require.NoError(t, err)
	assert.Equal(t, "fine", v)
	assert.False(t, s2.Has("trunc"))
	assert.FileExists(t, filepath.Join(dir, "notes.md"), "foreign files are left alone")
	// A corrupted key can be overwritten: its files are moved aside first.
	_, err = s2.Set("trunc", "new", WithPersist())
	require.NoError(t, err)
	v, err = s2.Get("trunc")
	require.NoError(t, err)
	assert.Equal(t, "new", v)
	w = strings.Join(s2.Warnings(), "\n")
	assert.Contains(t, w, `key "trunc" had an unreadable entry`)
	moved, _ := filepath.Glob(filepath.Join(dir, quarantineDirName, "*", filepath.Base(tv[0])))
	require.Len(t, moved, 1, "the damaged value is in the quarantine")
	b, err := os.ReadFile(moved[0])
	require.NoError(t, err)
	assert.Equal(t, "01234", string(b))
}

// dirFiles maps the names of the regular files in dir (not below) to their
// contents.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]string{}
	for _, de := range des {
		if de.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, de.Name()))
			require.NoError(t, err)
			out[de.Name()] = string(b)
		}
	}
	return out
}

func TestStoreSpill(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: dir, MaxMemoryBytes: 2500, MmapThreshold: -1})
	vals := map[string]string{}
	for i := 0; i < 10; i++ {
		k := fmt.Sprintf("v%d", i)
		vals[k] = strings.Repeat(string(rune('a'+i)), 1000)
		_, err := s.Set(k, vals[k])
		require.NoError(t, err)
		assert.LessOrEqual(t, s.MemoryBytes(), int64(2500))
	}
	spilled := 0
	for _, m := range s.List(Filter{}) {
		if m.Spilled {
			spilled++
			assert.False(t, m.Persisted)
		}
	}
	assert.GreaterOrEqual(t, spilled, 8)
	// Least recently used go first: v9 was set last and stays in memory.
	for _, m := range s.List(Filter{}) {
		if m.Key == "v9" {
			assert.True(t, m.InMemory)
		}
	}
	for k, want := range vals {
		got, err := s.Get(k)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		assert.LessOrEqual(t, s.MemoryBytes(), int64(2500)+1000)
	}
	spillDirs, _ := filepath.Glob(filepath.Join(dir, spillPrefix+"*"))
	require.Len(t, spillDirs, 1)
	require.NoError(t, s.Close())
	assert.NoDirExists(t, spillDirs[0])
	s2 := openStore(t, StoreConfig{Dir: dir})
	assert.Empty(t, s2.List(Filter{}), "spilled values are not persisted")
}

func TestStoreSetIfVersion(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		s := openStore(t, StoreConfig{Dir: dir})
		r, err := s.SetIfVersion("k", "a", 0)
		require.NoError(t, err)
		assert.EqualValues(t, 1, r.Version)
		_, err = s.SetIfVersion("k", "b", 0)
		require.ErrorIs(t, err, ErrVersionMismatch)
		assert.Contains(t, err.Error(), "expected version 0, current is 1")
		r, err = s.SetIfVersion("k", "b", 1)
		require.NoError(t, err)
		assert.EqualValues(t, 2, r.Version)
		v, _ := s.Get("k")
		assert.Equal(t, "b", v)
		_, err = s.SetIfVersion("k", "c", 1)
		require.ErrorIs(t, err, ErrVersionMismatch)
	}
}

func TestStoreConcurrentCAS(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		t.Run(fmt.Sprintf("dir=%v", dir != ""), func(t *testing.T) {
			s := openStore(t, StoreConfig{Dir: dir})
			const workers, incs = 8, 25
			var wg sync.WaitGroup
			var conflicts atomic.Int64
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < incs; i++ {
						for {
							v, ref, err := s.GetRef("counter")
							n := int64(0)
							if err == nil {
								n = v.(int64)
							} else if !errors.Is(err, ErrNotFound) {
								t.Error(err)
								return
							}
							_, err = s.SetIfVersion("counter", n+1, ref.Version)
							if errors.Is(err, ErrVersionMismatch) {
								conflicts.Add(1)
								continue
							}
							if err != nil {
								t.Error(err)
								return
							}
							break
						}
					}
				}()
			}
			wg.Wait()
			v, err := s.Get("counter")
			require.NoError(t, err)
			assert.Equal(t, int64(workers*incs), v, "no lost update")
			r, _ := s.Ref("counter")
			assert.EqualValues(t, workers*incs, r.Version)
			t.Logf("conflicts retried: %d", conflicts.Load())

			// Update does the retry loop.
			var wg2 sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg2.Add(1)
				go func() {
					defer wg2.Done()
					for i := 0; i < incs; i++ {
						_, err := s.Update("counter2", func(old any, ok bool) (any, error) {
							if !ok {
								return int64(1), nil
							}
							return old.(int64) + 1, nil
						})
						if err != nil {
							t.Error(err)
						}
					}
				}()
			}
			wg2.Wait()
			v, _ = s.Get("counter2")
			assert.Equal(t, int64(workers*incs), v)
		})
	}
}

func TestStoreTwoHandlesSeeEachOther(t *testing.T) {
	dir := t.TempDir()
	a := openStore(t, StoreConfig{Dir: dir})
	b := openStore(t, StoreConfig{Dir: dir})
	_, err := a.Set("shared", "one", WithPersist())
	require.NoError(t, err)
	v, err := b.Get("shared")
	require.NoError(t, err, "created by another handle after open")
	assert.Equal(t, "one", v)
	_, err = a.Set("shared", "two")
	require.NoError(t, err)
	v, ref, err := b.GetRef("shared")
	require.NoError(t, err)
	assert.Equal(t, "two", v)
	assert.EqualValues(t, 2, ref.Version)
	_, err = a.Set("late", "created after b opened", WithPersist(), WithScope("agent:2"))
	require.NoError(t, err)
	listed := func(s *Store, f Filter) map[string]int64 {
		out := map[string]int64{}
		for _, m := range s.List(f) {
			out[m.Key] = m.Version
		}
		return out
	}
	assert.Equal(t, map[string]int64{"shared": 2, "late": 1}, listed(b, Filter{}), "List sees keys another handle persisted")
	assert.Equal(t, map[string]int64{"late": 1}, listed(b, Filter{Scope: "agent:*"}))
	require.NoError(t, a.Delete("late"))
	assert.Equal(t, map[string]int64{"shared": 2}, listed(b, Filter{}), "and no longer lists keys it deleted")
	_, err = b.SetIfVersion("shared", "three", 1)
	require.ErrorIs(t, err, ErrVersionMismatch)
	_, err = b.SetIfVersion("shared", "three", 2)
	require.NoError(t, err)
	v, _ = a.Get("shared")
	assert.Equal(t, "three", v)
	assert.Equal(t, map[string]int64{"shared": 3}, listed(a, Filter{}), "List sees the new version")
	require.NoError(t, b.Delete("shared"))
	assert.Empty(t, a.List(Filter{}))
	assert.False(t, a.Has("shared"))
	_, err = a.Get("shared")
	require.ErrorIs(t, err, ErrNotFound)
}

type fakeSummarizer struct {
	calls atomic.Int64
	last  string
	mu    sync.Mutex
}

func (f *fakeSummarizer) Summarize(ctx context.Context, text string, maxTokens int) (string, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.last = text
	f.mu.Unlock()
	return fmt.Sprintf("summary of %d bytes in %d tokens", len(text), maxTokens), nil
}

func TestStoreSummarize(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, StoreConfig{})
	text := strings.Repeat("The cat sat on the mat. ", 500)
	_, err := s.Set("doc", text)
	require.NoError(t, err)
	sum, err := s.Summarize(ctx, "doc", 20)
	require.NoError(t, err)
	body, _, _ := strings.Cut(sum, "… [truncated")
	assert.LessOrEqual(t, llm.CountTokens(body), 20)
	assert.True(t, strings.HasPrefix(text, body))
	assert.Contains(t, sum, "[truncated; 11.7 KB total]")
	sum2, err := s.Summarize(ctx, "doc", 20)
	require.NoError(t, err)
	assert.Equal(t, sum, sum2)
	short, err := s.Summarize(ctx, "doc", 0)
	require.NoError(t, err)
	assert.LessOrEqual(t, llm.CountTokens(short), DefaultSummaryTokens+20)
	_, err = s.Set("small", "tiny")
	require.NoError(t, err)
	sum, err = s.Summarize(ctx, "small", 50)
	require.NoError(t, err)
	assert.Equal(t, "tiny", sum)
	_, err = s.Summarize(ctx, "none", 50)
	require.ErrorIs(t, err, ErrNotFound)

	// With a summarizer: called once per content, cached by hash, also on disk.
	dir := t.TempDir()
	fs := &fakeSummarizer{}
	s2 := openStore(t, StoreConfig{Dir: dir, Summarizer: fs, SummarizeInputBytes: 4096})
	_, err = s2.Set("a", text, WithPersist())
	require.NoError(t, err)
	_, err = s2.Set("b", text, WithPersist()) // same content, other key
	require.NoError(t, err)
	sa, err := s2.Summarize(ctx, "a", 100)
	require.NoError(t, err)
	sb, err := s2.Summarize(ctx, "b", 100)
	require.NoError(t, err)
	assert.Equal(t, sa, sb)
	assert.EqualValues(t, 1, fs.calls.Load())
	assert.LessOrEqual(t, len(fs.last), 4096+200, "bounded excerpt")
	assert.Contains(t, fs.last, "omitted")
	_, err = s2.Summarize(ctx, "a", 50)
	require.NoError(t, err)
	assert.EqualValues(t, 2, fs.calls.Load(), "another budget is another summary")
	_, err = s2.Set("a", "changed", WithPersist())
	require.NoError(t, err)
	_, err = s2.Summarize(ctx, "a", 100)
	require.NoError(t, err)
	assert.EqualValues(t, 3, fs.calls.Load(), "new content, new summary")

	fs2 := &fakeSummarizer{}
	s3 := openStore(t, StoreConfig{Dir: dir, Summarizer: fs2})
	sb2, err := s3.Summarize(ctx, "b", 100)
	require.NoError(t, err)
	assert.Equal(t, sb, sb2)
	assert.Zero(t, fs2.calls.Load(), "cached on disk")
}

func TestStorePersistForSubAgent(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: dir})
	_, err := s.Set("ctx", "sub-agent input")
	require.NoError(t, err)
	_, err = s.Set("data", []any{int64(1), "a"})
	require.NoError(t, err)
	p, err := s.PersistForSubAgent("ctx")
	require.NoError(t, err)
	assert.True(t, filepath.IsAbs(p))
	assert.True(t, strings.HasSuffix(p, ".txt"))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "sub-agent input", string(b))
	p2, err := s.PersistForSubAgent("ctx")
	require.NoError(t, err)
	assert.Equal(t, p, p2, "already persisted: same file")
	p, err = s.PersistForSubAgent("data")
	require.NoError(t, err)
	b, err = os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, `[1, "a"]`, string(b))
	_, err = s.PersistForSubAgent("nope")
	require.ErrorIs(t, err, ErrNotFound)

	s2 := openStore(t, StoreConfig{Dir: dir})
	assert.True(t, s2.Has("ctx"))

	mem := openStore(t, StoreConfig{})
	_, err = mem.Set("x", "y")
	require.NoError(t, err)
	_, err = mem.PersistForSubAgent("x")
	require.Error(t, err)
}

func TestStoreDescribe(t *testing.T) {
	s := openStore(t, StoreConfig{})
	_, err := s.Set("my key/with spaces", []any{dict("role", "user", "content", "hello")})
	require.NoError(t, err)
	v, err := s.Describe("my key/with spaces")
	require.NoError(t, err)
	assert.Equal(t, Conversation, v.Type)
	assert.Contains(t, v.Summary(), "conversation list of 1 message")
	assert.Equal(t, "store:my key/with spaces", v.Source)
}

func TestStoreSetTextFile(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: filepath.Join(dir, "store"), MmapThreshold: 1 << 10})
	// A multi-byte character straddles the 1 MB read boundary.
	text := strings.Repeat("x", 1<<20-1) + "é" + strings.Repeat("日本\n", 1000)
	src := filepath.Join(dir, "big.txt")
	require.NoError(t, os.WriteFile(src, []byte(text), 0o644))
	ref, err := s.SetTextFile("big", src, WithScope("agent:1"))
	require.NoError(t, err)
	assert.Equal(t, Text, ref.Type)
	assert.EqualValues(t, len(text), ref.SizeBytes)
	assert.Equal(t, "agent:1", ref.Scope)
	assert.Zero(t, s.MemoryBytes(), "not read into memory")
	v, err := s.Get("big")
	require.NoError(t, err)
	assert.Equal(t, text, v)
	assert.True(t, s.List(Filter{})[0].Mapped)

	ref, err = s.SetTextFile("big", src, WithStoreType(Custom("log")))
	require.NoError(t, err)
	assert.EqualValues(t, 2, ref.Version)
	assert.Equal(t, Custom("log"), ref.Type)

	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Repeat("y", 1<<20+5)+"\xff"), 0o644))
	_, err = s.SetTextFile("bad", bad)
	require.ErrorIs(t, err, ErrInvalidUTF8)
	assert.Contains(t, err.Error(), fmt.Sprintf("byte offset %d", 1<<20+5))
	trunc := filepath.Join(dir, "trunc.txt")
	require.NoError(t, os.WriteFile(trunc, []byte("ok\xe6\x97"), 0o644))
	_, err = s.SetTextFile("trunc", trunc)
	require.ErrorIs(t, err, ErrInvalidUTF8)
	assert.Contains(t, err.Error(), "byte offset 2")
	assert.False(t, s.Has("bad"))
	_, err = s.SetTextFile("j", src, WithStoreType(JSON))
	require.ErrorIs(t, err, ErrBadType)
	_, err = s.SetTextFile("m", filepath.Join(dir, "missing.txt"))
	require.Error(t, err)
	tmps, _ := filepath.Glob(filepath.Join(dir, "store", tmpPrefix+"*-*"))
	assert.Empty(t, tmps, "no temp files left after failures")

	mem := openStore(t, StoreConfig{})
	_, err = mem.SetTextFile("x", src)
	require.Error(t, err)
}

type fakeChat struct{ reqs []llm.Request }

func (f *fakeChat) Chat(ctx context.Context, r llm.Request) (*llm.Response, error) {
	f.reqs = append(f.reqs, r)
	return &llm.Response{Content: "  a short summary \n"}, nil
}

func TestChatSummarizer(t *testing.T) {
	fc := &fakeChat{}
	s := openStore(t, StoreConfig{Summarizer: ChatSummarizer{Model: fc, ModelName: "small"}})
	_, err := s.Set("doc", "some data")
	require.NoError(t, err)
	out, err := s.Summarize(context.Background(), "doc", 64)
	require.NoError(t, err)
	assert.Equal(t, "a short summary", out)
	require.Len(t, fc.reqs, 1)
	assert.Equal(t, "small", fc.reqs[0].Model)
	assert.Equal(t, 64, fc.reqs[0].MaxTokens)
	assert.Contains(t, fc.reqs[0].Messages[1].Content, "some data")
	_, err = ChatSummarizer{}.Summarize(context.Background(), "x", 1)
	require.ErrorIs(t, err, llm.ErrNoModel)
}

// TestStoreClosedAndBadKey: every operation fails cleanly on a closed store
// and on an empty key.
func TestStoreClosedAndBadKey(t *testing.T) {
	ctx := context.Background()
	ops := map[string]func(s *Store, key string) error{
		"Set":          func(s *Store, k string) error { _, err := s.Set(k, "v"); return err },
		"SetIfVersion": func(s *Store, k string) error { _, err := s.SetIfVersion(k, "v", 0); return err },
		"Update": func(s *Store, k string) error {
			_, err := s.Update(k, func(any, bool) (any, error) { return "v", nil })
			return err
		},
		"Get":                func(s *Store, k string) error { _, err := s.Get(k); return err },
		"Ref":                func(s *Store, k string) error { _, err := s.Ref(k); return err },
		"Resolve":            func(s *Store, k string) error { _, err := s.Resolve(Ref{Key: k}); return err },
		"Delete":             func(s *Store, k string) error { return s.Delete(k) },
		"Summarize":          func(s *Store, k string) error { _, err := s.Summarize(ctx, k, 10); return err },
		"PersistForSubAgent": func(s *Store, k string) error { _, err := s.PersistForSubAgent(k); return err },
		"Describe":           func(s *Store, k string) error { _, err := s.Describe(k); return err },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			s := openStore(t, StoreConfig{Dir: t.TempDir()})
			_, err := s.Set("k", "v", WithPersist())
			require.NoError(t, err)
			require.ErrorIs(t, op(s, ""), ErrBadKey)
			require.ErrorIs(t, op(s, "bad\xffkey"), ErrBadKey, "keys are UTF-8")
			require.NoError(t, s.Close())
			require.ErrorIs(t, op(s, "k"), ErrStoreClosed)
			assert.False(t, s.Has("k"))
		})
	}
	s := openStore(t, StoreConfig{})
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Clear(), ErrStoreClosed)
	require.NoError(t, s.Close(), "closing twice is fine")
}

type failingSummarizer struct{}

func (failingSummarizer) Summarize(context.Context, string, int) (string, error) {
	return "", errors.New("model unavailable")
}

func TestStoreSummarizeError(t *testing.T) {
	s := openStore(t, StoreConfig{Summarizer: failingSummarizer{}})
	_, err := s.Set("doc", "text")
	require.NoError(t, err)
	_, err = s.Summarize(context.Background(), "doc", 10)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `store key "doc": summarizing: model unavailable`)
}

// TestStoreSetTextFileBOM: a UTF-8 byte order mark is dropped, UTF-16
// text is decoded (as LoadSource does).
func TestStoreSetTextFileBOM(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, StoreConfig{Dir: filepath.Join(dir, "store")})
	for name, content := range map[string]string{
		"utf8":    "\ufeffcaf\u00e9\n",
		"utf16le": utf16Text(false, "caf\u00e9\n"),
		"utf16be": utf16Text(true, "caf\u00e9\n"),
	} {
		_, err := s.SetTextFile(name, writeFile(t, dir, name+".txt", content), WithScope("agent:1"))
		require.NoError(t, err, name)
		v, ref, err := s.GetRef(name)
		require.NoError(t, err)
		assert.Equal(t, "caf\u00e9\n", v, name)
		assert.Equal(t, Text, ref.Type)
		assert.Equal(t, "agent:1", ref.Scope)
	}
}
