package server

import (
	"encoding/json"
	"io"
	"net/http"
)

// sse writes Server-Sent Events, flushing each.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
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
	return &sse{w: w, rc: http.NewResponseController(w)}
}

// data sends v as one "data:" event.
func (s *sse) data(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.raw("data: " + string(b) + "\n\n")
}

// event sends an event with a name, an id and one line of JSON data.
func (s *sse) event(name, id string, line []byte) error {
	msg := "event: " + name + "\nid: " + id + "\ndata: " + string(trimNL(line)) + "\n\n"
	return s.raw(msg)
}

func (s *sse) raw(text string) error {
	if _, err := io.WriteString(s.w, text); err != nil {
		return err
	}
	return s.rc.Flush()
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
