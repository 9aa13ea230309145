package starlark

import (
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/internal/compile"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// rlm: PyOps gives the interpreter Python's semantics for the operations
// where Python and Starlark disagree, so that a front end can emit native
// operations instead of calls to runtime helpers (a helper call copies its
// arguments and pushes a frame; these hooks are plain Go calls from the
// interpreter loop). Each hook is called only when set (see PATCHES.md).
type PyOpsHooks struct {
	// Binary computes x op y for op % and * (Python formatting and
	// modulo, sequence repetition with size checks).
	Binary func(thread *Thread, op syntax.Token, x, y Value) (Value, error)
	// Index computes x[y] in a read (str indexed by code point).
	Index func(thread *Thread, x, y Value) (Value, error)
	// Slice computes x[lo:hi:step] in a read (None for a missing part).
	Slice func(thread *Thread, x, lo, hi, step Value) (Value, error)
	// Iterable returns what a for loop or comprehension iterates when
	// it is given x (e.g. the characters of a str).
	Iterable func(thread *Thread, x Value) (Value, error)
	// Contains reports whether needle occurs in haystack (str in str),
	// e.g. with a faster search than strings.Contains on large texts.
	Contains func(haystack, needle string) bool
	// Method calls recv.name(*args, **kwargs) for a call of the front
	// end's _py_method(recv, "name", *args) helper, without the helper's
	// frame; handled false (with no effect) leaves the call to the helper.
	// args may be the interpreter's operand stack: Method must not keep it.
	Method func(thread *Thread, recv Value, name string, args Tuple, kwargs []Tuple) (v Value, handled bool, err error)
	// CaseMap returns Python's str.upper, lower, title or capitalize (by
	// name) of s, a str with a non-ASCII byte: Unicode's full case
	// mappings (ß.upper() is SS), which Go's unicode package lacks.
	CaseMap func(name, s string) string
}

// rlm: caseMapped applies PyOps.CaseMap to a non-ASCII str (ok false:
// Starlark's own mapping, exact for ASCII).
func caseMapped(name, s string) (String, bool) {
	if PyOps == nil || PyOps.CaseMap == nil {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return String(PyOps.CaseMap(name, s)), true
		}
	}
	return "", false
}

// PyOps holds the process's Python operation hooks (nil: Starlark's own
// semantics). Set it once, before any thread runs.
var PyOps *PyOpsHooks

// rlm: Appender is a list comprehension's accumulator that is not a
// *List (syntax.Comprehension.Acc): the APPEND of each element calls
// Append, whose error ends the comprehension.
type Appender interface {
	Value
	Append(thread *Thread, v Value) error
}

// rlm: PairIterator is an Iterator whose elements are pairs (2-tuples)
// that it can also hand out as their two elements, with no tuple built:
// the interpreter uses NextPair for `for a, b in x` (an ITERJMP followed
// by UNPACK 2). NextPair(a, b) must be equivalent to Next(&t) followed
// by a, b = t[0], t[1].
type PairIterator interface {
	Iterator
	NextPair(a, b *Value) bool
}

// pairUnpack reports whether the instruction at pc (after an ITERJMP
// and its padding) is an UNPACK 2: it returns the pc after it and how
// many instructions that skips, or 0 if it is not.
func pairUnpack(code []byte, pc uint32) (next uint32, skipped uint64) {
	if int(pc)+1 < len(code) && code[pc] == byte(compile.UNPACK) && code[pc+1] == 2 {
		return pc + 2, 1
	}
	return 0, 0
}

// pyMethodCall calls PyOps.Method for a call of fn, the _py_method helper,
// with args; handled is false when fn is something else or when the hook
// leaves the call to the helper.
func pyMethodCall(thread *Thread, fn Value, args Tuple, kwargs []Tuple) (v Value, handled bool, err error) {
	py := PyOps
	if py == nil || py.Method == nil || len(args) < 2 {
		return nil, false, nil
	}
	if b, ok := fn.(*Builtin); !ok || b.name != "_py_method" || b.recv != nil {
		return nil, false, nil
	}
	name, ok := args[1].(String)
	if !ok {
		return nil, false, nil
	}
	v, handled, err = py.Method(thread, args[0], string(name), args[2:], kwargs)
	if handled && v == nil && err == nil {
		err = fmt.Errorf("internal error: nil (not None) returned from %s", name)
	}
	return v, handled, err
}
