package starlark

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/internal/compile"
)

// rlm: Python's recursion limit, checked by the interpreter when a
// Starlark function is called, in place of a runtime helper call
// (_py_enter) at the top of every def (see PATCHES.md).

// MaxCallDepth is the default recursion limit: calling a Starlark
// function other than a lambda, in a program compiled with the Recursion
// option, fails with CallDepthError() when the thread's call stack (every
// frame, builtins' included) already holds more than this many frames.
// 0 (the default) means no limit beyond upstream's. A thread's own limit
// (SetMaxCallDepth) overrides it. Set it once, before any thread runs.
var MaxCallDepth int

// CallDepthError returns the error of a call past the recursion limit
// (nil: a plain "maximum recursion depth exceeded" error).
var CallDepthError func() error

// SetMaxCallDepth sets thread's recursion limit (0: MaxCallDepth).
func (thread *Thread) SetMaxCallDepth(n int) { thread.maxCallDepth = n }

// callDepthExceeded reports the error of a call of a function named name
// on thread, or nil when the call is within the recursion limit.
func (thread *Thread) callDepthExceeded(name string) error {
	limit := thread.maxCallDepth
	if limit == 0 {
		limit = MaxCallDepth
	}
	if limit <= 0 || len(thread.stack) <= limit || name == "lambda" {
		return nil
	}
	if CallDepthError != nil {
		return CallDepthError()
	}
	return errMaxCallDepth
}

var errMaxCallDepth = errors.New("maximum recursion depth exceeded")

// rlm: the locals and operand stack of a Starlark call come from the
// thread's value stack instead of a heap allocation per call (upstream
// allocated them in each Function.CallInternal). Calls are LIFO, so a
// call takes the next nspace values and gives them back, cleared, when
// it returns. When the value stack is full a new, larger one replaces
// it; the calls still active keep the slices of the old one, which is
// garbage once they return. Nothing keeps a frame's locals or stack
// after the call returns: closures capture cells, and argument tuples
// given to other functions are copied (setArgs) or, for the _py_*
// builtins, not kept.

// minValueStack is the size of a thread's first value stack.
const minValueStack = 1024

// allocSpace returns n cleared values for a call and the mark that
// freeSpace restores.
func (thread *Thread) allocSpace(n int) ([]Value, int) {
	mark := thread.vsp
	if mark+n > len(thread.vstack) {
		if len(thread.vstack) == 0 && n <= minValueStack {
			thread.vstack = *valueStacks.Get().(*[]Value)
		} else {
			thread.vstack = make([]Value, max(2*len(thread.vstack), mark+n, minValueStack))
		}
	}
	thread.vsp = mark + n
	return thread.vstack[mark : mark+n : mark+n], mark
}

// valueStacks keeps the first-size value stacks of threads that ended
// (ReleaseValueStack), all values nil, for new threads: rlm makes a
// thread per step, and a stack per thread was half of the memory a new
// step allocated.
var valueStacks = sync.Pool{New: func() any {
	s := make([]Value, minValueStack)
	return &s
}}

// ReleaseValueStack gives the thread's value stack back for other threads
// to use, if no call is active on the thread (its values are then all
// nil) and it has its first size. Call it when the thread has finished;
// a thread used again takes a new stack.
func (thread *Thread) ReleaseValueStack() {
	if thread.vsp != 0 || len(thread.vstack) != minValueStack {
		return
	}
	s := thread.vstack
	thread.vstack = nil
	valueStacks.Put(&s)
}

// freeSpace gives back the values allocSpace returned with mark, cleared
// so that they keep nothing alive and the next call finds them nil.
func (thread *Thread) freeSpace(space []Value, mark int) {
	if len(space) <= 16 {
		// A call's few values (most calls): clear's memclrHasPointers
		// and its bulk write barrier cost more than storing each nil
		// (a loop the compiler does not turn into clear).
		for i := len(space) - 1; i >= 0; i-- {
			space[i] = nil
		}
	} else {
		clear(space)
	}
	thread.vsp = mark
}

// rlm: a call's iterator stack (its active loops) comes from the thread's
// iterator stack too, sized by the compiler's bound MaxIterStack, instead
// of growing a new slice from nil on the first loop of each call.

// allocIters returns an empty iterator stack of capacity n for a call and
// the mark that freeIters restores.
func (thread *Thread) allocIters(n int) ([]Iterator, int) {
	mark := thread.isp
	if n == 0 {
		return nil, mark
	}
	if mark+n > len(thread.istack) {
		thread.istack = make([]Iterator, max(2*len(thread.istack), mark+n, 64))
	}
	thread.isp = mark + n
	return thread.istack[mark : mark : mark+n], mark
}

// freeIters gives back the iterator stack of a call, iters the slice
// allocIters returned, cleared.
func (thread *Thread) freeIters(iters []Iterator, mark int) {
	clear(iters[:cap(iters)])
	thread.isp = mark
}

// rlm: the interpreter copies the positional arguments of a call of
// anything but a Starlark function, since the callee might keep the
// tuple, which is a slice of the caller's operand stack. Callables that
// promise not to keep it (nor a part of it) after they return are called
// with the slice itself: a heap allocation less per call.

// ArgsNotKept is implemented by callables that may be given their
// positional arguments without a copy: ArgsNotKept reports whether they
// never keep the argument tuple, nor a slice of it, after they return.
type ArgsNotKept interface {
	ArgsNotKept() bool
}

// ArgsNotKept reports whether b keeps no argument tuple: set by
// SetArgsNotKept, and true for the runtime helpers named _py_* of rlm's
// front end.
func (b *Builtin) ArgsNotKept() bool {
	return b.argsNotKept || strings.HasPrefix(b.name, "_py_")
}

// SetArgsNotKept records that b never keeps its argument tuple after it
// returns, and returns b. Set it before b is shared.
func (b *Builtin) SetArgsNotKept() *Builtin {
	b.argsNotKept = true
	return b
}

// argsNotKept reports whether fn may be given its arguments uncopied.
func argsNotKept(fn Value) bool {
	c, ok := fn.(ArgsNotKept)
	return ok && c.ArgsNotKept()
}

// UnpackPositionalArgsNoEscape is [UnpackPositionalArgs] for variables
// whose addresses do not escape, so that a builtin's variables are not
// moved to the heap (an allocation per variable per call). It panics if a
// pointer in vars implements [Unpacker]. (rlm: upstream's
// unpackPositionalArgsNoEscape, exported.)
func UnpackPositionalArgsNoEscape(fnname string, args Tuple, kwargs []Tuple, min int, vars ...any) error {
	return unpackPositionalArgsNoEscape(fnname, args, kwargs, min, vars...)
}

// setOp returns op(iter) and then calls iter.Done. rlm: Binary's set
// operations call it instead of deferring iter.Done themselves: a defer
// anywhere in Binary, too large for open-coded defers, costs every call
// of Binary (every + of two ints) a deferreturn.
func setOp(iter Iterator, op func(Iterator) (Value, error)) (Value, error) {
	defer iter.Done()
	return op(iter)
}

// rlm: a call x.name(args) of a method of a built-in value (str, list,
// dict, set) compiles to ATTR name followed, after its arguments, by
// CALL. Upstream's ATTR binds the method (an allocation for the bound
// *Builtin and one for x as a Value when x is a str), and the CALL copies
// its arguments. When nothing between the ATTR and its CALL can run the
// ATTR's result but the CALL (methodCall), the ATTR leaves x on the stack
// in its place and the CALL calls the method with x as its receiver
// (callNativeMethod), without a copy of the arguments: these methods
// keep no argument tuple.

// methodSite is an ATTR followed by the CALL of its result: the CALL's
// pc and the methods of the ATTR's name for a str, list, dict and set
// receiver (nil where the type has none), looked up once.
type methodSite struct {
	callPC  uint32
	methods [4]*Builtin
}

// method returns the method of x at site s if x is a str, list, dict or
// set that has it, or nil.
func (s *methodSite) method(x Value) *Builtin {
	if profiler.events != nil {
		return nil // the profiler keeps frames' callables
	}
	switch x.(type) {
	case String:
		return s.methods[0]
	case *List:
		return s.methods[1]
	case *Dict:
		return s.methods[2]
	case *Set:
		return s.methods[3]
	}
	return nil
}

// methodTable is a function's table of method calls (methodCalls).
type methodTable struct {
	at    []uint32 // for the pc just after an ATTR: 1 + its index in sites, or 0
	sites []methodSite
}

// methodSiteAt returns the method call site of the ATTR just before pc in
// f (nil if its result is not simply called). The table is made the first
// time it is needed.
func methodSiteAt(f *compile.Funcode, pc uint32) *methodSite {
	t := methodCalls(f)
	if i := t.at[pc]; i > 0 {
		return &t.sites[i-1]
	}
	return nil
}

// methodCalls returns f's table of method calls, making it the first
// time.
func methodCalls(f *compile.Funcode) *methodTable {
	f.RLMOnce.Do(func() {
		code := f.Code
		t := &methodTable{at: make([]uint32, len(code)+1)}
		for pc := uint32(0); int(pc) < len(code); {
			op := compile.Opcode(code[pc])
			pc++
			var arg uint32
			if op >= compile.OpcodeArgMin {
				for s := uint(0); int(pc) < len(code); s += 7 {
					b := code[pc]
					pc++
					arg |= uint32(b&0x7f) << s
					if b < 0x80 {
						break
					}
				}
			}
			if op == compile.ATTR && int(arg) < len(f.Prog.Names) {
				if callPC, ok := methodCall(code, pc); ok {
					name := f.Prog.Names[arg]
					t.sites = append(t.sites, methodSite{callPC: callPC, methods: [4]*Builtin{
						stringMethods[name], listMethods[name], dictMethods[name], setMethods[name]}})
					t.at[pc] = uint32(len(t.sites))
				}
			}
		}
		f.RLMMethodCalls = t
	})
	return f.RLMMethodCalls.(*methodTable)
}

// methodCallScan is how many instructions methodCall looks at.
const methodCallScan = 16

// methodCall reports whether the instructions from pc, just after an
// ATTR, compute a call's arguments (a straight line of instructions that
// only push and combine values above the ATTR's result) and then CALL the
// ATTR's result, returning that CALL's pc. Other ATTRs, jumps and
// anything else end the scan (false).
func methodCall(code []byte, pc uint32) (uint32, bool) {
	depth := 0 // values above the ATTR's result
	for range methodCallScan {
		if int(pc) >= len(code) {
			return 0, false
		}
		start := pc
		op := compile.Opcode(code[pc])
		pc++
		var arg uint32
		if op >= compile.OpcodeArgMin {
			for s := uint(0); ; s += 7 {
				if int(pc) >= len(code) {
					return 0, false
				}
				b := code[pc]
				pc++
				arg |= uint32(b&0x7f) << s
				if b < 0x80 {
					break
				}
			}
		}
		switch op {
		case compile.OPK, compile.INDEXK: // x op k, x[k]: one value for one
			if depth < 1 {
				return 0, false
			}
		case compile.GLOBALLOCAL, compile.GLOBALGLOBAL: // two values
			depth += 2
		case compile.LOCALOPK, compile.LOCALOPL, compile.CONSTANT, compile.LOCAL, compile.GLOBAL, compile.FREE,
			compile.FREECELL, compile.LOCALCELL, compile.PREDECLARED,
			compile.UNIVERSAL, compile.NONE, compile.TRUE, compile.FALSE:
			depth++
		case compile.INDEX, compile.PLUS, compile.MINUS, compile.STAR,
			compile.SLASH, compile.SLASHSLASH, compile.PERCENT, compile.AMP,
			compile.PIPE, compile.CIRCUMFLEX, compile.LTLT, compile.GTGT,
			compile.IN, compile.EQL, compile.NEQ, compile.GT, compile.LT,
			compile.LE, compile.GE:
			if depth < 2 {
				return 0, false
			}
			depth--
		case compile.UPLUS, compile.UMINUS, compile.TILDE, compile.NOT:
			if depth < 1 {
				return 0, false
			}
		case compile.MAKELIST, compile.MAKETUPLE:
			n := int(arg)
			if depth < n {
				return 0, false
			}
			depth += 1 - n
		case compile.CALL:
			n := int(arg>>8) + 2*int(arg&0xff)
			if depth == n {
				return start, true
			}
			if depth < n+1 {
				return 0, false
			}
			depth -= n // a call among the arguments
		default:
			return 0, false
		}
	}
	return 0, false
}

// callNativeMethod calls method m of recv, as Call of m bound to recv
// would, with a *Builtin that the thread reuses instead of a new one.
func (thread *Thread) callNativeMethod(m *Builtin, recv Value, args Tuple, kwargs []Tuple) (Value, error) {
	n := thread.nmethods
	if n == len(thread.methods) {
		thread.methods = append(thread.methods, new(Builtin))
	}
	b := thread.methods[n]
	thread.nmethods = n + 1
	b.name, b.fn, b.recv = m.name, m.fn, recv
	var z Value
	var err error
	if profiler.events == nil {
		z, err = thread.callBuiltin(b, args, kwargs)
	} else {
		z, err = Call(thread, b, args, kwargs)
	}
	*b = Builtin{}
	thread.nmethods = n
	return z, err
}

// callBuiltin is Call(thread, b, args, kwargs) while the profiler is off,
// without Call's deferred function: the frame it pushes is popped when b
// returns, and if b panics, with the frame below it, by the deferred
// function of the call below (popAbove, in Function.run and Call).
func (thread *Thread) callBuiltin(b *Builtin, args Tuple, kwargs []Tuple) (Value, error) {
	var fr *frame
	if n := len(thread.stack); n < cap(thread.stack) {
		fr = thread.stack[n : n+1][0]
	}
	if fr == nil {
		fr = new(frame)
	}
	thread.stack = append(thread.stack, fr)
	fr.callable = b
	z, err := b.fn(thread, b, args, kwargs)
	if z == nil && err == nil {
		err = fmt.Errorf("internal error: nil (not None) returned from %s", b)
	}
	if err != nil && needsEvalError(err) {
		err = thread.evalError(err)
	}
	thread.popFrame(fr)
	return z, err
}

// rlm: a call f(x, ...) with positional arguments only of a callable
// implementing FastCallable first asks its FastCall, which may answer
// for the common cases (len of a str, str of an int) without the frame,
// argument copy and error handling of a call; when it does not, the call
// goes as before.

// FastCallable is a callable with a fast path for calls with positional
// arguments only. FastCall returns the call's result and true, or false
// with no effect (the call is then made as usual, by CallInternal). It
// runs without a frame of its own: it must not fail, call back into
// Starlark code, look at the thread's call stack nor keep args (which
// may be the interpreter's operand stack).
type FastCallable interface {
	Callable
	FastCall(thread *Thread, args Tuple) (Value, bool)
}

// SetFastCall sets b's fast path (see FastCallable) and returns b. Set it
// before b is shared.
func (b *Builtin) SetFastCall(fast func(thread *Thread, args Tuple) (Value, bool)) *Builtin {
	b.fast = fast
	return b
}

// FastCall implements FastCallable: b's fast path if it has one.
func (b *Builtin) FastCall(thread *Thread, args Tuple) (Value, bool) {
	if b.fast == nil {
		return nil, false
	}
	return b.fast(thread, args)
}

// rlm: a CALL of a Starlark function with positional arguments only, while
// the profiler is off, pushes the callee's frame itself and runs it
// (Function.run with pushed set) instead of going through Call: no
// pyMethodCall test, no profiler spans, and one deferred function per
// call instead of two (Call's and CallInternal's). run does what Call
// did after CallInternal: errors become EvalErrors with the callee's
// frame on the stack, and the frame is popped, panics included.

// callFast calls fn with args (positional only) from the interpreter.
func (fn *Function) callFast(thread *Thread, args Tuple) (Value, error) {
	var fr *frame
	// As Call: the slack of thread.stack is a free list of frames.
	if n := len(thread.stack); n < cap(thread.stack) {
		fr = thread.stack[n : n+1][0]
	}
	if fr == nil {
		fr = new(frame)
	}
	thread.stack = append(thread.stack, fr)
	fr.callable = fn
	return fn.run(thread, args, nil, true)
}

// popFrame pops fr, the thread's top frame, as Call's deferred function.
func (thread *Thread) popFrame(fr *frame) {
	*fr = frame{}
	thread.stack = thread.stack[:len(thread.stack)-1]
}

// popAbove pops the frames above fr on the thread's stack (none if fr is
// not there): a deferred function that pops fr calls it first when fr is
// not the top frame, which happens while a panic unwinds the stack past
// builtins called without Call (callBuiltin).
//
//go:noinline
func (thread *Thread) popAbove(fr *frame) {
	for i := len(thread.stack) - 1; i >= 0; i-- {
		if thread.stack[i] == fr {
			for _, f := range thread.stack[i+1:] {
				*f = frame{}
			}
			thread.stack = thread.stack[:i+1]
			return
		}
	}
}

// callFailed returns err as Call returns an error of CallInternal when
// pushed (an EvalError; the frame is popped), else err.
func (thread *Thread) callFailed(err error, pushed bool) error {
	if !pushed {
		return err
	}
	if needsEvalError(err) {
		err = thread.evalError(err)
	}
	thread.popFrame(thread.frameAt(0))
	return err
}

// rlm: the methods that run most (dict.get, dict.setdefault, list.append,
// str.strip, str.lower, str.upper) take their common arguments without
// the general unpacking (a type switch per argument, the bounds checks
// with their messages); any other call unpacks as before, with its
// errors.

// plainArgs reports whether args are min to max positional arguments,
// with no keyword arguments.
func plainArgs(args Tuple, kwargs []Tuple, min, max int) bool {
	return len(kwargs) == 0 && len(args) >= min && len(args) <= max
}

// args1String returns the only argument if it is a str and there are no
// keyword arguments.
func args1String(args Tuple, kwargs []Tuple) (string, bool) {
	if len(args) != 1 || len(kwargs) != 0 {
		return "", false
	}
	s, ok := args[0].(String)
	return string(s), ok
}

// FrameValues calls f with each value in the locals and operand stack of
// the Starlark calls active on thread: what a running program holds
// besides its globals (a list a comprehension is building, a local
// variable). Stale operand stack slots are included: they keep their
// values alive until the call returns. Only the goroutine running thread
// may call it, between two instructions (from a builtin or a grow check).
//
// rlm: upstream has no way to reach a frame's operand stack; rlm's
// sandbox sizes what a step holds when several steps share the process's
// heap (sandbox/memshare.go).
func (thread *Thread) FrameValues(f func(Value)) {
	for _, fr := range thread.stack {
		fn, ok := fr.callable.(*Function)
		if !ok || fr.locals == nil {
			continue
		}
		// fr.locals is the start of the call's space (allocSpace): its
		// locals, then MaxStack operand slots.
		n := len(fn.funcode.Locals) + fn.funcode.MaxStack
		if n == 0 {
			continue
		}
		// The data pointer of the slice header: SliceData is unspecified
		// for a slice of capacity 0 (a call without locals).
		p := *(**Value)(unsafe.Pointer(&fr.locals))
		for _, v := range unsafe.Slice(p, n) {
			if v != nil {
				f(v)
			}
		}
	}
}

// sizeHintMax bounds the elements sizeHint allocates at once (64 MB of
// Values); a longer comprehension grows from there.
const sizeHintMax = 4 << 20

// sizeHint gives the empty list of a comprehension [body for vars in x]
// room for len(x) elements, when x is a built-in sequence: the list ends
// that long, and growing it by appends copies it about four times over.
// The grow check sees the allocation first; when it refuses, the list
// grows as before (and the appends meet the same refusal).
func sizeHint(thread *Thread, list *List, x Value) {
	var n int
	switch x := x.(type) {
	case *List:
		n = len(x.elems)
	case Tuple:
		n = len(x)
	case rangeValue:
		n = x.len
	case *Dict:
		n = x.Len()
	case *Set:
		n = x.Len()
	default:
		return
	}
	if n < 16 {
		return
	}
	n = min(n, sizeHintMax)
	if bytes := int64(unsafe.Sizeof(Value(nil))) * int64(n); bytes >= 64<<10 {
		if checkGrow(thread, bytes) != nil {
			return
		}
	}
	list.elems = make([]Value, 0, n)
}
