package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// sse writes Server-Sent Events, flushing each.
type sse struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	keepAlive time.Duration
	last      time.Time // the last write
}

// wait waits for wake, the end of the request, or keepAlive of silence,
// when it sends a ": keep-alive" comment and waits again. It reports
// false when the request ended or the comment could not be written.
func (s *sse) wait(ctx context.Context, wake <-chan struct{}) bool {
	t := time.NewTimer(s.keepAlive)
	defer t.Stop()
	for {
		select {
		case <-wake:
			return true
		case <-ctx.Done():
			return false
		case <-t.C:
			if s.raw(": keep-alive\n\n") != nil {
				return false
			}
			t.Reset(s.keepAlive)
		}
	}
}

// newSSE starts an event stream on w; each event gets the server's
// StreamWriteTimeout as its write deadline.
func (srv *Server) newSSE(w http.ResponseWriter) *sse {
	if sw, ok := w.(*statusWriter); ok {
		sw.setWriteTimeout(srv.cfg.StreamWriteTimeout)
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, rc: http.NewResponseController(w), keepAlive: srv.cfg.StreamKeepAlive}
}

// data sends v as one "data:" event.
func (s *sse) data(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.raw("data: " + string(b) + "\n\n")
}

// event sends an event with a name, an id and one line of JSON data. The
// line is written as it is (no copy per client: a client that does not
// read holds only the line every client shares), and the event's write
// deadline drops a client that stalls.
func (s *sse) event(name, id string, line []byte) error {
	if err := s.start(name, id); err != nil {
		return err
	}
	if _, err := s.w.Write(trimNL(line)); err != nil {
		return err
	}
	return s.end()
}

// start writes the head of an event whose data follows in pieces (see
// end).
func (s *sse) start(name, id string) error {
	_, err := io.WriteString(s.w, "event: "+name+"\nid: "+id+"\ndata: ")
	return err
}

// end ends an event begun with start and flushes it.
func (s *sse) end() error {
	return s.raw("\n\n")
}

func (s *sse) raw(text string) error {
	s.last = time.Now()
	if _, err := io.WriteString(s.w, text); err != nil {
		return err
	}
	return s.rc.Flush()
}

// fileEvents sends the lines of a trajectory file from line index next
// on as "trajectory" events (ids next+1, ...), reading it through a
// bounded buffer; it returns the index after the last line sent.
func (s *sse) fileEvents(path string, next int) (int, error) {
	lf, err := openLines(path, next)
	if err != nil {
		return next, err
	}
	defer lf.Close()
	for {
		started := false
		more, err := lf.nextLine(func(b []byte) error {
			if !started {
				started = true
				if err := s.start("trajectory", strconv.Itoa(next+1)); err != nil {
					return err
				}
			}
			_, err := s.w.Write(b)
			return err
		})
		if err != nil {
			return next, err
		}
		if !more {
			return next, nil
		}
		next++
		if err := s.end(); err != nil {
			return next, err
		}
	}
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
