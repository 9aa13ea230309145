package sandbox

import (
	"sync"
	"time"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// Steps sharing the heap.
//
// The memory watchdog measures the process's heap, which every step
// running in the process shares: in `rlm serve`, or when a child run's
// steps run while its parent's step waits in llm_query, the heap grows by
// what all of them allocate. Measured that way, a step that allocates
// little would be stopped by a MemoryError because another run's step is
// a memory bomb. So the heap's growth is blamed on a step only while the
// step runs alone. A step that runs, or ran, at the same time as another
// one is "shared", and is stopped only on evidence of its own:
//
//   - when the heap is over its limit, the watchdog asks the step to size
//     itself; at its next grow check or builtin's check (on its own
//     goroutine, where its values are not changing) it walks what its
//     session holds (user globals, and the globals, locals and operand
//     stacks of its active calls) and compares the growth of that since
//     the step started with its limit, and the total with the session's
//     limit. Every step has such a check every 65,536 interpreter steps,
//     a step that grows every 1,024 elements or 64 KB as well, and a
//     builtin's loop every 1,024 values.
//   - a builtin's check before a large allocation uses the same sizing
//     instead of the heap;
//   - and as a backstop for growth the walk cannot see (values a builtin
//     is building, types it does not know), a step is stopped anyway when
//     the heap grew since it started by more than its limit plus the step
//     limits of every step that ran alongside it: at that point some step
//     is over its limit whatever the attribution, and the process must not
//     run away. A step whose own sizing is under half its limit gets twice
//     that room, since the step over its limit is then most likely another
//     one, overshooting between two of its checks.
//
// A step that ran alone before another one started keeps the heap's
// growth until then (measured after a collection when it matters) as its
// own, and adds the growth its walks see from then on.

// activeSteps is the process's set of running steps.
var activeSteps struct {
	mu    sync.Mutex
	steps map[*step]struct{}
}

// register adds st to the running steps; when others run, both sides
// become shared (st sizes its session now, the others at their next
// check).
func (st *step) register() {
	activeSteps.mu.Lock()
	if activeSteps.steps == nil {
		activeSteps.steps = map[*step]struct{}{}
	}
	shared := len(activeSteps.steps) > 0
	if shared {
		h, collected := heapInUse(), false
		for o := range activeSteps.steps {
			st.mem.others.Add(o.memLimit())
			o.mem.others.Add(st.memLimit())
			if o.mem.shared.Load() {
				continue
			}
			// o ran alone until now: the heap's growth since it started
			// is its own. Garbage would count too: collect first when
			// it could matter.
			pre := h - o.mem.base
			if lim := o.memLimit(); !collected && lim > 0 && pre > lim/4 {
				h, collected = liveHeap(), true
				pre = h - o.mem.base
			}
			o.mem.pre.Store(max(pre, 0))
			o.mem.needBase.Store(true)
			o.mem.shared.Store(true)
		}
		st.mem.shared.Store(true)
	}
	activeSteps.steps[st] = struct{}{}
	activeSteps.mu.Unlock()
	if shared {
		// No step of this session runs yet: its globals hold still.
		st.mem.w0 = st.held(nil, -1)
	}
}

// unregister removes st from the running steps.
func (st *step) unregister() {
	activeSteps.mu.Lock()
	delete(activeSteps.steps, st)
	activeSteps.mu.Unlock()
}

// pastBackstop reports whether the heap grew since the shared step
// started by more than its limit plus the limits of every step that ran
// alongside it (the session's limit when the step has none), or twice
// that for a step that holds little (backstopRoom).
// The heap is read after a collection: garbage would count otherwise.
func (st *step) pastBackstop() bool {
	return st.backstopRoom() < 0
}

// backstopRoom is what is left before the backstop stops the shared step.
// While the step's own last sizing is under half its limit, the backstop
// is twice as far: a step alongside it can overshoot its own limit by
// megabytes between two of its checks, and that must not stop a step
// that holds little (the process stays bounded all the same).
func (st *step) backstopRoom() int64 {
	lim := st.memLimit()
	if lim <= 0 {
		lim = st.sessMemLimit()
	}
	if lim <= 0 {
		return 1 << 62
	}
	allowed := lim + st.mem.others.Load()
	if st.mem.own.Load() < lim/2 {
		allowed *= 2
	}
	room := allowed - (st.heap.Load() - st.mem.base)
	if room < 0 {
		st.heap.Store(liveHeap())
		room = allowed - (st.heap.Load() - st.mem.base)
	}
	return room
}

// checkEvery is how many interpreter steps a step runs between two
// checkpoints (OnMaxSteps) where it sizes itself when asked.
const checkEvery = 1 << 16

// walkGap is the least time between two sizings a watchdog asks of a
// step; a sizing that took d waits 4d more, so walking a large session
// costs at most a fifth of its time.
const walkGap = 5 * time.Millisecond

// askSize asks the shared step to size itself at its next check, unless
// it did so very recently.
func (st *step) askSize() {
	if time.Now().UnixNano() >= st.mem.nextWalk.Load() {
		st.mem.ask.Store(true)
	}
}

// sizeOwn sizes what the step holds (on its own goroutine) and returns
// its growth since it started and what its session holds in all.
func (st *step) sizeOwn(thread *starlark.Thread) (step, sess int64) {
	start := time.Now()
	if st.mem.needBase.Swap(false) {
		st.mem.w0 = st.held(thread, -1)
	}
	// Past its limit or the session's the exact figure does not matter.
	cutoff := int64(-1)
	if lim := st.memLimit(); lim > 0 {
		cutoff = st.mem.w0 + lim + 1
	}
	if lim := st.sessMemLimit(); lim > 0 && (cutoff < 0 || lim < cutoff) {
		cutoff = lim + 1
	}
	w := st.held(thread, cutoff)
	step, sess = st.mem.pre.Load()+w-st.mem.w0, w
	st.mem.own.Store(step)
	st.mem.sessOwn.Store(sess)
	st.mem.nextWalk.Store(time.Now().Add(max(walkGap, 4*time.Since(start))).UnixNano())
	return step, sess
}

// ownRooms returns what is left of the shared step's limit and of its
// session's by its own sizing (a recent one, or one made now), and by
// the backstop.
func (st *step) ownRooms(thread *starlark.Thread, fresh bool) (step, sess int64) {
	var own, sessOwn int64
	if fresh || time.Now().UnixNano() >= st.mem.nextWalk.Load() {
		own, sessOwn = st.sizeOwn(thread)
	} else {
		own, sessOwn = st.mem.own.Load(), st.mem.sessOwn.Load()
	}
	step, sess = 1<<62, 1<<62
	if lim := st.memLimit(); lim > 0 {
		step = min(lim-own, st.backstopRoom())
	}
	if lim := st.sessMemLimit(); lim > 0 {
		sess = lim - sessOwn
	}
	return step, sess
}

// checkShared is a shared step's check at a point where it may size
// itself: when the watchdog asked, it sizes what it holds and stops
// itself past its limit or the session's.
func (st *step) checkShared(thread *starlark.Thread) {
	if !st.mem.ask.Load() || !st.mem.ask.CompareAndSwap(true, false) {
		return
	}
	own, sess := st.sizeOwn(thread)
	if lim := st.memLimit(); lim > 0 && own > lim {
		st.stop(thread, ErrMemoryLimit, memoryMsg(lim))
	} else if lim := st.sessMemLimit(); lim > 0 && sess > lim && own > 0 {
		st.stop(thread, ErrSessionMemoryLimit, sessionMemoryMsg(lim))
	}
}

// held sizes (approximately, in bytes) what the step's session holds:
// its user globals and, with thread, the globals, locals and operand
// stacks of the calls active on it. Values shared between places count
// once. The walk stops once past cutoff (when not negative).
func (st *step) held(thread *starlark.Thread, cutoff int64) int64 {
	z := sizer{cutoff: cutoff, seen: map[unsafe.Pointer]struct{}{}}
	s := st.sess
	for name, v := range s.globals {
		if b, ok := v.(*starlark.Builtin); ok && b.Receiver() == nil {
			continue // a predeclared function (or code's alias of one): nothing of the session's
		}
		if sys, ok := s.systemValue(name); ok && sys == v {
			continue
		}
		z.Value(v)
	}
	if thread != nil {
		files := map[string]bool{}
		for i := thread.CallStackDepth() - 1; i >= 0; i-- {
			fn, ok := thread.DebugFrame(i).Callable().(*starlark.Function)
			if !ok || files[fn.Position().Filename()] {
				continue
			}
			files[fn.Position().Filename()] = true
			for _, v := range fn.Globals() {
				z.Value(v)
			}
		}
		thread.FrameValues(z.Value)
	}
	z.run()
	return z.n
}

// sizer sums the approximate sizes of values and of what they contain.
type sizer struct {
	n, cutoff int64
	seen      map[unsafe.Pointer]struct{}
	// seenHolders are the valueHolders seen (made on first use).
	seenHolders map[py.ValueHolder]struct{}
	todo        []starlark.Value // containers seen but not yet walked
}

// bigString is the length from which a string's bytes count once however
// many times it is held.
const bigString = 128

func (z *sizer) done() bool { return z.cutoff >= 0 && z.n > z.cutoff }

// first reports whether p is seen for the first time.
func (z *sizer) first(p unsafe.Pointer) bool {
	if _, ok := z.seen[p]; ok {
		return false
	}
	z.seen[p] = struct{}{}
	return true
}

// firstHolder reports whether h is seen for the first time.
func (z *sizer) firstHolder(h py.ValueHolder) bool {
	if _, ok := z.seenHolders[h]; ok {
		return false
	}
	if z.seenHolders == nil {
		z.seenHolders = map[py.ValueHolder]struct{}{}
	}
	z.seenHolders[h] = struct{}{}
	return true
}

// value counts v, leaving what it contains for run.
func (z *sizer) Value(v starlark.Value) {
	switch x := v.(type) {
	case starlark.String:
		if len(x) < bigString || z.first(unsafe.Pointer(unsafe.StringData(string(x)))) {
			z.n += 16 + int64(len(x))
		}
	case starlark.Bytes:
		if len(x) < bigString || z.first(unsafe.Pointer(unsafe.StringData(string(x)))) {
			z.n += 16 + int64(len(x))
		}
	case starlark.Int:
		if _, ok := x.Int64(); ok {
			z.n += 16
		} else {
			z.n += 32 + int64(x.BigInt().BitLen()/8)
		}
	case *starlark.List:
		if z.first(unsafe.Pointer(x)) {
			z.todo = append(z.todo, v)
		}
	case starlark.Tuple:
		if len(x) == 0 {
			z.n += 24
		} else if z.first(unsafe.Pointer(&x[0])) {
			z.todo = append(z.todo, v)
		}
	case *starlark.Dict:
		if z.first(unsafe.Pointer(x)) {
			z.todo = append(z.todo, v)
		}
	case *starlark.Set:
		if z.first(unsafe.Pointer(x)) {
			z.todo = append(z.todo, v)
		}
	case *py.PyObject:
		if z.first(unsafe.Pointer(x)) {
			z.todo = append(z.todo, v)
		}
	case *LazyDict:
		z.n += 32
	case py.PyDictLike: // Counter, defaultdict, OrderedDict
		z.n += 48
		z.Value(x.UnderlyingDict())
	case py.ValueHolder: // deque
		if z.firstHolder(x) {
			z.todo = append(z.todo, v)
		}
	default:
		z.n += 32
	}
}

// run walks the containers counted so far and what they contain.
func (z *sizer) run() {
	for len(z.todo) > 0 && !z.done() {
		v := z.todo[len(z.todo)-1]
		z.todo = z.todo[:len(z.todo)-1]
		switch x := v.(type) {
		case *starlark.List:
			n := x.Len()
			z.n += 48 + 16*int64(n)
			for i := 0; i < n && !z.done(); i++ {
				z.Value(x.Index(i))
			}
		case starlark.Tuple:
			z.n += 24 + 16*int64(len(x))
			for _, e := range x {
				if z.done() {
					break
				}
				z.Value(e)
			}
		case *starlark.Dict:
			z.n += 64 + 64*int64(x.Len())
			for k, e := range x.Entries() {
				if z.done() {
					break
				}
				z.Value(k)
				z.Value(e)
			}
		case *starlark.Set:
			z.n += 64 + 48*int64(x.Len())
			for k := range x.Elements() {
				if z.done() {
					break
				}
				z.Value(k)
			}
		case *py.PyObject:
			z.n += 64 + 48*int64(len(x.Attrs))
			for _, e := range x.Attrs {
				if z.done() {
					break
				}
				z.Value(e)
			}
		case py.ValueHolder:
			held := x.HeldValues()
			z.n += 48 + 16*int64(len(held))
			for _, e := range held {
				if z.done() {
					break
				}
				if e != nil {
					z.Value(e)
				}
			}
		}
	}
}
