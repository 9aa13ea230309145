package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/rlmhq/rlm/blobs"
	"github.com/rlmhq/rlm/cluster"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
)

// Variables in a cluster (Config.Cluster with Config.Blobs): the store
// API's keys are rows of the cluster's database whose values are blobs
// in the shared object store, in the local store's stored form (a text's
// UTF-8 bytes, any other value's JSON), so that a value's content hash
// (its ETag) is its blob's digest on every replica. A run's "store:KEY"
// variable is pinned to its key's blob when the run is submitted; the
// worker that claims the run fetches the blob into the blob store's local
// cache and loads it as the local store loads its own files.

// errNoBlobStore answers the store API, and a "store:KEY" variable, on a
// cluster replica without a blob store.
var errNoBlobStore = &apiError{status: http.StatusNotImplemented, typ: "invalid_request_error", code: "no_blob_store", err: ErrBadRequest,
	msg: "this cluster replica has no blob store: the variables of a cluster are kept in a shared object store, which the server was not given"}

// blobsError maps a blob store failure to a 503 (retryable) or 500.
func blobsError(err error) error {
	if errors.Is(err, blobs.ErrUnavailable) {
		return &apiError{
			status:     503,
			typ:        "server_error",
			code:       "blob_store_unavailable",
			msg:        "the cluster's blob store cannot be reached; retry later",
			err:        err,
			retryAfter: DefaultRetryAfter,
		}
	}
	return err
}

// clusterStoreError maps the cluster's store errors to HTTP answers.
func (s *Server) clusterStoreError(key string, err error) error {
	switch {
	case errors.Is(err, cluster.ErrNoVar):
		return storeError(key, rlmctx.ErrNotFound)
	case errors.Is(err, cluster.ErrVersionMismatch):
		return preconditionFailed(key)
	}
	return s.clusterError(err)
}

// storeKeyNotFound is the 400 of a "store:KEY" variable naming no key.
func storeKeyNotFound(field string, err error) error {
	return &apiError{status: 400, typ: "invalid_request_error", param: field, code: "store_key_not_found",
		msg: fmt.Sprintf("%s: %v (GET /v1/vars lists the keys)", field, err), err: ErrBadRequest}
}

// pinStoreVar resolves the "store:KEY" variable name of a run submitted
// to the cluster to its key's blob, so that the run sees the value the key
// has now, and the blob GC keeps it.
func (s *Server) pinStoreVar(ctx context.Context, spec *runSpec, field, name, key string) error {
	if s.cfg.Blobs == nil {
		return errNoBlobStore
	}
	v, err := s.cfg.Cluster.GetVar(ctx, key)
	if errors.Is(err, cluster.ErrNoVar) {
		return storeKeyNotFound(field, fmt.Errorf("%s: %s%s: %w", name, rlmctx.StorePrefix, key, rlmctx.ErrNotFound))
	}
	if err != nil {
		return s.clusterError(err)
	}
	spec.pinned = append(spec.pinned, cluster.Var{Name: name, Digest: v.Digest, Size: v.Size, Type: v.Type, Encoding: v.Encoding})
	return nil
}

// fetchPinned fetches the blobs of a claimed run's store variables into
// the local cache, at most four at once (each in parallel ranges; the blob
// store checks their sha256), and returns their files by variable name.
// A blob store that cannot be reached gives an error wrapping
// cluster.ErrRetry: the run is dispatched again later, not failed.
func (s *Server) fetchPinned(ctx context.Context, vars []cluster.Var) (map[string]rlmctx.StoredFile, error) {
	files := map[string]rlmctx.StoredFile{}
	if len(vars) == 0 {
		return files, nil
	}
	if s.cfg.Blobs == nil {
		return nil, errors.New("the run has store variables, and this process has no blob store to fetch them from")
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, v := range vars {
		g.Go(func() error {
			path, err := s.cfg.Blobs.Fetch(gctx, blobs.Ref{Digest: v.Digest, Size: v.Size})
			if err != nil {
				return fmt.Errorf("variable %s: %w", v.Name, err)
			}
			mu.Lock()
			files[v.Name] = rlmctx.StoredFile{Path: path, Type: rlmctx.VarType(v.Type), Text: v.Encoding == "text", Size: v.Size}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if errors.Is(err, blobs.ErrNotFound) || errors.Is(err, blobs.ErrDigest) || ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", cluster.ErrRetry, err)
	}
	return files, nil
}

// clusterVarInfo is the store API's description of a cluster key.
func clusterVarInfo(v cluster.StoreVar, hash string, updated bool) varInfo {
	vi := varInfo{Key: v.Key, Type: v.Type, Scope: v.Scope, SizeBytes: v.Size, Version: v.Version, Hash: hash, CreatedAt: v.Created.UTC()}
	if updated {
		vi.UpdatedAt = v.Updated.UTC()
	}
	return vi
}

func (s *Server) clusterVarList(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Blobs == nil {
		s.writeError(w, errNoBlobStore)
		return
	}
	list, err := s.cfg.Cluster.ListVars(r.Context(), cluster.VarFilter{Scope: r.URL.Query().Get("scope"), Type: r.URL.Query().Get("type")})
	if err != nil {
		s.writeError(w, s.clusterError(err))
		return
	}
	out := make([]varInfo, 0, len(list))
	for _, v := range list {
		out = append(out, clusterVarInfo(v, "", true))
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": out})
}

// clusterVarGet streams a key's blob from the object store (ranged reads,
// nothing cached), with the same headers as a single server's answer.
func (s *Server) clusterVarGet(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Blobs == nil {
		s.writeError(w, errNoBlobStore)
		return
	}
	key := r.PathValue("key")
	v, err := s.cfg.Cluster.GetVar(r.Context(), key)
	if err != nil {
		s.writeError(w, s.clusterStoreError(key, err))
		return
	}
	obj := s.cfg.Blobs.Object(r.Context(), blobs.Ref{Digest: v.Digest, Size: v.Size})
	// The first bytes before the headers: a blob store that cannot be
	// reached is a 503, not a truncated 200.
	first := make([]byte, min(v.Size, 1<<20))
	if _, err := obj.ReadAt(first, 0); err != nil && !errors.Is(err, io.EOF) {
		s.writeError(w, blobsError(err))
		return
	}
	h := w.Header()
	h.Set("ETag", etag(v.Digest))
	h.Set("X-RLM-Type", v.Type)
	h.Set("X-RLM-Version", strconv.FormatInt(v.Version, 10))
	h.Set("Content-Length", strconv.FormatInt(v.Size, 10))
	if v.Encoding == "text" {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		h.Set("Content-Type", "application/json")
	}
	w.WriteHeader(200)
	if _, err := w.Write(first); err != nil {
		return
	}
	// Reads of 4 MiB go straight to ranged requests, past the Object's
	// block cache.
	rest := io.NewSectionReader(obj, int64(len(first)), v.Size-int64(len(first)))
	if _, err := io.CopyBuffer(w, rest, make([]byte, 4<<20)); err != nil {
		s.log.Warn("store: streaming a value failed", "key", key, "error", s.redact(err.Error()))
		panic(http.ErrAbortHandler) // the client sees a cut response, not a short value
	}
}

// clusterVarPut stores a value as a blob and records its key: a text body
// is streamed (checked to be UTF-8 and hashed on its way to a temporary
// file) up to MaxVarBytes, never held in memory; a JSON body is read and
// parsed within MaxBodyBytes, as by a single server. If-Match and
// If-None-Match work as there.
func (s *Server) clusterVarPut(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Blobs == nil {
		s.writeError(w, errNoBlobStore)
		return
	}
	key := r.PathValue("key")
	if err := rlmctx.CheckKey(key); err != nil {
		s.writeError(w, storeError(key, err))
		return
	}
	q := r.URL.Query()
	scope := q.Get("scope")
	if scope != "" {
		if err := rlmctx.ValidateScope(scope); err != nil {
			s.writeError(w, badRequest("scope", "%v", err))
			return
		}
	}
	var typ rlmctx.VarType
	if t := q.Get("type"); t != "" {
		vt, err := rlmctx.ParseVarType(t)
		if err != nil {
			s.writeError(w, badRequest("type", "%v", err))
			return
		}
		typ = vt
	}
	expect := cluster.AnyVersion
	switch im, inm := r.Header.Get("If-Match"), r.Header.Get("If-None-Match"); {
	case inm == "*":
		expect = 0
	case im != "":
		// Checked before the body is read: a stale writer sends nothing.
		cur, err := s.cfg.Cluster.GetVar(r.Context(), key)
		if errors.Is(err, cluster.ErrNoVar) {
			s.writeError(w, preconditionFailed(key))
			return
		}
		if err != nil {
			s.writeError(w, s.clusterError(err))
			return
		}
		if want := matchTag(im); want != "*" && want != cur.Digest {
			s.writeError(w, preconditionFailed(key))
			return
		}
		expect = cur.Version
	}
	var ref blobs.Ref
	var enc string
	var err error
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		ref, typ, enc, err = s.putJSONBlob(w, r, key, typ)
	} else {
		ref, typ, enc, err = s.putTextBlob(w, r, key, typ)
	}
	if err != nil {
		s.writeError(w, err)
		return
	}
	v, err := s.cfg.Cluster.PutVar(
		r.Context(),
		cluster.StoreVar{Key: key, Scope: scope, Type: string(typ), Encoding: enc, Digest: ref.Digest, Size: ref.Size},
		expect,
	)
	if err != nil {
		s.writeError(w, s.clusterStoreError(key, err))
		return
	}
	if err := s.ensureBlob(r.Context(), ref); err != nil {
		s.writeError(w, blobsError(err))
		return
	}
	w.Header().Set("ETag", etag(v.Digest))
	status := 200
	if v.Version == 1 {
		status = 201
	}
	writeJSON(w, status, clusterVarInfo(v, v.Digest, false))
}

// ensureBlob uploads a blob again if the GC deleted it between its Put
// (which found it in the store) and the key's write, which marked it used.
func (s *Server) ensureBlob(ctx context.Context, ref blobs.Ref) error {
	_, err := s.cfg.Blobs.Stat(ctx, ref.Digest)
	if !errors.Is(err, blobs.ErrNotFound) {
		return err
	}
	path, err := s.cfg.Blobs.Fetch(ctx, ref) // the cached copy of the Put
	if err != nil {
		return err
	}
	_, err = s.cfg.Blobs.PutFile(ctx, path)
	return err
}

// putTextBlob streams a text body into the blob store.
func (s *Server) putTextBlob(
	w http.ResponseWriter,
	r *http.Request,
	key string,
	typ rlmctx.VarType,
) (blobs.Ref, rlmctx.VarType, string, error) {
	if typ == "" {
		typ = rlmctx.Text
	}
	if err := rlmctx.CheckType(typ, ""); err != nil {
		return blobs.Ref{}, "", "", badRequest("key", "store key %q: %v", key, err)
	}
	if r.ContentLength > s.cfg.MaxVarBytes {
		w.Header().Set("Connection", "close")
		return blobs.Ref{}, "", "", s.varTooLarge()
	}
	// The body passes through one copy buffer: it takes that much of the
	// body memory.
	const cost = 1 << 20
	if !s.bodies.take(cost) {
		w.Header().Set("Connection", "close")
		return blobs.Ref{}, "", "", &apiError{
			status:     http.StatusServiceUnavailable,
			typ:        "server_error",
			code:       "server_busy",
			retryAfter: time.Second,
			err:        ErrBodiesBusy,
			msg: fmt.Sprintf(
				"the request bodies being read now use the server's body memory (%d bytes); retry later",
				s.cfg.MaxBodyMemory,
			),
		}
	}
	defer s.bodies.give(cost)
	// A value of gigabytes takes longer than the read timeout to arrive:
	// the deadline moves on with each MiB received (a client that
	// trickles still times out), and the small answer, written after the
	// upload to the blob store, has no write deadline.
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	body := &progressReader{r: http.MaxBytesReader(w, r.Body, s.cfg.MaxVarBytes), rc: rc, timeout: s.cfg.ReadTimeout}
	body.extend()
	ref, err := s.cfg.Blobs.Put(r.Context(), &utf8Reader{r: body})
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb):
		return blobs.Ref{}, "", "", s.varTooLarge()
	case errors.Is(err, errNotUTF8):
		return blobs.Ref{}, "", "", badRequest("body", "text must be UTF-8 (send JSON with Content-Type: application/json)")
	case errors.Is(err, blobs.ErrUnavailable):
		return blobs.Ref{}, "", "", blobsError(err)
	case err != nil && r.Context().Err() != nil:
		return blobs.Ref{}, "", "", badRequest("", "reading the body: %v", err)
	case err != nil:
		return blobs.Ref{}, "", "", err
	}
	return ref, typ, "text", nil
}

// varTooLarge is the 413 of a value over MaxVarBytes.
func (s *Server) varTooLarge() error {
	return &apiError{
		status: http.StatusRequestEntityTooLarge,
		typ:    "invalid_request_error",
		code:   "request_too_large",
		err:    ErrBodyTooLarge,
		msg:    fmt.Sprintf("value over %d bytes (the server's limit of a stored value)", s.cfg.MaxVarBytes),
	}
}

// putJSONBlob parses a JSON body as a single server does and stores its
// stored form (the value's JSON, or a str's text) as a blob.
func (s *Server) putJSONBlob(
	w http.ResponseWriter,
	r *http.Request,
	key string,
	typ rlmctx.VarType,
) (blobs.Ref, rlmctx.VarType, string, error) {
	body, done, err := s.readBody(w, r)
	if err != nil {
		return blobs.Ref{}, "", "", err
	}
	defer done()
	if err := checkJSONBudget(body, "body", s.cfg.MaxJSONValues, s.cfg.MaxJSONDepth); err != nil {
		return blobs.Ref{}, "", "", err
	}
	value, err := pyjson.Decode(body)
	if err != nil {
		return blobs.Ref{}, "", "", badRequest("body", "%v", err)
	}
	if typ == "" {
		typ = rlmctx.InferType(value)
	} else if err := rlmctx.CheckType(typ, value); err != nil {
		return blobs.Ref{}, "", "", badRequest("key", "store key %q: %v", key, err)
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 256<<10)
		var err error
		if str, ok := value.(string); ok {
			_, err = bw.WriteString(str)
		} else {
			err = pyjson.Encode(bw, value)
		}
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	ref, err := s.cfg.Blobs.Put(r.Context(), pr)
	pr.Close()
	if err != nil {
		return blobs.Ref{}, "", "", blobsError(err)
	}
	return ref, typ, rlmctx.Encoding(value), nil
}

// clusterVarDelete removes a key; with If-Match only if its content hash
// matches.
func (s *Server) clusterVarDelete(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Blobs == nil {
		s.writeError(w, errNoBlobStore)
		return
	}
	key := r.PathValue("key")
	want := ""
	if im := r.Header.Get("If-Match"); im != "" && matchTag(im) != "*" {
		want = matchTag(im)
	}
	if err := s.cfg.Cluster.DeleteVar(r.Context(), key, want); err != nil {
		s.writeError(w, s.clusterStoreError(key, err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// errNotUTF8 reports a text value that is not UTF-8.
var errNotUTF8 = errors.New("server: text is not UTF-8")

// utf8Reader passes a text through, failing with errNotUTF8 at the first
// byte that is not UTF-8 (a rune cut between two reads is checked whole).
// progressReader moves a request's read deadline timeout ahead each time
// progressStep more bytes of its body have arrived.
type progressReader struct {
	r       io.Reader
	rc      *http.ResponseController
	timeout time.Duration
	since   int
}

// progressStep is the body a client must send within the read timeout.
const progressStep = 1 << 20

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.since += n; p.since >= progressStep {
		p.since = 0
		p.extend()
	}
	return n, err
}

func (p *progressReader) extend() {
	if p.timeout > 0 {
		_ = p.rc.SetReadDeadline(time.Now().Add(p.timeout))
	}
}

type utf8Reader struct {
	r     io.Reader
	carry [utf8.UTFMax]byte // the start of a rune cut by the last read
	n     int
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if n > 0 && !u.check(p[:n]) {
		return 0, errNotUTF8
	}
	if err == io.EOF && u.n > 0 {
		return 0, errNotUTF8
	}
	return n, err
}

// check reports whether b continues a valid UTF-8 text.
func (u *utf8Reader) check(b []byte) bool {
	for u.n > 0 && len(b) > 0 {
		u.carry[u.n] = b[0]
		u.n++
		b = b[1:]
		if utf8.FullRune(u.carry[:u.n]) {
			if r, size := utf8.DecodeRune(u.carry[:u.n]); r == utf8.RuneError && size <= 1 || size != u.n {
				return false
			}
			u.n = 0
		}
	}
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i > len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(b[:cut]) {
		return false
	}
	u.n = copy(u.carry[:], b[cut:])
	return true
}

// collectBlobs deletes the blobs that no run variable and no store key
// references and that were not used for grace: each is forgotten by the
// database first (only if still unreferenced), then deleted from the
// object store. It returns how many it deleted.
func (s *Server) collectBlobs(ctx context.Context, grace time.Duration) (int, error) {
	db, bs := s.cfg.Cluster, s.cfg.Blobs
	digests, err := db.UnreferencedBlobs(ctx, grace)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range digests {
		ok, err := db.ForgetBlob(ctx, d, grace)
		if err != nil {
			return n, err
		}
		if !ok {
			continue
		}
		if err := bs.Delete(ctx, d); err != nil {
			// Forgotten but not deleted: a later Put marks it again, and
			// an orphan object only costs its bytes.
			return n, err
		}
		n++
	}
	return n, nil
}

// blobGCLoop runs blobGCTick every half BlobGCEvery until ctx ends.
func (s *Server) blobGCLoop(ctx context.Context) {
	t := time.NewTicker(max(s.cfg.BlobGCEvery/2, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.blobGCTick(ctx)
	}
}

// blobGCTick collects the unreferenced blobs if the cluster's blob GC is
// due (cluster.DB.Due): once per BlobGCEvery in the whole cluster, not
// once per process. It reports whether it collected.
func (s *Server) blobGCTick(ctx context.Context) bool {
	due, err := s.cfg.Cluster.Due(ctx, "blob-gc", s.cfg.BlobGCEvery)
	if err != nil || !due {
		if err != nil && ctx.Err() == nil {
			s.log.Warn("cluster: blob gc", "error", s.redact(err.Error()))
		}
		return false
	}
	n, err := s.collectBlobs(ctx, s.cfg.BlobGCGrace)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("cluster: blob gc", "error", s.redact(err.Error()))
	}
	if n > 0 {
		s.log.Info("cluster: deleted unreferenced blobs", "blobs", n)
	}
	return true
}
