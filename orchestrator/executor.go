package orchestrator

import (
	"context"
	"errors"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/repl"
	"github.com/rlmhq/rlm/sandbox"
)

// defaultHelperDocs is the helper list of the system prompt.
func defaultHelperDocs(o builtins.HelpOptions) string { return builtins.PromptHelpFor(o) }

func unproxy(v starlark.Value) (starlark.Value, error) { return sandbox.Unproxy(nil, v) }
func strOf(v starlark.Value) string                    { return sandbox.Str(v) }
func reprOf(v starlark.Value) string                   { return sandbox.Repr(v) }

// sandboxExecutor is the Executor over a sandbox.Session with the builtins
// bound and a deferred.Group for the barrier.
type sandboxExecutor struct {
	sess    *sandbox.Session
	host    *builtins.Host
	group   *deferred.Group
	outputs *starlark.Dict
	// started and memoHits are the group's counts at the last barrier.
	started, memoHits int
}

// SandboxExecutors is the default [ExecutorFactory]: a sandbox session
// with the helpers for each RLM. Wrap it to observe the steps of a run
// (e.g. time them) without changing them.
func SandboxExecutors(ctx context.Context, spec ExecSpec) (Executor, error) {
	return defaultExecutors(ctx, spec)
}

// defaultExecutors builds a REPL with the helpers for one RLM.
func defaultExecutors(ctx context.Context, spec ExecSpec) (Executor, error) {
	host := &builtins.Host{
		Model:           spec.Model,
		Ledger:          spec.Ledger,
		SubModel:        spec.SubModel,
		Embedder:        spec.Embedder,
		Context:         ctx,
		MaxOutputTokens: spec.SubMaxOutputTokens,
		TraceOps:        spec.TraceOps,
		TraceFull:       spec.TraceFull,
		Store:           spec.Store,
	}
	if spec.Child != nil {
		host.Child = spec.Child
	}
	host.Group = deferred.New(deferred.Config{Now: spec.Now})
	r, err := repl.New(repl.Config{Host: host, Vars: spec.Vars, Limits: spec.Limits, Seed: spec.RunID, Clock: spec.Clock})
	if err != nil {
		return nil, err
	}
	ex := &sandboxExecutor{sess: r.Session, host: host, group: r.Group, outputs: starlark.NewDict(8)}
	r.Session.SetGlobal(outputsVar, ex.outputs)
	return ex, nil
}

func (e *sandboxExecutor) Exec(ctx context.Context, code string) (*ExecResult, error) {
	waited := e.group.Waited()
	res, err := e.sess.Exec(ctx, code)
	out := &ExecResult{Output: res.Output, Excerpt: res.Excerpt, Truncated: res.Truncated, Waited: e.group.Waited() - waited}
	if err == nil {
		return out, nil
	}
	var sub *builtins.SubmitError
	if errors.As(err, &sub) {
		out.Submitted = true
		out.Outputs = sub.Outputs
		out.Alias = sub.Alias
		return out, nil
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	out.Err = err
	out.ErrOrigin = OriginEngine
	if sandbox.RaisedByCode(err) {
		out.ErrOrigin = OriginRaise
	}
	var se *sandbox.ScriptError
	if errors.As(err, &se) && se.Traceback != "" {
		out.ErrText = se.Traceback
	} else {
		out.ErrText = err.Error()
	}
	return out, nil
}

func (e *sandboxExecutor) Settle(ctx context.Context) (DeferredReport, error) {
	err := e.group.Wait(ctx)
	n := e.group.Started()
	hits := e.group.MemoHits()
	rep := DeferredReport{Started: n - e.started, Memoized: hits - e.memoHits, Ops: e.host.TakeOps()}
	e.started, e.memoHits = n, hits
	for _, f := range e.group.Failures() {
		op := DeferredOp{Key: f.Key(), Kind: f.Label()}
		if ferr := f.Err(); ferr != nil {
			op.Error = ferr.Error()
		}
		rep.Failed = append(rep.Failed, op)
	}
	return rep, err
}

func (e *sandboxExecutor) SetOutput(step int, output string) {
	_ = e.outputs.SetKey(starlark.MakeInt(step), starlark.String(output))
	if v, ok := e.sess.Global(outputsVar); !ok || v != starlark.Value(e.outputs) {
		e.sess.SetGlobal(outputsVar, e.outputs)
	}
}

func (e *sandboxExecutor) Globals() []string { return e.sess.UserGlobals() }

func (e *sandboxExecutor) Lookup(name string) (string, bool) {
	v, ok := e.sess.Global(name)
	if !ok || v == starlark.None {
		return "", false
	}
	if s, ok := v.(starlark.String); ok {
		return string(s), true
	}
	return sandbox.Str(v), true
}

func (e *sandboxExecutor) Close() error {
	e.group.Close()
	return nil
}
