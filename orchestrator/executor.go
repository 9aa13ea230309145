package orchestrator

import (
	"context"
	"errors"
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/deferred"
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

// defaultExecutors builds a sandbox session with the helpers for one RLM.
func defaultExecutors(ctx context.Context, spec ExecSpec) (Executor, error) {
	group := deferred.New(deferred.Config{})
	host := &builtins.Host{
		Model:           spec.Model,
		Ledger:          spec.Ledger,
		SubModel:        spec.SubModel,
		Embedder:        spec.Embedder,
		Group:           group,
		Context:         ctx,
		MaxOutputTokens: spec.SubMaxOutputTokens,
		TraceOps:        spec.TraceOps,
		TraceFull:       spec.TraceFull,
		Store:           spec.Store,
	}
	if spec.Child != nil {
		host.Child = spec.Child
	}
	var ctxVars []*rlmctx.Variable
	for _, v := range spec.Vars {
		if v.Context != nil {
			ctxVars = append(ctxVars, v.Context)
		}
	}
	// The variables' values before the session, whose memory base (the
	// live heap) then counts them, as it counted the Go values before.
	ctxVals, err := InterpVars(ctxVars)
	if err != nil {
		group.Close()
		return nil, err
	}
	sess := sandbox.New(sandbox.Config{
		Limits:      spec.Limits,
		Predeclared: builtins.Predeclared(host),
		ThreadHook:  func(th *starlark.Thread) { builtins.Attach(th, host) },
		Seed:        spec.RunID,
		Clock:       spec.Clock,
	})
	for _, v := range spec.Vars {
		sv, ok := v.Value.(starlark.Value)
		switch {
		case v.Context != nil:
			sv, ctxVals = ctxVals[0], ctxVals[1:]
		case !ok:
			var err error
			sv, err = sandbox.FromGo(v.Value)
			if err != nil {
				group.Close()
				return nil, fmt.Errorf("variable %s: %w", v.Name, err)
			}
		}
		sess.SetGlobal(v.Name, sv)
	}
	host.Session = sess
	ex := &sandboxExecutor{sess: sess, host: host, group: group, outputs: starlark.NewDict(8)}
	sess.SetGlobal(outputsVar, ex.outputs)
	return ex, nil
}

func (e *sandboxExecutor) Exec(ctx context.Context, code string) (*ExecResult, error) {
	res, err := e.sess.Exec(ctx, code)
	out := &ExecResult{Output: res.Output, Excerpt: res.Excerpt, Truncated: res.Truncated}
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
