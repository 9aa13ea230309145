package deferred

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// Config configures a [Group]. The zero value is ready to use.
type Config struct {
	// MaxConcurrency caps the operations of this group running at once
	// (0 = no cap of its own; the LLM client's limiter still applies).
	MaxConcurrency int
	// Now is the clock [Group.Waited] is measured with (nil: time.Now).
	Now func() time.Time
}

// Group tracks the deferred operations of one run. It is safe for
// concurrent use.
type Group struct {
	sem chan struct{} // nil when uncapped
	now func() time.Time

	// waited is the time, in nanoseconds, callers spent blocked in
	// Future.Wait on this group's futures.
	waited atomic.Int64

	// base is canceled by Close or by a canceled Wait; every operation's
	// context derives from it.
	base   context.Context
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	memo     map[string]*Future
	pending  map[*Future]struct{}
	failures []*Future // failed since the last Failures call
	started  int
	memoHits int
	onWait   []func()
}

// New returns an empty Group.
func New(cfg Config) *Group {
	g := &Group{
		memo:    map[string]*Future{},
		pending: map[*Future]struct{}{},
	}
	if cfg.MaxConcurrency > 0 {
		g.sem = make(chan struct{}, cfg.MaxConcurrency)
	}
	g.now = cfg.Now
	if g.now == nil {
		g.now = time.Now
	}
	g.base, g.cancel = context.WithCancelCause(context.Background())
	return g
}

// Option is a per-call knob of [Group.Go].
type Option func(*spawn)

type spawn struct{ label, key string }

// Label names the operation (e.g. "llm_query") in its rendering and errors.
func Label(name string) Option { return func(s *spawn) { s.label = name } }

type labelKey struct{}

// LabelOf is the [Label] of the operation running with ctx ("" outside
// one, or for an unlabelled one): e.g. which helper a model call made from
// a deferred operation serves.
func LabelOf(ctx context.Context) string {
	s, _ := ctx.Value(labelKey{}).(string)
	return s
}

// Key memoizes the operation by key (a content hash): if an operation with
// the same key was already started in the group and has not failed, its
// future is returned and fn is not called.
func Key(key string) Option { return func(s *spawn) { s.key = key } }

// Go starts fn on a new goroutine and returns its future, and whether fn
// was started: false when the future was memoized (see [Key]) or the group
// is closed, so a caller can release resources it reserved for fn.
//
// fn runs with ctx's values, and its label ([LabelOf]). An operation outlives the step that started
// it: a ctx canceled with plain context.Canceled (a sandbox step's context
// when the step ends normally) leaves it running until the barrier. A ctx
// canceled with any other cause — the limit that stopped a sandbox step
// (time, memory, steps), or a deadline — cancels the operation with that
// cause, so a timed-out step does not leave its sub-calls running. So do
// [Group.Close] and a canceled [Group.Wait].
func (g *Group) Go(ctx context.Context, fn func(ctx context.Context) (starlark.Value, error), opts ...Option) (*Future, bool) {
	var sp spawn
	for _, o := range opts {
		o(&sp)
	}
	label, key := sp.label, sp.key
	if err := context.Cause(g.base); err != nil {
		return Failed(label, err), false
	}
	g.mu.Lock()
	if key != "" {
		if f, ok := g.memo[key]; ok {
			g.memoHits++
			g.mu.Unlock()
			return f, false
		}
	}
	f := &Future{label: label, key: key, done: make(chan struct{}), g: g}
	if key != "" {
		g.memo[key] = f
	}
	g.pending[f] = struct{}{}
	g.started++
	g.mu.Unlock()

	opCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	if label != "" {
		opCtx = context.WithValue(opCtx, labelKey{}, label)
	}
	stop := context.AfterFunc(g.base, func() { cancel(context.Cause(g.base)) })
	stopStep := context.AfterFunc(ctx, func() {
		if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
			cancel(cause) // the step was stopped, not finished
		}
	})
	go func() {
		defer cancel(nil)
		defer stop()
		defer stopStep()
		v, err := g.run(opCtx, fn)
		g.settle(f, v, err)
	}()
	return f, true
}

// Resolved returns a future that is already done with v, for helpers whose
// offline fallback computes the result synchronously.
func Resolved(label string, v starlark.Value) *Future {
	f := &Future{label: label, done: make(chan struct{}), val: v}
	close(f.done)
	return f
}

// Failed returns a future that is already done with err.
func Failed(label string, err error) *Future {
	f := &Future{label: label, done: make(chan struct{}), err: err}
	close(f.done)
	return f
}

func (g *Group) run(ctx context.Context, fn func(ctx context.Context) (starlark.Value, error)) (v starlark.Value, err error) {
	if g.sem != nil {
		select {
		case g.sem <- struct{}{}:
			defer func() { <-g.sem }()
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("%w: %v", ErrPanic, r)
		}
	}()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	if err := context.Cause(g.base); err != nil {
		return nil, err
	}
	v, err = fn(ctx)
	if err == nil && v == nil {
		v = starlark.None
	}
	return v, err
}

func (g *Group) settle(f *Future, v starlark.Value, err error) {
	f.val, f.err = v, err
	if v != nil {
		v.Freeze() // shared by every holder of a memoized future
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.pending, f)
	if err != nil {
		if f.key != "" && g.memo[f.key] == f {
			delete(g.memo, f.key) // a failed operation may be retried
		}
		g.failures = append(g.failures, f)
	}
	// Done before it leaves the pending set as seen by Wait: a Wait that
	// finds nothing pending returns with every future done (closed after
	// the unlock, a future could still read as not done then).
	close(f.done)
}

// Waited is the time callers spent blocked waiting for the group's
// futures to settle (reading a pending future's value, not the barrier
// [Group.Wait]), measured with [Config.Now]: the time the code of a step
// waited instead of running.
func (g *Group) Waited() time.Duration { return time.Duration(g.waited.Load()) }

// Pending is the number of operations not yet settled.
func (g *Group) Pending() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.pending)
}

// MemoHits is the number of calls answered by the future of an identical
// operation started earlier (see [Key]) instead of a new operation.
func (g *Group) MemoHits() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.memoHits
}

// Started is the number of operations started (memoized calls excluded).
func (g *Group) Started() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.started
}

// Wait is the barrier between steps: it returns when every operation
// started so far has settled. A failed operation is not an error of Wait
// (see [Group.Failures]). If ctx is canceled first, Wait cancels all pending
// operations, waits for them to return and reports ctx's error.
func (g *Group) Wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		var f *Future
		for p := range g.pending {
			f = p
			break
		}
		hooks := g.onWait
		g.mu.Unlock()
		if f == nil {
			for _, h := range hooks {
				h()
			}
			return nil
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			err := context.Cause(ctx)
			g.cancel(err)
			g.drain()
			return err
		}
	}
}

// OnWait registers fn to run at the end of every Wait that settles all
// operations (the barrier between steps), e.g. to refresh host state that
// may only be read between steps.
func (g *Group) OnWait(fn func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.onWait = append(g.onWait, fn)
}

// Close cancels every pending operation and waits for them to return.
// Operations started after Close fail at once with ErrClosed.
func (g *Group) Close() {
	g.cancel(ErrClosed)
	g.drain()
}

func (g *Group) drain() {
	for {
		g.mu.Lock()
		fs := make([]*Future, 0, len(g.pending))
		for p := range g.pending {
			fs = append(fs, p)
		}
		g.mu.Unlock()
		if len(fs) == 0 {
			return
		}
		for _, f := range fs {
			<-f.done
		}
	}
}

// Failures returns the operations that failed since the previous call, in
// the order they settled, for the orchestrator to report to the model.
func (g *Group) Failures() []*Future {
	g.mu.Lock()
	defer g.mu.Unlock()
	fs := g.failures
	g.failures = nil
	return fs
}
