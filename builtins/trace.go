package builtins

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/sandbox"
)

// OpExcerptChars bounds the prompt and response text an [Op] keeps when the
// host does not trace full text (Host.TraceFull): the head and the tail,
// with the cut marked.
const OpExcerptChars = 2000

// Op records one sub-call or embedding/ranking operation started by the
// model's code (llm_query, llm_query_batched, summarize, find_relevant), for
// the trajectory's sub_call events. Text fields are excerpts (see
// [OpExcerptChars]) unless the host traces full text; the hashes and sizes
// are of the whole text.
type Op struct {
	// Seq numbers the operations of a host in the order they were started.
	Seq  int    `json:"seq"`
	Kind string `json:"kind"`
	// Model is the chat or embedding model (empty: the client's default).
	Model string `json:"model,omitempty"`
	// PromptHash is the first 16 hex digits of the sha256 of the prompt
	// (find_relevant: the query); equal prompts have equal hashes.
	PromptHash    string `json:"prompt_hash"`
	Prompt        string `json:"prompt"`
	PromptChars   int    `json:"prompt_chars"`
	PromptCut     bool   `json:"prompt_cut,omitempty"`
	Response      string `json:"response,omitempty"`
	ResponseChars int    `json:"response_chars,omitempty"`
	ResponseCut   bool   `json:"response_cut,omitempty"`
	// Usage is the tokens the model reported (summed over the calls of a
	// map-reduce summarize); zero for a memoized operation.
	Usage     llm.Usage `json:"usage"`
	LatencyMS int64     `json:"latency_ms"`
	// FirstByteMS is the upstream's time to first byte of a chat
	// operation's answer (absent when not measured).
	FirstByteMS float64 `json:"first_byte_ms,omitempty"`
	// Memoized marks an operation answered by an identical earlier one of
	// the run (same content hash): nothing was sent.
	Memoized bool   `json:"memoized,omitempty"`
	Error    string `json:"error,omitempty"`
	// Calls is the number of model requests (map-reduce summarize: one per
	// part plus the final one).
	Calls int `json:"calls,omitempty"`
	// Method, Items and Embedded describe a find_relevant ranking: method
	// "embedding" or "bm25", the items ranked, the texts sent to the
	// embedder (cache misses, the query included).
	Method   string `json:"method,omitempty"`
	Items    int    `json:"items,omitempty"`
	Embedded int    `json:"embedded,omitempty"`

	memo *deferred.Future // a memoized op takes its response from it
}

// opTrace is an operation being recorded: begun by startOp, finished by
// end (from the operation's goroutine, before its future settles).
type opTrace struct {
	h     *Host
	op    *Op
	start time.Time
}

// startOp begins recording an operation, or returns nil when the host does
// not trace operations.
func (h *Host) startOp(kind, model, prompt string) *opTrace {
	if !h.TraceOps {
		return nil
	}
	op := &Op{Kind: kind, Model: model}
	op.PromptHash = textHash(prompt)
	op.Prompt, op.PromptChars, op.PromptCut = h.opText(prompt)
	h.mu.Lock()
	h.opSeq++
	op.Seq = h.opSeq
	h.mu.Unlock()
	return &opTrace{h: h, op: op, start: time.Now()}
}

// memoized records t as answered by f, an identical earlier operation.
func (t *opTrace) memoized(f *deferred.Future) {
	if t == nil {
		return
	}
	t.op.Memoized = true
	t.op.memo = f
	t.commit()
}

// notStarted records an operation that Group.Go did not start: memoized
// (f is the earlier identical operation's future) or refused (the group
// is closed).
func (t *opTrace) notStarted(f *deferred.Future, key string) {
	if t == nil {
		return
	}
	if key != "" && f.Key() == key {
		t.memoized(f)
		return
	}
	t.end("", llm.Usage{}, f.Err())
}

// firstByte records the upstream's time to first byte of the answer.
func (t *opTrace) firstByte(d time.Duration) {
	if t != nil {
		t.op.FirstByteMS = float64(d.Microseconds()) / 1000
	}
}

// end records the outcome of the operation.
func (t *opTrace) end(response string, usage llm.Usage, err error) {
	if t == nil {
		return
	}
	t.op.LatencyMS = time.Since(t.start).Milliseconds()
	t.h.mu.Lock()
	t.op.Usage.PromptTokens += usage.PromptTokens
	t.op.Usage.CompletionTokens += usage.CompletionTokens
	t.op.Usage.CachedTokens += usage.CachedTokens
	t.h.mu.Unlock()
	t.setResponse(response)
	if err != nil {
		t.op.Error = err.Error()
	}
	t.commit()
}

// addUsage adds the usage of one more model request of the operation.
func (t *opTrace) addUsage(u llm.Usage) {
	if t == nil {
		return
	}
	t.h.mu.Lock()
	defer t.h.mu.Unlock()
	t.op.Calls++
	t.op.Usage.PromptTokens += u.PromptTokens
	t.op.Usage.CompletionTokens += u.CompletionTokens
	t.op.Usage.CachedTokens += u.CachedTokens
}

func (t *opTrace) setResponse(s string) {
	t.op.Response, t.op.ResponseChars, t.op.ResponseCut = t.h.opText(s)
}

func (t *opTrace) commit() {
	t.h.mu.Lock()
	defer t.h.mu.Unlock()
	t.h.ops = append(t.h.ops, t.op)
}

// TakeOps returns the operations recorded since the previous call, in the
// order they were started, and forgets them. Call it after the barrier
// (deferred.Group.Wait), when every operation has settled; a memoized
// operation then carries the response of the one it reused.
func (h *Host) TakeOps() []Op {
	h.mu.Lock()
	ops := h.ops
	h.ops = nil
	h.mu.Unlock()
	sort.Slice(ops, func(i, j int) bool { return ops[i].Seq < ops[j].Seq })
	out := make([]Op, len(ops))
	for i, op := range ops {
		if f := op.memo; f != nil && f.Done() {
			if err := f.Err(); err != nil {
				op.Error = err.Error()
			} else if v, err := f.Wait(h.ctx()); err == nil {
				(&opTrace{h: h, op: op}).setResponse(opResult(v))
			}
		}
		op.memo = nil
		out[i] = *op
	}
	return out
}

// opResult is the text recorded as an operation's response.
func opResult(v starlark.Value) string {
	if s, ok := v.(starlark.String); ok {
		return string(s)
	}
	return sandbox.Repr(v)
}

// opText returns the text an Op keeps of s, its length in characters, and
// whether it was cut.
func (h *Host) opText(s string) (string, int, bool) {
	n := utf8.RuneCountInString(s)
	if h.TraceFull || n <= OpExcerptChars {
		return s, n, false
	}
	head := runeFloor(s, OpExcerptChars*2/3)
	tail := runeCeil(s, len(s)-(OpExcerptChars-OpExcerptChars*2/3))
	cut := n - utf8.RuneCountInString(s[:head]) - utf8.RuneCountInString(s[tail:])
	return s[:head] + fmt.Sprintf("\n[... %d chars cut ...]\n", cut) + s[tail:], n, true
}

// textHash is the first 16 hex digits of the sha256 of s.
func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
