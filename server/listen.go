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
// bounds the connections open at once (MaxConns).
func (s *Server) HTTPServer() *http.Server {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.mu.Lock()
	s.hs = append(s.hs, hs)
	s.mu.Unlock()
	return hs
}

// maxHeaderBytes bounds a request's line and headers (the bearer token
// and a few headers need far less than net/http's 1 MB default).
const maxHeaderBytes = 64 << 10

// limitListener accepts at most n connections open at once: Accept waits
// for one to close, leaving the others in the kernel's backlog (as
// golang.org/x/net/netutil.LimitListener does). When few places are left
// it asks the server to close its idle keep-alive connections (onPressure),
// so idle clients cannot hold every place.
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
	select {
	case l.sem <- struct{}{}:
	default:
		// Full: shed idle keep-alive connections, then wait for a place.
		if l.onPressure != nil {
			l.onPressure()
		}
		select {
		case l.sem <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
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

// shedIdle closes the idle keep-alive connections of the servers built by
// HTTPServer, at most once a second: turning keep-alives off and on again
// is how net/http closes idle connections without shutting down.
func (s *Server) shedIdle() {
	now := time.Now().UnixNano()
	last := s.lastShed.Load()
	if now-last < int64(time.Second) || !s.lastShed.CompareAndSwap(last, now) {
		return
	}
	s.mu.Lock()
	hs := append([]*http.Server(nil), s.hs...)
	s.mu.Unlock()
	for _, h := range hs {
		h.SetKeepAlivesEnabled(false)
		h.SetKeepAlivesEnabled(true)
	}
}
