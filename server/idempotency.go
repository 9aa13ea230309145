package server

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Idempotency-Key: the official OpenAI SDKs time out and retry a request
// (twice, by default), and each retry of a chat completion would start
// another run. A request that carries an Idempotency-Key attaches its
// repeats, with the same key and body within IdempotencyTTL, to the run
// the first one started: a chat completion waits for (or, streamed,
// replays from the start) that run, POST /v1/runs answers it. The same
// key with another body is a 409. A chat completion with a key is not
// canceled when its client goes away, so that the retry finds it.

const (
	// IdempotencyTTL is how long a key stays attached to its run.
	IdempotencyTTL = 24 * time.Hour
	// MaxIdempotencyKeys bounds the keys remembered (the oldest go first).
	MaxIdempotencyKeys = 10000
	// maxIdempotencyKeyLen bounds a key's length.
	maxIdempotencyKeyLen = 255
)

// errIdempotencyReused answers a key used before with another body.
var errIdempotencyReused = &apiError{
	status: http.StatusConflict,
	typ:    "invalid_request_error",
	param:  "Idempotency-Key",
	code:   "idempotency_key_reused",
	msg:    "Idempotency-Key: this key was used with another request body: use a new key for a new request",
	err:    ErrBadRequest,
}

// idemEntry is a key's request and run ("" while the first request with
// it is still starting its run).
type idemEntry struct {
	hash  [32]byte
	runID string
	at    time.Time
}

// idemStore remembers the Idempotency-Keys of recent requests.
type idemStore struct {
	mu    sync.Mutex
	m     map[string]*idemEntry
	order []string
}

// idempotencyKey reads a request's Idempotency-Key ("" for none).
func idempotencyKey(r *http.Request) (string, error) {
	k := r.Header.Get("Idempotency-Key")
	if len(k) > maxIdempotencyKeyLen {
		return "", badRequest("Idempotency-Key", "longer than %d characters", maxIdempotencyKeyLen)
	}
	return k, nil
}

// claim looks key up for a request of route with body: the run ID of an
// earlier request with the same key and body (attach to it), or a
// reservation for this request's run (runID "" and nil error: call set
// once the run started, or drop if it did not), or a 409.
func (st *idemStore) claim(route, key string, h [32]byte, now time.Time) (string, error) {
	k := route + "\x00" + key
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m == nil {
		st.m = map[string]*idemEntry{}
	}
	if e, ok := st.m[k]; ok && now.Sub(e.at) < IdempotencyTTL {
		switch {
		case e.hash != h:
			return "", errIdempotencyReused
		case e.runID == "":
			return "", &apiError{
				status:     http.StatusConflict,
				typ:        "invalid_request_error",
				param:      "Idempotency-Key",
				code:       "idempotency_key_in_use",
				msg:        "Idempotency-Key: the first request with this key is still starting its run: retry in a moment",
				err:        ErrBadRequest,
				retryAfter: time.Second,
			}
		}
		return e.runID, nil
	}
	st.m[k] = &idemEntry{hash: h, at: now}
	st.order = append(st.order, k)
	for len(st.order) > MaxIdempotencyKeys || len(st.order) > 0 && now.Sub(st.m[st.order[0]].at) >= IdempotencyTTL {
		delete(st.m, st.order[0])
		st.order = st.order[1:]
	}
	return "", nil
}

// set attaches the reserved key to its run.
func (st *idemStore) set(route, key, runID string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if e := st.m[route+"\x00"+key]; e != nil {
		e.runID = runID
	}
}

// drop forgets a reservation whose run did not start.
func (st *idemStore) drop(route, key string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.m, route+"\x00"+key)
}

// idempotentRun is the run a repeated request attaches to, or a 409
// saying where to read it once it has left memory.
func (s *Server) idempotentRun(runID string) (*job, error) {
	if j := s.lookup(runID); j != nil {
		return j, nil
	}
	return nil, &apiError{status: http.StatusConflict, typ: "invalid_request_error", param: "Idempotency-Key", code: "idempotency_key_done",
		msg: fmt.Sprintf(
			"Idempotency-Key: this key's run %s has finished and left memory: read it with GET /v1/runs/%s",
			runID,
			runID,
		), err: ErrBadRequest}
}
