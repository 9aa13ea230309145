package builtins

import (
	"context"
	"io"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/sandbox"
)

// Globals gives read access to the session's user variables (implemented
// by *sandbox.Session).
type Globals interface {
	// UserGlobals returns the user-visible names in definition order.
	UserGlobals() []string
	// Global returns the value of a global.
	Global(name string) (starlark.Value, bool)
}

// Host is the host state of the helpers for one run. Zero fields disable
// what depends on them: without Model, llm_query fails and summarize falls
// back to an extractive summary; without Embedder, find_relevant ranks with
// BM25; without Child, rlm_query reports the depth limit.
type Host struct {
	// Model answers sub-calls (llm_query, summarize). It should be the
	// run's llm.Metered model so budgets are enforced before sending.
	Model llm.ChatModel
	// Ledger, if set, is the run's budget ledger (the one Model is metered
	// with). Sub-calls reserve on it when they are started, so a call over
	// budget raises in the calling step and is never sent.
	Ledger *llm.Ledger
	// SubModel is the model name used when a helper is called without
	// model= (empty: the client's default).
	SubModel string
	// Embedder embeds items for find_relevant.
	Embedder llm.Embedder
	// EmbeddingModel names the embedding model (part of the cache key).
	EmbeddingModel string
	// Child runs sub-RLMs for rlm_query.
	Child ChildRunner
	// Group runs the deferred operations; nil creates one on first use.
	Group *deferred.Group
	// Store, if set, is what store_get and store_keys may read; nil
	// makes them fail (the store module is then left out of the prompt).
	Store *StoreView
	// Session gives show_vars and FINAL_VAR the variables when they are
	// called outside a sandbox step (a *sandbox.Session between steps, or
	// any Globals). Inside a step they read the variables the step sees
	// from the thread (sandbox.StepGlobals), never from Session.
	Session Globals
	// Context is the run's context for deferred operations (values only;
	// cancellation goes through Group). Nil means context.Background.
	Context context.Context
	// Notes receives notes about fallbacks (e.g. "find_relevant: no
	// embedding model; ranking with BM25"), typically stderr. Nil discards.
	Notes io.Writer
	// ContextWindow overrides the sub-model's context window in tokens
	// (0: looked up from the model name).
	ContextWindow int
	// MaxOutputTokens is the completion budget of each sub-call (0: 1024);
	// it is reserved out of the context window.
	MaxOutputTokens int
	// TraceOps records each sub-call and embedding/ranking operation the
	// code starts (see [Op], [Host.TakeOps]), for the trajectory.
	TraceOps bool
	// TraceFull keeps whole prompts and responses in the records instead
	// of excerpts of OpExcerptChars.
	TraceFull bool

	once     sync.Once
	mu       sync.Mutex
	noted    map[string]bool
	embCache map[[32]byte][]float32
	opSeq    int
	ops      []*Op
	kids     children // the rlm_query children started, for children()
}

const hostKey = "rlm.builtins.host"

// Attach stores h on thread so that helpers without a bound host (see
// [Predeclared] with nil) find it; use it from sandbox.Config.ThreadHook.
// Helpers wait under the thread's context (sandbox.ThreadContext): in a
// sandbox step, the step's.
func Attach(thread *starlark.Thread, h *Host) {
	h.init()
	thread.SetLocal(hostKey, h)
}

// HostFrom returns the host attached to thread, or nil.
func HostFrom(thread *starlark.Thread) *Host {
	h, _ := thread.Local(hostKey).(*Host)
	return h
}

func (h *Host) init() {
	h.once.Do(func() {
		if h.Group == nil {
			h.Group = deferred.New(deferred.Config{})
		}
		h.noted = map[string]bool{}
		h.embCache = map[[32]byte][]float32{}
	})
}

// opCtx is the context deferred operations start with: the running
// sandbox step's, so that a step stopped by a limit (time, memory, steps)
// cancels the sub-calls it started (see deferred.Group.Go), else the
// run's.
func (h *Host) opCtx(thread *starlark.Thread) context.Context {
	if ctx := sandbox.ThreadContext(thread); ctx != context.Background() {
		return ctx
	}
	return h.ctx()
}

// spawn starts fn as the deferred operation label (memoized by key when
// not empty) with the step's context.
// tr, if not nil, records the operation; fn ends it.
func (h *Host) spawn(
	thread *starlark.Thread,
	label, key string,
	tr *opTrace,
	fn func(ctx context.Context) (starlark.Value, error),
) *deferred.Future {
	f, started := h.Group.Go(h.opCtx(thread), fn, deferred.Label(label), deferred.Key(key))
	if !started {
		tr.notStarted(f, key)
	}
	return f
}

func (h *Host) ctx() context.Context {
	if h.Context != nil {
		return h.Context
	}
	return context.Background()
}

// note writes a fallback note once per distinct text.
func (h *Host) note(text string) {
	if h.Notes == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.noted[text] {
		return
	}
	h.noted[text] = true
	io.WriteString(h.Notes, text+"\n")
}
