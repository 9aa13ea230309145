package blobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"
)

// copyBuffer is the size of the buffer that streams bytes to and from disk.
const copyBuffer = 256 << 10

// Put stores the bytes of r as a blob and returns its Ref. The bytes go to
// a temporary file in the cache while they are hashed (memory stays
// bounded), the file becomes the digest's cached copy, and it is uploaded
// (in parts from the file when larger than the part size) unless the store
// already has the blob with that size. Putting the same bytes again is
// cheap and changes nothing.
func (s *Store) Put(ctx context.Context, r io.Reader) (Ref, error) {
	ref, err := s.cache(ctx, r)
	if err != nil {
		return Ref{}, err
	}
	if err := s.upload(ctx, ref); err != nil {
		return ref, err
	}
	path := s.cachePath(ref.Digest)
	s.used(path)
	s.trim(path)
	return ref, nil
}

// PutFile stores the bytes of the file at path as a blob, as Put does.
func (s *Store) PutFile(ctx context.Context, path string) (Ref, error) {
	f, err := os.Open(path)
	if err != nil {
		return Ref{}, fmt.Errorf("blobs: %w", err)
	}
	defer f.Close()
	return s.Put(ctx, f)
}

// cache copies r into the cache under its digest.
func (s *Store) cache(ctx context.Context, r io.Reader) (Ref, error) {
	tmp, err := os.CreateTemp(s.tmpDir(), "put-*")
	if err != nil {
		return Ref{}, fmt.Errorf("blobs: cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	defer tmp.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(tmp, h), ctxReader{ctx, r}, make([]byte, copyBuffer))
	if err != nil {
		return Ref{}, fmt.Errorf("blobs: put: %w", err)
	}
	ref := Ref{Digest: hex.EncodeToString(h.Sum(nil)), Size: n}
	if err := commit(tmp, s.cachePath(ref.Digest), n); err != nil {
		return Ref{}, err
	}
	return ref, nil
}

// commit makes the finished temporary file tmp the file at path, unless
// a file of that size is already there (the same blob: its name is its
// digest).
func commit(tmp *os.File, path string, size int64) error {
	if info, err := os.Stat(path); err == nil && info.Size() == size {
		return nil
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("blobs: cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("blobs: cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("blobs: cache: %w", err)
	}
	return nil
}

// upload sends a cached blob to the store unless the store has it.
func (s *Store) upload(ctx context.Context, ref Ref) error {
	key := s.key(ref.Digest)
	head, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.loc.bucket, Key: &key})
	if err == nil && aws.ToInt64(head.ContentLength) == ref.Size {
		return nil
	}
	if err != nil && !isNotFound(err) {
		return wrap("put "+ref.Digest, err)
	}
	f, err := os.Open(s.cachePath(ref.Digest))
	if err != nil {
		return fmt.Errorf("blobs: cache: %w", err)
	}
	defer f.Close()
	if ref.Size <= s.partSize {
		_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.loc.bucket, Key: &key,
			Body: io.NewSectionReader(f, 0, ref.Size), ContentLength: &ref.Size,
		})
		return wrap("put "+ref.Digest, err)
	}
	return s.multipart(ctx, ref, key, f)
}

// multipart uploads the file f as the object key in parts read from the
// file, Concurrency at a time. The object appears only when all parts are
// in; on failure the upload is aborted.
func (s *Store) multipart(ctx context.Context, ref Ref, key string, f *os.File) error {
	partSize := max(s.partSize, (ref.Size+maxParts-1)/maxParts)
	created, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &s.loc.bucket, Key: &key})
	if err != nil {
		return wrap("put "+ref.Digest, err)
	}
	id := created.UploadId
	parts := make([]types.CompletedPart, (ref.Size+partSize-1)/partSize)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.concurrency)
	for i := range parts {
		off := int64(i) * partSize
		size := min(partSize, ref.Size-off)
		num := int32(i + 1)
		g.Go(func() error {
			out, err := s.client.UploadPart(gctx, &s3.UploadPartInput{
				Bucket: &s.loc.bucket, Key: &key, UploadId: id, PartNumber: &num,
				Body: io.NewSectionReader(f, off, size), ContentLength: &size,
			})
			if err != nil {
				return err
			}
			parts[i] = types.CompletedPart{ETag: out.ETag, PartNumber: &num}
			return nil
		})
	}
	err = g.Wait()
	if err == nil {
		_, err = s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
			Bucket: &s.loc.bucket, Key: &key, UploadId: id,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		})
	}
	if err != nil {
		// Abort even when ctx is done, so the parts do not linger.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, aerr := s.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{Bucket: &s.loc.bucket, Key: &key, UploadId: id})
		return wrap("put "+ref.Digest, errors.Join(err, aerr))
	}
	return nil
}

// ctxReader is a reader that stops when its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
