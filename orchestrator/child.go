package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
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

// RunChild implements builtins.ChildRunner for rlm_query. Below the depth
// limit it runs a child RLM whose variables are the given values (shared,
// not copied); at the limit it makes a plain sub-model call. The child uses
// the tree's model, ledger and trajectory, so budgets hold across the tree.
func (r *run) RunChild(ctx context.Context, query string, vars map[string]starlark.Value) (string, error) {
	t := r.t
	cfg := t.cfg
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	step := r.curStep
	id := r.childID(step, query, names)
	t.pending.Add(1)
	defer t.pending.Add(-1)
	t.addMetrics(func(m *Metrics) { m.RLMQueries++ })
	if r.depth+1 >= cfg.MaxDepth {
		t.traj.emit(EventChildStart, r.id, step, childStartData{Child: id, Query: query, Vars: names, Depth: r.depth + 1, Mode: "llm"})
		ans, err := r.plainSubCall(ctx, query, names, vars)
		ce := childEndData{Child: id, Answer: ans}
		if err != nil {
			ce.Error = err.Error()
		}
		t.traj.emit(EventChildEnd, r.id, step, ce)
		return ans, err
	}
	for _, n := range names {
		if err := CheckVarName(n); err != nil {
			return "", fmt.Errorf("rlm_query: variable %s: %w", n, err)
		}
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
		id: id, parent: r.id, depth: r.depth + 1, query: query, schema: DefaultSchema,
		maxIter: cfg.ChildMaxIterations, vars: cvars, summaries: strings.Join(sums, "\n"), infos: infos,
	})
	if err != nil {
		t.traj.emit(EventChildEnd, r.id, step, childEndData{Child: id, Error: err.Error()})
		endRun(RunEnd{Err: err})
		return "", err
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
		return "", fmt.Errorf("rlm_query: child run stopped (%s) without an answer: %w", res.StopReason, res.Err)
	}
	return res.Answer, nil
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
// over the query and the variables' text.
func (r *run) plainSubCall(ctx context.Context, query string, names []string, vars map[string]starlark.Value) (string, error) {
	cfg := r.t.cfg
	var b strings.Builder
	b.WriteString(query)
	for _, n := range names {
		b.WriteString("\n\n--- ")
		b.WriteString(n)
		b.WriteString(" ---\n")
		v, err := unproxy(vars[n])
		if err != nil {
			return "", fmt.Errorf("rlm_query: variable %s: %w", n, err)
		}
		if s, ok := v.(starlark.String); ok {
			b.WriteString(string(s))
		} else {
			b.WriteString(strOf(v))
		}
	}
	prompt := b.String()
	if window, ok := llm.ContextWindow(cfg.SubModel); ok {
		n, _ := llm.TokenizerForModel(cfg.SubModel).CountLarge(prompt)
		if n > window-1024 {
			return "", fmt.Errorf(
				"%w: rlm_query is a plain sub-model call at this depth (max depth %d) and its prompt (~%d tokens) exceeds %s's context window (%d); pass a smaller slice, or split with chunk() and use llm_query_batched",
				builtins.ErrDepthLimit,
				cfg.MaxDepth,
				n,
				cfg.SubModel,
				window,
			)
		}
	}
	resp, err := r.subModel().Chat(ctx, llm.Request{Model: cfg.SubModel, Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}})
	if err != nil {
		return "", err
	}
	return resp.Content, nil
}

// starSummary describes a Starlark value for a child's meta section: type,
// size and a short preview, never the content.
func starSummary(v starlark.Value) string {
	switch x := v.(type) {
	case starlark.String:
		s := string(x)
		return fmt.Sprintf("str, %d chars, %d lines; starts %s", utf8.RuneCountInString(s), rlmctx.LineCount(s), quoteShort(s[:runeFloor(s, 200)], 80))
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
