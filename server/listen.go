package server

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPServer is the *http.Server that serves [Server.Handler] with the
// configured timeouts: ReadHeaderTimeout for the request line and headers,
// ReadTimeout for the whole request (body included), IdleTimeout for a
// keep-alive connection between requests. Writes get their deadline per
// write from the handler (WriteTimeout, StreamWriteTimeout for event
// streams), so a long run answered at its end is not cut by a whole-
// response deadline. Serve it on the listener of [Server.Listen], which
// bounds the connections open at once (MaxConns); its ConnState hook
// tracks the connections waiting for a request, which a full listener
// closes after a second.
func (s *Server) HTTPServer() *http.Server {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ConnState:         s.waiting.state,
	}
	return hs
}

// maxHeaderBytes bounds a request's line and headers (the bearer token
// and a few headers need far less than net/http's 1 MB default).
const maxHeaderBytes = 64 << 10

// pressureEvery is how often a full listener sheds waiting connections
// while it waits for a place.
const pressureEvery = 250 * time.Millisecond

// shedAfter is how long a connection may wait for a request's headers
// (or sit idle between requests) once every connection place is taken:
// longer, it is closed to make room. A client sends its headers at once;
// one trickling them (slowloris) holds a place only this long, not
// ReadHeaderTimeout, while others wait.
const shedAfter = time.Second

// limitListener accepts at most n connections open at once: Accept waits
// for one to close, leaving the others in the kernel's backlog (as
// golang.org/x/net/netutil.LimitListener does). While it is full it asks
// the server, every pressureEvery, to close the connections that wait for
// a request (onPressure), so idle and trickling clients cannot hold every
// place.
type limitListener struct {
	net.Listener
	sem        chan struct{}
	onPressure func()
	closeOnce  sync.Once
	done       chan struct{}
	open       atomic.Int64
}

func newLimitListener(l net.Listener, n int, onPressure func()) *limitListener {
	return &limitListener{Listener: l, sem: make(chan struct{}, n), onPressure: onPressure, done: make(chan struct{})}
}

// Accept waits for a free place, then accepts a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	for acquired := false; !acquired; {
		select {
		case l.sem <- struct{}{}:
			acquired = true
			continue
		default:
		}
		if l.onPressure != nil {
			l.onPressure()
		}
		t := time.NewTimer(pressureEvery)
		select {
		case l.sem <- struct{}{}:
			acquired = true
		case <-l.done:
			t.Stop()
			return nil, net.ErrClosed
		case <-t.C:
		}
		t.Stop()
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	l.open.Add(1)
	return &limitConn{Conn: c, l: l}, nil
}

// Close closes the listener and releases the Accept waiting for a place.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// limitConn frees its place in the listener when closed.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

// Close closes the connection and frees its place.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.open.Add(-1)
		<-c.l.sem
	})
	return err
}

// connWaits tracks the connections of the servers built by HTTPServer
// that wait for a request: new ones before their first request's headers
// are read, idle keep-alive ones (http.StateNew, http.StateIdle).
type connWaits struct {
	mu    sync.Mutex
	since map[net.Conn]time.Time
}

// state is the http.Server's ConnState hook.
func (w *connWaits) state(c net.Conn, st http.ConnState) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch st {
	case http.StateNew, http.StateIdle:
		if w.since == nil {
			w.since = map[net.Conn]time.Time{}
		}
		w.since[c] = time.Now()
	default:
		delete(w.since, c)
	}
}

// shed closes the connections waiting longer than d, and returns how
// many.
func (w *connWaits) shed(d time.Duration) int {
	cutoff := time.Now().Add(-d)
	var old []net.Conn
	w.mu.Lock()
	for c, t := range w.since {
		if t.Before(cutoff) {
			old = append(old, c)
			delete(w.since, c)
		}
	}
	w.mu.Unlock()
	for _, c := range old {
		_ = c.Close()
	}
	return len(old)
}

// shedWaiting is the limit listener's pressure hook: with every place
// taken, the connections that have waited for a request longer than
// shedAfter are closed.
func (s *Server) shedWaiting() {
	if n := s.waiting.shed(shedAfter); n > 0 {
		s.log.Warn("connections full: closed connections waiting for a request", "closed", n, "max_conns", s.cfg.MaxConns)
	}
}
