package llm

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Recording file format: JSON Lines, one entry per answered request.
//
//	{"type":"meta","model":"gpt-4o-mini","clock":"2026-01-02T03:04:05Z"}
//	{"type":"chat","key":"…","request":{…},"response":{…}}
//	{"type":"chat","key":"…","request":{…},"error":{"kind":"context_length","status":400,"message":"…"}}
//	{"type":"embed","key":"…","text":"first words…","vector":[…]}
//	{"type":"embed","key":"…","text":"…","vector":[…],"charge":{"model":"…","usage":{…}}}
//
// Keys are content hashes (see [RequestKey]), so concurrent calls replay
// correctly whatever order they arrive in. Recordings never hold the API
// key: requests and responses carry none, and error messages are redacted.
type recEntry struct {
	Type     string    `json:"type"`
	Key      string    `json:"key,omitempty"`
	Model    string    `json:"model,omitempty"`
	SubModel string    `json:"sub_model,omitempty"`
	EmbModel string    `json:"embedding_model,omitempty"`
	Clock    string    `json:"clock,omitempty"`
	Request  *Request  `json:"request,omitempty"`
	Response *Response `json:"response,omitempty"`
	Error    *recError `json:"error,omitempty"`
	Text     string    `json:"text,omitempty"`
	Vector   []float32 `json:"vector,omitempty"`
	// Charge (embed entries): what the embedding request this text was
	// the first of cost; nil for texts that cost nothing more (later in
	// the same request, or served from a cache).
	Charge *embedCharge `json:"charge,omitempty"`
}

type recError struct {
	Kind    string `json:"kind"`
	Status  int    `json:"status,omitempty"`
	Message string `json:"message"`
}

// RequestKey is the content hash identifying a chat request for
// record/replay: SHA-256 over model, messages, tools and parameters.
func RequestKey(req Request) string {
	r := req
	r.Tools = make([]Tool, len(req.Tools))
	for i, t := range req.Tools {
		if len(t.Parameters) > 0 {
			var b bytes.Buffer
			if json.Compact(&b, t.Parameters) == nil {
				t.Parameters = b.Bytes()
			}
		}
		r.Tools[i] = t
	}
	b, _ := json.Marshal(r)
	h := sha256.Sum256(append([]byte("chat\x00"), b...))
	return hex.EncodeToString(h[:])
}

func embedRecKey(text string) string {
	h := sha256.Sum256([]byte("embed\x00" + text))
	return hex.EncodeToString(h[:])
}

// firstWords returns up to n words of s, for naming requests in errors.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		return strings.Join(f[:n], " ") + " …"
	}
	return strings.Join(f, " ")
}

// Recorder is a [ChatModel] that forwards to an inner model and appends
// every answer (or final error) to a JSONL recording. Safe for concurrent
// use.
//
// Entries go to path+".partial", flushed one by one, and Close renames it
// to path: an existing recording at path is replaced only by a complete
// one, and a run that crashes leaves what it recorded in path+".partial"
// (which [OpenReplay] accepts, ignoring a torn last line).
type Recorder struct {
	inner   ChatModel
	path    string
	secrets []string // the inner client's (Config.Secrets), redacted from every line

	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	embeds  map[string]bool
	err     error
	entries int
	// inPlace: entries are appended to path itself and synced one by one
	// (NewAppendRecorder); Close does not rename.
	inPlace bool
	// note, if set, replaces the syncs (DeferSync).
	note func()
	// tee, if set, receives each line once it is in the file (Tee);
	// metaLine is the meta line this recorder wrote, for a late Tee.
	tee      func([]byte) error
	metaLine []byte
}

// Tee hands each line the recorder writes, once it is in the file and
// before its answer is used, to fn (a copy kept elsewhere: the cluster's
// database). If fn fails, the Chat or Embed call that wrote the line
// fails with its error, so no answer is used that the copy lacks. The
// meta line a new recording began with is handed to fn at once. Call it
// before the first Chat.
func (r *Recorder) Tee(fn func(line []byte) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tee = fn
	if r.metaLine != nil {
		if err := fn(r.metaLine); err != nil {
			return fmt.Errorf("llm: record: %w", err)
		}
	}
	return nil
}

// DeferSync makes the recorder hand each answer's durability against a
// power loss to note, called once the answer is written to the file (so
// a killed process keeps it, before the answer is used), instead of an
// fsync per answer; note typically asks a group committer to sync many
// files at once within milliseconds. Close calls note instead of syncing
// too. Call it before the first Chat.
func (r *Recorder) DeferSync(note func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.note = note
}

// PartialSuffix is appended to a recording's path while it is written.
const PartialSuffix = ".partial"

// NewRecorder starts a recording that Close will put at path, and returns
// a recorder forwarding to inner.
func NewRecorder(inner ChatModel, path string, opts ...RecordOption) (*Recorder, error) {
	f, err := os.Create(path + PartialSuffix)
	if err != nil {
		return nil, fmt.Errorf("llm: create recording: %w", err)
	}
	r := &Recorder{inner: inner, path: path, f: f, w: bufio.NewWriter(f), embeds: map[string]bool{}, secrets: secretsOf(inner)}
	var meta RecordingMeta
	if d, ok := inner.(interface{ Model() string }); ok {
		meta.Model = d.Model()
	}
	if d, ok := inner.(interface{ SubModel() string }); ok {
		meta.SubModel = d.SubModel()
	}
	if d, ok := inner.(interface{ EmbeddingModel() string }); ok {
		meta.EmbeddingModel = d.EmbeddingModel()
	}
	_ = r.write(metaEntry(meta, opts))
	return r, nil
}

// RecordOption sets a field of a new recording's meta line.
type RecordOption func(*RecordingMeta)

// RecordClock records the clock the recorded run's code saw (the
// sandbox's start time), so a replay can give its code the same times.
func RecordClock(t time.Time) RecordOption {
	return func(m *RecordingMeta) { m.Clock = t }
}

// metaEntry is the meta line of a recording.
func metaEntry(meta RecordingMeta, opts []RecordOption) recEntry {
	for _, o := range opts {
		o(&meta)
	}
	e := recEntry{Type: "meta", Model: meta.Model, SubModel: meta.SubModel, EmbModel: meta.EmbeddingModel}
	if !meta.Clock.IsZero() {
		e.Clock = meta.Clock.UTC().Format(time.RFC3339Nano)
	}
	return e
}

// metaOf reads a recording's meta line.
func metaOf(e recEntry) RecordingMeta {
	m := RecordingMeta{Model: e.Model, SubModel: e.SubModel, EmbeddingModel: e.EmbModel}
	if t, err := time.Parse(time.RFC3339Nano, e.Clock); err == nil {
		m.Clock = t
	}
	return m
}

// secretsOf returns the credentials of the client under m (a Client, or a
// Recorder over one), to keep out of recordings.
func secretsOf(m ChatModel) []string {
	switch c := m.(type) {
	case interface{ Config() Config }:
		return c.Config().Secrets()
	case *Recorder:
		return c.secrets
	}
	return nil
}

// RecordingMeta is what a recording says about the client that made it.
type RecordingMeta struct {
	Model, SubModel, EmbeddingModel string
	// Clock is the time the recorded run's sandbox clock started at (zero
	// if not recorded).
	Clock time.Time
}

// ReadRecordingMeta reads the model names and clock from a recording's first line
// (zero if the recording has none), without loading the whole file.
func ReadRecordingMeta(path string) (RecordingMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return RecordingMeta{}, fmt.Errorf("llm: open replay: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return RecordingMeta{}, nil
	}
	var e recEntry
	if json.Unmarshal(line, &e) != nil || e.Type != "meta" {
		return RecordingMeta{}, nil
	}
	return metaOf(e), nil
}

// SubModel is the inner model's sub-call model name, if it has one.
func (r *Recorder) SubModel() string { return SubModelOf(r.inner) }

// Model is the inner model's default model name, if it has one.
func (r *Recorder) Model() string {
	if d, ok := r.inner.(interface{ Model() string }); ok {
		return d.Model()
	}
	return ""
}

// write appends e to the recording; it returns the error of the Tee
// function only (a failure to write the file is kept for Close).
func (r *Recorder) write(e recEntry) error {
	b, err := json.Marshal(e)
	if len(r.secrets) > 0 {
		// Requests carry the context the model sent; a key found in it
		// (or its JSON-escaped form) stays out of the file. Replay keys are
		// hashes of the unredacted request, so replays still match.
		s := string(b)
		for _, k := range r.secrets {
			s = RedactSecrets(s, k)
			if q, _ := json.Marshal(k); len(q) > 2 {
				s = RedactSecrets(s, string(q[1:len(q)-1]))
			}
		}
		b = []byte(s)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		_, err = r.w.Write(append(b, '\n'))
	}
	if err == nil {
		// Flush per entry so a crashed run keeps what it recorded.
		err = r.w.Flush()
	}
	if err == nil && r.inPlace && e.Type != "meta" {
		// Each answer is on disk before it is used (the meta line goes
		// with the first one), or, with DeferSync, in the file (a killed
		// process keeps it) and on disk at the group commit.
		if r.note != nil {
			r.note()
		} else {
			err = r.f.Sync()
		}
	}
	if err != nil && r.err == nil {
		r.err = err
	}
	r.entries++
	line := append(b, '\n')
	if e.Type == "meta" {
		r.metaLine = line
	}
	if err == nil && r.tee != nil {
		if terr := r.tee(line); terr != nil {
			return fmt.Errorf("llm: record: %w", terr)
		}
	}
	return nil
}

// Chat forwards req and records the answer under its content hash.
// Errors of the classified kinds are recorded too (so a replay meets the
// same context-length error); cancellations and budget refusals are not.
func (r *Recorder) Chat(ctx context.Context, req Request) (*Response, error) {
	resp, err := r.inner.Chat(ctx, req)
	e := recEntry{Type: "chat", Key: RequestKey(req), Request: &req}
	if err != nil {
		var le *Error
		if !errors.As(err, &le) || le.Kind == KindBudget || le.Kind == KindReplayMiss || le.Kind == KindUnknown {
			return nil, err
		}
		e.Error = &recError{Kind: le.Kind.String(), Status: le.StatusCode, Message: redactKey(le.Message, r.secrets...)}
	} else {
		e.Response = resp
	}
	if werr := r.write(e); werr != nil {
		return nil, werr
	}
	return resp, err
}

// Embedder returns an Embedder that forwards to inner and records every
// vector under the hash of its text.
func (r *Recorder) Embedder(inner Embedder) Embedder {
	return &recEmbedder{r: r, inner: inner}
}

type recEmbedder struct {
	r     *Recorder
	inner Embedder
}

func (e *recEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	// The requests the inner client sends, each charged with the entry
	// of its first text, so that a resume charges them again.
	var mu sync.Mutex
	charges := map[string]*embedCharge{}
	ctx = context.WithValue(ctx, embedChargeKey{}, func(batch []string, model string, u Usage) {
		if len(batch) > 0 {
			mu.Lock()
			charges[batch[0]] = &embedCharge{Model: model, Usage: u}
			mu.Unlock()
		}
	})
	vecs, err := e.inner.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	for i, t := range texts {
		k := embedRecKey(t)
		ch := charges[t]
		delete(charges, t)
		e.r.mu.Lock()
		done := e.r.embeds[k]
		e.r.embeds[k] = true
		e.r.mu.Unlock()
		if !done || ch != nil {
			if werr := e.r.write(recEntry{Type: "embed", Key: k, Text: firstWords(t, 8), Vector: vecs[i], Charge: ch}); werr != nil {
				return nil, werr
			}
		}
	}
	return vecs, nil
}

// chargeReplayed passes a replayed request's charge to the inner
// embedder.
func (e *recEmbedder) chargeReplayed(ch embedCharge) error {
	if c, ok := e.inner.(embedCharger); ok {
		return c.chargeReplayed(ch)
	}
	return nil
}

// Close flushes the recording and moves it into place at path, reporting
// any write error (the partial file is then left as it is).
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return r.err
	}
	err := r.w.Flush()
	if err == nil && r.note == nil {
		err = r.f.Sync()
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && r.note != nil {
		r.note()
	}
	r.f = nil
	if r.err == nil {
		r.err = err
	}
	if r.err == nil && !r.inPlace {
		r.err = os.Rename(r.path+PartialSuffix, r.path)
	}
	if r.err != nil {
		r.err = fmt.Errorf("llm: write recording %s: %w", r.path, r.err)
	}
	return r.err
}

// Replay answers chat and embedding requests from a recording made by
// [Recorder], offline. Identical requests recorded several times are
// answered in recorded order, the last answer repeating. A request with no
// recorded answer fails with an *Error of KindReplayMiss naming it. Safe
// for concurrent use.
type Replay struct {
	path string
	meta RecordingMeta

	mu     sync.Mutex
	chats  map[string][]recEntry
	next   map[string]int
	embeds map[string][]float32
	// charges: the recorded cost of the embedding requests, by the key
	// of their first text, in recorded order.
	charges map[string][]embedCharge
}

var (
	_ ChatModel = (*Replay)(nil)
	_ Embedder  = (*Replay)(nil)
)

// OpenReplay loads a recording.
func OpenReplay(path string) (*Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("llm: open replay: %w", err)
	}
	defer f.Close()
	r := &Replay{
		path:    path,
		chats:   map[string][]recEntry{},
		next:    map[string]int{},
		embeds:  map[string][]float32{},
		charges: map[string][]embedCharge{},
	}
	br := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		raw, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("llm: read replay %s: %w", path, rerr)
		}
		if b := bytes.TrimSpace(raw); len(b) > 0 {
			var e recEntry
			if err := json.Unmarshal(b, &e); err != nil {
				if rerr == io.EOF && raw[len(raw)-1] != '\n' {
					break // torn last line of a crashed recording
				}
				return nil, fmt.Errorf("llm: replay %s line %d: %w (not a recording written by a Recorder?)", path, line, err)
			}
			switch e.Type {
			case "meta":
				if line == 1 {
					r.meta = metaOf(e)
				}
			case "chat":
				e.Request = nil // not needed any more
				r.chats[e.Key] = append(r.chats[e.Key], e)
			case "embed":
				r.embeds[e.Key] = e.Vector
				if e.Charge != nil {
					r.charges[e.Key] = append(r.charges[e.Key], *e.Charge)
				}
			default:
				return nil, fmt.Errorf("llm: replay %s line %d: unknown entry type %q", path, line, e.Type)
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	return r, nil
}

// Model is the default model of the recorded client, if recorded.
func (r *Replay) Model() string { return r.meta.Model }

// SubModel is the sub-call model of the recorded client, if recorded.
func (r *Replay) SubModel() string { return r.meta.SubModel }

// Meta returns the recorded client's model names.
func (r *Replay) Meta() RecordingMeta { return r.meta }

// HasEmbeddings reports whether the recording holds embeddings or was
// made with an embedding model configured.
func (r *Replay) HasEmbeddings() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.embeds) > 0 || r.meta.EmbeddingModel != ""
}

// Chat returns the recorded answer for req.
func (r *Replay) Chat(ctx context.Context, req Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	key := RequestKey(req)
	r.mu.Lock()
	list := r.chats[key]
	i := r.next[key]
	if i < len(list)-1 {
		r.next[key] = i + 1
	}
	r.mu.Unlock()
	if len(list) == 0 {
		last := ""
		if n := len(req.Messages); n > 0 {
			last = req.Messages[n-1].Content
		}
		model := req.Model
		if model == "" {
			model = "(default model)"
		}
		return nil, &Error{
			Kind: KindReplayMiss,
			Message: fmt.Sprintf(
				"recording %s has no answer for request model=%s key=%s last message %q (the run diverged from the recording)",
				r.path,
				model,
				key[:12],
				firstWords(last, 12),
			),
		}
	}
	e := list[min(i, len(list)-1)]
	if e.Error != nil {
		return nil, &Error{Kind: parseKind(e.Error.Kind), StatusCode: e.Error.Status, Message: e.Error.Message}
	}
	resp := *e.Response
	resp.ToolCalls = append([]ToolCall(nil), e.Response.ToolCalls...)
	return &resp, nil
}

// Embed returns the recorded vectors for texts.
func (r *Replay) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	out := make([][]float32, len(texts))
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, t := range texts {
		k := embedRecKey(t)
		v, ok := r.embeds[k]
		if !ok {
			return nil, &Error{
				Kind: KindReplayMiss,
				Message: fmt.Sprintf(
					"recording %s has no embedding for text %d key=%s %q (the run diverged from the recording)",
					r.path,
					i,
					k[:12],
					firstWords(t, 8),
				),
			}
		}
		out[i] = v
	}
	return out, nil
}

func parseKind(s string) Kind {
	for k := KindUnknown; k <= KindReplayMiss; k++ {
		if k.String() == s {
			return k
		}
	}
	return KindUnknown
}

// EmbeddingTransport returns an http.RoundTripper that answers OpenAI
// embeddings requests from the recording, for a [Client] replaying a run:
// the client then batches, caches and charges its EmbedLedger exactly as
// in the recorded run (token usage is counted with the tokenizer, as for
// servers that report none). A text the recording lacks fails the request
// with an *Error of KindReplayMiss; any other request is refused.
func (r *Replay) EmbeddingTransport() http.RoundTripper { return replayTransport{r} }

type replayTransport struct{ r *Replay }

func (t replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	if !strings.HasSuffix(req.URL.Path, "/embeddings") {
		return nil, &Error{
			Kind:    KindReplayMiss,
			Message: fmt.Sprintf("replay transport answers only embeddings requests, not %s", req.URL.Path),
		}
	}
	var body struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		return nil, &Error{Kind: KindBadRequest, Message: "replay transport: embeddings request: " + err.Error()}
	}
	vecs, err := t.r.Embed(req.Context(), body.Input)
	if err != nil {
		return nil, err
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]datum, len(vecs))
	for i, v := range vecs {
		data[i] = datum{Object: "embedding", Index: i, Embedding: v}
	}
	out, err := json.Marshal(map[string]any{"object": "list", "model": body.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": 0, "total_tokens": 0}})
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Status:        "200 OK",
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(out)),
		ContentLength: int64(len(out)),
		Request:       req,
	}, nil
}
