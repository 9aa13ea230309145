package blobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The tests use the store named by RLM_BLOBS (with the AWS variables), as
// scripts/cluster-dev up prints it, or else start versitygw themselves on
// a loopback port (found in PATH, in scripts/cluster-dev's cache, or in
// /tmp/gobin), or else skip.

// testBucket is the bucket of the versitygw the tests start.
const testBucket = "rlm"

// env is the store the tests share.
var env struct {
	url  string // s3://BUCKET[/PREFIX]?endpoint=...: each test adds a prefix
	skip string // why there is none
	srv  *gateway
}

func TestMain(m *testing.M) {
	// The SDK must never look for credentials beyond the environment.
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	code := func() int {
		if u := os.Getenv("RLM_BLOBS"); u != "" {
			env.url = u
		} else if bin := versitygwBinary(); bin == "" {
			env.skip = "no S3 store: set RLM_BLOBS (scripts/cluster-dev up prints it) or put versitygw in PATH " +
				"(go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)"
		} else {
			os.Setenv("AWS_ACCESS_KEY_ID", "rlmtest"+randHex(4))
			os.Setenv("AWS_SECRET_ACCESS_KEY", randHex(16))
			os.Setenv("AWS_REGION", "us-east-1")
			dir, err := os.MkdirTemp("", "blobs-test-*")
			if err != nil {
				panic(err)
			}
			defer os.RemoveAll(dir)
			srv, err := startGateway(bin, filepath.Join(dir, "root"), 0)
			if err != nil {
				env.skip = "cannot start versitygw: " + err.Error()
			} else {
				defer srv.stop()
				env.srv = srv
				env.url = srv.url(testBucket)
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

// versitygwBinary finds a versitygw executable, or returns "".
func versitygwBinary() string {
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

// gateway is a versitygw process serving a posix folder on loopback.
type gateway struct {
	bin, dir string
	port     int
	cmd      *exec.Cmd
	exited   chan struct{}
}

// startGateway starts versitygw on dir (making the test bucket there) at
// port, or a free port if 0, with the credentials of the environment, and
// waits until it answers. Its log is dir.log.
func startGateway(bin, dir string, port int) (*gateway, error) {
	if err := os.MkdirAll(filepath.Join(dir, testBucket), 0o755); err != nil {
		return nil, err
	}
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	g := &gateway{bin: bin, dir: dir, port: port, exited: make(chan struct{})}
	g.cmd = exec.Command(bin, "--quiet", "--port", fmt.Sprintf("127.0.0.1:%d", port), "posix", dir)
	g.cmd.Env = append(os.Environ(),
		"ROOT_ACCESS_KEY="+os.Getenv("AWS_ACCESS_KEY_ID"), "ROOT_SECRET_KEY="+os.Getenv("AWS_SECRET_ACCESS_KEY"))
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	log, err := os.Create(dir + ".log")
	if err != nil {
		return nil, err
	}
	defer log.Close()
	g.cmd.Stdout, g.cmd.Stderr = log, log
	if err := g.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { g.cmd.Wait(); close(g.exited) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 100*time.Millisecond)
		if err == nil {
			c.Close()
			return g, nil
		}
		select {
		case <-g.exited:
			out, _ := os.ReadFile(dir + ".log")
			return nil, fmt.Errorf("versitygw exited: %s", strings.TrimSpace(string(out)))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			g.stop()
			return nil, fmt.Errorf("versitygw did not listen on port %d in 20s", port)
		}
	}
}

// url returns the store URL of bucket on g.
func (g *gateway) url(bucket string) string {
	return fmt.Sprintf("s3://%s?endpoint=http://127.0.0.1:%d&region=us-east-1", bucket, g.port)
}

// stop kills g and waits for it to exit.
func (g *gateway) stop() {
	g.cmd.Process.Kill()
	<-g.exited
}

// needStore skips the test when there is no store.
func needStore(t *testing.T) {
	t.Helper()
	if env.url == "" {
		t.Skip(env.skip)
	}
}

// withPrefix adds a fresh key prefix to a store URL, so that tests sharing
// a store (and runs sharing RLM_BLOBS) do not see each other's blobs.
func withPrefix(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	u.Path = strings.TrimSuffix(u.Path, "/") + "/blobs-test-" + randHex(6)
	return u.String()
}

// testStore opens a store with a fresh prefix and cache; cfg's URL and
// CacheDir are filled in when empty, PartSize defaults to the minimum.
func testStore(t *testing.T, cfg Config) *Store {
	t.Helper()
	needStore(t)
	if cfg.URL == "" {
		cfg.URL = withPrefix(t, env.url)
	}
	if cfg.CacheDir == "" {
		cfg.CacheDir = t.TempDir()
	}
	if cfg.PartSize == 0 {
		cfg.PartSize = MinPartSize
	}
	s, err := Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { removeAll(s) })
	return s
}

// removeAll deletes the blobs under s's prefix, as far as it can.
func removeAll(s *Store) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.List(ctx, func(r Ref, _ time.Time) error { return s.Delete(ctx, r.Digest) })
}

// sibling opens another store on the same bucket and prefix as s, with a
// fresh cache: a second host of the cluster.
func sibling(t *testing.T, s *Store, cfg Config) *Store {
	t.Helper()
	u := url.URL{Scheme: "s3", Host: s.loc.bucket, Path: "/" + s.loc.prefix}
	q := url.Values{}
	if s.loc.endpoint != "" {
		q.Set("endpoint", s.loc.endpoint)
	}
	if s.loc.region != "" {
		q.Set("region", s.loc.region)
	}
	u.RawQuery = q.Encode()
	cfg.URL = u.String()
	if cfg.PartSize == 0 {
		cfg.PartSize = s.partSize
	}
	return testStore(t, cfg)
}

// counter is an http.RoundTripper that counts requests by method, and
// fails those that fail says to.
type counter struct {
	mu   sync.Mutex
	n    map[string]int
	fail func(*http.Request) bool
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[r.Method]++
	fail := c.fail != nil && c.fail(r)
	c.mu.Unlock()
	if fail {
		return nil, fmt.Errorf("test transport: %s %s: %w", r.Method, r.URL.Path, syscall.ECONNRESET)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// get returns the count of method and resets it.
func (c *counter) get(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n[method]
	delete(c.n, method)
	return n
}

// reset forgets all counts.
func (c *counter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = nil
}

// client returns an http.Client sending through c.
func (c *counter) client() *http.Client { return &http.Client{Transport: c} }

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
