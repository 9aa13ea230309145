package server

import (
	"net/http"
	"regexp"

	"github.com/rlmhq/rlm/runs"
	"github.com/rlmhq/rlm/viewer"
)

// viewID is the shape of the run ids a page is served for without a token
// (runs.NewID's), so the public page never echoes arbitrary text.
var viewID = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{4,32}$`)

// handleRunView answers the trajectory viewer's page for a run, live: the
// page reads the run's events from GET /v1/runs/{id}/events (the same page
// rlm view writes to a file, with the events streamed instead of
// embedded).
//
// With a token, the page is served to anyone (a browser cannot send the
// header with a page load) and says nothing about the run, not even
// whether it exists; opened as .../view#token=TOKEN it sends the token in
// the Authorization header of its event stream requests, and without it
// it shows that the stream refused it.
func (s *Server) handleRunView(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if s.cfg.Token != "" && !s.authorized(r) {
		if runs.CheckID(id) != nil || !viewID.MatchString(id) {
			s.writeError(
				w,
				&apiError{status: 404, typ: "invalid_request_error", code: "run_not_found", msg: "no such run", err: ErrNotFound},
			)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_ = viewer.WriteLive(w, viewer.Live{Title: "run " + id, EventsURL: "events"})
		return
	}
	if s.cfg.Cluster != nil {
		if _, err := s.clusterRun(r.Context(), id); err != nil {
			s.writeError(w, err)
			return
		}
	} else if s.lookup(id) == nil {
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
