package llm_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

const crashEnv = "RLM_TEST_EMBED_CACHE_CRASH_DIR"

// TestEmbedCacheCrashHelper is not a test on its own: run by
// TestEmbedCacheSurvivesCrash in a child process, it caches "alpha", then
// dies (os.Exit, no deferred clean-up) half-way through writing "beta".
func TestEmbedCacheCrashHelper(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("helper process for TestEmbedCacheSurvivesCrash")
	}
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir })
	_, err := c.Embed(context.Background(), []string{"alpha"})
	require.NoError(t, err)
	llm.SetCacheWriteHook(func(string) { os.Exit(7) })
	_, _ = c.Embed(context.Background(), []string{"beta"})
	t.Fatal("the write hook should have ended the process")
}

func TestEmbedCacheSurvivesCrash(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("in the helper process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEmbedCacheCrashHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "helper output: %s", out)
	require.Equal(t, 7, ee.ExitCode(), "helper output: %s", out)

	const model = "text-embedding-3-small"
	alpha := llm.EmbedCachePath(dir, model, "alpha")
	beta := llm.EmbedCachePath(dir, model, "beta")
	require.FileExists(t, alpha)
	assert.NoFileExists(t, beta, "a half-written entry must not be visible")
	tmps, err := filepath.Glob(filepath.Join(filepath.Dir(beta), ".tmp-*"))
	require.NoError(t, err)
	assert.Len(t, tmps, 1, "the crash left its temporary file")

	// A new run uses the entry written before the crash and re-embeds the
	// one being written when it crashed.
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir })
	vecs, err := c.Embed(context.Background(), []string{"alpha", "beta"})
	require.NoError(t, err)
	assert.Equal(t, llmtest.HashVector("alpha", 16), vecs[0])
	assert.Equal(t, llmtest.HashVector("beta", 16), vecs[1])
	calls := srv.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, []string{"beta"}, calls[0].Inputs)
	assert.FileExists(t, beta)
}

// TestEmbedCacheRejectsCorruptEntries: entries torn or damaged on disk are
// treated as missing, re-embedded and rewritten, never returned.
func TestEmbedCacheRejectsCorruptEntries(t *testing.T) {
	const model = "text-embedding-3-small"
	tests := []struct {
		name    string
		corrupt func(b []byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"truncated to a whole float", func(b []byte) []byte { return b[:len(b)-8] }},
		{"truncated mid-header", func(b []byte) []byte { return b[:6] }},
		{"trailing garbage", func(b []byte) []byte { return append(b, 1, 2, 3, 4) }},
		{"flipped bit", func(b []byte) []byte { b[12] ^= 0x10; return b }},
		{"bad magic", func(b []byte) []byte { b[0] = 'x'; return b }},
		{"old raw format", func(b []byte) []byte { return b[8 : len(b)-4] }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			srv := llmtest.NewServer(t)
			_, err := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir }).Embed(context.Background(), []string{"gamma"})
			require.NoError(t, err)
			p := llm.EmbedCachePath(dir, model, "gamma")
			good, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, tc.corrupt(append([]byte(nil), good...)), 0o644))

			vecs, err := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir }).Embed(context.Background(), []string{"gamma"})
			require.NoError(t, err)
			assert.Equal(t, llmtest.HashVector("gamma", 16), vecs[0])
			assert.Equal(t, 2, srv.Count(), "the corrupt entry is re-embedded")
			repaired, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, good, repaired, "and rewritten")
		})
	}
}

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"same", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"scaled", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 5}, 0},
		{"opposite", []float32{1, -1}, []float32{-1, 1}, -1},
		{"zero vector", []float32{0, 0}, []float32{1, 1}, 0},
		{"shorter length used", []float32{1, 0, 9}, []float32{1, 0}, 1},
		{"empty", nil, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, llm.Cosine(tc.a, tc.b), 1e-9)
		})
	}
}
