package llm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/rlmhq/rlm/internal/jsonl"
)

// NewAppendRecorder returns a [Recorder] that appends to the recording at
// path (creating it) instead of writing path+".partial": every entry is
// synced to disk before the answer is returned, so a process killed at any
// point keeps every answer it received. A line torn by an earlier crash is
// cut first. Close does not move the file.
func NewAppendRecorder(inner ChatModel, path string, opts ...RecordOption) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("llm: open recording: %w", err)
	}
	size, err := jsonl.CutTorn(f)
	if err == nil {
		_, err = f.Seek(size, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("llm: open recording %s: %w", path, err)
	}
	r := &Recorder{
		inner:   inner,
		path:    path,
		f:       f,
		w:       bufio.NewWriter(f),
		embeds:  map[string]bool{},
		inPlace: true,
		secrets: secretsOf(inner),
	}
	if size == 0 {
		var meta RecordingMeta
		if d, ok := inner.(interface{ Model() string }); ok {
			meta.Model = d.Model()
		}
		meta.SubModel = SubModelOf(inner)
		if d, ok := inner.(interface{ EmbeddingModel() string }); ok {
			meta.EmbeddingModel = d.EmbeddingModel()
		}
		_ = r.write(metaEntry(meta, opts))
	}
	return r, nil
}

// Resumer continues an interrupted run from its recording: each request
// is answered from the recording while the recording holds an unused
// answer for it (identical requests consume their answers in recorded
// order), and goes to the live model otherwise. So a re-executed run
// rebuilds the same state without sending any request that was answered
// before, then continues live. Recorded transient failures at the end of
// the recording (what stopped the run) are not replayed: those requests
// are sent again. Safe for concurrent use.
type Resumer struct {
	rp *Replay

	mu       sync.Mutex
	used     map[string]int
	charged  map[string]int // replayed embedding charges used, by key
	live     ChatModel
	gate     func(Request) error
	replayed int
	sent     int
}

// OpenResume loads the recording at path for a resume.
func OpenResume(path string) (*Resumer, error) {
	rp, err := OpenReplay(path)
	if err != nil {
		return nil, err
	}
	dropTrailingFailures(rp)
	return &Resumer{rp: rp, used: map[string]int{}, charged: map[string]int{}}, nil
}

// dropTrailingFailures removes the recorded retryable failures that no
// later answer to the same request superseded.
func dropTrailingFailures(rp *Replay) {
	for k, list := range rp.chats {
		for len(list) > 0 {
			e := list[len(list)-1]
			if e.Error == nil || !(&Error{Kind: parseKind(e.Error.Kind)}).Retryable() {
				break
			}
			list = list[:len(list)-1]
		}
		if len(list) == 0 {
			delete(rp.chats, k)
		} else {
			rp.chats[k] = list
		}
	}
}

// Recorded is the number of recorded chat answers available for replay.
func (r *Resumer) Recorded() int {
	n := 0
	for _, l := range r.rp.chats {
		n += len(l)
	}
	return n
}

// Meta returns the recorded client's model names.
func (r *Resumer) Meta() RecordingMeta { return r.rp.meta }

// SetGate sets a check run before each live request; a non-nil error
// fails the request with it (e.g. once the resumed run is known to have
// diverged from the recording).
func (r *Resumer) SetGate(f func(Request) error) {
	r.mu.Lock()
	r.gate = f
	r.mu.Unlock()
}

// Continue returns the chat model and embedder of the resumed run: the
// recording first, then live and liveEmb (liveEmb may be nil).
func (r *Resumer) Continue(live ChatModel, liveEmb Embedder) (ChatModel, Embedder) {
	r.mu.Lock()
	r.live = live
	r.mu.Unlock()
	var emb Embedder
	if liveEmb != nil {
		emb = &resumeEmbedder{r: r, live: liveEmb}
	}
	return r, emb
}

// Counts reports how many requests were answered from the recording and
// how many went to the live model.
func (r *Resumer) Counts() (replayed, live int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replayed, r.sent
}

// Model is the recorded default model name.
func (r *Resumer) Model() string {
	if r.rp.meta.Model != "" {
		return r.rp.meta.Model
	}
	if d, ok := r.live.(interface{ Model() string }); ok {
		return d.Model()
	}
	return ""
}

// SubModel is the recorded sub-call model name.
func (r *Resumer) SubModel() string {
	if r.rp.meta.SubModel != "" {
		return r.rp.meta.SubModel
	}
	return SubModelOf(r.live)
}

// Chat answers req from the recording, else from the live model.
func (r *Resumer) Chat(ctx context.Context, req Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	key := RequestKey(req)
	r.mu.Lock()
	list := r.rp.chats[key]
	if i := r.used[key]; i < len(list) {
		r.used[key] = i + 1
		r.replayed++
		r.mu.Unlock()
		e := list[i]
		if e.Error != nil {
			return nil, &Error{Kind: parseKind(e.Error.Kind), StatusCode: e.Error.Status, Message: e.Error.Message}
		}
		resp := *e.Response
		resp.ToolCalls = append([]ToolCall(nil), e.Response.ToolCalls...)
		return &resp, nil
	}
	live, gate := r.live, r.gate
	r.sent++
	r.mu.Unlock()
	if gate != nil {
		if err := gate(req); err != nil {
			return nil, err
		}
	}
	if live == nil {
		return nil, &Error{Kind: KindReplayMiss, Message: "resume: no live model for a request the recording has no answer for"}
	}
	return live.Chat(ctx, req)
}

type resumeEmbedder struct {
	r    *Resumer
	live Embedder
}

// Embed returns recorded vectors, embedding only the texts the recording
// lacks with the live embedder. The recorded requests whose vectors it
// replays are charged to the live embedder's ledger as the interrupted
// run was charged for them (each once), so a resumed run ends with the
// usage of an uninterrupted one and a budget cannot be bypassed by
// crashing and resuming.
func (e *resumeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	var charges []embedCharge
	e.r.mu.Lock()
	for i, t := range texts {
		k := embedRecKey(t)
		if v, ok := e.r.rp.embeds[k]; ok {
			out[i] = v
			if list, j := e.r.rp.charges[k], e.r.charged[k]; j < len(list) {
				e.r.charged[k] = j + 1
				charges = append(charges, list[j])
			}
			continue
		}
		missing = append(missing, t)
		at = append(at, i)
	}
	gate := e.r.gate
	e.r.mu.Unlock()
	if c, ok := e.live.(embedCharger); ok {
		for _, ch := range charges {
			if err := c.chargeReplayed(ch); err != nil {
				return nil, err
			}
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	if gate != nil {
		if err := gate(Request{}); err != nil {
			return nil, err
		}
	}
	vecs, err := e.live.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		out[i] = vecs[j]
	}
	return out, nil
}
