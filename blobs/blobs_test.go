package blobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomBytes returns n bytes from a seeded generator.
func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)}).Read(b)
	return b
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// listed returns the blobs that List reports.
func listed(t *testing.T, s *Store) map[Ref]time.Time {
	t.Helper()
	got := map[Ref]time.Time{}
	require.NoError(t, s.List(context.Background(), func(r Ref, mod time.Time) error {
		got[r] = mod
		return nil
	}))
	return got
}

// cacheFiles returns the names of the files in a cache folder ("sha256"
// or "tmp").
func cacheFiles(t *testing.T, s *Store, sub string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.cacheDir, sub))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestRoundTrip(t *testing.T) {
	var c counter
	s := testStore(t, Config{HTTPClient: c.client()})
	ctx := context.Background()
	start := time.Now().Add(-time.Minute) // clocks of a local store agree
	for _, tc := range []struct {
		name  string
		size  int
		parts int // multipart uploads
	}{
		{"empty", 0, 0},
		{"one byte", 1, 0},
		{"part size less one", MinPartSize - 1, 0},
		{"part size", MinPartSize, 0},
		{"part size and one", MinPartSize + 1, 2},
		{"two parts and some", 2*MinPartSize + 123, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := randomBytes(tc.size, uint64(tc.size))
			c.reset()
			ref, err := s.Put(ctx, bytes.NewReader(data))
			require.NoError(t, err)
			assert.Equal(t, Ref{Digest: digestOf(data), Size: int64(tc.size)}, ref)
			if tc.parts > 0 {
				// create + complete, and one PUT per part
				assert.Equal(t, 2, c.get("POST"), "multipart create and complete")
				assert.Equal(t, tc.parts, c.get("PUT"), "one request per part")
			} else {
				assert.Equal(t, 1, c.get("PUT"), "a single PutObject")
			}

			size, err := s.Stat(ctx, ref.Digest)
			require.NoError(t, err)
			assert.Equal(t, int64(tc.size), size)

			// The putting host has it cached: no request.
			c.reset()
			path, err := s.Fetch(ctx, ref)
			require.NoError(t, err)
			assert.Zero(t, c.get("GET"))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(data, got))

			// Another host downloads it.
			other := sibling(t, s, Config{})
			path, err = other.Fetch(ctx, ref)
			require.NoError(t, err)
			assert.Equal(t, other.cachePath(ref.Digest), path)
			got, err = os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(data, got), "fetched bytes differ")
			assert.Empty(t, cacheFiles(t, other, "tmp"))

			mod, ok := listed(t, s)[ref]
			require.True(t, ok, "List reports the blob")
			assert.True(t, mod.After(start), "LastModified %v", mod)

			require.NoError(t, s.Delete(ctx, ref.Digest))
			_, err = s.Stat(ctx, ref.Digest)
			assert.ErrorIs(t, err, ErrNotFound)
			assert.NotContains(t, listed(t, s), ref)
			assert.NoFileExists(t, s.cachePath(ref.Digest))
			require.NoError(t, s.Delete(ctx, ref.Digest), "deleting again")
		})
	}
}

func TestPutIsIdempotent(t *testing.T) {
	var c counter
	s := testStore(t, Config{HTTPClient: c.client()})
	ctx := context.Background()
	data := randomBytes(2*MinPartSize+5, 1)
	ref, err := s.Put(ctx, bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, 3, c.get("PUT"))

	// Again from this host, and from another whose cache lacks it: a HEAD
	// each, no upload.
	var c2 counter
	other := sibling(t, s, Config{HTTPClient: c2.client()})
	for name, st := range map[string]*Store{"same host": s, "other host": other} {
		cnt := map[*Store]*counter{s: &c, other: &c2}[st]
		cnt.reset()
		again, err := st.Put(ctx, bytes.NewReader(data))
		require.NoError(t, err, name)
		assert.Equal(t, ref, again, name)
		assert.Equal(t, 1, cnt.get("HEAD"), name)
		assert.Zero(t, cnt.get("PUT"), name)
		assert.Zero(t, cnt.get("POST"), name)
		assert.FileExists(t, st.cachePath(ref.Digest), name)
		assert.Empty(t, cacheFiles(t, st, "tmp"), name)
	}

	// PutFile of the same bytes is the same blob.
	f := filepath.Join(t.TempDir(), "v")
	require.NoError(t, os.WriteFile(f, data, 0o644))
	c.reset()
	again, err := s.PutFile(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, ref, again)
	assert.Zero(t, c.get("PUT"))

	// An object of the wrong size under the key (a damaged store) is
	// replaced.
	_, err = s.client.PutObject(
		ctx,
		&s3.PutObjectInput{Bucket: &s.loc.bucket, Key: aws.String(s.key(ref.Digest)), Body: strings.NewReader("short")},
	)
	require.NoError(t, err)
	_, err = s.Put(ctx, bytes.NewReader(data))
	require.NoError(t, err)
	size, err := s.Stat(ctx, ref.Digest)
	require.NoError(t, err)
	assert.Equal(t, ref.Size, size)
}

func TestReadAt(t *testing.T) {
	var c counter
	s := testStore(t, Config{HTTPClient: c.client()})
	ctx := context.Background()
	size := 3*blockSize + 17 + directRead
	data := randomBytes(size, 2)
	ref, err := s.Put(ctx, bytes.NewReader(data))
	require.NoError(t, err)
	n64 := int64(size)
	for _, tc := range []struct {
		name string
		off  int64
		len  int
		want int // bytes read; io.EOF when fewer than len
	}{
		{"nothing", 5, 0, 0},
		{"first byte", 0, 1, 1},
		{"odd offset", 12345, 777, 777},
		{"across a block boundary", blockSize - 3, 7, 7},
		{"a whole block at its start", blockSize, blockSize, blockSize},
		{"across two boundaries", blockSize - 1, blockSize + 2, blockSize + 2},
		{"last byte", n64 - 1, 1, 1},
		{"past the end", n64 - 3, 10, 3},
		{"at the end", n64, 4, 0},
		{"beyond the end", n64 + 100, 4, 0},
		{"large read", 17, directRead + 3, directRead + 3},
		{"large read past the end", n64 - directRead - 1, directRead + 10, directRead + 1},
		{"everything", 0, size, size},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(t *testing.T, n int, err error, p []byte) {
				t.Helper()
				if tc.want < tc.len {
					assert.ErrorIs(t, err, io.EOF)
				} else {
					assert.NoError(t, err)
				}
				require.Equal(t, tc.want, n)
				if n > 0 {
					assert.True(t, bytes.Equal(data[tc.off:tc.off+int64(n)], p[:n]), "bytes differ")
				}
			}
			p := make([]byte, tc.len)
			n, err := s.ReadAt(ctx, ref.Digest, p, tc.off)
			check(t, n, err, p)

			o := s.Object(ctx, ref)
			assert.Equal(t, n64, o.Size())
			p = make([]byte, tc.len)
			n, err = o.ReadAt(p, tc.off)
			check(t, n, err, p)
		})
	}

	_, err = s.ReadAt(ctx, digestOf([]byte("absent")), make([]byte, 1), 0)
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = s.Object(ctx, Ref{Digest: digestOf([]byte("absent")), Size: 10}).ReadAt(make([]byte, 1), 0)
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = s.ReadAt(ctx, "ABC", make([]byte, 1), 0)
	assert.ErrorContains(t, err, "bad digest")
}

func TestObjectCachesBlocks(t *testing.T) {
	var c counter
	s := testStore(t, Config{HTTPClient: c.client()})
	ctx := context.Background()
	size := (cacheBlocks+4)*blockSize + 99
	data := randomBytes(size, 3)
	ref, err := s.Put(ctx, bytes.NewReader(data))
	require.NoError(t, err)
	o := s.Object(ctx, ref)
	c.reset()

	// Small reads within one block: one request.
	p := make([]byte, 100)
	for off := int64(blockSize + 10); off < 2*blockSize-100; off += 50_000 {
		_, err := o.ReadAt(p, off)
		require.NoError(t, err)
		require.Equal(t, data[off:off+100], p)
	}
	assert.Equal(t, 1, c.get("GET"))

	// Concurrent readers at odd offsets all over the blob.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for range 30 {
				off := r.Int64N(int64(size))
				p := make([]byte, 1+r.IntN(2*blockSize))
				n, err := o.ReadAt(p, off)
				if int(off)+len(p) > size {
					assert.ErrorIs(t, err, io.EOF)
				} else if !assert.NoError(t, err) {
					return
				}
				if !assert.True(t, bytes.Equal(data[off:off+int64(n)], p[:n]), "bytes at %d", off) {
					return
				}
			}
		})
	}
	wg.Wait()
	o.mu.Lock()
	assert.LessOrEqual(t, len(o.blocks), cacheBlocks, "cached blocks")
	o.mu.Unlock()
	assert.Greater(t, c.get("GET"), cacheBlocks, "blocks were evicted and read again")
}

func TestFetchCorrupt(t *testing.T) {
	s := testStore(t, Config{})
	ctx := context.Background()
	data := randomBytes(MinPartSize+1000, 4)
	ref, err := s.Put(ctx, bytes.NewReader(data))
	require.NoError(t, err)

	for _, tc := range []struct {
		name   string
		object []byte
	}{
		{"one byte changed", append(append([]byte{}, data[:100]...), append([]byte{data[100] ^ 1}, data[101:]...)...)},
		{"truncated", data[:len(data)-1]},
		{"longer", append(append([]byte{}, data...), 'x')},
		{"much shorter", data[:10]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.loc.bucket, Key: aws.String(s.key(ref.Digest)),
				Body: bytes.NewReader(tc.object)})
			require.NoError(t, err)
			other := sibling(t, s, Config{})
			path, err := other.Fetch(ctx, ref)
			require.ErrorIs(t, err, ErrDigest)
			assert.Empty(t, path)
			assert.Contains(t, err.Error(), ref.Digest)
			assert.NoFileExists(t, other.cachePath(ref.Digest))
			assert.Empty(t, cacheFiles(t, other, "sha256"), "nothing cached")
			assert.Empty(t, cacheFiles(t, other, "tmp"), "temporary file removed")
		})
	}

	// Absent: ErrNotFound, nothing cached.
	other := sibling(t, s, Config{})
	_, err = other.Fetch(ctx, Ref{Digest: digestOf([]byte("absent")), Size: 6})
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Empty(t, cacheFiles(t, other, "tmp"))
}

func TestConcurrentFetchDownloadsOnce(t *testing.T) {
	s := testStore(t, Config{})
	ctx := context.Background()
	data := randomBytes(2*MinPartSize+MinPartSize/2, 5)
	ref, err := s.Put(ctx, bytes.NewReader(data))
	require.NoError(t, err)

	var c counter
	other := sibling(t, s, Config{HTTPClient: c.client()})
	const fetchers = 8
	paths := make([]string, fetchers)
	var wg sync.WaitGroup
	for i := range fetchers {
		wg.Go(func() {
			p, err := other.Fetch(ctx, ref)
			assert.NoError(t, err)
			paths[i] = p
		})
	}
	wg.Wait()
	for _, p := range paths {
		assert.Equal(t, other.cachePath(ref.Digest), p)
	}
	assert.Equal(t, 3, c.get("GET"), "one download of three ranges")
	got, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got))
	other.mu.Lock()
	assert.Empty(t, other.flights)
	other.mu.Unlock()
}

func TestFetchCanceled(t *testing.T) {
	s := testStore(t, Config{})
	data := randomBytes(3*MinPartSize, 6)
	ref, err := s.Put(context.Background(), bytes.NewReader(data))
	require.NoError(t, err)
	other := sibling(t, s, Config{Concurrency: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = other.Fetch(ctx, ref)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, ErrUnavailable))
	// The abandoned download stops and leaves nothing; a later Fetch works.
	require.Eventually(t, func() bool {
		other.mu.Lock()
		defer other.mu.Unlock()
		return len(other.flights) == 0 && len(cacheFiles(t, other, "tmp")) == 0
	}, 10*time.Second, 10*time.Millisecond)
	path, err := other.Fetch(context.Background(), ref)
	require.NoError(t, err)
	assert.FileExists(t, path)
}

func TestPutCanceled(t *testing.T) {
	s := testStore(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	data := randomBytes(3*MinPartSize, 7)
	// The reader cancels halfway: nothing is cached or stored.
	r := io.MultiReader(bytes.NewReader(data[:len(data)/2]), readerFunc(func([]byte) (int, error) {
		cancel()
		return 0, nil
	}), bytes.NewReader(data[len(data)/2:]))
	_, err := s.Put(ctx, r)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, cacheFiles(t, s, "sha256"))
	assert.Empty(t, cacheFiles(t, s, "tmp"))
	assert.Empty(t, listed(t, s))
}

// TestPutFailsWhole fails one part of a multipart upload: no object
// appears under the digest, and the upload is aborted.
func TestPutFailsWhole(t *testing.T) {
	parts := 0
	c := counter{fail: func(r *http.Request) bool {
		if r.Method == "PUT" && r.URL.Query().Has("partNumber") {
			parts++
			return parts == 2
		}
		return false
	}}
	s := testStore(t, Config{HTTPClient: c.client(), MaxAttempts: 1, Concurrency: 1})
	ctx := context.Background()
	data := randomBytes(3*MinPartSize, 10)
	_, err := s.Put(ctx, bytes.NewReader(data))
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "connection reset")
	_, err = s.Stat(ctx, digestOf(data))
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Equal(t, 1, c.get("DELETE"), "the upload is aborted")
	prefix := s.loc.prefix
	ups, err := s.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &s.loc.bucket, Prefix: &prefix})
	require.NoError(t, err)
	assert.Empty(t, ups.Uploads)

	// The bytes are cached (they are right): a retry uploads them.
	assert.FileExists(t, s.cachePath(digestOf(data)))
	ref, err := s.Put(ctx, bytes.NewReader(data))
	require.NoError(t, err)
	size, err := s.Stat(ctx, ref.Digest)
	require.NoError(t, err)
	assert.Equal(t, ref.Size, size)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestBadDigests(t *testing.T) {
	s := testStore(t, Config{})
	ctx := context.Background()
	for _, d := range []string{"", "abc", strings.Repeat("A", 64), strings.Repeat("g", 64), strings.Repeat("a", 65), "../" + strings.Repeat("a", 61)} {
		_, err := s.Stat(ctx, d)
		assert.ErrorContains(t, err, "bad digest", d)
		_, err = s.Fetch(ctx, Ref{Digest: d})
		assert.ErrorContains(t, err, "bad digest", d)
		assert.ErrorContains(t, s.Delete(ctx, d), "bad digest", d)
	}
}

// TestCacheBound: with CacheMaxBytes the cache keeps the most recently
// used blobs within the bound, a removed blob is fetched again on its next
// use, and a blob larger than the bound alone stays while it is used.
func TestCacheBound(t *testing.T) {
	cache := t.TempDir()
	s := testStore(t, Config{CacheDir: cache, CacheMaxBytes: 3 << 10})
	ctx := context.Background()
	cached := func() (n int, total int64) {
		ents, err := os.ReadDir(filepath.Join(cache, "sha256"))
		require.NoError(t, err)
		for _, e := range ents {
			info, err := e.Info()
			require.NoError(t, err)
			n++
			total += info.Size()
		}
		return n, total
	}
	var refs []Ref
	for i := range 4 {
		ref, err := s.Put(ctx, bytes.NewReader(randomBytes(1<<10, uint64(100+i))))
		require.NoError(t, err)
		refs = append(refs, ref)
		n, total := cached()
		assert.LessOrEqual(t, total, int64(3<<10), "after put %d", i)
		assert.Equal(t, min(i+1, 3), n)
		time.Sleep(20 * time.Millisecond) // distinct modification times
	}
	_, err := os.Stat(filepath.Join(cache, "sha256", refs[0].Digest))
	assert.True(t, os.IsNotExist(err), "the least recently used blob went first")
	// A use makes a blob recent: refs[1] is kept, refs[2] goes next.
	p, err := s.Fetch(ctx, refs[1])
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	p0, err := s.Fetch(ctx, refs[0])
	require.NoError(t, err, "an evicted blob is fetched again")
	assert.FileExists(t, p0)
	assert.FileExists(t, p)
	_, err = os.Stat(filepath.Join(cache, "sha256", refs[2].Digest))
	assert.True(t, os.IsNotExist(err))
	// A blob larger than the bound stays while it is the one used.
	big, err := s.Put(ctx, bytes.NewReader(randomBytes(8<<10, 7)))
	require.NoError(t, err)
	n, _ := cached()
	assert.Equal(t, 1, n)
	assert.FileExists(t, filepath.Join(cache, "sha256", big.Digest))
}
