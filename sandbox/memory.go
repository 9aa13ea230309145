package sandbox

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"time"

	"go.starlark.net/starlark"
)

// memPoll is how often the memory watchdog samples the heap.
const memPoll = 2 * time.Millisecond

var memSamples = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/stacks:bytes",
}

func heapInUse() int64 {
	s := make([]metrics.Sample, len(memSamples))
	for i, name := range memSamples {
		s[i].Name = name
	}
	metrics.Read(s)
	var n int64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			n += int64(x.Value.Uint64())
		}
	}
	return n
}

// watchMemory cancels thread when the heap grows by more than MaxMemory
// since the step started. Heap use by other goroutines counts too, so the
// limit is an approximate guard against runaway allocation.
func (st *step) watchMemory(thread *starlark.Thread, done <-chan struct{}) {
	limit := st.sess.cfg.Limits.MaxMemory
	base := heapInUse()
	t := time.NewTicker(memPoll)
	defer t.Stop()
	var lastGC time.Time
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if heapInUse()-base <= limit {
				continue
			}
			// The heap count includes garbage not yet collected: collect
			// once (at most every 100 ms) before deciding.
			if time.Since(lastGC) > 100*time.Millisecond {
				runtime.GC()
				lastGC = time.Now()
				if heapInUse()-base <= limit {
					continue
				}
			}
			st.stop(thread, ErrMemoryLimit, memoryMsg(limit))
			return
		}
	}
}

func memoryMsg(limit int64) string {
	return fmt.Sprintf("MemoryError: memory limit exceeded (%s per step); build smaller values, e.g. process the data in chunks", fmtBytes(limit))
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MB", n>>20)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// checkAlloc fails with a MemoryError when a builtin is about to build a
// value of n bytes (or elements) that exceeds the step's memory limit.
func checkAlloc(thread *starlark.Thread, n int64) error {
	limit := int64(DefaultMaxMemory)
	if st := stepOf(thread); st != nil {
		limit = st.sess.cfg.Limits.MaxMemory
	}
	if limit > 0 && n > limit {
		return &PyError{Kind: "MemoryError", Msg: fmt.Sprintf("result of %d bytes would exceed the memory limit (%s per step); build smaller values", n, fmtBytes(limit)), Err: ErrMemoryLimit}
	}
	return nil
}
