package llm

import (
	"context"
	"time"
)

// EmbedCachePath is the on-disk cache file of text embedded by model under
// cacheDir.
func EmbedCachePath(cacheDir, model, text string) string {
	return newEmbedCache(cacheDir).path(embedKey(model, text))
}

// SetCacheWriteHook sets the hook called half-way through writing a cache
// file; nil removes it.
func SetCacheWriteHook(f func(tmpPath string)) { cacheWriteHook = f }

// SetClock replaces c's clock: now for the rate limiters and sleep for
// every wait (rate limits and retry backoff).
func SetClock(c *Client, now func() time.Time, sleep func(ctx context.Context, d time.Duration) error) {
	c.sched.now = now
	c.sched.sleep = sleep
	c.sleep = sleep
}

// SampledBytes is the number of bytes of s that CountLarge tokenizes when
// s is over limit.
func SampledBytes(s string, limit int) int {
	n := 0
	for _, sp := range sampleSpans(s, limit) {
		n += sp[1] - sp[0]
	}
	return n
}
