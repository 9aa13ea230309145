// Package repl assembles a REPL with the helpers: a sandbox session, the
// helpers' host bound to it, a deferred group whose futures are resolved
// at the barrier between steps, and the variables turned into interpreter
// values. It is the one place that builds a REPL: rlm exec and rlm repl
// use it directly, and rlm run, rlm serve and rlm bench through the
// orchestrator's executor.
package repl

import (
	"context"
	"fmt"
	"time"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/sandbox"
)

// Var is one variable of a REPL: a context variable, a context value (the
// Go kinds of rlmctx) or a starlark.Value shared by reference with a
// parent RLM.
type Var struct {
	Name string
	// Value is the value; nil when Context is set.
	Value any
	// Context is a context variable, whose Go value New releases as it
	// decodes a JSON document straight into the interpreter (see
	// [InterpVars]); read it with [Var.GoValue].
	Context *rlmctx.Variable
}

// GoValue is the variable's value: Value, or the context variable's Go
// value (decoded again from its document when released).
func (v Var) GoValue() any {
	if v.Context != nil {
		return v.Context.GoValue()
	}
	return v.Value
}

// Config describes a REPL.
type Config struct {
	// Host serves the helpers; New sets its Session, and its Group when
	// nil. Required.
	Host *builtins.Host
	// Vars are the variables, set as globals in order.
	Vars []Var
	// Limits bound each step (zero fields: the sandbox's defaults).
	Limits sandbox.Limits
	// Seed seeds the session's random module (sandbox.Config.Seed).
	Seed string
	// Clock is the time the session's clock starts at (zero: now).
	Clock time.Time
}

// REPL is a sandbox session with the helpers bound and the variables set.
type REPL struct {
	Session *sandbox.Session
	Host    *builtins.Host
	// Group holds the futures the helpers start; Settle resolves them.
	Group *deferred.Group
}

// New builds the REPL of cfg. The variables' interpreter values are made
// before the session, whose memory base then counts them; the Go values
// of context variables are released as they are decoded.
func New(cfg Config) (*REPL, error) {
	host := cfg.Host
	if host.Group == nil {
		host.Group = deferred.New(deferred.Config{})
	}
	var ctxVars []*rlmctx.Variable
	for _, v := range cfg.Vars {
		if v.Context != nil {
			ctxVars = append(ctxVars, v.Context)
		}
	}
	ctxVals, err := InterpVars(ctxVars)
	if err != nil {
		host.Group.Close()
		return nil, err
	}
	names := make([]string, len(cfg.Vars))
	vals := make([]starlark.Value, len(cfg.Vars))
	for i, v := range cfg.Vars {
		names[i] = v.Name
		sv, ok := v.Value.(starlark.Value)
		switch {
		case v.Context != nil:
			sv, ctxVals = ctxVals[0], ctxVals[1:]
		case !ok:
			if sv, err = sandbox.FromGo(v.Value); err != nil {
				host.Group.Close()
				return nil, fmt.Errorf("variable %s: %w", v.Name, err)
			}
		}
		vals[i] = sv
	}
	// Only names and values from here on: once the caller drops the
	// variables too, their Go values and a JSON variable's document (kept
	// for a summary) are garbage, which the session's memory base need not
	// count and the collector can reuse the pages of.
	cfg.Vars, ctxVars = nil, nil
	sess := sandbox.New(sandbox.Config{
		Limits:      cfg.Limits,
		Predeclared: builtins.Predeclared(host),
		Doc:         builtins.HelperDoc,
		ThreadHook:  func(th *starlark.Thread) { builtins.Attach(th, host) },
		Seed:        cfg.Seed,
		Clock:       cfg.Clock,
	})
	for i, name := range names {
		sess.SetGlobal(name, vals[i])
	}
	host.Session = sess
	return &REPL{Session: sess, Host: host, Group: host.Group}, nil
}

// Exec runs one step of code. It does not wait for the futures the step
// started: Settle does (the barrier).
func (r *REPL) Exec(ctx context.Context, code string) (*sandbox.Result, error) {
	return r.Session.Exec(ctx, code)
}

// Settle waits until every future started so far is resolved, or ctx ends.
func (r *REPL) Settle(ctx context.Context) error { return r.Group.Wait(ctx) }

// Close cancels the futures still pending.
func (r *REPL) Close() { r.Group.Close() }
