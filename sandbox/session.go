package sandbox

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/resolve"
	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/internal/textdist"
	"github.com/rlmhq/rlm/sandbox/internal/py"
	"github.com/rlmhq/rlm/sandbox/internal/pyfront"
)

// Result is the outcome of one [Session.Exec] call. It is always non-nil.
type Result struct {
	// Output is the full captured output (up to Limits.MaxOutputBytes).
	Output string
	// Excerpt is what the model sees: the output, or its head and tail with
	// a line saying how much was cut.
	Excerpt string
	// Truncated reports whether Excerpt is shorter than Output (cut to a
	// head and tail, or runs of identical lines collapsed).
	Truncated bool
	// Steps is the number of Starlark execution steps used.
	Steps uint64
	// Duration is the wall time of the step.
	Duration time.Duration
}

// Session is a Python-style REPL whose top-level variables persist across
// Exec calls. Exec calls are serialized.
type Session struct {
	cfg Config

	mu      sync.Mutex
	globals starlark.StringDict
	// unsystem: names SetGlobal made the host's variables, no longer
	// predeclared values hidden from UserGlobals (see systemValue).
	unsystem map[string]bool
	order    []string // user globals in definition order
	known    map[string]bool
	defs     map[string]defRecord         // top-level defs of earlier chunks (see rebind.go)
	steps    int                          // number of Exec calls so far
	sources  map[string]string            // code of each step that defined functions, by file name
	genexprs map[string][]pyfront.GenExpr // each step's inline any/all generators, by file name
	memBase  int64                        // heap in use when the session was created
	state    *py.State                    // what the value layer and the modules keep of the session
}

// New returns a session with the given configuration.
func New(cfg Config) *Session {
	cfg = cfg.withDefaults()
	builtins := py.PyBuiltins()
	n := len(builtins) + len(cfg.Predeclared) + 1
	s := &Session{
		cfg: cfg,
		// Sized for the predeclared names and some of the code's own:
		// growing it was a third of the cost of a new session.
		globals:  make(starlark.StringDict, n+64),
		known:    map[string]bool{},
		defs:     map[string]defRecord{},
		sources:  map[string]string{},
		genexprs: map[string][]pyfront.GenExpr{},
		memBase:  sessionBase(cfg.Limits.MaxSessionMemory, cfg.Limits.MaxMemory),
		state: &py.State{
			Clock:       py.NewSessionClock(cfg.Clock),
			Seed:        cfg.Seed,
			Doc:         cfg.Doc,
			Predeclared: cfg.Predeclared,
		},
	}
	for name, v := range builtins {
		s.globals[name] = v
	}
	s.globals["_py_try"] = pyTryBuiltin
	for name, v := range cfg.Predeclared {
		s.globals[name] = v
	}
	return s
}

// pyTryBuiltin is _py_try, shared by every session (it keeps no state).
var pyTryBuiltin = NewBuiltin("_py_try", pyTry)

// systemValue returns the predeclared value of name (the host's, else a
// Python builtin), unless SetGlobal made name a variable of the host's.
// Code's globals bound to it are the predeclared names themselves, hidden
// from UserGlobals.
func (s *Session) systemValue(name string) (starlark.Value, bool) {
	if s.unsystem[name] {
		return nil, false
	}
	if v, ok := s.cfg.Predeclared[name]; ok {
		return v, true
	}
	if name == "_py_try" {
		return pyTryBuiltin, true
	}
	v, ok := py.PyBuiltins()[name]
	return v, ok
}

// Config returns the session's effective configuration (defaults applied).
func (s *Session) Config() Config { return s.cfg }

// SetGlobal binds name to v as a user-visible global.
func (s *Session) SetGlobal(name string, v starlark.Value) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.globals[name] = v
	if s.unsystem == nil {
		s.unsystem = map[string]bool{}
	}
	s.unsystem[name] = true
	s.noteName(name)
}

// Global returns the value bound to name.
func (s *Session) Global(name string) (starlark.Value, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.globals[name]
	return v, ok
}

// UserGlobals returns the user-visible global names (variables set by the
// host or defined by code), in definition order.
func (s *Session) UserGlobals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, name := range s.order {
		v, ok := s.globals[name]
		if !ok {
			continue
		}
		if sys, isSys := s.systemValue(name); isSys && sys == v {
			continue
		}
		names = append(names, name)
	}
	return names
}

// restorePredeclared rebinds the host's predeclared names (the helpers)
// that code rebound or deleted in an earlier step, so that `SUBMIT = None`
// breaks only the step that ran it. A name the host itself rebound with
// SetGlobal stays as the host set it.
func (s *Session) restorePredeclared() {
	for name, v := range s.cfg.Predeclared {
		if sys, ok := s.systemValue(name); ok && sys == v && s.globals[name] != v {
			s.globals[name] = v
		}
	}
}

func (s *Session) noteName(name string) {
	if strings.HasPrefix(name, "_py_") {
		return
	}
	if !s.known[name] {
		s.known[name] = true
		s.order = append(s.order, name)
	}
}

// Exec runs code as one REPL step. The returned Result is always non-nil;
// the error, if any, is a *ScriptError.
func (s *Session) Exec(ctx context.Context, code string) (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()

	start := time.Now()
	res := &Result{}
	stepCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	st := newStep(s, stepCtx)
	st.cancel = cancel
	st.register()
	defer st.unregister()
	defer func() {
		res.Duration = time.Since(start)
		res.Output = st.out.String()
		res.Excerpt, res.Truncated = excerpt(res.Output, s.cfg.Limits.ObservationTokens)
	}()

	s.restorePredeclared()
	s.steps++
	file := stepFile(s.steps)
	prog, err := compileProgram(file, code, !s.cfg.NoNonlocal)
	if err != nil {
		return res, err
	}
	st.file = file
	s.sources[file] = code
	if len(prog.GenExprs) > 0 {
		s.genexprs[file] = prog.GenExprs
	}

	thread := st.newThread()
	s.state.Current = thread
	defer func() { s.state.Current = nil }()
	stop := st.watch(thread)
	st.prog, st.code = prog, code
	err = s.run(st, thread, prog)
	stop()
	res.Steps = thread.ExecutionSteps()
	thread.ReleaseValueStack() // the step's calls have all returned
	if err != nil {
		se := st.scriptError(err, code)
		s.suggestName(se)
		return res, se
	}
	return res, nil
}

// suggestName adds CPython's "Did you mean" hint to a NameError.
func (s *Session) suggestName(se *ScriptError) {
	if se.Kind != "NameError" || strings.Contains(se.Msg, "Did you mean") {
		return
	}
	name, ok := strings.CutPrefix(se.Msg, "name '")
	if !ok {
		return
	}
	name, _, _ = strings.Cut(name, "'")
	best, bestD := "", 3
	if len(name) <= 3 {
		bestD = 2
	}
	for k := range s.globals {
		if strings.HasPrefix(k, "_py_") || k == name {
			continue
		}
		if d := editDistance(name, k); d < bestD || d == bestD && best != "" && k < best {
			if d < bestD || k < best {
				best, bestD = k, d
			}
		}
	}
	if best == "" {
		return
	}
	hint := fmt.Sprintf(". Did you mean: '%s'?", best)
	old := se.Kind + ": " + se.Msg
	se.Msg += hint
	se.Traceback = strings.TrimSuffix(se.Traceback, old) + se.Kind + ": " + se.Msg
}

// editDistance is the Levenshtein distance between a and b, or 99 for
// names too long to be worth comparing.
func editDistance(a, b string) int {
	if len(a) > 40 || len(b) > 40 {
		return 99
	}
	return textdist.Levenshtein(a, b)
}

// run executes the program's chunks on thread.
func (s *Session) run(st *step, thread *starlark.Thread, prog *pyfront.Program) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", py.ErrInternal, r)
		}
	}()
	return s.runChunks(st, thread, prog.Chunks)
}

func (s *Session) runChunks(st *step, thread *starlark.Thread, chunks []pyfront.Chunk) error {
	for _, c := range chunks {
		var err error
		if c.Try != nil {
			err = s.runTry(st, thread, c.Try)
		} else if c.File != nil {
			err = s.execFile(thread, c.File)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// runTry runs a module-level try statement with Python semantics.
func (s *Session) runTry(st *step, thread *starlark.Thread, t *pyfront.Try) error {
	err := s.runChunks(st, thread, t.Body)
	if err != nil && st.catchable(err) {
		se := st.scriptError(err, "")
		exc := py.ExceptionFromError(se.Kind, se.Msg, se.Err, se)
		for _, h := range t.Handlers {
			if !py.HandlerMatches(h.Types, exc.Typ, func(name string) *py.TypeObj { return s.lookupClass(thread, name) }) {
				continue
			}
			if h.Name != "" {
				s.globals[h.Name] = exc.Value()
				s.noteName(h.Name)
			}
			prev := st.Handling
			st.Handling = exc
			err = s.runChunks(st, thread, h.Body)
			st.Handling = prev
			break
		}
	} else if err == nil {
		err = s.runChunks(st, thread, t.Else)
	}
	if len(t.Finally) > 0 {
		if ferr := s.runChunks(st, thread, t.Finally); ferr != nil {
			return ferr
		}
	}
	return err
}

// lookupClass returns the class a handler names when the code defined it
// (in an earlier chunk, or in the running one as seen from thread) or
// bound a module's exception class to that name (from decimal import
// DecimalException).
func (s *Session) lookupClass(thread *starlark.Thread, name string) *py.TypeObj {
	for i := thread.CallStackDepth() - 1; i >= 0; i-- {
		if fn, ok := thread.DebugFrame(i).Callable().(*starlark.Function); ok {
			if t, ok := fn.Globals()[name].(*py.TypeObj); ok && (t.Cls != nil || py.ExcTypes[t.PyName] == t) {
				return t
			}
			break
		}
	}
	if t, ok := s.globals[name].(*py.TypeObj); ok && (t.Cls != nil || py.ExcTypes[t.PyName] == t) {
		return t
	}
	return nil
}

// Uncatchable is implemented by errors that Python code must not be able
// to catch with try/except (e.g. the host's SUBMIT signal). Limits and
// cancellation are never catchable either.
type Uncatchable interface {
	Uncatchable() bool
}

func (st *step) catchable(err error) bool {
	if st.limitErr() != nil {
		return false
	}
	if errors.Is(err, py.ErrInternal) {
		return false
	}
	for e := err; e != nil; {
		if u, ok := e.(Uncatchable); ok && u.Uncatchable() {
			return false
		}
		switch x := e.(type) {
		case interface{ Unwrap() error }:
			e = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				if !st.catchable(inner) {
					return false
				}
			}
			return true
		default:
			e = nil
		}
	}
	return true
}

// execFile runs one chunk. Names the chunk uses but nothing defines are
// bound to empty global slots first, so that, as in Python, using one
// raises NameError when (and only if) it is evaluated: statements before
// it run, and `try: x` / `except NameError:` works.
func (s *Session) execFile(thread *starlark.Thread, f *syntax.File) error {
	err := s.execChunk(thread, f)
	var rerr resolve.ErrorList
	if err == nil || !errors.As(err, &rerr) {
		return err
	}
	var missing []string
	for _, e := range rerr {
		name, ok := strings.CutPrefix(e.Msg, "undefined: ")
		if !ok {
			return err
		}
		name, _, _ = strings.Cut(name, " ")
		if _, defined := s.globals[name]; !defined {
			missing = append(missing, name)
		}
	}
	for _, name := range missing {
		s.globals[name] = nil
	}
	err = s.execChunk(thread, f)
	for _, name := range missing {
		if s.globals[name] == nil {
			delete(s.globals, name)
		}
	}
	return err
}

func (s *Session) execChunk(thread *starlark.Thread, f *syntax.File) error {
	f = s.withRedefs(f)
	err := starlark.ExecREPLChunk(f, thread, s.globals)
	s.recordDefs(f)
	if m, ok := f.Module.(*resolve.Module); ok {
		for _, b := range m.Globals {
			if b.First == nil {
				continue
			}
			name := b.First.Name
			if v, ok := s.globals[name]; ok {
				if sys, isSys := s.systemValue(name); !isSys || sys != v {
					s.noteName(name)
				}
			}
		}
	}
	return err
}

// step is the per-Exec state reachable from the thread.
type step struct {
	py.Step // the value layer's part; st is its Host
	sess    *Session
	ctx     context.Context
	out     *outBuf
	limit   atomic.Pointer[error]  // first limit that stopped the step
	reason  atomic.Pointer[string] // its message
	heap    atomic.Int64           // heap in use, sampled by the memory watchdog
	mem     memGauge
	prog    *pyfront.Program
	code    string
	file    string                  // file name of this step's code
	cancel  context.CancelCauseFunc // cancels ctx when a limit stops the step
}

func newStep(s *Session, ctx context.Context) *step {
	h := heapInUse()
	st := &step{
		sess: s,
		ctx:  ctx,
		out:  &outBuf{max: s.cfg.Limits.MaxOutputBytes},
		mem:  memGauge{base: h, sessBase: s.memBase},
	}
	st.Step = py.Step{State: s.state, Host: st, Depth: s.cfg.Limits.MaxRecursion}
	st.heap.Store(h)
	return st
}

// memLimit is the step's memory limit (0: none).
func (st *step) memLimit() int64 { return max(st.sess.cfg.Limits.MaxMemory, 0) }

// sessMemLimit is the session's memory limit across steps (0: none).
func (st *step) sessMemLimit() int64 { return max(st.sess.cfg.Limits.MaxSessionMemory, 0) }

// runningStep returns the step running on thread, or nil.
func runningStep(thread *starlark.Thread) *step {
	if p := py.StepOf(thread); p != nil {
		st, _ := p.Host.(*step)
		return st
	}
	return nil
}

func (st *step) newThread() *starlark.Thread {
	thread := &starlark.Thread{
		Name: "rlm-step",
		Print: func(thread *starlark.Thread, msg string) {
			if err := st.write(msg + "\n"); err != nil {
				st.stop(thread, err, err.Error())
			}
		},
		Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
			return nil, &PyError{
				Kind: "ImportError",
				Msg:  "load() is not available in the sandbox; use import re, json, math or collections",
				Err:  ErrUnsupported,
			}
		},
	}
	py.SetStep(thread, &st.Step)
	starlark.SetGrowCheck(thread, st.GrowCheck)
	if st.ctx != nil {
		SetThreadContext(thread, st.ctx)
	}
	thread.SetMaxCallDepth(st.Depth)
	// The interpreter calls OnMaxSteps every checkEvery steps as well:
	// a checkpoint where a step that shares the heap with others sizes
	// what it holds when its watchdog asks (memshare.go), even if it
	// never reaches a grow check.
	maxSteps := st.sess.cfg.Limits.MaxSteps
	thread.SetMaxExecutionSteps(min(maxSteps, checkEvery))
	thread.OnMaxSteps = func(thread *starlark.Thread) {
		if n := thread.ExecutionSteps(); n < maxSteps {
			if st.mem.ask.Load() {
				st.checkShared(thread)
			}
			thread.SetMaxExecutionSteps(min(maxSteps, n+checkEvery))
			return
		}
		st.stop(
			thread,
			ErrStepLimit,
			fmt.Sprintf(
				"step limit exceeded (%d steps); make the code do less work per step, e.g. process a sample or use search()",
				maxSteps,
			),
		)
	}
	if h := st.sess.cfg.ThreadHook; h != nil {
		h(thread)
	}
	return thread
}

// write appends printed text to the step's output.
func (st *step) write(s string) error {
	return st.out.write(s)
}

// WriteOutput is write for print: past the output limit the step stops
// with ErrOutputLimit.
func (st *step) WriteOutput(s string) error {
	err := st.write(s)
	if err != nil {
		st.limit.CompareAndSwap(nil, &ErrOutputLimit)
	}
	return err
}

// OutputRoom is how many more bytes the step may print.
func (st *step) OutputRoom() int { return st.out.room() }

// stop records the limit that ended the step and cancels the thread
// (and the step's context, so blocking builtins return too).
func (st *step) stop(thread *starlark.Thread, limit error, reason string) {
	if st.limit.CompareAndSwap(nil, &limit) {
		st.reason.Store(&reason)
	}
	thread.Cancel(reason)
	if st.cancel != nil && limit != ErrCanceled {
		st.cancel(limit)
	}
}

// threadContextKey is the thread-local key of [SetThreadContext].
const threadContextKey = "rlm.sandbox.context"

// SetThreadContext sets the context that builtins blocking on thread (for
// example waiting for a model call) wait under, as go.starlark.net's
// lib/time sets a thread's clock with SetNow. The sandbox sets it on each
// step's thread to the step's context; a host running builtins on a thread
// of its own sets it there.
func SetThreadContext(thread *starlark.Thread, ctx context.Context) {
	thread.SetLocal(threadContextKey, ctx)
}

// ThreadContext returns the context set on thread by [SetThreadContext].
// On a sandbox step's thread it is canceled when the caller's context is,
// or when a limit (time, memory, steps) stops the step. On a thread without
// one it returns context.Background().
func ThreadContext(thread *starlark.Thread) context.Context {
	if thread != nil {
		if ctx, ok := thread.Local(threadContextKey).(context.Context); ok {
			return ctx
		}
	}
	return context.Background()
}

func (st *step) limitErr() error {
	if p := st.limit.Load(); p != nil {
		return *p
	}
	return nil
}

// watch arms the timeout, cancellation and memory limits of the step
// running on thread; the returned func disarms them. It starts no
// goroutine: the limits are timers and a context callback, which run only
// when they fire (most steps end long before), so a short step costs no
// goroutine start, wake-up or join. Once the returned func has returned,
// no limit stops the thread, and one that fired before has finished
// stopping it (as the joined watchdog goroutines did).
func (st *step) watch(thread *starlark.Thread) func() {
	cfg := st.sess.cfg
	w := &watchdog{}
	if cfg.Limits.Timeout > 0 {
		st.Deadline = time.Now().Add(cfg.Limits.Timeout)
		w.timeout = time.AfterFunc(time.Until(st.Deadline), func() {
			w.fire(func() {
				st.stop(thread, ErrTimeout, fmt.Sprintf("time limit exceeded (%s per step); make the step do less work", cfg.Limits.Timeout))
			})
		})
	}
	w.stopCtx = context.AfterFunc(st.ctx, func() {
		w.fire(func() { st.stop(thread, ErrCanceled, "canceled: "+context.Cause(st.ctx).Error()) })
	})
	if st.memLimit() > 0 || st.sessMemLimit() > 0 {
		tick := func() {
			w.fire(func() {
				if st.checkMemory(thread) {
					w.memory.Reset(st.pollInterval())
				}
			})
		}
		w.mu.Lock() // tick may fire before w.memory is set
		w.memory = time.AfterFunc(st.pollInterval(), tick)
		w.mu.Unlock()
	}
	return w.disarm
}

// watchdog holds a step's armed limits (see step.watch).
type watchdog struct {
	timeout, memory *time.Timer // nil: not armed
	stopCtx         func() bool

	mu       sync.Mutex // held while a limit acts, and by disarm
	disarmed bool
}

// fire runs a limit's action unless the step ended.
func (w *watchdog) fire(act func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.disarmed {
		act()
	}
}

// disarm stops the limits and waits for one acting to finish.
func (w *watchdog) disarm() {
	w.mu.Lock()
	w.disarmed = true
	w.mu.Unlock()
	if w.timeout != nil {
		w.timeout.Stop()
	}
	if w.memory != nil {
		w.memory.Stop()
	}
	w.stopCtx()
}

// Clock returns the session's clock: the time the next clock read in code
// (time.time(), datetime.now(), ...) returns.
func (s *Session) Clock() time.Time { return s.state.Clock.Now() }

// Globals returns the globals visible to the code running on thread (the
// session's and those of the running chunk), in definition order.
func (st *step) Globals(thread *starlark.Thread) ([]string, starlark.StringDict) {
	s := st.sess // the step's goroutine is the only writer: no lock needed
	vals := starlark.StringDict{}
	var names []string
	visible := func(name string, v starlark.Value) bool {
		if v == nil || strings.HasPrefix(name, "_py_") {
			return false
		}
		sys, isSys := s.systemValue(name)
		return !isSys || sys != v
	}
	for _, name := range s.order {
		if v, ok := s.globals[name]; ok && visible(name, v) {
			vals[name] = v
			names = append(names, name)
		}
	}
	for i := thread.CallStackDepth() - 1; i >= 0; i-- {
		fn, ok := thread.DebugFrame(i).Callable().(*starlark.Function)
		if !ok {
			continue
		}
		g := fn.Globals()
		var extra []string
		for name, v := range g {
			if !visible(name, v) {
				continue
			}
			if _, seen := vals[name]; !seen {
				extra = append(extra, name)
			}
			vals[name] = v
		}
		sort.Strings(extra) // new names of the running chunk
		names = append(names, extra...)
		break
	}
	return names, vals
}
