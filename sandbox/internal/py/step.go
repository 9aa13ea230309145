package py

import (
	"fmt"
	"sync"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// Default limits the value layer falls back on outside a step.
const (
	// DefaultTimeout is the time limit of a step (Limits.Timeout).
	DefaultTimeout = 60 * time.Second
	// DefaultMaxMemory is the heap growth a step may make (Limits.MaxMemory).
	DefaultMaxMemory = 1 << 30
	// DefaultMaxRecursion is the depth of nested calls (Limits.MaxRecursion).
	DefaultMaxRecursion = 1000
)

// State is the value layer's part of a session: what builtins and modules
// read of the session whose step runs on a thread. The session holds one
// for its life.
type State struct {
	// Current is the thread of the running step (for defaultdict factories
	// and dunder methods called from Go), nil between steps.
	Current *starlark.Thread
	// Clock is what code reads as the time.
	Clock *SessionClock
	// Seed seeds the random and uuid modules (Config.Seed).
	Seed string
	// Doc returns the documentation of a predeclared helper, for help().
	Doc func(name string) string
	// Predeclared are the host's predeclared values (Config.Predeclared).
	Predeclared starlark.StringDict

	keyedMu sync.Mutex
	keyed   map[any]any // the modules' state, by *SessionKey (sesskey.go)
}

// Step is the value layer's part of a running step, reachable from its
// thread ([StepOf]). The public face's step embeds it and is its Host.
type Step struct {
	State    *State
	Host     StepHost
	Handling *exception // exception being handled (for bare raise)
	Depth    int        // recursion limit (frames)
	Deadline time.Time  // when the step's time limit ends (zero: none)
}

// StepHost is what the step running a thread does for its builtins: the
// memory allowance, the limits that stop it, its output and globals.
type StepHost interface {
	// CheckRoom fails with a MemoryError when n more bytes do not fit in
	// the step's or the session's allowance (0: when the heap is already
	// over), and with the limit's error when a limit stopped the step.
	CheckRoom(thread *starlark.Thread, n int64) error
	// GrowCheck is CheckRoom with the heap read afresh.
	GrowCheck(thread *starlark.Thread, n int64) error
	// Interrupted returns the error of the limit that stopped the step, or nil.
	Interrupted(thread *starlark.Thread) error
	// WriteOutput appends printed text to the step's output; past the
	// output limit it fails and the step stops.
	WriteOutput(s string) error
	// Room is what is left of the step's memory allowance, in bytes,
	// with the heap measured afresh first when measure is set (garbage
	// may have filled the allowance).
	Room(measure bool) int64
	// MemLimit is the step's memory limit in bytes (0: none).
	MemLimit() int64
	// OutputRoom is how many more bytes the step may print.
	OutputRoom() int
	// Globals returns the globals visible to the code running on thread,
	// in definition order.
	Globals(thread *starlark.Thread) ([]string, starlark.StringDict)
}

// stepKey is the thread-local key of a step's [Step].
const stepKey = "rlm.sandbox.step"

// SetStep makes st the step running on thread.
func SetStep(thread *starlark.Thread, st *Step) { thread.SetLocal(stepKey, st) }

// StepOf returns the step running on thread, or nil.
func StepOf(thread *starlark.Thread) *Step {
	st, _ := thread.Local(stepKey).(*Step)
	return st
}

// SmallAlloc is the size below which checkAlloc does not look: a
// step cannot overshoot its limit by much with allocations this small
// before the watchdog notices.
const SmallAlloc = 64 << 10

// FmtBytes formats a limit for a message.
func FmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MB", n>>20)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// CheckAlloc fails with a MemoryError when a builtin is about to allocate
// n bytes that do not fit in what is left of the step's (or the session's)
// memory allowance, and with the step's limit error when a limit already
// stopped it. Builtins call it before allocating a result whose size
// grows with their arguments.
func CheckAlloc(thread *starlark.Thread, n int64) error {
	if n < SmallAlloc {
		return nil
	}
	st := StepOf(thread)
	if st == nil {
		if n > DefaultMaxMemory {
			return AllocErr(n, DefaultMaxMemory, FmtBytes(DefaultMaxMemory)+" per step")
		}
		return nil
	}
	return st.Host.CheckRoom(thread, n)
}

// CheckAllocFor is checkAlloc for what a builtin is about to build (e.g.
// "json.dumps output"): its MemoryError names it, so that the message
// says what was too large.
func CheckAllocFor(thread *starlark.Thread, n int64, what string) error {
	return allocFor(CheckAlloc(thread, n), what)
}

// GrowCheckFor is growCheck (the heap read afresh, any size) naming what
// needs the n bytes, as checkAllocFor does.
func GrowCheckFor(thread *starlark.Thread, n int64, what string) error {
	return allocFor(growCheck(thread, n), what)
}

// allocFor prefixes a refusal's MemoryError with what was being built.
func allocFor(err error, what string) error {
	if pe, ok := err.(*PyError); ok && pe.Kind == "MemoryError" {
		named := *pe
		named.Msg = what + " too large: " + pe.Msg
		return &named
	}
	return err
}

// growCheck is the interpreter's grow check on a step's thread (set with
// starlark.SetGrowCheck): before a list, dict or set grows by another
// GrowCheckEvery elements, and before a + builds a large string or list,
// the allocating code itself asks whether n more bytes (0: whether the
// heap) still fit in the step's and the session's allowance, so growth in
// interpreted code stops at once and near the limit instead of when the
// watchdog next looks. A builtin that allocates in proportion to its
// arguments calls checkAlloc instead (modules added later too): it skips
// the check for small sizes, which the grow check does not.
func growCheck(thread *starlark.Thread, n int64) error {
	if st := StepOf(thread); st != nil {
		return st.Host.GrowCheck(thread, n)
	}
	return nil
}

// AllocErr is the MemoryError of n bytes that do not fit in room.
func AllocErr(n, room int64, what string) error {
	return &PyError{
		Kind: "MemoryError",
		Msg:  fmt.Sprintf("cannot allocate %s: %s left of the memory limit (%s); build smaller values", FmtAlloc(n), FmtAlloc(room), what),
		Err:  ErrMemoryLimit,
	}
}

// FmtAlloc formats an allocation size for a message.
func FmtAlloc(n int64) string {
	if n >= 10<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// GrowCheckEvery is how many elements a growing builtin adds between two
// calls of interrupted.
const GrowCheckEvery = 1 << 10

func Interrupted(thread *starlark.Thread) error {
	if st := StepOf(thread); st != nil {
		return st.Host.Interrupted(thread)
	}
	return nil
}

// StopPoll is the one way a long walk of a value (rendering, copy,
// deepcopy, json, conversion to Go) asks whether to stop. On a step's
// thread it calls interrupted every growCheckEvery values, so the walk
// ends within milliseconds of whatever limit stopped the step (time,
// memory, output, the caller). A walk with no step to ask (a host
// rendering or converting a value after its step, e.g. a REPL echo or a
// child run's variable sizes) has a budget instead: it stops after
// walkBudget values, so a value whose parts are shared at every level
// (x = [x, x] eighty times: 2**80 leaves in a few kilobytes) cannot hold
// the host for longer than about a second.
type StopPoll struct {
	thread *starlark.Thread // nil, or a thread without a step: the budget applies
	N      int
}

// WalkBudget is how many values a walk with no step visits before it
// stops with errWalkBudget (a variable so that tests can lower it).
var WalkBudget = 1 << 24

// errWalkBudget is a host walk's error past walkBudget values.
func errWalkBudget() error {
	return &PyError{
		Kind: "MemoryError",
		Msg:  fmt.Sprintf("value too large to walk: more than %d values (counting shared parts each time they appear)", WalkBudget),
		Err:  ErrMemoryLimit,
	}
}

func NewStopPoll(thread *starlark.Thread) StopPoll {
	if thread != nil && StepOf(thread) == nil {
		thread = nil
	}
	return StopPoll{thread: thread}
}

// Stopped counts one value visited and returns the error that ends the
// walk, if any.
func (p *StopPoll) Stopped() error {
	p.N++
	if p.N%GrowCheckEvery != 0 {
		return nil
	}
	if p.thread == nil {
		if p.N > WalkBudget {
			return errWalkBudget()
		}
		return nil
	}
	return Interrupted(p.thread)
}

// MatchBudget is the time one match of the backtracking engine may take
// on thread: what is left of the step's time limit (DefaultTimeout outside
// a step or without a limit). The search() helper bounds its matches with
// it too.
func MatchBudget(thread *starlark.Thread) time.Duration {
	if st := StepOf(thread); st != nil && !st.Deadline.IsZero() {
		return max(time.Until(st.Deadline), time.Millisecond)
	}
	return DefaultTimeout
}

// StepGlobals returns the user-visible globals as the step running on
// thread sees them (values from previous steps and chunks, overlaid with
// the running chunk's own globals), names in definition order. Builtins
// call it instead of Session.Global/UserGlobals, which block while a step
// runs. Outside a step it returns nil.
func StepGlobals(thread *starlark.Thread) ([]string, starlark.StringDict) {
	st := StepOf(thread)
	if st == nil {
		return nil, nil
	}
	return st.Host.Globals(thread)
}
