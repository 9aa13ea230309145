package sandbox

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// Memory is bounded three ways:
//
//   - before allocating, every builtin whose result grows with its
//     arguments asks checkAlloc whether the size fits in what is left of
//     the step's allowance (and of the session's), and refuses with a
//     MemoryError before it allocates;
//   - builtins that grow a value in a loop call interrupted (or forEach
//     does it for them) so they stop within a few milliseconds of a limit;
//   - a watchdog samples the heap (every memPoll near a limit, less often
//     far from one: pollInterval) and stops the step when it grew past
//     the step's or the session's limit (the backstop for growth in
//     interpreted code, e.g. list.append in a loop).
//
// The heap is the process's: it is blamed on a step only while the step
// runs alone. A step that runs at the same time as another one (rlm
// serve, a child run's steps while the parent waits in llm_query) is
// judged by what its own session holds instead, sized by a walk of its
// values when the heap passes its limit; the heap growing past its limit
// plus those of every step that ran alongside stops it anyway. See
// memshare.go.

// memPoll is how often the memory watchdog samples the heap near a
// limit; further from one it waits longer (pollInterval), up to
// memPollMax.
const (
	memPoll    = 2 * time.Millisecond
	memPollMax = 25 * time.Millisecond
)

// allocRate bounds how fast a step's code can grow the heap, in bytes per
// millisecond (interpreted code builds values at well under 1 GB/s; a
// builtin's large allocation is checked before it is made).
const allocRate = 8 << 20

// pollInterval is how long the watchdog may wait before its next sample:
// less than the step would need to use up the room left of its limits at
// allocRate, between memPoll and memPollMax. A step far from its limits
// (most of them, e.g. a run's step waiting for a model call) is sampled a
// few dozen times a second instead of 500: in rlm serve, with every run's
// step waiting on the model, the 2 ms samples were a large part of the
// server's CPU.
func (st *step) pollInterval() time.Duration {
	room := st.room()
	if room >= allocRate*int64(memPollMax/time.Millisecond) {
		return memPollMax
	}
	return max(time.Duration(room/allocRate)*time.Millisecond, memPoll)
}

// gcEvery bounds how often the watchdog collects garbage before deciding
// that the heap really is over a limit.
const gcEvery = 50 * time.Millisecond

var memSamples = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/stacks:bytes",
}

// liveHeap is heapInUse after a garbage collection: the live heap, for
// the decisions that need it exact (a step over a limit, memshare.go).
// Read without collecting, it would count garbage left by earlier work
// (another session, a load).
func liveHeap() int64 {
	runtime.GC()
	return heapInUse()
}

// baseSlack bounds how much garbage may loosen a session's memory limit:
// a session's base is read without a collection while the whole heap in
// use is under 1/baseSlack of the limit.
const baseSlack = 16

// sessionBase is the base a new session's limits (bytes across its steps,
// and per step; 0 or less: none) are measured from: the live heap. Garbage counted
// in the base would let the session grow the heap by that much more than
// its limit allows, so the base is the live heap after a collection, but
// only when the garbage could matter: garbage is part of the heap in use,
// so when the heap is under limit/baseSlack the base is read as it is and
// the limit loosened by at most that. In rlm serve, where every run makes
// sessions on a heap they all share, this takes the forced collection
// (which marks every run's values) off each run's start.
//
// Each step's limit is measured from the same base, so the tighter of the
// two limits bounds the garbage allowed (a 16 MB step limit must not be
// loosened by a sixteenth of a 12 GB session limit).
func sessionBase(limits ...int64) int64 {
	h := heapInUse()
	limit := int64(0)
	for _, l := range limits {
		if l > 0 && (limit == 0 || l < limit) {
			limit = l
		}
	}
	if limit <= 0 || h <= limit/baseSlack {
		return h
	}
	return sharedLiveHeap()
}

// baseCollections runs the collections for sessions' bases
// (sharedLiveHeap); baseHook, when set (tests), runs in each before it
// collects.
var (
	baseCollections singleflight.Group
	baseHook        func()
)

// sharedLiveHeap is liveHeap for a session's base, shared by the sessions
// created at once: one that arrives while another's collection runs
// waits for it and takes its result, instead of forcing one more. In rlm
// serve, where every run starts a session, the sessions that started
// during one forced collection each forced another, one after the other:
// a heap past limit/baseSlack cost two or more full collections, each
// holding up every run's start. The result counts what was allocated
// during the collection as live (the collector's rule for new objects):
// garbage made in those milliseconds, far less than limit/baseSlack.
func sharedLiveHeap() int64 {
	v, _, _ := baseCollections.Do("base", func() (any, error) {
		if baseHook != nil {
			baseHook()
		}
		return liveHeap(), nil
	})
	return v.(int64)
}

func heapInUse() int64 {
	s := make([]metrics.Sample, len(memSamples))
	for i, name := range memSamples {
		s[i].Name = name
	}
	metrics.Read(s)
	var n int64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			n += int64(x.Value.Uint64())
		}
	}
	return n
}

// DefaultMaxSessionMemory returns the default of Config.MaxSessionMemory:
// half of the machine's memory (or of the container's memory limit or the
// process's address-space limit when lower), and 4 GB when none can be
// read.
func DefaultMaxSessionMemory() int64 {
	machineOnce.Do(func() { machineMemory = readMachineMemory() })
	if machineMemory <= 0 {
		return 4 << 30
	}
	return machineMemory / 2
}

var (
	machineOnce   sync.Once
	machineMemory int64
)

func readMachineMemory() int64 {
	var total int64
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		total = int64(si.Totalram) * int64(si.Unit)
	}
	// An address-space limit (ulimit -v) bounds the heap too: past it Go
	// dies with a fatal error instead of a MemoryError.
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && int64(rl.Cur) > 0 && (total == 0 || int64(rl.Cur) < total) {
		total = int64(rl.Cur)
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

// memGauge is a step's view of the heap, sampled by the watchdog and read
// by checkAlloc without locking.
type memGauge struct {
	base     int64 // heap in use when the step started
	sessBase int64 // heap in use when the session was created
	mu       sync.Mutex
	lastGC   time.Time

	// Sharing the heap with other steps (memshare.go).
	shared   atomic.Bool  // another step ran at some time during this one
	others   atomic.Int64 // the sum of those steps' limits
	pre      atomic.Int64 // the heap's growth while the step ran alone first
	needBase atomic.Bool  // w0 is to be taken at the next sizing
	ask      atomic.Bool  // the watchdog asks the step to size itself
	nextWalk atomic.Int64 // no sizing asked before (Unix nanoseconds)
	own      atomic.Int64 // the last sizing's growth of the step
	sessOwn  atomic.Int64 // the last sizing's total of the session
	w0       int64        // the step's sizing when it started (its goroutine only)
}

// room returns how many bytes the step may still allocate: the lesser of
// what is left of its own limit and of the session's.
func (st *step) room() int64 {
	step, sess := st.rooms()
	return min(step, sess)
}

// rooms returns what is left of the step's own limit and of the session's
// (math.MaxInt64 for a limit that is off).
func (st *step) rooms() (step, sess int64) {
	step, sess = math.MaxInt64, math.MaxInt64
	h := st.heap.Load()
	if limit := st.memLimit(); limit > 0 {
		step = limit - (h - st.mem.base)
	}
	if limit := st.sessMemLimit(); limit > 0 {
		sess = limit - (h - st.mem.sessBase)
	}
	return step, sess
}

// sample refreshes the step's heap reading; with collect it first runs
// the garbage collector (at most every gcEvery), so that garbage does not
// count against the limits.
func (st *step) sample(collect bool) {
	if collect {
		st.mem.mu.Lock()
		if time.Since(st.mem.lastGC) > gcEvery {
			runtime.GC()
			st.mem.lastGC = time.Now()
		}
		st.mem.mu.Unlock()
	}
	st.heap.Store(heapInUse())
}

// overLimit reports which limit the sampled heap exceeds, if any, with
// the message that stops the step.
func (st *step) overLimit() (msg string, limit error) {
	h := st.heap.Load()
	grown := h - st.mem.base
	if limit := st.memLimit(); limit > 0 && grown > limit {
		return memoryMsg(limit), ErrMemoryLimit
	}
	// A step that frees memory (del x) may run even when the session is
	// over its limit: only a step that grows the heap is stopped.
	if limit := st.sessMemLimit(); limit > 0 && h-st.mem.sessBase > limit && grown > 0 {
		return sessionMemoryMsg(limit), ErrSessionMemoryLimit
	}
	return "", nil
}

// checkMemory is the memory watchdog's tick (see step.watch): it stops
// the step (thread) when the heap grew by more than MaxMemory since the
// step started, or by more than MaxSessionMemory since the session was
// created, while the step runs alone. When other steps run too, it asks
// the step to size what it holds instead (memshare.go) and stops it only
// past the backstop. Heap use by other goroutines counts too, so the
// limits are approximate guards against runaway allocation; the checks
// builtins make before allocating are the exact ones. It reports whether
// the watchdog goes on sampling.
func (st *step) checkMemory(thread *starlark.Thread) bool {
	st.sample(false)
	if _, limit := st.overLimit(); limit == nil {
		return true
	}
	// The heap count includes garbage not yet collected: collect before
	// deciding.
	st.sample(true)
	msg, limit := st.overLimit()
	switch {
	case limit == nil:
	case !st.mem.shared.Load():
		st.stop(thread, limit, msg)
		return false
	case st.pastBackstop():
		st.stop(thread, ErrMemoryLimit, memoryMsg(st.memLimit()))
		return false
	default:
		// Other steps share the heap: the step sizes what it holds at
		// its next check (memshare.go).
		st.askSize()
	}
	return true
}

func memoryMsg(limit int64) string {
	return fmt.Sprintf(
		"MemoryError: memory limit exceeded (%s per step); build smaller values, e.g. process the data in chunks",
		py.FmtBytes(limit),
	)
}

func sessionMemoryMsg(limit int64) string {
	return fmt.Sprintf(
		"MemoryError: session memory limit exceeded (%s across steps); free variables you no longer need (del x) or keep smaller results",
		py.FmtBytes(limit),
	)
}

// GrowCheck is the interpreter's grow check on the step's thread (see
// growCheck): it reads the heap afresh (about a microsecond, once every
// GrowCheckEvery elements: the watchdog's last sample may be stale when
// the machine is busy) and checks the room for n bytes.
func (st *step) GrowCheck(thread *starlark.Thread, n int64) error {
	st.sample(false)
	return st.CheckRoom(thread, n)
}

// Interrupted returns the error of the limit that stopped the step (see
// interrupted), sizing what the step holds first when its watchdog asks.
func (st *step) Interrupted(thread *starlark.Thread) error {
	if st.mem.ask.Load() {
		st.checkShared(thread)
	}
	return st.interrupted()
}

// Room is what is left of the step's memory allowance, measured afresh
// when measure is set.
func (st *step) Room(measure bool) int64 {
	if measure {
		st.sample(true)
	}
	return st.room()
}

// MemLimit is the step's memory limit (0: none).
func (st *step) MemLimit() int64 { return st.memLimit() }

// CheckRoom is checkAlloc for the step st running on thread, at any size.
func (st *step) CheckRoom(thread *starlark.Thread, n int64) error {
	if err := st.interrupted(); err != nil {
		return err
	}
	if st.mem.shared.Load() {
		if st.checkShared(thread); st.interrupted() != nil {
			return st.interrupted()
		}
	}
	if n <= st.room() {
		return nil
	}
	// The reading may be stale or count garbage: measure afresh before
	// refusing anything that could fit.
	st.sample(true)
	step, sess := st.rooms()
	if n <= min(step, sess) {
		return nil
	}
	if st.mem.shared.Load() {
		// The heap grew by what other steps allocate too: judge by what
		// this step holds (memshare.go).
		step, sess = st.ownRooms(thread, false)
		if n > 0 && n > min(step, sess) {
			// Size afresh before refusing.
			step, sess = st.ownRooms(thread, true)
		}
		if n <= min(step, sess) && min(step, sess) >= 0 {
			return nil
		}
		if n == 0 {
			// Over a limit by its own sizing: stop the step as the
			// watchdog would (for the session's, only if it grew).
			if step < 0 {
				st.stop(thread, ErrMemoryLimit, memoryMsg(st.memLimit()))
			} else if sess < 0 && st.mem.own.Load() > 0 {
				st.stop(thread, ErrSessionMemoryLimit, sessionMemoryMsg(st.sessMemLimit()))
			}
			return st.interrupted()
		}
	} else if n == 0 {
		// Already over a limit: stop the step as the watchdog would.
		if msg, limit := st.overLimit(); limit != nil {
			st.stop(thread, limit, msg)
			return st.interrupted()
		}
		return nil
	}
	if sess < step {
		return &PyError{
			Kind: "MemoryError",
			Msg: fmt.Sprintf(
				"cannot allocate %s: %s left of the session memory limit (%s across steps)",
				py.FmtAlloc(n),
				py.FmtAlloc(max(sess, 0)),
				py.FmtBytes(st.sessMemLimit()),
			),
			Err: ErrSessionMemoryLimit,
		}
	}
	return py.AllocErr(n, max(step, 0), py.FmtBytes(st.memLimit())+" per step")
}

func (st *step) interrupted() error {
	p := st.limit.Load()
	if p == nil {
		return nil
	}
	msg := (*p).Error()
	if r := st.reason.Load(); r != nil {
		msg = *r
	}
	return &py.StopError{Limit: *p, Msg: msg}
}
