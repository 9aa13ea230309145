package blobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"golang.org/x/sync/errgroup"
)

// flight is a download that concurrent Fetches of one blob share.
type flight struct {
	done    chan struct{} // closed when path and err are set
	path    string
	err     error
	waiters int                // Fetches waiting for it
	cancel  context.CancelFunc // stops the download when no one waits
}

// Fetch returns the path of the blob's file in the local cache,
// downloading it first if it is not there (in ranges of the part size,
// Concurrency at a time, into a temporary file that becomes the cached
// file once its sha256 is checked: ErrDigest if it does not match, and
// nothing is cached). Concurrent Fetches of a blob download it once; the
// download stops when every Fetch waiting for it has given up. The file
// must not be modified.
func (s *Store) Fetch(ctx context.Context, ref Ref) (string, error) {
	if err := checkDigest(ref.Digest); err != nil {
		return "", err
	}
	if ref.Size < 0 {
		return "", fmt.Errorf("blobs: fetch %s: negative size %d", ref.Digest, ref.Size)
	}
	path := s.cachePath(ref.Digest)
	if info, err := os.Stat(path); err == nil && info.Size() == ref.Size {
		s.used(path)
		return path, nil
	}
	id := ref.Digest + "/" + strconv.FormatInt(ref.Size, 10)
	s.mu.Lock()
	f := s.flights[id]
	if f == nil {
		dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{done: make(chan struct{}), cancel: cancel}
		s.flights[id] = f
		go func() {
			f.path, f.err = s.download(dctx, ref)
			if f.err == nil {
				s.trim(f.path)
			}
			cancel()
			s.mu.Lock()
			if s.flights[id] == f {
				delete(s.flights, id)
			}
			s.mu.Unlock()
			close(f.done)
		}()
	}
	f.waiters++
	s.mu.Unlock()
	select {
	case <-f.done:
		return f.path, f.err
	case <-ctx.Done():
		s.mu.Lock()
		if f.waiters--; f.waiters == 0 {
			f.cancel()
			if s.flights[id] == f {
				delete(s.flights, id) // a later Fetch starts afresh
			}
		}
		s.mu.Unlock()
		return "", ctx.Err()
	}
}

// download fetches a blob into the cache and returns its path.
func (s *Store) download(ctx context.Context, ref Ref) (string, error) {
	tmp, err := os.CreateTemp(s.tmpDir(), "get-*")
	if err != nil {
		return "", fmt.Errorf("blobs: cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	defer tmp.Close()
	if err := tmp.Truncate(ref.Size); err != nil {
		return "", fmt.Errorf("blobs: cache: %w", err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.concurrency)
	for off := int64(0); off < ref.Size || off == 0; off += s.partSize {
		g.Go(func() error { return s.getRange(gctx, ref, tmp, off, min(s.partSize, ref.Size-off)) })
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("blobs: cache: %w", err)
	}
	h := sha256.New()
	if _, err := io.CopyBuffer(h, tmp, make([]byte, copyBuffer)); err != nil {
		return "", fmt.Errorf("blobs: cache: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != ref.Digest {
		return "", fmt.Errorf("%w: blob %s (%d bytes) has sha256 %s", ErrDigest, ref.Digest, ref.Size, got)
	}
	path := s.cachePath(ref.Digest)
	if err := commit(tmp, path, ref.Size); err != nil {
		return "", err
	}
	return path, nil
}

// getRange writes size bytes of a blob from offset off into f at off; a
// size of 0 reads the whole (empty) object.
func (s *Store) getRange(ctx context.Context, ref Ref, f *os.File, off, size int64) error {
	in := &s3.GetObjectInput{Bucket: &s.loc.bucket, Key: aws.String(s.key(ref.Digest))}
	if size > 0 {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", off, off+size-1))
	}
	out, err := s.client.GetObject(ctx, in)
	if httpStatus(err) == http.StatusRequestedRangeNotSatisfiable {
		return fmt.Errorf("%w: blob %s is smaller than %d bytes", ErrDigest, ref.Digest, ref.Size)
	}
	if err != nil {
		return wrap("fetch "+ref.Digest, err)
	}
	defer out.Body.Close()
	if size > 0 {
		// Content-Range is "bytes FIRST-LAST/TOTAL": TOTAL is the object's size.
		cr := aws.ToString(out.ContentRange)
		total, err := strconv.ParseInt(cr[strings.LastIndexByte(cr, '/')+1:], 10, 64)
		if err == nil && total != ref.Size {
			return fmt.Errorf("%w: blob %s has %d bytes, not %d", ErrDigest, ref.Digest, total, ref.Size)
		}
		if aws.ToInt64(out.ContentLength) < size {
			return fmt.Errorf("%w: blob %s is smaller than %d bytes", ErrDigest, ref.Digest, ref.Size)
		}
	}
	// One byte more than asked shows an object larger than its Ref.
	n, err := io.CopyBuffer(io.NewOffsetWriter(f, off), io.LimitReader(out.Body, size+1), make([]byte, copyBuffer))
	switch {
	case err != nil:
		return wrap("fetch "+ref.Digest, fmt.Errorf("bytes %d-: %w", off, err))
	case n < size:
		return wrap("fetch "+ref.Digest, fmt.Errorf("bytes %d-: %d of %d bytes: %w", off, n, size, io.ErrUnexpectedEOF))
	case n > size:
		return fmt.Errorf("%w: blob %s is larger than %d bytes", ErrDigest, ref.Digest, ref.Size)
	}
	return nil
}
