package blobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The block cache of an Object.
const (
	blockSize   = 1 << 20
	cacheBlocks = 8
	// directRead is the read size from which an Object reads straight
	// into the caller's buffer rather than through its blocks.
	directRead = 4 * blockSize
)

// Object reads a blob in the store with ranged requests, without
// downloading it whole, through a small cache of 1 MiB blocks. It is an
// io.ReaderAt, safe for concurrent use; its reads use the context given
// to Store.Object.
type Object struct {
	s   *Store
	ctx context.Context
	ref Ref

	mu     sync.Mutex
	blocks map[int64]*block // by index
	clock  uint64
}

// block is one cached block of an Object.
type block struct {
	done chan struct{} // closed when data and err are set
	data []byte
	err  error
	used uint64 // the Object's clock at its last use
}

// Object returns a reader of the blob ref. It makes no request until read.
func (s *Store) Object(ctx context.Context, ref Ref) *Object {
	return &Object{s: s, ctx: ctx, ref: ref, blocks: map[int64]*block{}}
}

// Size returns the size of the blob.
func (o *Object) Size() int64 { return o.ref.Size }

// ReadAt reads len(p) bytes from offset off, returning io.EOF with fewer
// bytes when the blob ends first.
func (o *Object) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("blobs: read %s: negative offset %d", o.ref.Digest, off)
	}
	if off >= o.ref.Size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := min(int64(len(p)), o.ref.Size-off)
	var n int64
	if want >= directRead {
		k, err := o.s.ReadAt(o.ctx, o.ref.Digest, p[:want], off)
		if err != nil && !(errors.Is(err, io.EOF) && int64(k) == want) {
			return k, err
		}
		n = int64(k)
	}
	for n < want {
		idx := (off + n) / blockSize
		b, err := o.block(idx)
		if err != nil {
			return int(n), err
		}
		from := off + n - idx*blockSize
		if from >= int64(len(b)) {
			return int(n), fmt.Errorf("%w: blob %s: short block at %d", ErrDigest, o.ref.Digest, idx*blockSize)
		}
		n += int64(copy(p[n:want], b[from:]))
	}
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// block returns the data of block idx, reading it if it is not cached.
func (o *Object) block(idx int64) ([]byte, error) {
	o.mu.Lock()
	o.clock++
	b := o.blocks[idx]
	if b != nil {
		b.used = o.clock
		o.mu.Unlock()
		<-b.done
		return b.data, b.err
	}
	b = &block{done: make(chan struct{}), used: o.clock}
	o.blocks[idx] = b
	o.evict()
	o.mu.Unlock()

	start := idx * blockSize
	data := make([]byte, min(blockSize, o.ref.Size-start))
	n, err := o.s.ReadAt(o.ctx, o.ref.Digest, data, start)
	if errors.Is(err, io.EOF) && n == len(data) {
		err = nil
	}
	b.data, b.err = data[:n], err
	close(b.done)
	if err != nil {
		o.mu.Lock()
		if o.blocks[idx] == b {
			delete(o.blocks, idx) // a later read tries again
		}
		o.mu.Unlock()
	}
	return b.data, b.err
}

// evict drops the least recently used read blocks while there are more
// than cacheBlocks; o.mu is held.
func (o *Object) evict() {
	for len(o.blocks) > cacheBlocks {
		var lru int64 = -1
		for idx, b := range o.blocks {
			select {
			case <-b.done:
			default:
				continue // being read
			}
			if lru < 0 || b.used < o.blocks[lru].used {
				lru = idx
			}
		}
		if lru < 0 {
			return
		}
		delete(o.blocks, lru)
	}
}
