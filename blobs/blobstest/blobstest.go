// Package blobstest gives tests an S3-compatible store for package blobs:
// the store at RLM_BLOBS (with the AWS variables), as scripts/cluster-dev
// up prints it, or else a versitygw that the test process starts once on
// a loopback port (found in PATH, in scripts/cluster-dev's cache or in
// /tmp/gobin) and that Main stops. Each test gets a fresh key prefix. A
// test is skipped, saying why, when there is no store.
package blobstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlmhq/rlm/blobs"
)

const bucket = "rlm"

var (
	mu      sync.Mutex
	started bool
	baseURL string
	skip    string
	gw      *exec.Cmd
	gwDone  chan struct{}
	gwDir   string
)

// Main runs the tests of m and then stops the versitygw they started, if
// any: call it from TestMain as os.Exit(blobstest.Main(m)).
func Main(m *testing.M) int {
	defer stop()
	return m.Run()
}

// URL returns a store URL with a fresh key prefix, so that tests sharing
// the store do not see each other's blobs; it skips the test when there
// is no store.
func URL(t testing.TB) string {
	t.Helper()
	mu.Lock()
	if !started {
		started = true
		baseURL, skip = start()
	}
	u, why := baseURL, skip
	mu.Unlock()
	if u == "" {
		t.Skip(why)
	}
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatalf("blobstest: RLM_BLOBS: %v", err)
	}
	pu.Path = strings.TrimSuffix(pu.Path, "/") + "/test-" + randHex(6)
	return pu.String()
}

// NewStore opens a store on a fresh prefix (URL) with cfg's other fields,
// a fresh cache folder if cfg.CacheDir is empty, and the smallest part
// size if cfg.PartSize is 0.
func NewStore(t testing.TB, cfg blobs.Config) *blobs.Store {
	t.Helper()
	if cfg.URL == "" {
		cfg.URL = URL(t)
	}
	if cfg.CacheDir == "" {
		cfg.CacheDir = t.TempDir()
	}
	if cfg.PartSize == 0 {
		cfg.PartSize = blobs.MinPartSize
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := blobs.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("blobstest: open: %v", err)
	}
	return s
}

// start returns the store's URL, or why there is none.
func start() (string, string) {
	// The SDK must never look for credentials beyond the environment.
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	if u := os.Getenv("RLM_BLOBS"); u != "" {
		return u, ""
	}
	bin := binary()
	if bin == "" {
		return "", "no S3 store: set RLM_BLOBS (scripts/cluster-dev up prints it) or put versitygw in PATH " +
			"(go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)"
	}
	os.Setenv("AWS_ACCESS_KEY_ID", "rlmtest"+randHex(4))
	os.Setenv("AWS_SECRET_ACCESS_KEY", randHex(16))
	os.Setenv("AWS_REGION", "us-east-1")
	dir, err := os.MkdirTemp("", "blobstest-*")
	if err != nil {
		return "", "blobstest: " + err.Error()
	}
	gwDir = dir
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, bucket), 0o755); err != nil {
		return "", "blobstest: " + err.Error()
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "blobstest: " + err.Error()
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--quiet", "--port", fmt.Sprintf("127.0.0.1:%d", port), "posix", root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+os.Getenv("AWS_ACCESS_KEY_ID"), "ROOT_SECRET_KEY="+os.Getenv("AWS_SECRET_ACCESS_KEY"))
	cmd.SysProcAttr = procAttr()
	log, err := os.Create(filepath.Join(dir, "versitygw.log"))
	if err != nil {
		return "", "blobstest: " + err.Error()
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return "", "cannot start versitygw: " + err.Error()
	}
	gw = cmd
	exited := make(chan struct{})
	gwDone = exited
	go func() { _ = cmd.Wait(); close(exited) }()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 100*time.Millisecond); err == nil {
			c.Close()
			return fmt.Sprintf("s3://%s?endpoint=http://127.0.0.1:%d&region=us-east-1", bucket, port), ""
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(filepath.Join(dir, "versitygw.log"))
			return "", "versitygw exited: " + strings.TrimSpace(string(out))
		case <-time.After(50 * time.Millisecond):
		}
	}
	return "", "versitygw did not listen in 20s"
}

// stop kills the versitygw started by start and removes its folder.
func stop() {
	mu.Lock()
	defer mu.Unlock()
	if gw != nil && gw.Process != nil {
		_ = gw.Process.Kill()
		<-gwDone
		gw = nil
	}
	if gwDir != "" {
		os.RemoveAll(gwDir)
		gwDir = ""
	}
}

// binary finds a versitygw executable, or returns "".
func binary() string {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	for _, p := range []string{filepath.Join(cache, "rlm-cluster-dev", "bin", "versitygw"), "/tmp/gobin/versitygw"} {
		if info, err := os.Stat(p); err == nil && info.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
