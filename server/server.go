package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/atomicfile"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/runs"
)

// Server serves RLM runs over HTTP. Create it with [New], serve
// [Server.Handler] (e.g. on the listener of [Server.Listen]), and stop it
// with [Server.Drain] then [Server.Close].
type Server struct {
	cfg      Config
	log      *slog.Logger
	client   *llm.Client
	shared   *sharedModel
	embedder llm.Embedder
	ledger   *llm.Ledger // every run's usage, for the metrics
	store    *rlmctx.Store
	runsRoot *runs.Root
	metrics  *metrics
	secrets  []string
	dirs     []namedDir // see clientText
	slots    chan struct{}
	handler  http.Handler
	http     *http.Client // readiness probe of the upstream

	metaNotes metaNotes // the meta document's lessons rendered per model

	mu            sync.Mutex
	jobs          map[string]*job
	idem          idemStore // the Idempotency-Keys of recent requests
	finishedOrder []string
	retainedBytes int64 // trajectories of finished runs kept in memory (retire)
	active        int   // runs admitted and not finished (queued or running)
	draining      bool
	wg            sync.WaitGroup
	waiting       connWaits  // connections waiting for a request (see shedWaiting)
	bodies        byteBudget // request bodies held at once (MaxBodyMemory)
}

// New builds a server: one upstream client, the store, the metrics.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if cfg.Token != "" && len(cfg.Token) < MinTokenLen {
		return nil, fmt.Errorf("%w: %d characters, at least %d are needed", ErrWeakToken, len(cfg.Token), MinTokenLen)
	}
	s := &Server{
		cfg:    cfg,
		log:    cfg.Logger,
		jobs:   map[string]*job{},
		slots:  make(chan struct{}, cfg.MaxRuns),
		bodies: byteBudget{max: cfg.MaxBodyMemory},
	}
	if err := s.checkMeta(); err != nil {
		return nil, err
	}
	s.secrets = secretForms(cfg.LLM.Secrets())
	if cfg.Token != "" {
		s.secrets = append(s.secrets, secretForms([]string{cfg.Token})...)
	}
	s.dirs = serverDirs(cfg)
	s.ledger = llm.NewLedger(llm.LedgerConfig{Prices: cfg.Prices})
	s.metrics = newMetrics(cfg.Registry, s)
	lc := cfg.LLM
	lc.EmbedLedger = s.ledger
	prev := lc.OnAttemptError
	lc.OnAttemptError = func(err error, retry bool) {
		s.metrics.attemptFailed(err, retry)
		if prev != nil {
			prev(err, retry)
		}
	}
	client, err := llm.New(lc)
	if err != nil {
		return nil, err
	}
	s.client = client
	s.shared = &sharedModel{inner: client, ledger: s.ledger}
	if lc.EmbeddingModel != "" {
		s.embedder = client
	}
	st, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: cfg.StoreDir})
	if err != nil {
		return nil, err
	}
	s.store = st
	if cfg.Blobs != nil && cfg.Cluster == nil {
		return nil, fmt.Errorf("%w: a blob store is for a cluster replica: its keys are kept in the cluster's database", ErrBadConfig)
	}
	if cfg.Cluster != nil && cfg.RunsDir == "" {
		return nil, fmt.Errorf("%w: a cluster replica needs a runs directory for the runs it executes", ErrBadConfig)
	}
	if cfg.RunsDir != "" {
		s.runsRoot = runs.NewRoot(cfg.RunsDir)
		// Many runs write at once: their files are synced in batches.
		s.runsRoot.Commit = atomicfile.NewCommitter(cfg.RunsDir, 0)
	}
	s.http = &http.Client{Timeout: 3 * time.Second}
	s.handler = s.middleware(s.routes())
	return s, nil
}

// Handler is the server's HTTP handler (auth and access log included).
func (s *Server) Handler() http.Handler { return s.handler }

// MaxConns is the bound on open connections in force (Config.MaxConns
// or its default).
func (s *Server) MaxConns() int { return s.cfg.MaxConns }

// Store is the server's variable store.
func (s *Server) Store() *rlmctx.Store { return s.store }

// subModel is the model of sub-calls.
func (s *Server) subModel() string { return firstNonEmpty(s.cfg.LLM.SubModel, s.cfg.LLM.Model) }

func (s *Server) routes() http.Handler {
	mux := &routeMux{ServeMux: http.NewServeMux()}
	defer func() { s.metrics.initRoutes(mux.patterns) }()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/responses", s.handleResponses)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /v1/models/{model}", s.handleModel)
	mux.HandleFunc("POST /v1/runs", s.handleRunCreate)
	mux.HandleFunc("GET /v1/runs", s.handleRunList)
	mux.HandleFunc("GET /v1/runs/{id}", s.handleRunGet)
	mux.HandleFunc("DELETE /v1/runs/{id}", s.handleRunDelete)
	mux.HandleFunc("POST /v1/runs/{id}/cancel", s.handleRunCancel)
	mux.HandleFunc("GET /v1/runs/{id}/events", s.handleRunEvents)
	mux.HandleFunc("GET /v1/runs/{id}/trajectory", s.handleRunTrajectory)
	mux.HandleFunc("GET /v1/runs/{id}/view", s.handleRunView)
	mux.HandleFunc("GET /v1/vars", s.handleVarList)
	mux.HandleFunc("GET /v1/vars/{key...}", s.handleVarGet)
	mux.HandleFunc("PUT /v1/vars/{key...}", s.handleVarPut)
	mux.HandleFunc("DELETE /v1/vars/{key...}", s.handleVarDelete)
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /readyz", s.handleReady)
	mux.Handle("GET /metrics", s.metrics.handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, &apiError{status: 404, typ: "invalid_request_error", code: "not_found",
			msg: fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path), err: ErrNotFound})
	})
	return mux
}

// routeMux is a ServeMux that keeps its patterns (the metrics' routes).
type routeMux struct {
	*http.ServeMux
	patterns []string
}

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// Listen listens on addr (HOST:PORT), accepting at most MaxConns
// connections open at once. Without a token it refuses any address that
// is not loopback (ErrInsecure).
func (s *Server) Listen(addr string) (net.Listener, error) {
	if s.cfg.Token == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("server: address %q: %w", addr, err)
		}
		if !isLoopback(host) {
			return nil, fmt.Errorf("%w: %s (set a token, or listen on 127.0.0.1)", ErrInsecure, addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return s.LimitListener(ln), nil
}

// LimitListener bounds the connections ln accepts open at once to
// MaxConns (Listen applies it).
func (s *Server) LimitListener(ln net.Listener) net.Listener {
	return newLimitListener(ln, s.cfg.MaxConns, s.shedWaiting)
}

// isLoopback reports whether host names only loopback addresses.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Drain stops taking runs, gives the runs in progress up to timeout to
// finish, then cancels the rest (their partial answers are recorded) and
// waits for them until ctx ends. It returns how many runs it canceled.
//
// A cluster replica also stops claiming runs, and the runs it cancels are
// released to the cluster (another process resumes them at once) instead
// of being recorded as canceled.
func (s *Server) Drain(ctx context.Context, timeout time.Duration) int {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	if db := s.cfg.Cluster; db != nil {
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			if err := db.Stop(ctx); err != nil {
				s.log.Warn("cluster: stop working", "error", s.redact(err.Error()))
			}
		}()
		defer func() {
			select {
			case <-stopped:
			case <-ctx.Done():
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return 0
	case <-t.C:
	case <-ctx.Done():
	}
	s.mu.Lock()
	n := 0
	for _, j := range s.jobs {
		select {
		case <-j.done:
		default:
			j.cancel(ErrDraining)
			n++
		}
	}
	s.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return n
}

// Close releases the store and commits the run files still to be synced.
// Call it after Drain.
func (s *Server) Close() error {
	err := s.store.Close()
	if s.runsRoot != nil {
		err = errors.Join(err, s.runsRoot.Commit.Close())
	}
	return err
}

// handleHealth answers 200 while the process serves.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]string{"status": "ok"})
}

// handleReady answers 200 when the upstream answers HTTP, the store and
// runs directories are writable (not read-only, not full) and the server
// is not draining; 503 otherwise. Without the
// token (the probe is public) it says only whether the server is ready;
// token holders get what failed, redacted.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	checks := map[string]string{}
	ok := true
	s.mu.Lock()
	draining := s.draining
	s.mu.Unlock()
	if draining {
		checks["server"], ok = "draining", false
	} else {
		checks["server"] = "ok"
	}
	if err := s.probeUpstream(r.Context()); err != nil {
		checks["upstream"], ok = s.clientText(err.Error()), false
	} else {
		checks["upstream"] = "ok"
	}
	for _, d := range []struct{ check, dir string }{{"store", s.store.Dir()}, {"runs", s.cfg.RunsDir}} {
		if d.dir == "" {
			continue
		}
		if err := probeDir(d.dir); err != nil {
			checks[d.check], ok = s.clientText(err.Error()), false
		} else {
			checks[d.check] = "ok"
		}
	}
	if s.cfg.Cluster != nil {
		if err := s.clusterReady(r.Context()); err != nil {
			checks["cluster"], ok = s.clientText(err.Error()), false
		} else {
			checks["cluster"] = "ok"
		}
	}
	if s.cfg.Blobs != nil {
		if err := s.cfg.Blobs.Ping(r.Context()); err != nil {
			checks["blobs"], ok = s.clientText(err.Error()), false
		} else {
			checks["blobs"] = "ok"
		}
	}
	status := 200
	if !ok {
		status = 503
	}
	if s.cfg.Token != "" && !s.authorized(r) {
		writeJSON(w, status, map[string]any{"ready": ok})
		return
	}
	writeJSON(w, status, map[string]any{"ready": ok, "checks": checks})
}

// secretForms returns each secret with its percent-encoded forms (as a
// query value and as a path segment), so a secret is redacted also where
// a URL shows it encoded.
func secretForms(secrets []string) []string {
	out := make([]string, 0, len(secrets))
	for _, sec := range secrets {
		out = append(out, sec)
		for _, enc := range []string{url.QueryEscape(sec), url.PathEscape(sec)} {
			if enc != sec && !slices.Contains(out, enc) {
				out = append(out, enc)
			}
		}
	}
	return out
}

// probeUpstream sends GET {base}/models: any HTTP answer means the
// upstream is reachable.
func (s *Server) probeUpstream(ctx context.Context) error {
	base := firstNonEmpty(s.cfg.LLM.BaseURL, llm.DefaultBaseURL)
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("upstream base URL: %w", err)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("upstream base URL: %w", err)
	}
	if s.cfg.LLM.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.LLM.APIKey)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return fmt.Errorf("upstream %s unreachable: %w", llm.RedactURL(base), err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("upstream %s answers %d", llm.RedactURL(base), resp.StatusCode)
	}
	return nil
}

// probeSize is what probeDir writes: enough to need a free block, so a
// full disk fails the probe, not only a read-only one.
const probeSize = 4096

// probeDir writes, syncs and removes a small file in dir (created if
// missing): it fails on a read-only or full disk.
func probeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("not writable: %w", err)
	}
	f, err := os.CreateTemp(dir, ".readyz-*")
	if err != nil {
		return fmt.Errorf("not writable: %w", err)
	}
	name := f.Name()
	defer os.Remove(filepath.Clean(name))
	_, err = f.Write(make([]byte, probeSize))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("not writable (full?): %w", err)
	}
	return nil
}
