package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/internal/pylines"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/sandbox"
)

// childID is deterministic for a given parent, step and query, so a
// replayed run names its children the same even when they run concurrently.
func (r *run) childID(step int, query string, names []string) string {
	h := sha256.Sum256([]byte(query + "\x00" + strings.Join(names, ",")))
	base := fmt.Sprintf("%s.%d.%s", r.id, step, hex.EncodeToString(h[:])[:6])
	r.childMu.Lock()
	defer r.childMu.Unlock()
	if r.childUsed == nil {
		r.childUsed = map[string]bool{}
	}
	id := base
	for i := 2; r.childUsed[id]; i++ {
		id = fmt.Sprintf("%s~%d", base, i)
	}
	r.childUsed[id] = true
	return id
}

// StartChild implements builtins.ChildRunner for rlm_query and
// rlm_query_batched: it checks the request and names the child in the
// calling step. Below the depth limit the child is a child RLM whose
// variables are the given values (shared, not copied); at the limit, a
// plain sub-model call. The child uses the tree's model, ledger and
// trajectory, so budgets hold across the tree.
func (r *run) StartChild(req builtins.ChildRequest) (builtins.ChildRun, error) {
	cfg := r.t.cfg
	schema := DefaultSchema
	if req.Outputs != "" {
		s, err := ParseSchema(req.Outputs)
		if err != nil {
			return nil, fmt.Errorf(
				`%w: outputs= declares the child's outputs, e.g. "names: list[str], total: int" (to pass a variable, pass it under another name): %w`,
				builtins.ErrChildRequest, err)
		}
		schema = s
	}
	names := make([]string, 0, len(req.Vars))
	for n := range req.Vars {
		names = append(names, n)
	}
	sort.Strings(names)
	plain := r.depth+1 >= cfg.MaxDepth
	if !plain {
		for _, n := range names {
			if err := CheckVarName(n); err != nil {
				return nil, fmt.Errorf("%w: variable %s: %w", builtins.ErrChildRequest, n, err)
			}
		}
	}
	step := r.curStep
	id := r.childID(step, req.Query, names)
	return &childRun{
		parent: r, id: id, step: step, req: req, names: names, schema: schema, plain: plain,
		node: r.t.newNode(id, r.node),
	}, nil
}

// childRun is one child of an RLM (builtins.ChildRun).
type childRun struct {
	parent *run
	id     string
	step   int
	req    builtins.ChildRequest
	names  []string // the variables' names, sorted
	schema Schema
	plain  bool // at the depth limit: one sub-model call
	node   *usageNode
}

// ID is the child's run id.
func (c *childRun) ID() string { return c.id }

// Usage is the usage of the child and its own children so far.
func (c *childRun) Usage() builtins.ChildUsage { return c.node.snapshot() }

// Run runs the child and reports it in the trajectory (child_start and
// child_end with its usage).
func (c *childRun) Run(ctx context.Context) (builtins.ChildResult, error) {
	r, t := c.parent, c.parent.t
	cfg := t.cfg
	query, vars, names, id, step := c.req.Query, c.req.Vars, c.names, c.id, c.step
	t.pending.Add(1)
	defer t.pending.Add(-1)
	defer c.node.finish()
	t.addMetrics(func(m *Metrics) { m.RLMQueries++ })
	if c.plain {
		t.traj.emit(EventChildStart, r.id, step, childStartData{Child: id, Query: query, Vars: names, Depth: r.depth + 1, Mode: "llm"})
		res, err := r.plainSubCall(ctx, c, vars)
		c.node.finish()
		ce := childEndData{Child: id, Answer: res.Answer, Usage: usageOf(c.node.snapshot())}
		if err != nil {
			ce.Error = err.Error()
		}
		t.traj.emit(EventChildEnd, r.id, step, ce)
		return res, err
	}
	t.addMetrics(func(m *Metrics) { m.ChildRuns++ })
	t.traj.emit(EventChildStart, r.id, step, childStartData{Child: id, Query: query, Vars: names, Depth: r.depth + 1, Mode: "rlm"})
	cvars := make([]Var, 0, len(names))
	infos := make([]varInfo, 0, len(names))
	var sums []string
	for _, n := range names {
		v := vars[n]
		cvars = append(cvars, Var{Name: n, Value: v})
		infos = append(infos, varInfo{Name: n, Type: v.Type(), SizeBytes: valueSize(v)})
		sums = append(sums, "- "+n+": "+starSummary(v))
	}
	if len(sums) == 0 {
		sums = []string{"(no context variables)"}
	}
	ctx, endRun := t.startRun(
		ctx,
		RunInfo{
			ID:            id,
			Parent:        r.id,
			Depth:         r.depth + 1,
			Model:         cfg.RootModel,
			MaxIterations: cfg.ChildMaxIterations,
			Protocol:      cfg.Protocol,
		},
	)
	child, err := newRun(ctx, t, runSpec{
		id: id, parent: r.id, depth: r.depth + 1, query: query, schema: c.schema,
		maxIter: cfg.ChildMaxIterations, vars: cvars, summaries: strings.Join(sums, "\n"), infos: infos,
	})
	if err != nil {
		c.node.finish()
		t.traj.emit(EventChildEnd, r.id, step, childEndData{Child: id, Error: err.Error(), Usage: usageOf(c.node.snapshot())})
		endRun(RunEnd{Err: err})
		return builtins.ChildResult{}, err
	}
	defer child.exec.Close()
	res := child.loop(ctx, ctx)
	child.emitEnd(res)
	endRun(RunEnd{Result: res})
	if cfg.OnChildEnd != nil {
		cfg.OnChildEnd(id, res)
	}
	ce := childEndData{
		Child:      id,
		Answer:     res.Answer,
		StopReason: string(res.StopReason),
		Partial:    res.Partial || res.Extracted,
		Extracted:  res.Extracted,
		Usage:      usageOf(c.node.snapshot()),
	}
	if res.Err != nil {
		ce.Error = res.Err.Error()
	}
	t.traj.emit(EventChildEnd, r.id, step, ce)
	if ce.Partial && res.Answer != "" {
		how := "its best partial answer"
		if res.Extracted {
			how = "from its final extraction turn"
		}
		r.addNote(
			fmt.Sprintf(
				"[engine] rlm_query(%s) stopped (%s) before a valid SUBMIT; its answer is %s, not a finished one.",
				quoteShort(query, 60),
				res.StopReason,
				how,
			),
		)
	}
	if res.Answer == "" && res.Err != nil {
		return builtins.ChildResult{}, fmt.Errorf("rlm_query: child run stopped (%s) without an answer: %w", res.StopReason, res.Err)
	}
	out := builtins.ChildResult{Answer: res.Answer, StopReason: string(res.StopReason), Partial: ce.Partial}
	if req := c.req; req.Outputs != "" && !ce.Partial && res.Outputs != nil {
		v, err := sandbox.FromGo(res.Outputs)
		if err != nil {
			return builtins.ChildResult{}, fmt.Errorf("rlm_query: child outputs: %w", err)
		}
		out.Outputs = v
	}
	return out, nil
}

// addNote queues a line for the observation of the running step (called
// from deferred operations; drained at the barrier).
func (r *run) addNote(note string) {
	r.childMu.Lock()
	r.notes = append(r.notes, note)
	r.childMu.Unlock()
}

// takeNotes returns and clears the queued notes.
func (r *run) takeNotes() []string {
	r.childMu.Lock()
	defer r.childMu.Unlock()
	n := r.notes
	r.notes = nil
	return n
}

// plainSubCall answers rlm_query at the depth limit with one sub-model call
// over the query and the variables' text; with declared outputs it asks
// for them as a JSON object and checks the reply against them.
func (r *run) plainSubCall(ctx context.Context, c *childRun, vars map[string]starlark.Value) (builtins.ChildResult, error) {
	cfg := r.t.cfg
	var b strings.Builder
	b.WriteString(c.req.Query)
	for _, n := range c.names {
		b.WriteString("\n\n--- ")
		b.WriteString(n)
		b.WriteString(" ---\n")
		v, err := unproxy(vars[n])
		if err != nil {
			return builtins.ChildResult{}, fmt.Errorf("rlm_query: variable %s: %w", n, err)
		}
		if s, ok := v.(starlark.String); ok {
			b.WriteString(string(s))
		} else {
			b.WriteString(strOf(v))
		}
	}
	declared := c.req.Outputs != ""
	if declared {
		fmt.Fprintf(&b, "\n\nReply with only a JSON object with these fields: %s", c.schema)
	}
	prompt := b.String()
	if window, ok := llm.ContextWindow(cfg.SubModel); ok {
		n, _ := llm.TokenizerForModel(cfg.SubModel).CountLarge(prompt)
		if n > window-1024 {
			return builtins.ChildResult{}, fmt.Errorf(
				"%w: rlm_query is a plain sub-model call at this depth (max depth %d) and its prompt (~%d tokens) exceeds %s's context window (%d); pass a smaller slice, or split with chunk() and use llm_query_batched",
				builtins.ErrDepthLimit,
				cfg.MaxDepth,
				n,
				cfg.SubModel,
				window,
			)
		}
	}
	req := llm.Request{Model: cfg.SubModel, Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}}
	resp, err := subCounter{r.t, r.id, c.node}.Chat(ctx, req)
	if err != nil {
		return builtins.ChildResult{}, err
	}
	res := builtins.ChildResult{Answer: resp.Content, StopReason: string(StopSubmit)}
	if !declared {
		return res, nil
	}
	out, err := jsonOutputs(resp.Content, c.schema)
	if err != nil {
		return builtins.ChildResult{}, fmt.Errorf("rlm_query: the sub-model's reply is not the declared outputs: %w", err)
	}
	if res.Outputs, err = sandbox.FromGo(out); err != nil {
		return builtins.ChildResult{}, fmt.Errorf("rlm_query: %w", err)
	}
	res.Answer = answerText(out)
	return res, nil
}

// jsonOutputs reads the JSON object of a reply (in a fence or not) and
// checks it against schema.
func jsonOutputs(reply string, schema Schema) (*rlmctx.Dict, error) {
	i, j := strings.IndexByte(reply, '{'), strings.LastIndexByte(reply, '}')
	if i < 0 || j < i {
		return nil, fmt.Errorf("no JSON object in %s", quoteShort(reply, 80))
	}
	v, err := pyjson.Decode([]byte(reply[i : j+1]))
	if err != nil {
		return nil, err
	}
	d, ok := v.(*rlmctx.Dict)
	if !ok {
		return nil, fmt.Errorf("no JSON object in %s", quoteShort(reply, 80))
	}
	if err := schema.Validate(d); err != nil {
		msg, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), ErrInvalidSubmit.Error()+": "), "; call ")
		return nil, errors.New(msg)
	}
	return d, nil
}

// starSummary describes a Starlark value for a child's meta section: type,
// size and a short preview, never the content.
func starSummary(v starlark.Value) string {
	switch x := v.(type) {
	case starlark.String:
		s := string(x)
		return fmt.Sprintf("str, %d chars, %d lines; starts %s", utf8.RuneCountInString(s), pylines.Count(s), quoteShort(s[:runeFloor(s, 200)], 80))
	case starlark.Indexable:
		prev := ""
		if x.Len() > 0 {
			prev = "; first item " + quoteShort(previewRepr(x.Index(0)), 80)
		}
		return fmt.Sprintf("%s of %d items%s", x.Type(), x.Len(), prev)
	case starlark.IterableMapping:
		// The first keys only: no copy of the mapping's items.
		keys := make([]string, 0, 9)
		it := x.Iterate()
		defer it.Done()
		var k starlark.Value
		for it.Next(&k) {
			if len(keys) == 8 {
				keys = append(keys, "…")
				break
			}
			keys = append(keys, reprOf(k))
		}
		return fmt.Sprintf("dict of %d keys: %s", starlark.Len(x), quoteShort(strings.Join(keys, ", "), 100))
	}
	return fmt.Sprintf("%s %s", v.Type(), quoteShort(reprOf(v), 80))
}

// previewRepr is the repr of v, of a prefix only for a long string, so that
// a summary never copies a large value.
func previewRepr(v starlark.Value) string {
	if s, ok := v.(starlark.String); ok && len(s) > 200 {
		return reprOf(s[:runeFloor(string(s), 200)]) + "…"
	}
	return reprOf(v)
}

// runeFloor is the largest index <= i (and <= len(s)) at a rune boundary.
func runeFloor(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

func valueSize(v starlark.Value) int64 {
	if s, ok := v.(starlark.String); ok {
		return int64(len(s))
	}
	g, err := sandbox.ToGo(v)
	if err != nil {
		return 0
	}
	return pyjson.Size(g)
}
