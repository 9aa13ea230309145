package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/blobs"
	"github.com/rlmhq/rlm/blobs/blobstest"
	"github.com/rlmhq/rlm/cluster/clustertest"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// blobsReplica is clusterReplica with its own blob store (and cache) on
// the bucket at burl.
func blobsReplica(t *testing.T, up *llmtest.Server, url, burl, owner string, work bool, edit func(*Config)) (*testServer, string) {
	t.Helper()
	cache := t.TempDir()
	bs := blobstest.NewStore(t, blobs.Config{URL: burl, CacheDir: cache})
	ts := clusterReplica(t, up, url, owner, work, func(c *Config) {
		c.Blobs = bs
		if edit != nil {
			edit(c)
		}
	})
	return ts, cache
}

// clearCache empties a blob cache, as on a fresh host.
func clearCache(t *testing.T, cache string) {
	t.Helper()
	entries, err := filepath.Glob(filepath.Join(cache, "sha256", "*"))
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.Remove(e))
	}
}

// varStep is one request of the store API.
type varStep struct {
	method, path string
	body         any
	hdr          []string
}

// answer is what a client sees of an answer: status, the store headers
// and the body, with the times replaced by whether they are set.
func answer(t *testing.T, code int, h http.Header, body []byte) string {
	t.Helper()
	out := fmt.Sprintf(
		"%d etag=%s type=%s version=%s ct=%s\n",
		code,
		h.Get("ETag"),
		h.Get("X-RLM-Type"),
		h.Get("X-RLM-Version"),
		h.Get("Content-Type"),
	)
	var v any
	if json.Unmarshal(body, &v) != nil || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		return out + string(body)
	}
	var scrub func(any)
	scrub = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "created_at" || k == "updated_at" {
					x[k] = e != nil && e != ""
				} else {
					scrub(e)
				}
			}
		case []any:
			for _, e := range x {
				scrub(e)
			}
		}
	}
	scrub(v)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return out + string(b)
}

// TestClusterVarsAnswerAsOneServer: the store API of two replicas sharing
// a database and a blob store answers every request exactly as a single
// server's store API does (statuses, ETags, headers, JSON, errors); a
// value written through one replica is read through the other.
func TestClusterVarsAnswerAsOneServer(t *testing.T) {
	url, burl := clustertest.NewDatabase(t), blobstest.URL(t)
	up := fakeUpstream(t, 0)
	local := newTestServerOn(t, up, nil)
	a, _ := blobsReplica(t, up, url, burl, "a", false, nil)
	b, _ := blobsReplica(t, up, url, burl, "b", false, nil)

	var etag string
	steps := []varStep{
		{"PUT", "/v1/vars/doc", "hello world", nil},
		{"GET", "/v1/vars/doc", nil, nil},
		{"PUT", "/v1/vars/doc", "stale", []string{"If-Match", `"0000"`}},
		{"PUT", "/v1/vars/doc", "first", []string{"If-None-Match", "*"}},
		{"PUT", "/v1/vars/doc", "hello again", []string{"If-Match", "ETAG"}},
		{"PUT", "/v1/vars/new", "created", []string{"If-Match", `"0000"`}},
		{"PUT", "/v1/vars/new", "created", []string{"If-None-Match", "*"}},
		{"PUT", "/v1/vars/data?scope=agent:x", []byte(`{"n": 41, "items": [1, 2.5, "x", null], "s": "é"}`), nil},
		{"GET", "/v1/vars/data", nil, nil},
		{"PUT", "/v1/vars/str", []byte(`"just text"`), nil},
		{"GET", "/v1/vars/str", nil, nil},
		{"PUT", "/v1/vars/code?type=custom:python", "x = 1", nil},
		{"PUT", "/v1/vars/conv?type=conversation", "not a list", nil},
		{"PUT", "/v1/vars/bad", "caf\xe9", nil},
		{"PUT", "/v1/vars/badjson", []byte(`{"n": `), nil},
		{"PUT", "/v1/vars/x?scope=bogus", "x", nil},
		{"PUT", "/v1/vars/x?type=nope", "x", nil},
		{"GET", "/v1/vars", nil, nil},
		{"GET", "/v1/vars?scope=agent:*", nil, nil},
		{"GET", "/v1/vars?type=json", nil, nil},
		{"GET", "/v1/vars/missing", nil, nil},
		{"DELETE", "/v1/vars/data", nil, []string{"If-Match", `"0000"`}},
		{"DELETE", "/v1/vars/data", nil, []string{"If-Match", "*"}},
		{"DELETE", "/v1/vars/data", nil, nil},
		{"GET", "/v1/vars/data", nil, nil},
		{"DELETE", "/v1/vars/doc", nil, []string{"If-Match", "ETAG"}},
	}
	for i, st := range steps {
		hdr := make([]string, len(st.hdr))
		copy(hdr, st.hdr)
		for j := range hdr {
			hdr[j] = strings.ReplaceAll(hdr[j], "ETAG", etag)
		}
		lc, lh, lb := local.do(t, st.method, st.path, st.body, hdr...)
		replica := []*testServer{a, b}[i%2]
		cc, ch, cb := replica.do(t, st.method, st.path, st.body, hdr...)
		want, got := answer(t, lc, lh, lb), answer(t, cc, ch, cb)
		assert.Equal(t, want, got, "step %d: %s %s", i, st.method, st.path)
		if st.method == "GET" && st.path == "/v1/vars/doc" {
			etag = lh.Get("ETag")
			require.NotEmpty(t, etag)
		}
	}
	// A value written through one replica is read through both.
	for _, ts := range []*testServer{a, b} {
		code, _, body := ts.do(t, "GET", "/v1/vars/new", nil)
		assert.Equal(t, 200, code)
		assert.Equal(t, "created", string(body))
	}
}

// TestClusterStoreVariables: a run naming "store:KEY" submitted through a
// replica that executes nothing runs on another whose cache is empty; it
// sees the key's value at submit time even if the key changes before it
// runs; a typed (JSON) value loads typed.
func TestClusterStoreVariables(t *testing.T) {
	url, burl := clustertest.NewDatabase(t), blobstest.URL(t)
	up := fakeUpstream(t, 0)
	a, aCache := blobsReplica(t, up, url, burl, "a", false, nil)
	b, _ := blobsReplica(t, up, url, burl, "b", false, nil)

	code, _, body := b.do(t, "PUT", "/v1/vars/doc", "hello world")
	require.Equal(t, 201, code, string(body))
	code, _, body = b.do(t, "POST", "/v1/runs", chatBody("len doc", map[string]any{"variables": map[string]any{"doc": "store:doc"}}))
	require.Equal(t, 202, code, string(body))
	var pinned RunResult
	require.NoError(t, json.Unmarshal(body, &pinned))
	// The key changes before any worker runs the run.
	code, _, body = a.do(t, "PUT", "/v1/vars/doc", strings.Repeat("x", 1000))
	require.Equal(t, 200, code, string(body))
	code, _, body = b.do(t, "PUT", "/v1/vars/data", []byte(`{"n": 41}`))
	require.Equal(t, 201, code, string(body))
	code, _, body = b.do(t, "POST", "/v1/runs", chatBody("typed", map[string]any{"variables": map[string]any{"data": "store:data"}}))
	require.Equal(t, 202, code, string(body))
	var typed RunResult
	require.NoError(t, json.Unmarshal(body, &typed))

	clearCache(t, aCache) // a has the values it wrote: another host would not
	require.NoError(t, a.s.Work(context.Background()))
	got := b.waitRun(t, pinned.ID)
	require.Equal(t, StateDone, got.Status, got.Error)
	assert.Equal(t, "11", got.Answer, "the run sees the value the key had at submit time")
	got = a.waitRun(t, typed.ID)
	require.Equal(t, StateDone, got.Status, got.Error)
	assert.Equal(t, "42", got.Answer)

	code, _, body = b.do(
		t,
		"POST",
		"/v1/chat/completions",
		chatBody("len doc", map[string]any{"variables": map[string]any{"doc": "store:doc"}}),
	)
	require.Equal(t, 200, code, string(body))
	assert.Contains(t, string(body), `"content":"1000"`)

	code, _, body = b.do(t, "POST", "/v1/runs", chatBody("len doc", map[string]any{"variables": map[string]any{"doc": "store:nope"}}))
	assert.Equal(t, 400, code)
	assert.Contains(t, string(body), "store_key_not_found")

	code, _, body = b.do(t, "GET", "/readyz", nil)
	assert.Equal(t, 200, code, string(body))
	assert.Contains(t, string(body), `"blobs":"ok"`)
}

// flaky is a transport that fails every request while down is set.
type flaky struct{ down atomic.Bool }

func (f *flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.down.Load() {
		return nil, fmt.Errorf("test transport: %s %s: %w", r.Method, r.URL.Path, syscall.ECONNREFUSED)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestClusterBlobStoreDownWhileFetching: a worker that cannot reach the
// blob store does not fail the run; once the store is back, the run
// completes. /readyz reports the outage.
func TestClusterBlobStoreDownWhileFetching(t *testing.T) {
	url, burl := clustertest.NewDatabase(t), blobstest.URL(t)
	up := fakeUpstream(t, 0)
	f := &flaky{}
	bs := blobstest.NewStore(t, blobs.Config{URL: burl, HTTPClient: &http.Client{Transport: f}, MaxAttempts: 1})
	a := clusterReplica(t, up, url, "a", false, func(c *Config) { c.Blobs = bs })
	b, _ := blobsReplica(t, up, url, burl, "b", false, nil)

	code, _, body := b.do(t, "PUT", "/v1/vars/doc", "hello world")
	require.Equal(t, 201, code, string(body))
	code, _, body = b.do(t, "POST", "/v1/runs", chatBody("len doc", map[string]any{"variables": map[string]any{"doc": "store:doc"}}))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))

	f.down.Store(true)
	code, _, body = a.do(t, "GET", "/readyz", nil)
	assert.Equal(t, 503, code)
	assert.Contains(t, string(body), `"blobs":"blobs: `)
	require.NoError(t, a.s.Work(context.Background()))
	time.Sleep(1500 * time.Millisecond) // the worker tries and fails
	code, _, body = b.do(t, "GET", "/v1/runs/"+r.ID, nil)
	require.Equal(t, 200, code)
	assert.NotContains(t, string(body), `"status":"failed"`)
	f.down.Store(false)
	got := b.waitRun(t, r.ID)
	require.Equal(t, StateDone, got.Status, got.Error)
	assert.Equal(t, "11", got.Answer)
}

// TestClusterBlobGC: the GC deletes the blobs that no store key and no
// run references once past the grace, and only those.
func TestClusterBlobGC(t *testing.T) {
	url, burl := clustertest.NewDatabase(t), blobstest.URL(t)
	up := fakeUpstream(t, 0)
	a, _ := blobsReplica(t, up, url, burl, "a", true, nil)
	put := func(key, value string) string {
		code, h, body := a.do(t, "PUT", "/v1/vars/"+key, value)
		require.Less(t, code, 300, string(body))
		return strings.Trim(h.Get("ETag"), `"`)
	}
	old := put("doc", "the first value")
	code, _, body := a.do(t, "POST", "/v1/runs", chatBody("len doc", map[string]any{"variables": map[string]any{"doc": "store:doc"}}))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	require.Equal(t, StateDone, a.waitRun(t, r.ID).Status)
	put("doc", "the second value") // the first is still the run's
	gone := put("tmp", "dropped")
	code, _, _ = a.do(t, "DELETE", "/v1/vars/tmp", nil)
	require.Equal(t, 204, code)
	cur := put("doc", "the third value") // the second is now unreferenced
	second := fmt.Sprintf("%x", sha256.Sum256([]byte("the second value")))
	ctx := context.Background()

	n, err := a.s.collectBlobs(ctx, time.Hour)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing is past the grace")
	time.Sleep(50 * time.Millisecond)
	n, err = a.s.collectBlobs(ctx, 10*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	bs := a.s.cfg.Blobs
	for _, d := range []string{second, gone} {
		_, err := bs.Stat(ctx, d)
		assert.ErrorIs(t, err, blobs.ErrNotFound, d)
	}
	for _, d := range []string{old, cur} {
		_, err := bs.Stat(ctx, d)
		assert.NoError(t, err, "a referenced blob is kept")
	}
	code, _, body = a.do(t, "GET", "/v1/vars/doc", nil)
	require.Equal(t, 200, code)
	assert.Equal(t, "the third value", string(body))

	// The periodic GC runs once per BlobGCEvery in the cluster: the
	// first process to find it due collects, the others skip.
	b, _ := blobsReplica(t, up, url, burl, "b", false, nil)
	assert.True(t, a.s.blobGCTick(ctx), "due: the first of the period")
	assert.False(t, b.s.blobGCTick(ctx), "another process in the same period skips")
	assert.False(t, a.s.blobGCTick(ctx))
}

// pacedReader sends n bytes in chunks of step, one every pause.
type pacedReader struct {
	n, step int
	pause   time.Duration
	sent    int
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.sent >= p.n {
		return 0, io.EOF
	}
	if p.sent > 0 && p.sent%p.step == 0 {
		time.Sleep(p.pause)
	}
	k := min(len(b), p.step-p.sent%p.step, p.n-p.sent)
	for i := range b[:k] {
		b[i] = 'a'
	}
	p.sent += k
	return k, nil
}

// TestClusterVarUploadOutlastsTheReadTimeout: a value that takes longer
// than the read timeout to arrive, steadily, is stored (the deadline
// moves on with each MiB); one that trickles is cut at the read timeout.
func TestClusterVarUploadOutlastsTheReadTimeout(t *testing.T) {
	url := clustertest.NewDatabase(t)
	burl := blobstest.URL(t)
	ts, _ := blobsReplica(t, fakeUpstream(t, 0), url, burl, "a", false, func(c *Config) { c.ReadTimeout = time.Second })
	put := func(body io.Reader, n int64) (int, error) {
		req, err := http.NewRequest("PUT", ts.http.URL+"/v1/vars/paced", body)
		require.NoError(t, err)
		req.ContentLength = n
		req.Header.Set("Authorization", "Bearer "+canaryToken)
		req.Header.Set("Content-Type", "text/plain")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, _ = io.ReadAll(resp.Body)
		return resp.StatusCode, nil
	}
	// 6 MiB over about 2.5 s: 2.5 times the read timeout.
	code, err := put(&pacedReader{n: 6 << 20, step: 1 << 20, pause: 500 * time.Millisecond}, 6<<20)
	require.NoError(t, err)
	assert.Less(t, code, 300)
	// 1 KiB per 600 ms never reaches a MiB within the timeout.
	start := time.Now()
	code, err = put(&pacedReader{n: 1 << 20, step: 1 << 10, pause: 600 * time.Millisecond}, 1<<20)
	if err == nil {
		assert.GreaterOrEqual(t, code, 400, "a trickling upload is refused")
	}
	assert.Less(t, time.Since(start), 10*time.Second, "cut near the read timeout")
}
