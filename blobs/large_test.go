package blobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// genReader yields n deterministic bytes: a random 1 MiB pattern, rotated
// differently in each MiB so that no two parts are alike.
type genReader struct {
	n, off  int64
	pattern []byte
}

func newGenReader(n int64) *genReader {
	return &genReader{n: n, pattern: randomBytes(1<<20, 42)}
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.off >= g.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), g.n-g.off)]
	l := int64(len(g.pattern))
	for i := 0; i < len(p); {
		x := g.off + int64(i)
		in := x % l // offset in this MiB
		pos := (in + (x/l)*7919) % l
		k := copy(p[i:min(len(p), i+int(l-in))], g.pattern[pos:])
		k += copy(p[i+k:min(len(p), i+int(l-in))], g.pattern)
		i += k
	}
	g.off += int64(len(p))
	return len(p), nil
}

// heapPeak samples the heap in use until stop is called, and returns its
// peak above the level at the start.
func heapPeak() (stop func() (peak, allocated uint64)) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, alloc0 := ms.HeapInuse, ms.TotalAlloc
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base {
				peak = max(peak, ms.HeapInuse-base)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		runtime.ReadMemStats(&ms)
		return peak, ms.TotalAlloc - alloc0
	}
}

// TestLargeValue puts and fetches a value far larger than the memory it
// may take: 256 MiB, or 1.5 GiB with RLM_CLUSTER_TEST=1.
func TestLargeValue(t *testing.T) {
	size := int64(256 << 20)
	if os.Getenv("RLM_CLUSTER_TEST") == "1" {
		size = 3 << 29
	}
	const limit = 16 << 20 // what the transfer may add to the heap: less than a part
	s := testStore(t, Config{PartSize: DefaultPartSize})
	other := sibling(t, s, Config{})
	ctx := context.Background()

	h := sha256.New()
	_, err := io.Copy(h, newGenReader(size))
	require.NoError(t, err)
	want := Ref{Digest: hex.EncodeToString(h.Sum(nil)), Size: size}

	stop := heapPeak()
	began := time.Now()
	ref, err := s.Put(ctx, newGenReader(size))
	putTime := time.Since(began)
	putPeak, putAlloc := stop()
	require.NoError(t, err)
	require.Equal(t, want, ref)

	stop = heapPeak()
	began = time.Now()
	path, err := other.Fetch(ctx, ref)
	fetchTime := time.Since(began)
	fetchPeak, fetchAlloc := stop()
	require.NoError(t, err)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, size, info.Size())
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h.Reset()
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	assert.Equal(t, want.Digest, hex.EncodeToString(h.Sum(nil)), "the cached file")

	mib := func(n uint64) float64 { return float64(n) / (1 << 20) }
	mbps := func(d time.Duration) float64 { return float64(size) / (1 << 20) / d.Seconds() }
	t.Logf(
		"%d MiB: put %v (%.0f MiB/s), heap peak +%.1f MiB, allocated %.1f MiB; fetch %v (%.0f MiB/s), heap peak +%.1f MiB, allocated %.1f MiB",
		size>>20,
		putTime.Round(time.Millisecond),
		mbps(putTime),
		mib(putPeak),
		mib(putAlloc),
		fetchTime.Round(time.Millisecond),
		mbps(fetchTime),
		mib(fetchPeak),
		mib(fetchAlloc),
	)
	assert.Less(t, putPeak, uint64(limit), "heap growth during Put")
	assert.Less(t, fetchPeak, uint64(limit), "heap growth during Fetch")
	require.NoError(t, s.Delete(ctx, ref.Digest))
}
