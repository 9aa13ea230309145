package runs

import (
	"io"
	"os"
	"sync"
	"time"
)

// DefaultTrajectoryDelay is how long a trajectory line may wait in
// memory before it is written to trajectory.jsonl.
const DefaultTrajectoryDelay = 100 * time.Millisecond

// batchWriter gathers a run's trajectory lines and writes them to the
// file in one write: when the engine is about to wait (a model request;
// see sink.appendEvent), when the run finishes (Close), when a line has
// waited delay, or when maxBatch bytes gathered. A run's events come in
// bursts between model calls, so a run of one root call and one sub-call
// writes its trajectory in two writes rather than nine. A process killed
// loses at most the lines of the last delay; a resume re-executes the
// steps behind them and writes them again (the recording, not the
// trajectory, is what a resume replays). A failed write is kept: the
// next Write and Close report it.
type batchWriter struct {
	w     io.WriteCloser
	delay time.Duration

	mu     sync.Mutex
	buf    []byte
	timer  *time.Timer
	err    error
	closed bool
}

// maxBatch is the most a batchWriter gathers before it writes.
const maxBatch = 64 << 10

func newBatchWriter(w io.WriteCloser, delay time.Duration) *batchWriter {
	return &batchWriter{w: w, delay: delay}
}

// Write gathers p (whole lines).
func (b *batchWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, os.ErrClosed
	}
	if b.err != nil {
		return 0, b.err
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= maxBatch {
		return len(p), b.flushLocked()
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(b.delay, func() { _ = b.Flush() })
	} else if len(b.buf) == len(p) {
		b.timer.Reset(b.delay)
	}
	return len(p), nil
}

// Flush writes what was gathered.
func (b *batchWriter) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *batchWriter) flushLocked() error {
	if b.err != nil || len(b.buf) == 0 || b.w == nil {
		return b.err
	}
	_, b.err = b.w.Write(b.buf)
	b.buf = b.buf[:0]
	return b.err
}

// Close writes what was gathered and closes the file.
func (b *batchWriter) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return os.ErrClosed
	}
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.flushLocked()
	if b.w == nil {
		return err // the file was never made (Root.Create's error says why)
	}
	if cerr := b.w.Close(); err == nil {
		err = cerr
	}
	return err
}

// setFile gives a writer made without its file (the run's directory was
// being made) the file, and writes what was gathered meanwhile.
func (b *batchWriter) setFile(w io.WriteCloser) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.w = w
	return b.flushLocked()
}
