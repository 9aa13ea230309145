package py

import (
	"errors"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// The builtins sum, min, max, any and all, one value each for the
// process, so that _py_sink can tell them from a user's function of the
// same name.
var (
	builtinSum    = NewBuiltin("sum", pySum).SetArgsNotKept()
	builtinMin    = NewBuiltin("min", pyMinMax("min", syntax.LT)).SetArgsNotKept().SetFastCall(MinMaxFast(syntax.LT))
	builtinMax    = NewBuiltin("max", pyMinMax("max", syntax.GT)).SetArgsNotKept().SetFastCall(MinMaxFast(syntax.GT))
	builtinAny    = NewBuiltin("any", pyAnyAll("any", true)).SetArgsNotKept()
	builtinAll    = NewBuiltin("all", pyAnyAll("all", false)).SetArgsNotKept()
	builtinSorted = NewBuiltin("sorted", pySorted).SetArgsNotKept()
	// builtinJoin is _py_join(recv, xs), recv.join(xs): the front end's
	// name for a join method in _py_sink(_py_join, recv) and
	// _py_fold(_py_join, acc).
	builtinJoin = NewBuiltin(
		"_py_join",
		func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) != 2 {
				return nil, Errorf("TypeError", "_py_join() takes 2 arguments (%d given)", len(args))
			}
			return callMethod(thread, args[0], "join", args[1:], kwargs)
		},
	)
)

// joinSink joins the elements of a comprehension given to X.join as they
// come. For a str X it writes them into one buffer; like CPython, which
// consumes the whole iterable before it checks the items, it evaluates
// every element and reports the first that is not a str at the end. For
// another X it collects the elements and calls X.join with their list.
type joinSink struct {
	recv  starlark.Value
	sep   string
	isStr bool
	b     strings.Builder
	n     int
	bad   error            // the first element that is not a str
	elems []starlark.Value // X not a str
}

var _ starlark.Appender = (*joinSink)(nil)

func (s *joinSink) String() string        { return "<join>" }
func (s *joinSink) Type() string          { return "join" }
func (s *joinSink) Freeze()               {}
func (s *joinSink) Truth() starlark.Bool  { return starlark.True }
func (s *joinSink) Hash() (uint32, error) { return 0, Errorf("TypeError", "unhashable type: 'join'") }

// Append joins v in.
func (s *joinSink) Append(thread *starlark.Thread, v starlark.Value) error {
	s.n++
	if !s.isStr {
		if n := len(s.elems); n == cap(s.elems) && n >= GrowCheckEvery {
			if err := growCheck(thread, int64(n+n/4)*ListElemBytes); err != nil {
				return err
			}
		}
		s.elems = append(s.elems, v)
		return nil
	}
	if s.bad != nil {
		return nil
	}
	if p, ok := v.(Proxy); ok {
		t, err := p.ProxyTarget(thread)
		if err != nil {
			return err
		}
		v = t
	}
	str, ok := v.(starlark.String)
	if !ok {
		s.bad = Errorf("TypeError", "sequence item %d: expected str instance, %s found", s.n-1, PyType(v))
		return nil
	}
	if s.n > 1 {
		s.b.WriteString(s.sep)
	}
	if need := s.b.Len() + len(s.sep) + len(str); need > s.b.Cap() && need >= SmallAlloc {
		// The buffer is about to grow (to about twice its size).
		if err := CheckAlloc(thread, 2*int64(need)); err != nil {
			return err
		}
	}
	s.b.WriteString(string(str))
	return nil
}

// result is X.join of the elements appended.
func (s *joinSink) result(thread *starlark.Thread) (starlark.Value, error) {
	if !s.isStr {
		return callMethod(thread, s.recv, "join", starlark.Tuple{starlark.NewList(s.elems)}, nil)
	}
	if s.bad != nil {
		return nil, s.bad
	}
	return starlark.String(s.b.String()), nil
}

// foldSink consumes the elements of a comprehension given to sum, min or
// max as they are produced (pyfront's Options.FoldCalls): sum(x * x for x
// in range(10**6)) then builds no list of a million elements. The front
// end lowers F(<comprehension>) to _py_fold(F, comprehension) whose
// comprehension appends to _py_sink(F) (starlark.Appender).
//
// any and all take a generator expression as _py_fold(F, lambda: [...])
// instead: their sink ends the comprehension at the first true (any) or
// false (all) element with a foldStop error, which _py_fold turns into
// the result, so the rest of the generator is never evaluated, as in
// Python.
type foldSink struct {
	fn    *starlark.Builtin
	sum   *sumFold       // sum
	op    syntax.Token   // min (LT) or max (GT)
	best  starlark.Value // min and max: the best element so far (nil: none)
	build Builder        // set, dict, Counter: the value being built
	n     int            // elements appended
}

// Builder builds the value of set, dict or a module's type (a typeObj
// with newBuilder: Counter) of a generator expression element by element,
// with no list of the elements.
type Builder interface {
	Add(thread *starlark.Thread, i int, v starlark.Value) error
	Value() starlark.Value
}

// TableGrowth asks for room before a set's or dict's hash table of n
// entries may double again (each time n passes the next power of two
// from growCheckEvery), as the interpreter does for a growing dict.
type TableGrowth struct{ next int }

func (g *TableGrowth) Check(thread *starlark.Thread, n int) error {
	if g.next == 0 {
		g.next = GrowCheckEvery
	}
	if n < g.next {
		return nil
	}
	g.next *= 2
	return growCheck(thread, int64(n)*dictElemBytes)
}

type setBuilder struct {
	s *starlark.Set
	g TableGrowth
}

func (b *setBuilder) Add(thread *starlark.Thread, _ int, v starlark.Value) error {
	if err := b.g.Check(thread, b.s.Len()); err != nil {
		return err
	}
	return b.s.Insert(v)
}
func (b *setBuilder) Value() starlark.Value { return b.s }

type dictBuilder struct {
	d *starlark.Dict
	g TableGrowth
}

func (b *dictBuilder) Add(thread *starlark.Thread, i int, v starlark.Value) error {
	if err := b.g.Check(thread, b.d.Len()); err != nil {
		return err
	}
	return setDictPair(thread, b.d, i, v)
}
func (b *dictBuilder) Value() starlark.Value { return b.d }

// foldStop ends the comprehension of an any or all sink early: the
// answer is known.
type foldStop struct{ result starlark.Bool }

func (*foldStop) Error() string { return "internal error: fold stop outside _py_fold" }

// Unwinding marks foldStop as starlark.Unwinding: _py_fold takes it back
// from the call it made, so the interpreter captures no call stack for it.
func (*foldStop) Unwinding() {}

var _ starlark.Unwinding = (*foldStop)(nil)

var _ starlark.Appender = (*foldSink)(nil)

func (s *foldSink) String() string        { return "<fold " + s.fn.Name() + ">" }
func (s *foldSink) Type() string          { return "fold" }
func (s *foldSink) Freeze()               {}
func (s *foldSink) Truth() starlark.Bool  { return starlark.True }
func (s *foldSink) Hash() (uint32, error) { return 0, Errorf("TypeError", "unhashable type: 'fold'") }

// Append folds v in, as the builtin would when it iterates to v.
func (s *foldSink) Append(thread *starlark.Thread, v starlark.Value) error {
	if s.sum != nil {
		return s.sum.Add(thread, v)
	}
	if s.build != nil {
		s.n++
		if s.n%GrowCheckEvery == 0 {
			if err := growCheck(thread, 0); err != nil {
				return err
			}
		}
		return s.build.Add(thread, s.n-1, v)
	}
	if isAny := s.fn == builtinAny; isAny || s.fn == builtinAll {
		if t := bool(v.Truth()); t == isAny {
			return &foldStop{result: starlark.Bool(t)}
		}
		return nil
	}
	if s.best == nil {
		s.best = v
		return nil
	}
	if better, ok := intBetter(s.op, v, s.best); ok {
		if better {
			s.best = v
		}
		return nil
	}
	better, err := PyCompare(s.op, v, s.best)
	if err != nil {
		return err
	}
	if better {
		s.best = v
	}
	return nil
}

// result is what the builtin returns for the elements appended.
func (s *foldSink) result() (starlark.Value, error) {
	if s.sum != nil {
		return s.sum.result(), nil
	}
	if s.build != nil {
		return s.build.Value(), nil
	}
	if isAll := s.fn == builtinAll; isAll || s.fn == builtinAny {
		return starlark.Bool(isAll), nil // no element decided
	}
	if s.best == nil {
		return nil, Errorf("ValueError", "%s() arg is an empty sequence", s.fn.Name())
	}
	return s.best, nil
}

// pySink is _py_sink(f): a foldSink when f is the builtin sum, min or max,
// else a new list (the comprehension then builds its list for f).
func pySink(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 2 && args[0] == builtinJoin {
		sep, ok := args[1].(starlark.String)
		return &joinSink{recv: args[1], sep: string(sep), isStr: ok}, nil
	}
	if len(args) == 1 {
		return newSink(args[0]), nil
	}
	return starlark.NewList(nil), nil
}

// newSink is _py_sink(f) of one argument.
func newSink(f starlark.Value) starlark.Value {
	switch f {
	case builtinSum:
		return &foldSink{fn: builtinSum, sum: newSumFold(starlark.MakeInt(0))}
	case builtinMin:
		return &foldSink{fn: builtinMin, op: syntax.LT}
	case builtinMax:
		return &foldSink{fn: builtinMax, op: syntax.GT}
	case builtinAny:
		return &foldSink{fn: builtinAny}
	case builtinAll:
		return &foldSink{fn: builtinAll}
	case typeSet:
		return &foldSink{build: &setBuilder{s: new(starlark.Set)}}
	case TypeDict:
		return &foldSink{build: &dictBuilder{d: starlark.NewDict(0)}}
	}
	if t, ok := f.(*TypeObj); ok && t.NewBuilder != nil {
		return &foldSink{build: t.NewBuilder()}
	}
	return starlark.NewList(nil)
}

// pyFold is _py_fold(f, acc, **kwargs): the result of a foldSink, or
// f(acc, **kwargs) for the list that _py_sink made when f was not a
// builtin it folds (list and sorted take that list as their own: it is
// new and nobody else holds it). An acc that is a function (the front
// end's lambda _py_acc: [...] around a generator expression given to any
// or all) is called first with _py_sink(f) for the accumulator; a
// foldStop that ends it early is the result.
func pyFold(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, Errorf("TypeError", "_py_fold() takes 2 arguments (%d given)", len(args))
	}
	acc := args[1]
	if lazy, ok := acc.(*starlark.Function); ok {
		v, err := starlark.Call(thread, lazy, starlark.Tuple{newSink(args[0])}, nil)
		if err != nil {
			if stop, ok := err.(*foldStop); ok { // as the lambda returned it (Unwinding)
				return stop.result, nil
			}
			if stop := (*foldStop)(nil); errors.As(err, &stop) {
				return stop.result, nil
			}
			return nil, err
		}
		acc = v
	}
	if s, ok := acc.(*foldSink); ok {
		return s.result()
	}
	if s, ok := acc.(*joinSink); ok {
		return s.result(thread)
	}
	if l, ok := acc.(*starlark.List); ok {
		switch args[0] {
		case typeList:
			if len(kwargs) == 0 {
				return l, nil
			}
		case builtinSorted:
			var key starlark.Value = starlark.None
			var reverse starlark.Value = starlark.False
			if err := starlark.UnpackArgs("sorted", nil, kwargs, "key?", &key, "reverse?", &reverse); err != nil {
				return nil, err
			}
			if err := SortList(thread, l, key, bool(reverse.Truth())); err != nil {
				return nil, err
			}
			return l, nil
		}
	}
	return starlark.Call(thread, args[0], starlark.Tuple{acc}, kwargs)
}

// isBuiltin returns _py_isany or _py_isall: _py_isany(f) is whether f is
// the builtin any (pyfront lowers any(<generator>) to the generator run
// inline when it is, see pyfront's lowerAnyAll).
func isBuiltin(name string, b *starlark.Builtin) (BuiltinFn, func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool)) {
	fast := func(_ *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
		if len(args) != 1 {
			return nil, false
		}
		return starlark.Bool(args[0] == starlark.Value(b)), true
	}
	slow := func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if v, ok := fast(thread, args); ok && len(kwargs) == 0 {
			return v, nil
		}
		return nil, Errorf("TypeError", "%s() takes 1 argument (%d given)", name, len(args)+len(kwargs))
	}
	return slow, fast
}
