package blobs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenBadURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		says string // part of the error
	}{
		{"", "empty URL"},
		{"   ", "empty URL"},
		{"rlm", `scheme "" is not s3`},
		{"http://rlm?endpoint=http://127.0.0.1:1", `scheme "http" is not s3`},
		{"s3://", "no bucket"},
		{"s3:///prefix", "no bucket"},
		{"s3://ab", `bucket "ab": want 3 to 63 characters`},
		{"s3://Bucket", `bucket "Bucket": want lowercase letters`},
		{"s3://my_bucket", `bucket "my_bucket": want lowercase letters`},
		{"s3://-rlm", `bucket "-rlm": want lowercase letters`},
		{"s3://rlm?endpoint=ftp://127.0.0.1:1", `endpoint "ftp://127.0.0.1:1" is not http(s)://HOST[:PORT]`},
		{"s3://rlm?endpoint=127.0.0.1:7070", `endpoint "127.0.0.1:7070" is not http(s)://HOST[:PORT]`},
		{"s3://rlm?endpoint=http://127.0.0.1:1/base", `is not http(s)://HOST[:PORT]`},
		{"s3://rlm?endpoint=http://127.0.0.1:1&endpoint=http://127.0.0.1:2", "endpoint given 2 times"},
		{"s3://rlm?region=", "empty region"},
		{"s3://rlm?endpont=http://127.0.0.1:1", `unknown parameter "endpont"`},
		{"s3://rlm?a=%zz", "query"},
		{"s3://AKIAXXXX:topsecret@rlm?endpoint=http://127.0.0.1:1", "credentials do not belong in the URL"},
		{"s3://rlm\x7f", "cannot parse"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := Open(context.Background(), Config{URL: tc.url, CacheDir: t.TempDir()})
			require.ErrorIs(t, err, ErrBadURL)
			assert.Contains(t, err.Error(), tc.says)
			assert.Contains(t, err.Error(), "want s3://BUCKET[/PREFIX]?endpoint=")
			assert.NotContains(t, err.Error(), "topsecret")
		})
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want location
	}{
		{"s3://rlm", location{bucket: "rlm"}},
		{"s3://rlm/", location{bucket: "rlm"}},
		{"s3://rlm.data-1/a/b/?region=eu-west-3", location{bucket: "rlm.data-1", prefix: "a/b/", region: "eu-west-3"}},
		{"s3://rlm/p?endpoint=http://127.0.0.1:7070/&region=us-east-1",
			location{bucket: "rlm", prefix: "p/", endpoint: "http://127.0.0.1:7070", region: "us-east-1"}},
		{"s3://rlm?endpoint=https://s3.example.test", location{bucket: "rlm", endpoint: "https://s3.example.test"}},
	} {
		got, err := parseURL(tc.url)
		require.NoError(t, err, tc.url)
		assert.Equal(t, tc.want, got, tc.url)
	}
}

func TestOpenChecksConfig(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, Config{URL: "s3://rlm?endpoint=http://127.0.0.1:1"})
	assert.ErrorContains(t, err, "no cache directory")
	_, err = Open(ctx, Config{URL: "s3://rlm?endpoint=http://127.0.0.1:1", CacheDir: t.TempDir(), PartSize: 1 << 20})
	assert.ErrorContains(t, err, "below the S3 minimum")
}

func TestOpenNoBucket(t *testing.T) {
	needStore(t)
	u, err := parseURL(env.url)
	require.NoError(t, err)
	u.bucket = "rlm-no-such-bucket-" + randHex(4)
	raw := "s3://" + u.bucket + "?endpoint=" + u.endpoint
	_, err = Open(context.Background(), Config{URL: raw, CacheDir: t.TempDir()})
	require.ErrorIs(t, err, ErrNoBucket)
	assert.Contains(t, err.Error(), u.bucket)
	assert.Contains(t, err.Error(), "create the bucket")
	assert.False(t, errors.Is(err, ErrUnavailable))
}

func TestOpenRemovesStaleTemps(t *testing.T) {
	needStore(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tmp"), 0o755))
	stale, fresh := filepath.Join(dir, "tmp", "put-1"), filepath.Join(dir, "tmp", "put-2")
	require.NoError(t, os.WriteFile(stale, []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(fresh, []byte("x"), 0o644))
	old := time.Now().Add(-2 * staleTemp)
	require.NoError(t, os.Chtimes(stale, old, old))
	testStore(t, Config{CacheDir: dir})
	assert.NoFileExists(t, stale)
	assert.FileExists(t, fresh, "a transfer of another process may still be writing it")
}

// TestUnavailable stops the store: operations fail with ErrUnavailable
// (after the SDK's retries, bounded here to keep the test short), and work
// again once it is back.
func TestUnavailable(t *testing.T) {
	needStore(t)
	bin := versitygwBinary()
	if bin == "" {
		t.Skip("needs versitygw to start and stop a store of its own")
	}
	dir := t.TempDir()
	g, err := startGateway(bin, filepath.Join(dir, "root"), 0)
	require.NoError(t, err)
	defer func() { g.stop() }()
	ctx := context.Background()
	s := testStore(t, Config{URL: g.url(testBucket), MaxAttempts: 2})
	data := randomBytes(MinPartSize+10, 8)
	ref, err := s.Put(ctx, bytes.NewReader(data))
	require.NoError(t, err)
	other := sibling(t, s, Config{MaxAttempts: 2})

	g.stop()
	began := time.Now()
	_, err = s.Stat(ctx, ref.Digest)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "refused", "the cause is kept")
	_, err = other.Fetch(ctx, ref)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.Empty(t, cacheFiles(t, other, "sha256"))
	assert.Empty(t, cacheFiles(t, other, "tmp"))
	_, err = s.Put(ctx, bytes.NewReader(randomBytes(100, 9)))
	assert.ErrorIs(t, err, ErrUnavailable)
	_, err = s.ReadAt(ctx, ref.Digest, make([]byte, 10), 0)
	assert.ErrorIs(t, err, ErrUnavailable)
	_, err = s.Object(ctx, ref).ReadAt(make([]byte, 10), 0)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.ErrorIs(t, s.Delete(ctx, ref.Digest), ErrUnavailable)
	assert.ErrorIs(t, s.List(ctx, func(Ref, time.Time) error { return nil }), ErrUnavailable)
	assert.ErrorIs(t, s.Ping(ctx), ErrUnavailable)
	_, err = Open(ctx, Config{URL: g.url(testBucket), CacheDir: t.TempDir(), MaxAttempts: 1})
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.Less(t, time.Since(began), 30*time.Second)

	g, err = startGateway(bin, g.dir, g.port)
	require.NoError(t, err)
	require.NoError(t, s.Ping(ctx))
	path, err := other.Fetch(ctx, ref)
	require.NoError(t, err)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got))
}
