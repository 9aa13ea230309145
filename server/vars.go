package server

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
)

// varInfo describes one stored variable.
type varInfo struct {
	Key       string    `json:"key"`
	Type      string    `json:"type"`
	Scope     string    `json:"scope"`
	SizeBytes int64     `json:"size_bytes"`
	Version   int64     `json:"version"`
	Hash      string    `json:"hash,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

func infoOf(ref rlmctx.Ref, hash string) varInfo {
	return varInfo{
		Key:       ref.Key,
		Type:      string(ref.Type),
		Scope:     ref.Scope,
		SizeBytes: ref.SizeBytes,
		Version:   ref.Version,
		Hash:      hash,
		CreatedAt: ref.CreatedAt,
	}
}

// storeError maps the store's errors to HTTP answers.
func storeError(key string, err error) error {
	switch {
	case errors.Is(err, rlmctx.ErrNotFound):
		return &apiError{
			status: 404,
			typ:    "invalid_request_error",
			code:   "key_not_found",
			msg:    fmt.Sprintf("no store key %q", key),
			err:    ErrNotFound,
		}
	case errors.Is(err, rlmctx.ErrBadKey), errors.Is(err, rlmctx.ErrBadScope), errors.Is(err, rlmctx.ErrBadType),
		errors.Is(err, rlmctx.ErrSyntax), errors.Is(err, rlmctx.ErrInvalidUTF8), errors.Is(err, rlmctx.ErrUnsupportedValue):
		return badRequest("key", "%v", err)
	case errors.Is(err, rlmctx.ErrVersionMismatch):
		return preconditionFailed(key)
	}
	return err
}

func preconditionFailed(key string) error {
	return &apiError{status: http.StatusPreconditionFailed, typ: "invalid_request_error", code: "precondition_failed",
		msg: fmt.Sprintf("store key %q changed: its content hash is not the one in If-Match (GET it again and retry)", key)}
}

// etag quotes a content hash.
func etag(hash string) string { return `"` + hash + `"` }

// matchTag extracts the hash of an If-Match value ("*" stays "*").
func matchTag(v string) string {
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(v, "W/")
	return strings.Trim(v, `"`)
}

func (s *Server) handleVarList(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Cluster != nil {
		s.clusterVarList(w, r)
		return
	}
	f := rlmctx.Filter{Scope: r.URL.Query().Get("scope"), Type: rlmctx.VarType(r.URL.Query().Get("type"))}
	list := s.store.List(f)
	out := make([]varInfo, 0, len(list))
	for _, m := range list {
		vi := infoOf(m.Ref, "")
		vi.UpdatedAt = m.UpdatedAt
		out = append(out, vi)
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": out})
}

// handleVarGet answers a value: text as text/plain, other values as JSON,
// with its content hash as ETag (for If-Match).
func (s *Server) handleVarGet(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Cluster != nil {
		s.clusterVarGet(w, r)
		return
	}
	key := r.PathValue("key")
	v, ref, err := s.store.GetRef(key)
	if err != nil {
		s.writeError(w, storeError(key, err))
		return
	}
	hash, _, err := s.store.Hash(key)
	if err != nil {
		s.writeError(w, storeError(key, err))
		return
	}
	h := w.Header()
	h.Set("ETag", etag(hash))
	h.Set("X-RLM-Type", string(ref.Type))
	h.Set("X-RLM-Version", strconv.FormatInt(ref.Version, 10))
	if str, ok := v.(string); ok {
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(str))
		return
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(200)
	_ = pyjson.Encode(w, v)
}

// handleVarPut stores a value: a JSON body (Content-Type
// application/json) as a typed value, anything else as text. If-Match
// makes it a compare-and-swap on the content hash (412 when stale);
// If-None-Match: * creates only.
func (s *Server) handleVarPut(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Cluster != nil {
		s.clusterVarPut(w, r)
		return
	}
	key := r.PathValue("key")
	body, done, err := s.readBody(w, r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	defer done()
	var value any
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/json" {
		if err := checkJSONBudget(body, "body", s.cfg.MaxJSONValues, s.cfg.MaxJSONDepth); err != nil {
			s.writeError(w, err)
			return
		}
		if value, err = pyjson.Decode(body); err != nil {
			s.writeError(w, badRequest("body", "%v", err))
			return
		}
	} else {
		if !utf8.Valid(body) {
			s.writeError(w, badRequest("body", "text must be UTF-8 (send JSON with Content-Type: application/json)"))
			return
		}
		value = string(body)
	}
	var opts []rlmctx.SetOption
	q := r.URL.Query()
	if sc := q.Get("scope"); sc != "" {
		if err := rlmctx.ValidateScope(sc); err != nil {
			s.writeError(w, badRequest("scope", "%v", err))
			return
		}
		opts = append(opts, rlmctx.WithScope(sc))
	}
	if t := q.Get("type"); t != "" {
		vt, err := rlmctx.ParseVarType(t)
		if err != nil {
			s.writeError(w, badRequest("type", "%v", err))
			return
		}
		opts = append(opts, rlmctx.WithStoreType(vt))
	}
	if s.store.Dir() != "" {
		opts = append(opts, rlmctx.WithPersist())
	}
	var ref rlmctx.Ref
	created := !s.store.Has(key)
	switch im, inm := r.Header.Get("If-Match"), r.Header.Get("If-None-Match"); {
	case inm == "*":
		ref, err = s.store.SetIfVersion(key, value, 0, opts...)
		created = true
	case im != "":
		hash, cur, herr := s.store.Hash(key)
		if herr != nil {
			if errors.Is(herr, rlmctx.ErrNotFound) {
				s.writeError(w, preconditionFailed(key))
				return
			}
			s.writeError(w, storeError(key, herr))
			return
		}
		if want := matchTag(im); want != "*" && want != hash {
			s.writeError(w, preconditionFailed(key))
			return
		}
		ref, err = s.store.SetIfVersion(key, value, cur.Version, opts...)
	default:
		ref, err = s.store.Set(key, value, opts...)
	}
	if err != nil {
		s.writeError(w, storeError(key, err))
		return
	}
	hash, _, _ := s.store.Hash(key)
	w.Header().Set("ETag", etag(hash))
	status := 200
	if created {
		status = 201
	}
	writeJSON(w, status, infoOf(ref, hash))
}

// handleVarDelete removes a key; with If-Match only if its content hash
// matches.
func (s *Server) handleVarDelete(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Cluster != nil {
		s.clusterVarDelete(w, r)
		return
	}
	key := r.PathValue("key")
	if im := r.Header.Get("If-Match"); im != "" {
		hash, _, err := s.store.Hash(key)
		if err != nil {
			s.writeError(w, storeError(key, err))
			return
		}
		if want := matchTag(im); want != "*" && want != hash {
			s.writeError(w, preconditionFailed(key))
			return
		}
	}
	if err := s.store.Delete(key); err != nil {
		s.writeError(w, storeError(key, err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
