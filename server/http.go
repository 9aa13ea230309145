package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rlmhq/rlm/llm"
)

// apiError is an error answered in OpenAI's shape:
// {"error": {"message", "type", "param", "code"}}.
type apiError struct {
	status     int
	typ        string
	param      string
	code       string
	msg        string
	retryAfter time.Duration
	err        error // the sentinel
}

func (e *apiError) Error() string { return e.msg }
func (e *apiError) Unwrap() error { return e.err }

// errorBody is the OpenAI error body.
type errorBody struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// writeError answers err: an *apiError as it says, anything else as a
// 500 whose message is redacted of the server's secrets.
func (s *Server) writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{status: 500, typ: "server_error", msg: err.Error()}
	}
	var b errorBody
	b.Error.Message = s.clientText(ae.msg)
	b.Error.Type = ae.typ
	if ae.param != "" {
		p := s.redact(ae.param)
		b.Error.Param = &p
	}
	if ae.code != "" {
		c := ae.code
		b.Error.Code = &c
	}
	if ae.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((ae.retryAfter+time.Second-1)/time.Second)))
	}
	if ae.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="rlm"`)
	}
	writeJSON(w, ae.status, b)
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeRawJSON answers b, a JSON value, with status.
func writeRawJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if _, err := w.Write(b); err == nil {
		_, _ = io.WriteString(w, "\n")
	}
}

// redact replaces the server's secrets (token, API key) in s.
func (s *Server) redact(text string) string {
	return llm.RedactSecrets(text, s.secrets...)
}

// clientText prepares an error or a probe's detail for a client or a
// log: the server's secrets (and their percent-encoded forms) replaced,
// every query value and user of each URL in it redacted (llm.Redact), and
// the server's own directories (store, runs, meta document, working
// directory) shown by name instead of their absolute paths.
func (s *Server) clientText(text string) string {
	text = llm.Redact(text, s.secrets...)
	for _, d := range s.dirs {
		text = strings.ReplaceAll(text, d.path, d.name)
	}
	return text
}

// namedDir is one of the server's directories as clientText shows it.
type namedDir struct{ path, name string }

// serverDirs lists the absolute directories of cfg that clientText hides,
// longest first (a runs directory inside the store is replaced whole).
func serverDirs(cfg Config) []namedDir {
	var out []namedDir
	add := func(path, name string) {
		if path == "" {
			return
		}
		if abs, err := filepath.Abs(path); err == nil && abs != "/" {
			out = append(out, namedDir{abs, name})
		}
	}
	add(cfg.StoreDir, "<store>")
	add(cfg.RunsDir, "<runs>")
	add(cfg.Meta.Path, "<meta>")
	if wd, err := os.Getwd(); err == nil {
		add(wd, "<server>")
	}
	slices.SortFunc(out, func(a, b namedDir) int { return len(b.path) - len(a.path) })
	return out
}

// readBody reads a request body up to the configured maximum, within
// the budget of the bodies read and decoded at once (MaxBodyMemory): the
// caller calls release when it is done decoding the body. A body
// declared over the maximum is refused before it is read (413), one that
// does not fit the budget now with 503 and Retry-After; both close the
// connection, so its body is not drained either.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, release func(), err error) {
	n := r.ContentLength
	if n > s.cfg.MaxBodyBytes {
		w.Header().Set("Connection", "close")
		return nil, nil, s.bodyTooLarge()
	}
	cost := n
	if n < 0 {
		cost = s.cfg.MaxBodyBytes // unknown length (chunked): the most it may be
	}
	if !s.bodies.take(cost) {
		w.Header().Set("Connection", "close")
		return nil, nil, &apiError{
			status:     http.StatusServiceUnavailable,
			typ:        "server_error",
			code:       "server_busy",
			retryAfter: time.Second,
			err:        ErrBodiesBusy,
			msg: fmt.Sprintf(
				"the request bodies being read now use the server's body memory limit (%d bytes); retry later",
				s.cfg.MaxBodyMemory,
			),
		}
	}
	release = func() { s.bodies.give(cost) }
	rd := http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	if n >= 0 {
		// The declared size at once: no doubling buffer and its garbage.
		body = make([]byte, 0, n+1)
		for err == nil && len(body) < cap(body) {
			var k int
			k, err = rd.Read(body[len(body):cap(body)])
			body = body[:len(body)+k]
		}
		if err == io.EOF {
			err = nil
		}
	} else {
		body, err = io.ReadAll(rd)
	}
	if err != nil {
		release()
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, nil, s.bodyTooLarge()
		}
		return nil, nil, badRequest("", "reading the body: %v", err)
	}
	return body, release, nil
}

// bodyTooLarge is the 413 of a body over MaxBodyBytes.
func (s *Server) bodyTooLarge() error {
	return &apiError{
		status: http.StatusRequestEntityTooLarge,
		typ:    "invalid_request_error",
		code:   "request_too_large",
		err:    ErrBodyTooLarge,
		msg: fmt.Sprintf(
			"request body over %d bytes (the server's limit); store large variables with PUT /v1/vars/{key} and pass \"store:KEY\"",
			s.cfg.MaxBodyBytes,
		),
	}
}

// byteBudget bounds the bytes of request bodies held at once.
type byteBudget struct {
	mu   sync.Mutex
	used int64
	max  int64
}

// take reserves n bytes if they fit (a lone body always does).
func (b *byteBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used > 0 && b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

// give returns n bytes taken.
func (b *byteBudget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// logInfo is what a handler adds to its access-log line.
type logInfo struct {
	runID   string
	tokens  int
	costUSD *float64
}

type logKey struct{}

// noteRun records the run a request served, for the access log.
func noteRun(ctx context.Context, id string, tokens int, cost *float64) {
	if li, ok := ctx.Value(logKey{}).(*logInfo); ok {
		li.runID, li.tokens, li.costUSD = id, tokens, cost
	}
}

// statusWriter records the status and size of a response, and gives
// each write its deadline (timeout from the write's start: a client that
// stops reading is dropped). It keeps http.Flusher reachable (Unwrap) for
// streaming responses.
type statusWriter struct {
	http.ResponseWriter
	status  int
	bytes   int64
	timeout time.Duration
	rc      *http.ResponseController
}

// setWriteTimeout sets the deadline of each following write (event
// streams take a longer one than other responses).
func (w *statusWriter) setWriteTimeout(d time.Duration) { w.timeout = d }

// deadline sets the write deadline of the next write.
func (w *statusWriter) deadline() {
	if w.timeout > 0 {
		if w.rc == nil {
			w.rc = http.NewResponseController(w.ResponseWriter)
		}
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	}
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.deadline()
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.deadline()
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush flushes a streaming response.
func (w *statusWriter) Flush() {
	w.deadline()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer (for http.ResponseController).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// public are the paths served without a token: the probes.
var public = map[string]bool{"/healthz": true, "/readyz": true}

// isViewPage reports a request for a run's live viewer page, which a
// browser loads without a bearer token: the page holds no run data, and
// reads the token from its address's fragment (never sent to the server)
// to send it with its event stream requests.
func isViewPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/runs/")
	id, ok2 := strings.CutSuffix(rest, "/view")
	return ok && ok2 && id != "" && !strings.Contains(id, "/")
}

// requestID is the X-Request-Id of a request: the client's, when it is a
// plausible id (at most 128 letters, digits, '.', '_' and '-'), else a
// new UUID. Every response carries it, and the access log line.
func requestID(given string) string {
	ok := given != "" && len(given) <= 128
	for i := 0; ok && i < len(given); i++ {
		c := given[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if ok {
		return given
	}
	return uuid.NewString()
}

// cors adds the CORS headers for an allowed Origin (Config.CORSOrigins)
// and answers its preflight (an OPTIONS request, without the token): it
// reports whether it answered.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || !slices.ContainsFunc(s.cfg.CORSOrigins, func(o string) bool { return o == "*" || o == origin }) {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "X-Request-Id, Idempotent-Replayed, Retry-After, ETag, Location")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
	h.Set(
		"Access-Control-Allow-Headers",
		"Authorization, Content-Type, Idempotency-Key, X-Request-Id, If-Match, If-None-Match, Last-Event-ID",
	)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// middleware checks the bearer token, writes the access log and takes
// the caller's trace context.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		li := &logInfo{}
		// A caller's trace context (traceparent): the run the request
		// starts continues the caller's trace.
		r = r.WithContext(context.WithValue(s.cfg.Tracing.Extract(r.Context(), r.Header), logKey{}, li))
		sw := &statusWriter{ResponseWriter: w, timeout: s.cfg.WriteTimeout}
		reqID := requestID(r.Header.Get("X-Request-Id"))
		sw.Header().Set("X-Request-Id", reqID)
		if s.cors(sw, r) {
			return // a preflight, answered
		}
		switch {
		case s.cfg.Token == "" || s.authorized(r):
			next.ServeHTTP(sw, r)
		case !public[r.URL.Path] && !isViewPage(r):
			s.refuse(sw, w, &apiError{status: http.StatusUnauthorized, typ: "invalid_request_error", code: "invalid_api_key",
				msg: "missing or wrong bearer token: send the header Authorization: Bearer TOKEN"})
		case r.ContentLength != 0:
			// The public endpoints take no body: one sent without the
			// token is not read either.
			s.refuse(sw, w, badRequest("", "%s %s takes no request body", r.Method, r.URL.Path))
		default:
			next.ServeHTTP(sw, r)
		}
		s.metrics.httpRequests.WithLabelValues(strconv.Itoa(max(sw.status, 200))).Inc()
		// The mux sets the request's Pattern as it routes it.
		s.metrics.observeHTTP(r.Pattern, time.Since(start))
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("path", s.redact(r.URL.Path)),
			slog.Int("status", max(sw.status, 200)), slog.Int64("bytes", sw.bytes),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("remote", r.RemoteAddr), slog.String("request_id", reqID),
		}
		if li.runID != "" {
			attrs = append(attrs, slog.String("run_id", li.runID), slog.Int("tokens", li.tokens))
			if li.costUSD != nil {
				attrs = append(attrs, slog.Float64("cost_usd", *li.costUSD))
			}
		}
		level := slog.LevelInfo
		if public[r.URL.Path] || r.URL.Path == "/metrics" {
			level = slog.LevelDebug // probes and scrapes, every few seconds
		}
		s.log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// refuse answers err to a request whose body is not to be read, and
// closes the connection: net/http would otherwise read (drain) what a
// client trickles after the headers, before and after the answer; the
// read deadline in the past ends that drain at once. sw is w as the
// middleware wraps it.
func (s *Server) refuse(sw *statusWriter, w http.ResponseWriter, err error) {
	sw.Header().Set("Connection", "close")
	s.writeError(sw, err)
	_ = http.NewResponseController(w).SetReadDeadline(time.Unix(1, 0))
}

// authorized reports whether r carries the server's token.
func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.cfg.Token)) == 1
}
