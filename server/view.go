package server

import (
	"net/http"

	"github.com/rlmhq/rlm/viewer"
)

// handleRunView answers the trajectory viewer's page for a run, live: the
// page reads the run's events from GET /v1/runs/{id}/events (the same page
// rlm view writes to a file, with the events streamed instead of
// embedded).
func (s *Server) handleRunView(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if s.lookup(id) == nil {
		if _, err := s.keptResult(id); err != nil {
			s.writeError(w, err)
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	// "events" is relative to /v1/runs/{id}/view: a proxy's path prefix holds.
	_ = viewer.WriteLive(w, viewer.Live{Title: "run " + id, EventsURL: "events"})
}
