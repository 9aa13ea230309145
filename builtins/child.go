package builtins

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/sandbox"
)

// ChildRunner starts sub-RLMs for rlm_query. It is implemented by the
// orchestrator; a nil runner means the recursion depth limit is reached.
type ChildRunner interface {
	// StartChild checks req and registers one child run, in the calling
	// step (a request it refuses, e.g. a bad outputs schema, raises there
	// and nothing runs); the helper then runs it as a deferred operation.
	StartChild(req ChildRequest) (ChildRun, error)
}

// ChildRequest is one rlm_query call.
type ChildRequest struct {
	Query string
	// Vars are the child's context variables: the caller's values
	// themselves, not copies (the child binds them as its globals, so a
	// list the child changes is changed for the caller too).
	Vars map[string]starlark.Value
	// Outputs is the child's declared output schema in the compact syntax
	// of the root's (e.g. "names: list[str], total: int"); "" is the
	// default, a single answer str.
	Outputs string
}

// ChildRun is a child registered by [ChildRunner.StartChild].
type ChildRun interface {
	// ID is the child's run id (the trajectory's).
	ID() string
	// Run runs the child to its end; it is called once. A child stopped
	// by a limit before a valid SUBMIT returns its best partial answer
	// (ChildResult.Partial) and no error.
	Run(ctx context.Context) (ChildResult, error)
	// Usage is the model usage and time of the child and its own children
	// so far; it may be called while the child runs.
	Usage() ChildUsage
}

// ChildResult is how a child run ended.
type ChildResult struct {
	// Answer is the child's answer as text.
	Answer string
	// Outputs are the child's declared outputs as interpreter values (a
	// dict), nil for the default schema.
	Outputs starlark.Value
	// StopReason says why the child ended (e.g. "submit", "budget").
	StopReason string
	// Partial marks an answer given without a valid SUBMIT.
	Partial bool
}

// ChildUsage is the model usage and time of a run and its children.
type ChildUsage struct {
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CachedTokens     int     `json:"cached_tokens,omitempty"`
	CostUSD          float64 `json:"cost_usd"`
	// CostKnown is false when a call's model has no known price.
	CostKnown bool `json:"cost_known"`
	// Wall is the time from the start to the end (or now); Active is the
	// model time of its calls plus the time its code ran, without the
	// time the code waited (for sub-calls or children, counted where
	// their work is done).
	Wall   time.Duration `json:"-"`
	Active time.Duration `json:"-"`
}

// Child states, as .state and children() report them.
const (
	ChildRunning  = "running"
	ChildDone     = "done"
	ChildFailed   = "failed"
	ChildCanceled = "cancelled" // Python's spelling (concurrent.futures)
)

// childHandle is the value rlm_query returns: the future of the child's
// answer (so it is used like a str, as before) with the child's state.
type childHandle struct {
	*deferred.Future
	run      ChildRun
	query    string
	declared bool // outputs= was given

	stop     context.CancelCauseFunc
	canceled atomic.Bool
	res      ChildResult // set before the future settles
}

var (
	_ sandbox.Proxy       = (*childHandle)(nil)
	_ starlark.HasAttrs   = (*childHandle)(nil)
	_ starlark.Comparable = (*childHandle)(nil)
)

// state is the child's state.
func (c *childHandle) state() string {
	switch {
	case c.canceled.Load():
		return ChildCanceled
	case !c.Done():
		return ChildRunning
	case c.Err() != nil:
		return ChildFailed
	}
	return ChildDone
}

// cancel stops the child unless it has ended: its state becomes
// cancelled, and its result raises when read.
func (c *childHandle) cancel() {
	if c.Done() || c.canceled.Swap(true) {
		return
	}
	c.stop(ErrChildCanceled)
}

// result waits for the child and returns its typed result.
func (c *childHandle) result() (starlark.Value, error) {
	if _, err := c.Wait(context.Background()); err != nil {
		return nil, fmt.Errorf("rlm_query child %s: %w", c.run.ID(), err)
	}
	r := c.res
	switch {
	case !c.declared:
		return starlark.String(strings.TrimSpace(r.Answer)), nil
	case r.Partial || r.Outputs == nil:
		return nil, fmt.Errorf(
			"rlm_query child %s stopped (%s) before a valid SUBMIT, so it has no declared outputs; its partial answer is .value",
			c.run.ID(), r.StopReason,
		)
	}
	return r.Outputs, nil
}

// AttrNames lists the handle's attributes.
func (c *childHandle) AttrNames() []string {
	return []string{"cancel", "done", "error", "id", "result", "state", "usage", "value"}
}

// Attr returns .done (bool, without waiting), .result() (waits: the child's
// declared outputs as a dict, or its answer str), .usage (a dict, without
// waiting), .cancel(), .id, .state, and the future's .value and .error;
// other names are the answer str's (h.upper()).
func (c *childHandle) Attr(name string) (starlark.Value, error) {
	switch name {
	case "result":
		// A method, as a future's .result() and concurrent.futures'.
		return starlark.NewBuiltin("result", c.resultMethod), nil
	case "usage":
		return usageDict(c.run.Usage()), nil
	case "id":
		return starlark.String(c.run.ID()), nil
	case "state":
		return starlark.String(c.state()), nil
	case "cancel":
		return starlark.NewBuiltin("cancel", c.cancelMethod), nil
	}
	return c.Future.Attr(name)
}

// resultMethod is the handle's result(): it waits for the child.
func (c *childHandle) resultMethod(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs("result", args, kwargs); err != nil {
		return nil, err
	}
	v, err := c.result()
	return v, pyError(err)
}

// cancelMethod is the handle's cancel().
func (c *childHandle) cancelMethod(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs("cancel", args, kwargs); err != nil {
		return nil, err
	}
	c.cancel()
	return starlark.None, nil
}

// CompareSameType compares the answers of two handles (sorted(handles)).
func (c *childHandle) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	a, err := c.ProxyTarget(nil)
	if err != nil {
		return false, err
	}
	b, err := y.(*childHandle).ProxyTarget(nil)
	if err != nil {
		return false, err
	}
	return starlark.CompareDepth(op, a, b, depth)
}

// usageDict is u as the dict the code reads.
func usageDict(u ChildUsage) *starlark.Dict {
	d := starlark.NewDict(7)
	cost := starlark.Value(starlark.None)
	if u.CostKnown {
		cost = starlark.Float(u.CostUSD)
	}
	for _, kv := range []struct {
		k string
		v starlark.Value
	}{
		{"calls", starlark.MakeInt(u.Calls)},
		{"prompt_tokens", starlark.MakeInt(u.PromptTokens)},
		{"completion_tokens", starlark.MakeInt(u.CompletionTokens)},
		{"cached_tokens", starlark.MakeInt(u.CachedTokens)},
		{"cost_usd", cost},
		{"wall_seconds", starlark.Float(u.Wall.Seconds())},
		{"active_seconds", starlark.Float(u.Active.Seconds())},
	} {
		_ = d.SetKey(starlark.String(kv.k), kv.v)
	}
	return d
}

// children are the child handles a host started, in order.
type children struct {
	mu   sync.Mutex
	list []*childHandle
}

func (cs *children) add(c *childHandle) {
	cs.mu.Lock()
	cs.list = append(cs.list, c)
	cs.mu.Unlock()
}

func (cs *children) all() []*childHandle {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]*childHandle(nil), cs.list...)
}

// rlm_query(query, outputs=None, **variables)
// Run a recursive sub-RLM that answers query with the variables as its context (shared, not copied); returns a handle: a future str (stripped) with .done, .result() (a dict of its outputs if outputs="a: int, ..." declares them, else the str), .usage, .cancel().
func rlmQuery(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		rest           []starlark.Tuple
		query, outputs string
	)
	if err := unpack(thread, name, args, kwargs, "query", &query, "outputs??", &outputs, "**variables", &rest); err != nil {
		return nil, err
	}
	vars, err := childVars(h, thread, name, rest)
	if err != nil {
		return nil, err
	}
	return h.startChild(thread, name, ChildRequest{Query: query, Vars: vars, Outputs: outputs})
}

// rlm_query_batched(queries, outputs=None, **variables)
// rlm_query for each query, run concurrently with the same variables; returns a list of handles.
func rlmQueryBatched(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		rest    []starlark.Tuple
		list    starlark.Value
		outputs string
	)
	if err := unpack(thread, name, args, kwargs, "queries", &list, "outputs??", &outputs, "**variables", &rest); err != nil {
		return nil, err
	}
	seq, ok := asSequence(list)
	if !ok {
		return nil, typeErr("%s: queries must be a list of str, got %s", name, pyTypeName(list))
	}
	queries := make([]string, seq.Len())
	for i := range queries {
		v, err := sandbox.Unproxy(thread, seq.Index(i))
		if err != nil {
			return nil, err
		}
		s, ok := v.(starlark.String)
		if !ok {
			return nil, typeErr("%s: queries[%d] must be a str, got %s", name, i, pyTypeName(v))
		}
		queries[i] = string(s)
	}
	vars, err := childVars(h, thread, name, rest)
	if err != nil {
		return nil, err
	}
	handles := make([]starlark.Value, len(queries))
	for i, q := range queries {
		c, err := h.startChild(thread, name, ChildRequest{Query: q, Vars: vars, Outputs: outputs})
		if err != nil {
			return nil, fmt.Errorf("queries[%d]: %w", i, err)
		}
		handles[i] = c
	}
	return starlark.NewList(handles), nil
}

// children()
// This run's rlm_query handles so far, as dicts {id, query, state: running/done/failed/cancelled, usage}.
func listChildren(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(name, args, kwargs); err != nil {
		return nil, err
	}
	all := h.kids.all()
	out := make([]starlark.Value, len(all))
	for i, c := range all {
		d := starlark.NewDict(4)
		_ = d.SetKey(starlark.String("id"), starlark.String(c.run.ID()))
		_ = d.SetKey(starlark.String("query"), starlark.String(queryPreview(c.query)))
		_ = d.SetKey(starlark.String("state"), starlark.String(c.state()))
		_ = d.SetKey(starlark.String("usage"), usageDict(c.run.Usage()))
		out[i] = d
	}
	return starlark.NewList(out), nil
}

// queryPreviewChars bounds the query children() shows.
const queryPreviewChars = 80

// queryPreview is the start of query, cut at a word boundary and marked.
func queryPreview(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len([]rune(q)) <= queryPreviewChars {
		return q
	}
	cut := string([]rune(q)[:queryPreviewChars])
	if i := strings.LastIndexByte(cut, ' '); i > queryPreviewChars/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// childVars are the variables given to rlm_query: the caller's values (a
// future's result), not copies.
func childVars(h *Host, thread *starlark.Thread, name string, rest []starlark.Tuple) (map[string]starlark.Value, error) {
	if h.Child == nil {
		return nil, fmt.Errorf("%s: %w: no sub-RLM can be started at this depth; use llm_query(prompt) instead", name, ErrDepthLimit)
	}
	vars := make(map[string]starlark.Value, len(rest))
	for _, kv := range rest {
		k := string(kv[0].(starlark.String))
		if err := checkFutures(thread, kv[1]); err != nil {
			return nil, fmt.Errorf("%s: variable '%s': %w", name, k, err)
		}
		// A 50 MB string or a large list costs nothing to pass, and what
		// the child changes in a list or dict the caller sees.
		v, err := sandbox.Unproxy(thread, kv[1])
		if err != nil {
			return nil, fmt.Errorf("%s: variable '%s': %w", name, k, err)
		}
		vars[k] = v
	}
	return vars, nil
}

// startChild registers the child of req and starts it as a deferred
// operation; its handle is listed by children().
func (h *Host) startChild(thread *starlark.Thread, name string, req ChildRequest) (*childHandle, error) {
	run, err := h.Child.StartChild(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	stopCtx, stop := context.WithCancelCause(context.Background())
	c := &childHandle{run: run, query: req.Query, declared: req.Outputs != "", stop: stop}
	c.Future = h.spawn(thread, name, "", nil, func(ctx context.Context) (starlark.Value, error) {
		defer stop(nil)
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(stopCtx, func() { cancel(context.Cause(stopCtx)) })()
		if c.canceled.Load() {
			return nil, fmt.Errorf("%s: child %s: %w", name, run.ID(), ErrChildCanceled)
		}
		res, err := run.Run(ctx)
		if c.canceled.Load() {
			return nil, fmt.Errorf("%s: child %s: %w", name, run.ID(), ErrChildCanceled)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.res = res
		return starlark.String(strings.TrimSpace(res.Answer)), nil
	})
	h.kids.add(c)
	return c, nil
}
