// Package blobs keeps content-addressed bytes (rlm's large variable values)
// in an S3-compatible object store, shared by the replicas and workers of a
// cluster, with a local read-through cache of whole blobs on disk.
//
// A blob is named by the sha256 of its bytes and never changes: Put is
// idempotent, and a blob's object is PREFIX/sha256/<hex> in the bucket. Big
// values are streamed (to a temporary file, then in multipart parts from
// it), so memory stays bounded whatever their size. Neither a crash nor a
// failed transfer leaves partial bytes under a digest's name: the cache
// writes to a temporary file and renames it, and a multipart upload only
// appears when completed.
//
// Credentials come from the standard AWS variables (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_REGION) or the SDK's other default sources.
package blobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Defaults for the Config fields left zero.
const (
	DefaultPartSize    = 16 << 20
	DefaultConcurrency = 4
	// MinPartSize is the smallest part S3 accepts in a multipart upload.
	MinPartSize = 5 << 20
	// maxParts is the most parts S3 accepts in a multipart upload.
	maxParts = 10000
)

// Config configures a Store.
type Config struct {
	// URL names the bucket and optional key prefix, and for stores other
	// than AWS the endpoint (addressed path-style) and region:
	// s3://BUCKET[/PREFIX]?endpoint=http://127.0.0.1:7070&region=us-east-1.
	URL string
	// CacheDir holds the local cache of whole blobs (files named by their
	// digest, in CacheDir/sha256) and the temporary files of transfers;
	// required. It may be shared by processes on one host.
	CacheDir string
	// CacheMaxBytes bounds the cached blobs: after a blob is fetched or
	// put, the least recently used others are removed until the cache
	// holds at most this much (the blob just used stays even if it alone
	// is larger). A removed file that a reader has open or mapped stays
	// readable by it. 0: no bound.
	CacheMaxBytes int64
	// PartSize is the size of multipart upload parts and of the ranged
	// reads of a download (default 16 MiB, at least 5 MiB).
	PartSize int64
	// Concurrency is how many parts or ranges move at once (default 4).
	Concurrency int
	// HTTPClient, if set, sends the requests (with its own TLS settings:
	// AWS_CA_BUNDLE does not apply to it).
	HTTPClient *http.Client
	// MaxAttempts bounds the SDK's attempts per request, retries included
	// (default: the SDK's, 3).
	MaxAttempts int
}

// Ref names a blob: the sha256 of its bytes and its size.
type Ref struct {
	// Digest is the lowercase hex sha256 of the bytes.
	Digest string `json:"digest"`
	// Size is the number of bytes.
	Size int64 `json:"size"`
}

// Store is a bucket of blobs with a local cache. It is safe for concurrent
// use.
type Store struct {
	client      *s3.Client
	loc         location
	cacheDir    string
	partSize    int64
	concurrency int

	mu      sync.Mutex
	flights map[string]*flight // downloads in progress, by digest and size

	cacheMax int64
	trimMu   sync.Mutex // one trim at a time
}

// Open checks cfg, connects to the store and checks that its bucket
// exists (ErrNoBucket if not).
func Open(ctx context.Context, cfg Config) (*Store, error) {
	loc, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.CacheDir == "" {
		return nil, errors.New("blobs: no cache directory (Config.CacheDir)")
	}
	if cfg.PartSize == 0 {
		cfg.PartSize = DefaultPartSize
	}
	if cfg.PartSize < MinPartSize {
		return nil, fmt.Errorf("blobs: part size %d is below the S3 minimum of %d (5 MiB)", cfg.PartSize, MinPartSize)
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	s := &Store{
		loc:         loc,
		cacheDir:    cfg.CacheDir,
		cacheMax:    cfg.CacheMaxBytes,
		partSize:    cfg.PartSize,
		concurrency: cfg.Concurrency,
		flights:     map[string]*flight{},
	}
	for _, dir := range []string{s.blobDir(), s.tmpDir()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("blobs: cache: %w", err)
		}
	}
	s.removeStaleTemps()

	opts := []func(*config.LoadOptions) error{
		// S3-compatible stores differ in the checksums they take: the
		// bytes are checked against their digest instead.
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if loc.region != "" {
		opts = append(opts, config.WithRegion(loc.region))
	}
	if cfg.MaxAttempts > 0 {
		opts = append(opts, config.WithRetryMaxAttempts(cfg.MaxAttempts))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("blobs: AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		if loc.endpoint == "" {
			return nil, fmt.Errorf("%w: %s: no region (set region= in the URL or AWS_REGION)", ErrBadURL, loc)
		}
		awsCfg.Region = "us-east-1" // most S3-compatible stores ignore it
	}
	if cfg.HTTPClient != nil {
		// Set after loading: the SDK can only add AWS_CA_BUNDLE to its own
		// clients, and a caller's client has its own TLS settings.
		awsCfg.HTTPClient = cfg.HTTPClient
	}
	s.client = s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if loc.endpoint != "" {
			o.BaseEndpoint = aws.String(loc.endpoint)
			o.UsePathStyle = true
		}
	})
	if err := s.Ping(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Ping checks that the bucket can be reached (for readiness probes).
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.loc.bucket})
	switch st := httpStatus(err); {
	case err == nil:
		return nil
	case st == http.StatusNotFound || isNoBucket(err):
		return fmt.Errorf("%w: %q at %s: create the bucket first", ErrNoBucket, s.loc.bucket, s.endpointName())
	case st == http.StatusForbidden:
		return fmt.Errorf("blobs: bucket %q at %s: access denied (check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY): %w",
			s.loc.bucket, s.endpointName(), err)
	default:
		return wrap("bucket "+s.loc.String(), err)
	}
}

// endpointName names the store's endpoint for messages.
func (s *Store) endpointName() string {
	if s.loc.endpoint == "" {
		return "AWS S3"
	}
	return s.loc.endpoint
}

// Stat returns the size of a blob, or ErrNotFound.
func (s *Store) Stat(ctx context.Context, digest string) (int64, error) {
	if err := checkDigest(digest); err != nil {
		return 0, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.loc.bucket, Key: aws.String(s.key(digest))})
	if err != nil {
		return 0, wrap("stat "+digest, err)
	}
	return aws.ToInt64(out.ContentLength), nil
}

// Delete removes a blob from the store and from the local cache (other
// hosts' caches keep their copies). Deleting a blob that does not exist is
// not an error.
func (s *Store) Delete(ctx context.Context, digest string) error {
	if err := checkDigest(digest); err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.loc.bucket, Key: aws.String(s.key(digest))}); err != nil {
		if err = wrap("delete "+digest, err); !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	if err := os.Remove(s.cachePath(digest)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("blobs: cache: %w", err)
	}
	return nil
}

// List calls fn with every blob in the store and the time its object was
// written (for garbage collection by the caller), until fn returns an
// error, which List returns. Objects under the prefix that are not named
// by a digest are skipped. A Put of a blob that the store already has
// does not write it again: the time is that of its first Put, so a
// collector keeps what is referenced, and spares recent blobs (a Put in
// progress has no reference yet).
func (s *Store) List(ctx context.Context, fn func(Ref, time.Time) error) error {
	dir := s.loc.prefix + "sha256/"
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.loc.bucket, Prefix: &dir})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return wrap("list "+s.loc.String(), err)
		}
		for _, o := range page.Contents {
			d := strings.TrimPrefix(aws.ToString(o.Key), dir)
			if checkDigest(d) != nil {
				continue
			}
			if err := fn(Ref{Digest: d, Size: aws.ToInt64(o.Size)}, aws.ToTime(o.LastModified)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadAt reads len(p) bytes of a blob from offset off with one ranged
// request, without the cache. Like io.ReaderAt it returns io.EOF with
// fewer bytes when the blob ends before p is full.
func (s *Store) ReadAt(ctx context.Context, digest string, p []byte, off int64) (int, error) {
	if err := checkDigest(digest); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, fmt.Errorf("blobs: read %s: negative offset %d", digest, off)
	}
	if len(p) == 0 {
		return 0, nil
	}
	rng := fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.loc.bucket, Key: aws.String(s.key(digest)), Range: &rng})
	if httpStatus(err) == http.StatusRequestedRangeNotSatisfiable {
		return 0, io.EOF // off is at or past the end
	}
	if err != nil {
		return 0, wrap("read "+digest, err)
	}
	defer out.Body.Close()
	want := min(int64(len(p)), aws.ToInt64(out.ContentLength))
	n, err := io.ReadFull(out.Body, p[:want])
	if err != nil {
		return n, wrap("read "+digest, fmt.Errorf("%d of %d bytes: %w", n, want, unexpected(err)))
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// unexpected turns an io.EOF met before the expected end into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// key returns the object key of a digest.
func (s *Store) key(digest string) string { return s.loc.prefix + "sha256/" + digest }

// blobDir is the folder of the cached blobs.
func (s *Store) blobDir() string { return filepath.Join(s.cacheDir, "sha256") }

// tmpDir is the folder of the temporary files, on the cache's file system.
func (s *Store) tmpDir() string { return filepath.Join(s.cacheDir, "tmp") }

// cachePath returns the path of a digest's cached file.
func (s *Store) cachePath(digest string) string { return filepath.Join(s.blobDir(), digest) }

// used marks the cached blob at path as just used, for the cache's
// least-recently-used order.
func (s *Store) used(path string) {
	if s.cacheMax > 0 {
		now := time.Now()
		_ = os.Chtimes(path, now, now)
	}
}

// trim removes the least recently used cached blobs other than keep until
// the cache holds at most CacheMaxBytes; it returns how many it removed.
func (s *Store) trim(keep string) int {
	if s.cacheMax <= 0 {
		return 0
	}
	s.trimMu.Lock()
	defer s.trimMu.Unlock()
	ents, err := os.ReadDir(s.blobDir())
	if err != nil {
		return 0
	}
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		files = append(files, file{filepath.Join(s.blobDir(), e.Name()), info.Size(), info.ModTime()})
		total += info.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	n := 0
	for _, f := range files {
		if total <= s.cacheMax {
			break
		}
		if f.path == keep {
			continue
		}
		if os.Remove(f.path) == nil {
			total -= f.size
			n++
		}
	}
	return n
}

// staleTemp is the age past which a temporary file was left by a crash.
const staleTemp = 24 * time.Hour

// removeStaleTemps removes the temporary files that a crash left behind.
func (s *Store) removeStaleTemps() {
	entries, _ := os.ReadDir(s.tmpDir())
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			os.Remove(filepath.Join(s.tmpDir(), e.Name()))
		}
	}
}

// checkDigest reports whether d is 64 lowercase hex digits.
func checkDigest(d string) error {
	if len(d) != 64 {
		return fmt.Errorf("%w: %q", errBadDigest, d)
	}
	for _, c := range d {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return fmt.Errorf("%w: %q", errBadDigest, d)
		}
	}
	return nil
}
