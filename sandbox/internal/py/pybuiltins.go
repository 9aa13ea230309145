package py

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

type BuiltinFn = func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// PyBuiltins returns the predeclared Python builtins and _py_* helpers.
// The dict and its values are made once and shared by every session:
// callers copy it and must not modify it. (Its values hold no session
// state: a builtin reaches its session through the thread, StepOf.)
func PyBuiltins() starlark.StringDict { return pyBuiltins() }

// pyBuiltins makes the dict of PyBuiltins once: building it for every
// session was a fifth of the cost of a new session in rlm serve, which
// makes one per request.
var pyBuiltins = sync.OnceValue(makePyBuiltins)

func makePyBuiltins() starlark.StringDict {
	d := starlark.StringDict{
		"__name__":  starlark.String("__main__"),
		"int":       typeInt,
		"float":     typeFloat,
		"str":       typeStr,
		"bool":      typeBool,
		"list":      typeList,
		"dict":      TypeDict,
		"tuple":     TypeTuple,
		"set":       typeSet,
		"frozenset": typeFrozenset,
		"type":      typeType,
		"object":    typeObject,
		"range":     typeRange,
		"slice":     typeSlice,
		"bytes":     typeBytes,
	}
	fns := map[string]BuiltinFn{
		"print":      pyPrint,
		"repr":       pyRepr,
		"ascii":      pyASCII,
		"format":     pyFormatBuiltin,
		"len":        pyLen,
		"isinstance": pyIsInstance,
		"issubclass": pyIsSubclass,
		"callable":   pyCallable,
		"round":      pyRound,
		"map":        pyMap,
		"filter":     pyFilter,
		"divmod":     pyDivmod,
		"pow":        pyPowBuiltin,
		"hex":        pyRadix("hex", 16, "0x"),
		"bin":        pyRadix("bin", 2, "0b"),
		"oct":        pyRadix("oct", 8, "0o"),
		"abs":        pyAbs,
		"reversed":   pyReversed,
		"zip":        pyZip,
		"enumerate":  pyEnumerate,
		"iter":       pyIterBuiltin,
		"next":       pyNext,
		"id":         pyID,

		"open": Unavailable(
			"open",
			"file access is not available in the sandbox; the data is already in variables (see show_vars())",
		),
		"input":      Unavailable("input", "input() is not available in the sandbox"),
		"exec":       Unavailable("exec", "exec() is not available in the sandbox; write the code directly"),
		"eval":       Unavailable("eval", "eval() is not available in the sandbox; parse values with int(), float() or json.loads()"),
		"compile":    Unavailable("compile", "compile() is not available in the sandbox"),
		"globals":    pyGlobals,
		"dir":        pyDir,
		"hasattr":    pyHasattr,
		"setattr":    pySetattr,
		"delattr":    pyDelAttr,
		"locals":     Unavailable("locals", "locals() is not available"),
		"vars":       pyVars,
		"exit":       Unavailable("exit", "exit() is not available; end the run with SUBMIT(...)"),
		"quit":       Unavailable("quit", "quit() is not available; end the run with SUBMIT(...)"),
		"__import__": Unavailable("__import__", "use an import statement: import re, json, math, collections"),

		"_py_format": pyFormatHelper,
		"_py_fstr":   pyFStr,
		"_py_repr":   pyRepr,
		"_py_str": func(t *starlark.Thread, _ *starlark.Builtin, a starlark.Tuple, k []starlark.Tuple) (starlark.Value, error) {
			return builtinStr(t, a, k)
		},
		"_py_ascii":         pyASCII,
		"_py_pow":           pyPowHelper,
		"_py_mul":           PyMulHelper,
		"_py_mod":           pyModHelper,
		"_py_is":            pyIs,
		"_py_chain":         pyChain,
		"_py_method":        pyMethod,
		"_py_iter":          pyIterHelper,
		"_py_import":        pyImport,
		"_py_raise":         pyRaise,
		"_py_assert_fail":   pyAssertFail,
		"_py_del":           pyDel,
		"_py_delslice":      pyDelSlice,
		"_py_unpack":        pyUnpack,
		"_py_forunpack":     pyForUnpack,
		"_py_forunpack_err": pyForUnpackErr,
		"_py_list": func(t *starlark.Thread, _ *starlark.Builtin, a starlark.Tuple, k []starlark.Tuple) (starlark.Value, error) {
			return typeList.Call(t, a, k)
		},
		"_py_tuple": func(t *starlark.Thread, _ *starlark.Builtin, a starlark.Tuple, k []starlark.Tuple) (starlark.Value, error) {
			return TypeTuple.Call(t, a, k)
		},
		"_py_set": func(t *starlark.Thread, _ *starlark.Builtin, a starlark.Tuple, k []starlark.Tuple) (starlark.Value, error) {
			return builtinSet(t, a, k)
		},
		"_py_dict_merge": pyDictMerge,
		"_py_class":      pyClassHelper,
		"_py_super":      pySuper,
		"_py_delattr":    pyDelAttr,
		"staticmethod":   wrapperBuiltin("staticmethod"),
		"classmethod":    wrapperBuiltin("classmethod"),
		"property":       wrapperBuiltin("property"),
		"_py_setslice":   pySetSlice,
		"_py_dunder":     pyDunder,
		"_py_b2i":        pyB2I,
		"_py_eq":         pyEq,
		"_py_getitem":    PyGetItem,
		"_py_getslice":   pyGetSlice,
		"_py_sink":       pySink,
		"_py_fold":       pyFold,
		"_py_enter":      pyEnter,
		"_py_exit":       pyExit,
	}
	for name, fn := range fns {
		d[name] = NewBuiltin(name, fn)
	}
	d["sum"], d["min"], d["max"] = builtinSum, builtinMin, builtinMax
	d["any"], d["all"], d["sorted"] = builtinAny, builtinAll, builtinSorted
	d["_py_join"] = builtinJoin
	for name, b := range map[string]*starlark.Builtin{"_py_isany": builtinAny, "_py_isall": builtinAll} {
		slow, fast := isBuiltin(name, b)
		d[name] = NewBuiltin(name, slow).SetArgsNotKept().SetFastCall(fast)
	}
	d["chr"] = NewBuiltin("chr", pyChr)
	d["hash"] = NewBuiltin("hash", pyHash)
	d["ord"] = guardUniverse("ord")
	d["getattr"] = NewBuiltin("getattr", pyGetattr)
	// Builtins that never keep their argument tuple (checked one by one):
	// the interpreter passes them its operand stack uncopied. (sum, min,
	// max, any, all and sorted, shared by all sessions, are marked where
	// they are made.)
	for _, name := range []string{"len", "isinstance", "round", "abs", "print",
		"repr", "hash", "chr", "ord", "divmod", "callable", "id"} {
		d[name].(*starlark.Builtin).SetArgsNotKept() // made just above, not universe builtins
	}
	d["len"].(*starlark.Builtin).SetFastCall(lenFast)
	d["_py_method"].(*starlark.Builtin).SetFastCall(pyMethodFast)
	d["_py_fstr"].(*starlark.Builtin).SetFastCall(pyFStrFast)
	d["isinstance"].(*starlark.Builtin).SetFastCall(isInstanceFast)
	d["_py_eq"].(*starlark.Builtin).SetFastCall(pyEqFast)
	for name, t := range ExcTypes {
		if !strings.Contains(name, ".") && name != "Error" {
			d[name] = t
		}
	}
	// Models often forget `import re` (many RLM REPLs pre-import it): bind
	// these modules as predeclared names, which an assignment can shadow and
	// which UserGlobals (show_vars) hides like every other predeclared value.
	for _, name := range autoImported {
		if m, err := ImportModule(name); err == nil {
			d[name] = m
		}
	}
	return d
}

// autoImported lists the modules bound without an import statement.
var autoImported = []string{"re", "json", "math"}

func Unavailable(name, msg string) BuiltinFn {
	return func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return nil, &PyError{Kind: "NotImplementedError", Msg: name + ": " + msg, Err: ErrUnsupported}
	}
}

// pyHash is Python's hash(): strings and bytes hash as Starlark's hash()
// does, ints (and bools and integral floats) as CPython does (n modulo
// 2**61-1, so hash(5) == 5), and other hashable values, tuples among them,
// by their Hash. Unhashable values are a TypeError; a tuple nested past the
// recursion limit is a RecursionError.
func pyHash(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("hash", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.String, starlark.Bytes:
		return starlark.Universe["hash"].(*starlark.Builtin).CallInternal(thread, args, nil)
	case starlark.Bool:
		return boolInt(v), nil
	case starlark.Int:
		return pyIntHash(v.BigInt()), nil
	case starlark.Float:
		if f := float64(v); f == math.Trunc(f) && !math.IsInf(f, 0) {
			n, _ := new(big.Float).SetFloat64(f).Int(nil)
			return pyIntHash(n), nil
		}
	case PyNumber:
		if r := v.Rat(); r.Rat != nil && r.IsInt() {
			return pyIntHash(r.Num()), nil
		}
	}
	h, err := x.Hash()
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt64(int64(int32(h))), nil
}

// pyIntHash is CPython's hash of the integer n.
func pyIntHash(n *big.Int) starlark.Int {
	const modulus = 1<<61 - 1
	m := new(big.Int).Rem(new(big.Int).Abs(n), big.NewInt(modulus)).Int64()
	if n.Sign() < 0 {
		m = -m
	}
	if m == -1 {
		m = -2
	}
	return starlark.MakeInt64(m)
}

func ArgErr(fn string, format string, args ...any) error {
	return Errorf("TypeError", fn+"() "+format, args...)
}

func pyPrint(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sep, end := " ", "\n"
	for _, kv := range kwargs {
		k, _ := starlark.AsString(kv[0])
		switch k {
		case "sep", "end":
			var s string
			switch v := kv[1].(type) {
			case starlark.NoneType:
				s = map[string]string{"sep": " ", "end": "\n"}[k]
			case starlark.String:
				s = string(v)
			default:
				return nil, Errorf("TypeError", "%s must be None or a string, not %s", k, PyType(v))
			}
			if k == "sep" {
				sep = s
			} else {
				end = s
			}
		case "file", "flush":
		default:
			return nil, ArgErr("print", "got an unexpected keyword argument '%s'", k)
		}
	}
	r := Renderer{Thread: thread}
	st := StepOf(thread)
	if st != nil {
		r.max = st.Host.OutputRoom() + 1
	}
	for i, a := range args {
		if r.full() {
			break // past the step's output room: the write below fails with OutputLimitError
		}
		if i > 0 {
			r.B.WriteString(sep)
		}
		r.str(a)
	}
	if r.Err != nil {
		return nil, r.Err
	}
	r.B.WriteString(end)
	if st != nil {
		if err := st.Host.WriteOutput(r.B.String()); err != nil {
			return nil, &PyError{Kind: "OutputLimitError", Msg: strings.TrimPrefix(err.Error(), ErrOutputLimit.Error()+": "), Err: err}
		}
	} else if thread.Print != nil {
		thread.Print(thread, strings.TrimSuffix(r.B.String(), "\n"))
	}
	return starlark.None, nil
}

func OneArg(fn string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, ArgErr(fn, "takes exactly one argument (%d given)", len(args)+len(kwargs))
	}
	return args[0], nil
}

func pyRepr(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("repr", args, kwargs)
	if err != nil {
		return nil, err
	}
	r := Renderer{Thread: thread}
	r.Repr(x)
	if r.Err != nil {
		return nil, r.Err
	}
	return starlark.String(r.B.String()), nil
}

func pyASCII(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("ascii", args, kwargs)
	if err != nil {
		return nil, err
	}
	r := Renderer{Thread: thread}
	r.Repr(x)
	if r.Err != nil {
		return nil, r.Err
	}
	var out strings.Builder
	for _, c := range r.B.String() {
		if c < 0x80 {
			out.WriteRune(c)
		} else {
			writeEscape(&out, c)
		}
	}
	return starlark.String(out.String()), nil
}

// lenFast is len(x)'s fast path (starlark.FastCallable) for the
// built-in sized values, as pyLen answers them.
func lenFast(_ *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
	if len(args) != 1 {
		return nil, false
	}
	switch x := args[0].(type) {
	case starlark.String:
		if len(x) <= 16 {
			// A word: testing it for ASCII, or counting its code points,
			// costs less than the ASCII test and the facts cache of
			// StrLen; a loop over its bytes less than RuneCountInString.
			for i := 0; i < len(x); i++ {
				if x[i] >= utf8.RuneSelf {
					return starlark.MakeInt(utf8.RuneCountInString(string(x))), true
				}
			}
			return starlark.MakeInt(len(x)), true
		}
		return starlark.MakeInt(StrLen(string(x))), true
	case *starlark.List:
		return starlark.MakeInt(x.Len()), true
	case starlark.Tuple:
		return starlark.MakeInt(len(x)), true
	case *starlark.Dict:
		return starlark.MakeInt(x.Len()), true
	case *starlark.Set:
		return starlark.MakeInt(x.Len()), true
	}
	return nil, false
}

func pyLen(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("len", args, kwargs)
	if err != nil {
		return nil, err
	}
	x, err = Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	if dl, ok := x.(PyDictLike); ok && !IsType[*LazyDict](x) {
		x = dl.UnderlyingDict()
	}
	if s, ok := x.(starlark.String); ok {
		return starlark.MakeInt(StrLen(string(s))), nil
	}
	if n := starlark.Len(x); n >= 0 {
		return starlark.MakeInt(n), nil
	}
	if t, ok := x.(*TypeObj); ok && metaOf(t) != nil {
		return starlark.MakeInt(metaOf(t).ClassLen()), nil
	}
	return nil, Errorf("TypeError", "object of type '%s' has no len()", PyType(x))
}

func pyIsInstance(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, t starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("isinstance", args, kwargs, 2, &x, &t); err != nil {
		return nil, err
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	ok, err := isInstance(x, t)
	return starlark.Bool(ok), err
}

// isInstanceFast is isinstance's fast path (starlark.FastCallable): any
// value but a future (which the general call waits for), declining an
// error (a second argument that is no type).
func isInstanceFast(_ *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
	if len(args) != 2 {
		return nil, false
	}
	if _, ok := args[0].(Proxy); ok {
		return nil, false
	}
	ok, err := isInstance(args[0], args[1])
	if err != nil {
		return nil, false
	}
	return starlark.Bool(ok), true
}

// MinMaxFast is the fast path of min (op LT) or max (GT) of two ints: the
// first of the best, as the builtin answers.
func MinMaxFast(op syntax.Token) func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
	return func(_ *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
		if len(args) != 2 {
			return nil, false
		}
		better, ok := intBetter(op, args[1], args[0])
		if !ok {
			return nil, false
		}
		if better {
			return args[1], true
		}
		return args[0], true
	}
}

func pyIsSubclass(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, t starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("issubclass", args, kwargs, 2, &x, &t); err != nil {
		return nil, err
	}
	xt, ok := x.(*TypeObj)
	if !ok {
		return nil, Errorf("TypeError", "issubclass() arg 1 must be a class")
	}
	ts := starlark.Tuple{t}
	if tup, ok := t.(starlark.Tuple); ok {
		ts = tup
	}
	for _, u := range ts {
		if ut, ok := u.(*TypeObj); ok && (xt.IsSubtype(ut) || ut == typeObject || (ut == typeInt && xt == typeBool)) {
			return starlark.True, nil
		}
	}
	return starlark.False, nil
}

func pyCallable(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("callable", args, kwargs)
	if err != nil {
		return nil, err
	}
	_, ok := x.(starlark.Callable)
	return starlark.Bool(ok), nil
}

func pyID(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("id", args, kwargs)
	if err != nil {
		return nil, err
	}
	h := fmt.Sprintf("%p", x)
	n, _ := strconv.ParseUint(strings.TrimPrefix(h, "0x"), 16, 64)
	return starlark.MakeUint64(n), nil
}

// Add returns x + y with Python semantics.
func Add(x, y starlark.Value) (starlark.Value, error) {
	if a, ok := x.(starlark.Int); ok {
		if b, ok := y.(starlark.Int); ok {
			return a.Add(b), nil
		}
	}
	return Binary(syntax.PLUS, x, y)
}

// Binary applies a Starlark binary operator treating bools as ints.
func Binary(op syntax.Token, x, y starlark.Value) (starlark.Value, error) {
	if b, ok := x.(starlark.Bool); ok {
		x = boolInt(b)
	}
	if b, ok := y.(starlark.Bool); ok {
		y = boolInt(b)
	}
	return starlark.Binary(op, x, y)
}

func boolInt(b starlark.Bool) starlark.Int {
	if b {
		return one
	}
	return zero
}

func pySum(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var start starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackArgs("sum", args, kwargs, "iterable", &it, "start?", &start); err != nil {
		return nil, err
	}
	if _, ok := start.(starlark.String); ok {
		return nil, Errorf("TypeError", "sum() can't sum strings [use ''.join(seq) instead]")
	}
	f := newSumFold(start)
	if err := ForEach(thread, it, func(x starlark.Value) error { return f.Add(thread, x) }); err != nil {
		return nil, err
	}
	return f.result(), nil
}

// sumFold is sum's accumulator: pySum feeds it an iterable's elements,
// foldSink a comprehension's as they come.
type sumFold struct {
	acc starlark.Value
	// iacc is the sum while fast: all elements so far were ints whose
	// sum fits in an int64.
	iacc int64
	fast bool
}

func newSumFold(start starlark.Value) *sumFold {
	f := &sumFold{acc: start}
	if i, ok := start.(starlark.Int); ok {
		f.iacc, f.fast = i.Int64()
	}
	return f
}

func (f *sumFold) Add(thread *starlark.Thread, x starlark.Value) error {
	var err error
	if f.fast {
		// An int first: the common case, and no Proxy (a future).
		if i, ok := x.(starlark.Int); ok {
			if v, ok := i.Int64(); ok && (v >= 0 && f.iacc <= math.MaxInt64-v || v < 0 && f.iacc >= math.MinInt64-v) {
				f.iacc += v
				return nil
			}
		}
	}
	if p, ok := x.(Proxy); ok {
		if x, err = p.ProxyTarget(thread); err != nil {
			return err
		}
		if f.fast {
			return f.Add(thread, x) // the future's value, an int or not
		}
	}
	if f.fast {
		f.fast = false
		f.acc = starlark.MakeInt64(f.iacc)
	}
	sum, err := Add(f.acc, x)
	if err != nil {
		return Errorf("TypeError", "unsupported operand type(s) for +: '%s' and '%s'", PyType(f.acc), PyType(x))
	}
	f.acc = sum
	return nil
}

func (f *sumFold) result() starlark.Value {
	if f.fast {
		return starlark.MakeInt64(f.iacc)
	}
	return f.acc
}

func pyRound(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, nd starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("round", args, kwargs, "number", &x, "ndigits?", &nd); err != nil {
		return nil, err
	}
	x, err := Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	if b, ok := x.(starlark.Bool); ok {
		x = boolInt(b)
	}
	if n, ok := x.(PyNumber); ok {
		return n.Round(nd)
	}
	if nd == starlark.None {
		switch v := x.(type) {
		case starlark.Int:
			return v, nil
		case starlark.Float:
			f := float64(v)
			if math.IsInf(f, 0) {
				return nil, Errorf("OverflowError", "cannot convert float infinity to integer")
			}
			if math.IsNaN(f) {
				return nil, Errorf("ValueError", "cannot convert float NaN to integer")
			}
			return starlark.NumberToInt(starlark.Float(math.RoundToEven(f)))
		}
		return nil, Errorf("TypeError", "type %s doesn't define __round__ method", PyType(x))
	}
	n, err := starlark.AsInt32(nd)
	if err != nil {
		return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", PyType(nd))
	}
	switch v := x.(type) {
	case starlark.Int:
		if n >= 0 {
			return v, nil
		}
		// Round to 10**-n with ties to even.
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-n)), nil)
		q, r := new(big.Int).QuoRem(v.BigInt(), p, new(big.Int))
		r2 := new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2))
		if c := r2.Cmp(p); c > 0 || c == 0 && q.Bit(0) == 1 {
			if v.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		return starlark.MakeBigInt(q.Mul(q, p)), nil
	case starlark.Float:
		return starlark.Float(roundFloat(float64(v), n)), nil
	}
	return nil, Errorf("TypeError", "type %s doesn't define __round__ method", PyType(x))
}

// roundFloat rounds f to n decimal digits as CPython does (correctly
// rounded from the exact binary value, ties to even).
func roundFloat(f float64, n int) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) || f == 0 {
		return f
	}
	if n > 300 {
		return f
	}
	if n >= 0 {
		s := strconv.FormatFloat(f, 'f', n, 64)
		r, _ := strconv.ParseFloat(s, 64)
		return r
	}
	p := math.Pow(10, float64(-n))
	q := f / p
	r := math.RoundToEven(q) * p
	if math.IsInf(r, 0) {
		return f
	}
	if r == 0 {
		return math.Copysign(0, f)
	}
	return r
}

func pyMap(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 || len(kwargs) > 0 {
		return nil, ArgErr("map", "must have at least two arguments")
	}
	fn := args[0]
	lists := make([][]starlark.Value, len(args)-1)
	n := -1
	for i, a := range args[1:] {
		elems, err := Collect(thread, a)
		if err != nil {
			return nil, err
		}
		lists[i] = elems
		if n < 0 || len(elems) < n {
			n = len(elems)
		}
	}
	out := make([]starlark.Value, n)
	callArgs := make(starlark.Tuple, len(lists))
	for i := 0; i < n; i++ {
		for j := range lists {
			callArgs[j] = lists[j][i]
		}
		v, err := starlark.Call(thread, fn, append(starlark.Tuple(nil), callArgs...), nil)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return starlark.NewList(out), nil
}

func pyFilter(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn, it starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("filter", args, kwargs, 2, &fn, &it); err != nil {
		return nil, err
	}
	return FilterBy(thread, fn, it, true)
}

// FilterBy returns the list of the items x of it for which fn(x) (x
// itself when fn is None) is true when keep is true, false otherwise:
// filter and itertools.filterfalse.
func FilterBy(thread *starlark.Thread, fn, it starlark.Value, keep bool) (starlark.Value, error) {
	var out []starlark.Value
	err := ForEach(thread, it, func(x starlark.Value) error {
		t := x.Truth()
		if fn != starlark.None {
			v, err := starlark.Call(thread, fn, starlark.Tuple{x}, nil)
			if err != nil {
				return err
			}
			t = v.Truth()
		}
		if bool(t) == keep {
			out = append(out, x)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return starlark.NewList(out), nil
}

func pyDivmod(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, b starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("divmod", args, kwargs, 2, &a, &b); err != nil {
		return nil, err
	}
	q, err := Binary(syntax.SLASHSLASH, a, b)
	if err != nil {
		if err.Error() == "float floor division by zero" {
			return nil, Errorf("ZeroDivisionError", "float divmod()")
		}
		return nil, err
	}
	r, err := Binary(syntax.PERCENT, a, b)
	if err != nil {
		return nil, err
	}
	return starlark.Tuple{q, r}, nil
}

func pyPowBuiltin(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, b, m starlark.Value
	if err := starlark.UnpackArgs("pow", args, kwargs, "base", &a, "exp", &b, "mod?", &m); err != nil {
		return nil, err
	}
	if m == nil || m == starlark.None {
		return PyPow(thread, a, b)
	}
	ai, ok1 := a.(starlark.Int)
	bi, ok2 := b.(starlark.Int)
	mi, ok3 := m.(starlark.Int)
	if !ok1 || !ok2 || !ok3 {
		return nil, Errorf("TypeError", "pow() 3rd argument not allowed unless all arguments are integers")
	}
	if mi.Sign() == 0 {
		return nil, Errorf("ValueError", "pow() 3rd argument cannot be 0")
	}
	base, exp, mod := ai.BigInt(), bi.BigInt(), mi.BigInt()
	if exp.Sign() < 0 {
		inv := new(big.Int).ModInverse(new(big.Int).Mod(base, new(big.Int).Abs(mod)), new(big.Int).Abs(mod))
		if inv == nil {
			return nil, Errorf("ValueError", "base is not invertible for the given modulus")
		}
		base, exp = inv, new(big.Int).Neg(exp)
	}
	r, err := IntPowMod(thread, base, exp, new(big.Int).Abs(mod))
	if err != nil {
		return nil, err
	}
	if mod.Sign() < 0 && r.Sign() != 0 {
		r.Add(r, mod)
	}
	return starlark.MakeBigInt(r), nil
}

func pyPowHelper(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, ArgErr("_py_pow", "takes 2 arguments")
	}
	return PyPow(thread, args[0], args[1])
}

// PyPow implements a ** b.
func PyPow(thread *starlark.Thread, a, b starlark.Value) (starlark.Value, error) {
	a, err := Unproxy(thread, a)
	if err != nil {
		return nil, err
	}
	if x, ok := a.(starlark.Bool); ok {
		a = boolInt(x)
	}
	if x, ok := b.(starlark.Bool); ok {
		b = boolInt(x)
	}
	if n, ok := a.(PyNumber); ok {
		return n.Pow(thread, b, starlark.Left)
	}
	if n, ok := b.(PyNumber); ok {
		return n.Pow(thread, a, starlark.Right)
	}
	ai, aInt := a.(starlark.Int)
	bi, bInt := b.(starlark.Int)
	if aInt && bInt && bi.Sign() >= 0 {
		base := ai.BigInt()
		e, ok := bi.Int64()
		bits := int64(base.BitLen())
		if base.CmpAbs(big.NewInt(1)) <= 0 {
			if base.Sign() == 0 && bi.Sign() == 0 {
				return starlark.MakeInt(1), nil
			}
			if base.Sign() < 0 && bi.BigInt().Bit(0) == 0 {
				return starlark.MakeInt(1), nil
			}
			return ai, nil
		}
		if !ok {
			return nil, errIntTooLarge("integer result of **", float64(bits-1)*math.MaxInt64)
		}
		r, err := IntPow(thread, base, e)
		if err != nil {
			return nil, err
		}
		return starlark.MakeBigInt(r), nil
	}
	af, ok1 := starlark.AsFloat(a)
	bf, ok2 := starlark.AsFloat(b)
	if !ok1 || !ok2 || !isNumber(a) || !isNumber(b) {
		return nil, Errorf("TypeError", "unsupported operand type(s) for ** or pow(): '%s' and '%s'", PyType(a), PyType(b))
	}
	if af == 0 && bf < 0 {
		return nil, Errorf("ZeroDivisionError", "0.0 cannot be raised to a negative power")
	}
	if af < 0 && bf != math.Trunc(bf) {
		return nil, Errorf("ValueError", "negative number cannot be raised to a fractional power (complex numbers are not supported)")
	}
	r := math.Pow(af, bf)
	if math.IsInf(r, 0) && !math.IsInf(af, 0) && !math.IsInf(bf, 0) {
		return nil, Errorf("OverflowError", "(34, 'Numerical result out of range')")
	}
	return starlark.Float(r), nil
}

func isNumber(v starlark.Value) bool {
	switch v.(type) {
	case starlark.Int, starlark.Float, starlark.Bool:
		return true
	}
	return false
}

func PyMulHelper(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, ArgErr("_py_mul", "takes 2 arguments")
	}
	return pyMul(thread, args[0], args[1])
}

// pyMul is Python's a * b with a size check against the memory limit.
func pyMul(thread *starlark.Thread, a, b starlark.Value) (starlark.Value, error) {
	if x, ok := a.(starlark.Int); ok {
		if y, ok := b.(starlark.Int); ok {
			return intMul(thread, x, y)
		}
	}
	var err error
	if a, err = Unproxy(thread, a); err != nil {
		return nil, err
	}
	if b, err = Unproxy(thread, b); err != nil {
		return nil, err
	}
	seq, n := a, b
	if _, ok := a.(starlark.Int); ok {
		seq, n = b, a
	}
	if k, ok := n.(starlark.Int); ok {
		count, ok := k.Int64()
		var unit int64
		switch s := seq.(type) {
		case starlark.String:
			unit = int64(len(s))
		case *starlark.List:
			unit = int64(s.Len()) * 16
		case starlark.Tuple:
			unit = int64(len(s)) * 16
		}
		if unit > 0 && count > 0 {
			if !ok || count > math.MaxInt64/unit {
				return nil, &PyError{Kind: "MemoryError", Msg: "repeated sequence is too large", Err: ErrMemoryLimit}
			}
			if err := CheckAlloc(thread, unit*count); err != nil {
				return nil, err
			}
		}
	}
	return Binary(syntax.STAR, a, b)
}

func pyModHelper(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, ArgErr("_py_mod", "takes 2 arguments")
	}
	return pyMod(thread, args[0], args[1])
}

// pyMod is Python's a % b: printf-style formatting for str, modulo for
// numbers.
func pyMod(thread *starlark.Thread, a, b starlark.Value) (starlark.Value, error) {
	if x, ok := a.(starlark.Int); ok {
		if y, ok := b.(starlark.Int); ok {
			if y.Sign() == 0 {
				return nil, Errorf("ZeroDivisionError", "integer modulo by zero")
			}
			return starlark.Binary(syntax.PERCENT, x, y)
		}
	}
	var err error
	if a, err = Unproxy(thread, a); err != nil {
		return nil, err
	}
	if s, ok := a.(starlark.String); ok {
		out, err := percentFormat(thread, string(s), b)
		if err != nil {
			return nil, err
		}
		return starlark.String(out), nil
	}
	if b, err = Unproxy(thread, b); err != nil {
		return nil, err
	}
	return Binary(syntax.PERCENT, a, b)
}

func pyIs(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, ArgErr("_py_is", "takes 2 arguments")
	}
	return starlark.Bool(identical(args[0], args[1])), nil
}

func identical(a, b starlark.Value) bool {
	switch x := a.(type) {
	case starlark.NoneType, starlark.Bool, starlark.String, starlark.Float:
		return a == b
	case starlark.Int:
		y, ok := b.(starlark.Int)
		return ok && x.BigInt().Cmp(y.BigInt()) == 0
	case starlark.Tuple:
		y, ok := b.(starlark.Tuple)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case *TypeObj:
		y, ok := b.(*TypeObj)
		return ok && x.PyName == y.PyName
	}
	defer func() { recover() }()
	return a == b
}

func pyChain(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 3 || len(args)%2 != 1 {
		return nil, ArgErr("_py_chain", "bad arguments")
	}
	x := args[0]
	for i := 1; i < len(args); i += 2 {
		op, _ := starlark.AsString(args[i])
		y, err := starlark.Call(thread, args[i+1], nil, nil)
		if err != nil {
			return nil, err
		}
		ok, err := compareOp(thread, op, x, y)
		if err != nil {
			return nil, err
		}
		if !ok {
			return starlark.False, nil
		}
		x = y
	}
	return starlark.True, nil
}

func compareOp(thread *starlark.Thread, op string, x, y starlark.Value) (bool, error) {
	var tok syntax.Token
	switch op {
	case "<":
		tok = syntax.LT
	case "<=":
		tok = syntax.LE
	case ">":
		tok = syntax.GT
	case ">=":
		tok = syntax.GE
	case "==":
		return pyEqual(thread, x, y)
	case "!=":
		eq, err := pyEqual(thread, x, y)
		return !eq, err
	case "is":
		return identical(x, y), nil
	case "is not":
		return !identical(x, y), nil
	case "in", "not in":
		v, err := starlark.Binary(syntax.IN, x, y)
		if err != nil {
			return false, err
		}
		return bool(v.Truth()) == (op == "in"), nil
	default:
		return false, fmt.Errorf("unknown comparison %q", op)
	}
	return starlark.Compare(tok, x, y)
}

func pyIterHelper(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 {
		return nil, ArgErr("_py_iter", "takes 1 argument")
	}
	return pyIterable(thread, args[0])
}

// pyIterable is what a Python for loop iterates when given v.
func pyIterable(thread *starlark.Thread, v starlark.Value) (starlark.Value, error) {
	switch x := v.(type) {
	case *starlark.List:
		// Python lets a loop append to the list it iterates (work queues).
		return liveList{x}, nil
	case starlark.Tuple:
		return x, nil
	case *starlark.Dict:
		// Python lets a loop update existing keys: iterate a snapshot.
		return starlark.Tuple(x.Keys()), nil
	case starlark.String:
		return strChars{string(x)}, nil
	}
	x, err := Unproxy(thread, v)
	if err != nil {
		return nil, err
	}
	if l, ok := x.(*LazyDict); ok {
		return starlark.Tuple(l.Keys()), nil
	}
	if dl, ok := x.(PyDictLike); ok {
		return starlark.Tuple(dl.UnderlyingDict().Keys()), nil
	}
	it, err := iterable(thread, x)
	if err != nil {
		return nil, err
	}
	return it, nil
}

func pyAbs(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("abs", args, kwargs)
	if err != nil {
		return nil, err
	}
	x, err = Unproxy(thread, x)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.Int:
		if v.Sign() < 0 {
			return starlark.MakeInt(0).Sub(v), nil
		}
		return v, nil
	case starlark.Float:
		return starlark.Float(math.Abs(float64(v))), nil
	case starlark.Bool:
		return boolInt(v), nil
	case PyNumber:
		return v.Abs(), nil
	}
	return nil, Errorf("TypeError", "bad operand type for abs(): '%s'", PyType(x))
}

func pyRadix(name string, base int, prefix string) BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := OneArg(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		if b, ok := x.(starlark.Bool); ok {
			x = boolInt(b)
		}
		i, ok := x.(starlark.Int)
		if !ok {
			return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", PyType(x))
		}
		n := i.BigInt()
		sign := ""
		if n.Sign() < 0 {
			sign = "-"
			n.Neg(n)
		}
		return starlark.String(sign + prefix + n.Text(base)), nil
	}
}

func pyMinMax(name string, op syntax.Token) BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key, dflt starlark.Value
		for _, kv := range kwargs {
			switch k, _ := starlark.AsString(kv[0]); k {
			case "key":
				key = kv[1]
			case "default":
				dflt = kv[1]
			default:
				return nil, ArgErr(name, "got an unexpected keyword argument '%s'", k)
			}
		}
		if key == starlark.None {
			key = nil
		}
		var elems []starlark.Value
		switch len(args) {
		case 0:
			return nil, Errorf("TypeError", "%s expected at least 1 argument, got 0", name)
		case 1:
			var err error
			if elems, err = Collect(thread, args[0]); err != nil {
				return nil, err
			}
		default:
			if dflt != nil {
				return nil, Errorf("TypeError", "Cannot specify a default for %s() with multiple positional arguments", name)
			}
			elems = args
		}
		if len(elems) == 0 {
			if dflt != nil {
				return dflt, nil
			}
			return nil, Errorf("ValueError", "%s() arg is an empty sequence", name)
		}
		best := elems[0]
		bestKey := best
		if key != nil {
			k, err := starlark.Call(thread, key, starlark.Tuple{best}, nil)
			if err != nil {
				return nil, err
			}
			bestKey = k
		}
		rest := elems[1:]
		if key == nil {
			// Ints of int64 (max(vals)): the best kept as an int64, each
			// element read once; the first element that is not such an
			// int goes on in the general loop below.
			rest = intMinMax(op, &best, rest)
			bestKey = best
		}
		for _, x := range rest {
			xk := x
			if key != nil {
				k, err := starlark.Call(thread, key, starlark.Tuple{x}, nil)
				if err != nil {
					return nil, err
				}
				xk = k
			}
			better, ok := intBetter(op, xk, bestKey)
			if !ok {
				var err error
				if better, err = PyCompare(op, xk, bestKey); err != nil {
					return nil, err
				}
			}
			if better {
				best, bestKey = x, xk
			}
		}
		return best, nil
	}
}

// intMinMax scans the ints of int64 at the start of elems for min (op
// LT) or max (GT) of them and *best, if *best is such an int, updating
// *best (the first of equal values wins, as in the general loop); it
// returns the elements from the first it did not scan.
func intMinMax(op syntax.Token, best *starlark.Value, elems []starlark.Value) []starlark.Value {
	bi, ok := (*best).(starlark.Int)
	if !ok {
		return elems
	}
	b, ok := bi.Int64()
	if !ok {
		return elems
	}
	for i, x := range elems {
		xi, ok := x.(starlark.Int)
		if !ok {
			return elems[i:]
		}
		v, ok := xi.Int64()
		if !ok {
			return elems[i:]
		}
		if op == syntax.LT && v < b || op != syntax.LT && v > b {
			b, *best = v, x
		}
	}
	return nil
}

// intBetter reports whether x is less (op LT, for min) or greater (GT,
// for max) than y when both are ints of int64, the common case, which
// needs no general comparison (ok is false otherwise).
func intBetter(op syntax.Token, x, y starlark.Value) (better, ok bool) {
	a, ok := x.(starlark.Int)
	if !ok {
		return false, false
	}
	b, ok := y.(starlark.Int)
	if !ok {
		return false, false
	}
	i, ok := a.Int64()
	if !ok {
		return false, false
	}
	j, ok := b.Int64()
	if !ok {
		return false, false
	}
	if op == syntax.LT {
		return i < j, true
	}
	return i > j, true
}

// Less reports whether a < b in Python.
func Less(a, b starlark.Value) (bool, error) { return PyCompare(syntax.LT, a, b) }

// PyCompare compares with Python's cross-type rules for numbers and bools.
func PyCompare(op syntax.Token, x, y starlark.Value) (bool, error) {
	if b, ok := x.(starlark.Bool); ok {
		x = boolInt(b)
	}
	if b, ok := y.(starlark.Bool); ok {
		y = boolInt(b)
	}
	ok, err := starlark.Compare(op, x, y)
	if err != nil {
		if strings.Contains(err.Error(), "comparison exceeded maximum recursion depth") {
			return false, ErrDepth("in comparison")
		}
		return false, Errorf("TypeError", "'%s' not supported between instances of '%s' and '%s'", op, PyType(x), PyType(y))
	}
	return ok, nil
}

func pySorted(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var key starlark.Value = starlark.None
	var reverse starlark.Value = starlark.False
	for _, kv := range kwargs {
		if k, _ := starlark.AsString(kv[0]); k != "key" && k != "reverse" {
			return nil, Errorf("TypeError", "'%s' is an invalid keyword argument for sort()", k)
		}
	}
	if err := starlark.UnpackArgs("sorted", args, kwargs, "iterable", &it, "key?", &key, "reverse?", &reverse); err != nil {
		return nil, err
	}
	elems, err := Collect(thread, it)
	if err != nil {
		return nil, err
	}
	l := starlark.NewList(elems)
	if err := SortList(thread, l, key, bool(reverse.Truth())); err != nil {
		return nil, err
	}
	return l, nil
}

func pyReversed(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("reversed", args, kwargs)
	if err != nil {
		return nil, err
	}
	elems, err := Collect(thread, x)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(elems)-1; i < j; i, j = i+1, j-1 {
		elems[i], elems[j] = elems[j], elems[i]
	}
	return starlark.NewList(elems), nil
}

func pyZip(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	strict := false
	for _, kv := range kwargs {
		if k, _ := starlark.AsString(kv[0]); k != "strict" {
			return nil, ArgErr("zip", "got an unexpected keyword argument '%s'", k)
		}
		strict = bool(kv[1].Truth())
	}
	// lengthErr is zip(strict=True)'s error for argument j (0-based)
	// being shorter or longer than the ones before it.
	lengthErr := func(j int, what string) error {
		before := "argument 1"
		if j > 1 {
			before = fmt.Sprintf("arguments 1-%d", j)
		}
		return Errorf("ValueError", "zip() argument %d is %s than %s", j+1, what, before)
	}
	if !strict {
		// Python's lazy zip: a loop over it builds no list.
		its := make([]starlark.Iterable, len(args))
		for i, a := range args {
			it, err := iterable(thread, a)
			if err != nil {
				return nil, err
			}
			its[i] = it
		}
		return &zipObj{its: its}, nil
	}
	// strict=True reports a length mismatch as an error, which an
	// iterator cannot: its zip is made at once, as a list.
	if len(args) == 0 {
		return starlark.NewList(nil), nil
	}
	// Iterate in lockstep so that infinite iterables (itertools.count) work.
	iters := make([]starlark.Iterator, len(args))
	for i, a := range args {
		it, err := iterable(thread, a)
		if err != nil {
			return nil, err
		}
		iters[i] = it.Iterate()
		defer iters[i].Done()
	}
	var out []starlark.Value
	for {
		t := make(starlark.Tuple, len(iters))
		for j, it := range iters {
			if !it.Next(&t[j]) {
				if strict {
					if j > 0 {
						return nil, lengthErr(j, "shorter")
					}
					var x starlark.Value
					for k := 1; k < len(iters); k++ {
						if iters[k].Next(&x) {
							return nil, lengthErr(k, "longer")
						}
					}
				}
				return starlark.NewList(out), nil
			}
		}
		out = append(out, t)
		if len(out)%4096 == 0 {
			if err := CheckAlloc(thread, int64(len(out))*int64(16+16*len(iters))); err != nil {
				return nil, err
			}
		}
	}
}

// zipObj is Python's lazy zip (without strict=True): iterating it
// advances its iterables' iterators in lockstep and stops at the first
// that ends, asking the later ones for nothing more, as CPython does. Like
// enumerateObj, each iteration starts over (CPython's zip is spent by one).
type zipObj struct {
	its []starlark.Iterable
}

func (z *zipObj) String() string        { return "<zip object>" }
func (z *zipObj) Type() string          { return "zip" }
func (z *zipObj) Freeze()               {}
func (z *zipObj) Truth() starlark.Bool  { return true }
func (z *zipObj) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 'zip'") }
func (z *zipObj) Iterate() starlark.Iterator {
	if len(z.its) == 2 {
		return &zipPairIter{a: iterateLive(z.its[0]), b: iterateLive(z.its[1])}
	}
	iters := make([]starlark.Iterator, len(z.its))
	for i, it := range z.its {
		iters[i] = iterateLive(it)
	}
	return &zipIter{iters: iters}
}

// zipTuples is how many tuples a zip iterator allocates room for at once
// (as enumPairs).
const zipTuples = 16

// zipIter iterates a zip of other than two iterables.
type zipIter struct {
	iters []starlark.Iterator
	done  bool
	room  []starlark.Value // room for the next tuples
}

func (it *zipIter) Next(p *starlark.Value) bool {
	n := len(it.iters)
	if it.done || n == 0 {
		return false
	}
	if len(it.room) < n {
		it.room = make([]starlark.Value, n*zipTuples)
	}
	t := starlark.Tuple(it.room[:n:n])
	for j, in := range it.iters {
		if !in.Next(&t[j]) {
			it.done = true
			clear(t[:j])
			return false
		}
	}
	it.room = it.room[n:]
	*p = t
	return true
}

func (it *zipIter) Done() {
	for _, in := range it.iters {
		in.Done()
	}
}

// zipPairIter iterates a zip of two iterables; `for a, b in zip(xs, ys)`
// takes its pairs without a tuple (starlark.PairIterator).
type zipPairIter struct {
	a, b starlark.Iterator
	done bool
	room []starlark.Value // room for the next pairs
}

func (it *zipPairIter) Next(p *starlark.Value) bool {
	if len(it.room) < 2 {
		it.room = make([]starlark.Value, 2*zipTuples)
	}
	t := starlark.Tuple(it.room[:2:2])
	if !it.NextPair(&t[0], &t[1]) {
		clear(t)
		return false
	}
	it.room = it.room[2:]
	*p = t
	return true
}

// NextPair is Next without the tuple.
func (it *zipPairIter) NextPair(a, b *starlark.Value) bool {
	if it.done || !it.a.Next(a) || !it.b.Next(b) {
		it.done = true
		return false
	}
	return true
}

func (it *zipPairIter) Done() {
	it.a.Done()
	it.b.Done()
}

// enumerateObj is Python's lazy enumerate.
type enumerateObj struct {
	it    starlark.Iterable
	start starlark.Int
}

func (e *enumerateObj) String() string        { return "<enumerate object>" }
func (e *enumerateObj) Type() string          { return "enumerate" }
func (e *enumerateObj) Freeze()               {}
func (e *enumerateObj) Truth() starlark.Bool  { return true }
func (e *enumerateObj) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 'enumerate'") }
func (e *enumerateObj) Iterate() starlark.Iterator {
	return &enumerateIter{inner: iterateLive(e.it), i: e.start}
}

type enumerateIter struct {
	inner starlark.Iterator
	i     starlark.Int
	pairs []starlark.Value // room for the next pairs
}

// enumPairs is how many (index, value) pairs an enumerate iterator
// allocates at once: one allocation per enumPairs items instead of one
// per item, while a pair kept alone keeps at most enumPairs-1 others'
// room alive.
const enumPairs = 16

func (it *enumerateIter) Next(p *starlark.Value) bool {
	var x starlark.Value
	if !it.inner.Next(&x) {
		return false
	}
	if len(it.pairs) < 2 {
		it.pairs = make([]starlark.Value, 2*enumPairs)
	}
	t := starlark.Tuple(it.pairs[:2:2])
	it.pairs = it.pairs[2:]
	t[0], t[1] = it.i, x
	*p = t
	it.i = it.i.Add(starlark.MakeInt(1))
	return true
}
func (it *enumerateIter) Done() { it.inner.Done() }

// NextPair is Next for `for i, x in enumerate(...)`: the interpreter takes
// the index and the element without a tuple (starlark.PairIterator).
func (it *enumerateIter) NextPair(a, b *starlark.Value) bool {
	if !it.inner.Next(b) {
		return false
	}
	*a = it.i
	it.i = it.i.Add(starlark.MakeInt(1))
	return true
}

func pyEnumerate(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	start := starlark.MakeInt(0)
	if err := starlark.UnpackArgs("enumerate", args, kwargs, "iterable", &x, "start?", &start); err != nil {
		return nil, err
	}
	it, err := iterable(thread, x)
	if err != nil {
		return nil, err
	}
	if dl, ok := it.(PyDictLike); ok {
		it = dl.UnderlyingDict()
	}
	return &enumerateObj{it: it, start: start}, nil
}

func pyAnyAll(name string, isAny bool) BuiltinFn {
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := OneArg(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		found := false
		stop := errors.New("stop")
		err = ForEach(thread, x, func(v starlark.Value) error {
			if bool(v.Truth()) == isAny {
				found = true
				return stop
			}
			return nil
		})
		if err != nil && err != stop {
			return nil, err
		}
		if isAny {
			return starlark.Bool(found), nil
		}
		return starlark.Bool(!found), nil
	}
}

// iterHolder is a value that next() and iter() treat as the iterator it
// holds (csv readers).
type iterHolder interface {
	starlark.Value
	Iterator() *PyIterator
}

// unboundedIterator is implemented by the iterators a module defines that
// never end (itertools.count): iter() returns them as they are and next()
// advances them.
type unboundedIterator interface {
	starlark.Value
	// Next returns the next value.
	Next() starlark.Value
}

// PyIterator is the value returned by iter().
type PyIterator struct {
	Elems []starlark.Value
	I     int
}

func (p *PyIterator) String() string        { return "<iterator>" }
func (p *PyIterator) Type() string          { return "iterator" }
func (p *PyIterator) Freeze()               {}
func (p *PyIterator) Truth() starlark.Bool  { return true }
func (p *PyIterator) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 'iterator'") }
func (p *PyIterator) Iterate() starlark.Iterator {
	return &pyIteratorIter{p}
}

type pyIteratorIter struct{ p *PyIterator }

func (it *pyIteratorIter) Next(v *starlark.Value) bool {
	if it.p.I >= len(it.p.Elems) {
		return false
	}
	*v = it.p.Elems[it.p.I]
	it.p.I++
	return true
}
func (it *pyIteratorIter) Done() {}

func pyIterBuiltin(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := OneArg("iter", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch x.(type) {
	case *PyIterator, unboundedIterator, iterHolder:
		return x, nil
	}
	elems, err := Collect(thread, x)
	if err != nil {
		return nil, err
	}
	return &PyIterator{Elems: elems}, nil
}

func pyNext(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, dflt starlark.Value
	if err := starlark.UnpackPositionalArgsNoEscape("next", args, kwargs, 1, &x, &dflt); err != nil {
		return nil, err
	}
	p, ok := x.(*PyIterator)
	if !ok {
		switch h := x.(type) {
		case unboundedIterator:
			return h.Next(), nil
		case iterHolder:
			p, ok = h.Iterator(), true
		}
	}
	if !ok {
		// Generator expressions arrive as lists: next(x for x in xs) is their first element.
		switch seq := x.(type) {
		case *starlark.List, starlark.Tuple:
			idx := seq.(starlark.Indexable)
			if idx.Len() > 0 {
				return idx.Index(0), nil
			}
			if dflt != nil {
				return dflt, nil
			}
			return nil, Errorf("StopIteration", "")
		}
		return nil, Errorf("TypeError", "'%s' object is not an iterator", PyType(x))
	}
	if p.I >= len(p.Elems) {
		if dflt != nil {
			return dflt, nil
		}
		return nil, Errorf("StopIteration", "")
	}
	p.I++
	return p.Elems[p.I-1], nil
}

func pyRaise(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 {
		if st := StepOf(thread); st != nil && st.Handling != nil {
			return nil, raiseValue(st.Handling)
		}
		return nil, Errorf("RuntimeError", "No active exception to reraise")
	}
	err := raiseValue(args[0])
	var pe *PyError
	if !errors.As(err, &pe) || pe.exc == nil {
		return nil, err
	}
	if len(args) > 1 {
		// raise E from C: C (an exception or None) is E's __cause__.
		if pe.exc.obj != nil {
			pe.exc.obj.cause = args[1]
		} else {
			pe.exc.from = args[1]
		}
	}
	// Raised inside a handler, E's __context__ is the exception being
	// handled: context=X from a handler inside a function or loop (see
	// pyfront's try lowering), else the module-level handler's.
	var ctx starlark.Value
	for _, kv := range kwargs {
		if k, _ := starlark.AsString(kv[0]); k == "context" {
			ctx = kv[1]
		}
	}
	if st := StepOf(thread); ctx == nil && st != nil && st.Handling != nil {
		ctx = st.Handling.Value()
	}
	if ctx != nil && ctx != pe.exc.Value() {
		if pe.exc.obj != nil {
			if pe.exc.obj.context == nil {
				pe.exc.obj.context = ctx
			}
		} else if pe.exc.context == nil {
			pe.exc.context = ctx
		}
	}
	return nil, err
}

func pyAssertFail(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	msg := ""
	if len(args) > 0 {
		msg = Str(args[0])
	}
	// args is the interpreter's operand stack (a _py_ helper gets it
	// uncopied): the exception keeps a copy.
	return nil, &PyError{
		Kind: "AssertionError",
		Msg:  msg,
		exc:  &exception{Typ: ExcTypes["AssertionError"], args: append(starlark.Tuple(nil), args...)},
	}
}

func pyDel(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, ArgErr("_py_del", "takes 2 arguments")
	}
	c, key := args[0], args[1]
	if dl, ok := c.(PyDictLike); ok {
		c = dl.UnderlyingDict()
	}
	switch x := c.(type) {
	case *starlark.Dict:
		_, found, err := x.Delete(key)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, KeyErr(key)
		}
		return starlark.None, nil
	case *starlark.List:
		i, err := starlark.AsInt32(key)
		if err != nil {
			return nil, Errorf("TypeError", "list indices must be integers or slices, not %s", PyType(key))
		}
		n := x.Len()
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, Errorf("IndexError", "list assignment index out of range")
		}
		return starlark.Call(thread, MustAttr(x, "pop"), starlark.Tuple{starlark.MakeInt(i)}, nil)
	}
	return nil, Errorf("TypeError", "'%s' object doesn't support item deletion", PyType(c))
}

func MustAttr(v starlark.HasAttrs, name string) starlark.Value {
	a, _ := v.Attr(name)
	return a
}

func pyDelSlice(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 4 {
		return nil, ArgErr("_py_delslice", "takes 4 arguments")
	}
	l, ok := args[0].(*starlark.List)
	if !ok {
		return nil, Errorf("TypeError", "'%s' object doesn't support item deletion", PyType(args[0]))
	}
	n := l.Len()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sl := make([]starlark.Value, n)
	for i := range sl {
		sl[i] = starlark.MakeInt(i)
	}
	// Compute the deleted indices by slicing the index list.
	sel, err := starlark.Call(
		thread,
		starlark.NewBuiltin("slice", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.None, nil
		}),
		nil,
		nil,
	)
	_ = sel
	if err != nil {
		return nil, err
	}
	lo, hi, step := args[1], args[2], args[3]
	v, err := sliceValue(starlark.NewList(sl), lo, hi, step)
	if err != nil {
		return nil, err
	}
	del := map[int]bool{}
	it := starlark.Iterate(v)
	var x starlark.Value
	for it.Next(&x) {
		i, _ := starlark.AsInt32(x)
		del[i] = true
	}
	it.Done()
	var keep []starlark.Value
	for i := 0; i < n; i++ {
		if !del[i] {
			keep = append(keep, l.Index(i))
		}
	}
	if _, err := starlark.Call(thread, MustAttr(l, "clear"), nil, nil); err != nil {
		return nil, err
	}
	for _, x := range keep {
		if err := l.Append(x); err != nil {
			return nil, err
		}
	}
	return starlark.None, nil
}

// sliceValue evaluates x[lo:hi:step] via a tiny Starlark expression.
func sliceValue(x, lo, hi, step starlark.Value) (starlark.Value, error) {
	thread := &starlark.Thread{Name: "slice"}
	return starlark.EvalOptions(
		&syntax.FileOptions{},
		thread,
		"<slice>",
		"x[lo:hi:step]",
		starlark.StringDict{"x": x, "lo": lo, "hi": hi, "step": step},
	)
}

func pyUnpack(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Value
	var before, after int
	if err := starlark.UnpackPositionalArgsNoEscape("_py_unpack", args, kwargs, 3, &seq, &before, &after); err != nil {
		return nil, err
	}
	if after < 0 {
		// _py_unpack(v, n, -1): exactly n values (a, b = v inside a try).
		return unpackExactly(thread, seq, before)
	}
	elems, err := unpackElems(thread, seq)
	if err != nil {
		return nil, err
	}
	if len(elems) < before+after {
		return nil, Errorf("ValueError", "not enough values to unpack (expected at least %d, got %d)", before+after, len(elems))
	}
	out := make(starlark.Tuple, 0, before+after+1)
	out = append(out, elems[:before]...)
	out = append(out, starlark.NewList(append([]starlark.Value(nil), elems[before:len(elems)-after]...)))
	out = append(out, elems[len(elems)-after:]...)
	return out, nil
}

// unpackElems returns the values seq unpacks into, with CPython's error
// for a value that is not iterable.
func unpackElems(thread *starlark.Thread, seq starlark.Value) ([]starlark.Value, error) {
	elems, err := Collect(thread, seq)
	if err != nil {
		var pe *PyError
		if errors.As(err, &pe) && pe.Kind == "TypeError" && strings.HasSuffix(pe.Msg, "object is not iterable") {
			return nil, Errorf("TypeError", "cannot unpack non-iterable %s object", PyType(seq))
		}
		return nil, err
	}
	return elems, nil
}

// unpackExactly returns seq's values as a tuple of exactly n, or
// CPython's error for too many or too few.
func unpackExactly(thread *starlark.Thread, seq starlark.Value, n int) (starlark.Tuple, error) {
	elems, err := unpackElems(thread, seq)
	if err != nil {
		return nil, err
	}
	switch {
	case len(elems) > n:
		return nil, Errorf("ValueError", "too many values to unpack (expected %d)", n)
	case len(elems) < n:
		return nil, Errorf("ValueError", "not enough values to unpack (expected %d, got %d)", n, len(elems))
	}
	return starlark.Tuple(elems), nil
}

// forUnpack is _py_forunpack(xs, shape), what `for a, (b, c) in xs:`
// iterates inside a try that is not at module level (pyfront's lowering):
// the items of xs, each unpacked to the targets' shape ([0, [0, 0]]: a
// tuple of two, the second a tuple of two), so that the loop's own
// unpacking cannot fail outside the try's handlers. The first item that
// does not unpack ends the iteration and is kept; _py_forunpack_err
// raises it after the loop, under the handlers, as CPython raises it at
// that item.
type forUnpack struct {
	thread *starlark.Thread
	inner  starlark.Iterator
	shape  *starlark.List // 0 per target, a list per nested unpacking
	err    error
}

func (f *forUnpack) String() string        { return "<for-unpack>" }
func (f *forUnpack) Type() string          { return "iterator" }
func (f *forUnpack) Freeze()               {}
func (f *forUnpack) Truth() starlark.Bool  { return true }
func (f *forUnpack) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 'iterator'") }
func (f *forUnpack) Iterate() starlark.Iterator {
	return &forUnpackIter{f}
}

type forUnpackIter struct{ f *forUnpack }

func (it *forUnpackIter) Next(p *starlark.Value) bool {
	f := it.f
	var x starlark.Value
	if f.err != nil || !f.inner.Next(&x) {
		return false
	}
	t, made, err := unpackShape(f.thread, x, f.shape)
	switch {
	case err != nil:
		f.err = err
		return false
	case made:
		*p = t
	default:
		*p = x
	}
	return true
}

// unpackShape unpacks x to shape (see forUnpack), nested items made
// tuples of the right sizes, with CPython's error for the first that does
// not unpack; made reports whether t is new: x, when it is already a
// tuple of that shape (the common case: dict items, enumerate, zip), is
// used as it is, without boxing t again.
func unpackShape(thread *starlark.Thread, x starlark.Value, shape *starlark.List) (t starlark.Tuple, made bool, err error) {
	n := shape.Len()
	t, ok := x.(starlark.Tuple)
	if !ok || len(t) != n {
		if t, err = unpackExactly(thread, x, n); err != nil {
			return nil, false, err
		}
		made = true
	}
	for i := range n {
		inner, ok := shape.Index(i).(*starlark.List)
		if !ok {
			continue
		}
		v, innerMade, err := unpackShape(thread, t[i], inner)
		if err != nil {
			return nil, false, err
		}
		if innerMade {
			if !made {
				t, made = append(starlark.Tuple(nil), t...), true
			}
			t[i] = v
		}
	}
	return t, made, nil
}

func (it *forUnpackIter) Done() { it.f.inner.Done() }

func pyForUnpack(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var xs starlark.Value
	var shape *starlark.List
	if err := starlark.UnpackPositionalArgsNoEscape("_py_forunpack", args, kwargs, 2, &xs, &shape); err != nil {
		return nil, err
	}
	x, err := Unproxy(thread, xs)
	if err != nil {
		return nil, err
	}
	if ops := starlark.PyOps; ops != nil {
		if x, err = ops.Iterable(thread, x); err != nil {
			return nil, err
		}
	}
	it := starlark.Iterate(x)
	if it == nil {
		return nil, Errorf("TypeError", "'%s' object is not iterable", PyType(xs))
	}
	return &forUnpack{thread: thread, inner: it, shape: shape}, nil
}

// pyForUnpackErr is _py_forunpack_err(f): the error that ended f's
// iteration, raised, or None.
func pyForUnpackErr(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if f, ok := args[0].(*forUnpack); ok && len(args) == 1 && f.err != nil {
		return nil, f.err
	}
	return starlark.None, nil
}

func pyDictMerge(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := starlark.NewDict(0)
	for _, a := range args {
		a, err := Unproxy(thread, a)
		if err != nil {
			return nil, err
		}
		if dl, ok := a.(PyDictLike); ok {
			a = dl.UnderlyingDict()
		}
		m, ok := a.(starlark.IterableMapping)
		if !ok {
			return nil, Errorf("TypeError", "'%s' object is not a mapping", PyType(a))
		}
		for _, kv := range m.Items() {
			if err := d.SetKey(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// iterateLive is it.Iterate(), but a list is iterated by index, as
// Python does: a loop over zip or enumerate of a list may append to it.
func iterateLive(it starlark.Iterable) starlark.Iterator {
	if l, ok := it.(*starlark.List); ok {
		return starlark.NewLiveListIterator(l)
	}
	return it.Iterate()
}

// liveList iterates a list by index, seeing elements appended during the
// loop, as Python does (Starlark would reject the mutation).
type liveList struct{ l *starlark.List }

func (v liveList) String() string        { return v.l.String() }
func (v liveList) Type() string          { return "list" }
func (v liveList) Freeze()               {}
func (v liveList) Truth() starlark.Bool  { return v.l.Truth() }
func (v liveList) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 'list'") }
func (v liveList) Iterate() starlark.Iterator {
	return starlark.NewLiveListIterator(v.l) // stepped inline by the interpreter
}

// pyB2I is _py_b2i: the front-end wraps arithmetic operands that are
// syntactically bools (comparisons, `not x`, True/False, ...) in it, so that
// `True + True` is 2 and `count += (a == b)` counts, as in Python.
func pyB2I(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, fmt.Errorf("_py_b2i: want 1 argument")
	}
	if b, ok := args[0].(starlark.Bool); ok {
		return boolInt(b), nil
	}
	return args[0], nil
}

var one, zero = starlark.MakeInt(1), starlark.MakeInt(0)

// pyEq is _py_eq(a, b), Python's a == b (the front-end routes == and !=
// here unless an operand makes Starlark's own == agree).
func pyEq(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, fmt.Errorf("_py_eq: want 2 arguments")
	}
	eq, err := pyEqual(thread, args[0], args[1])
	return starlark.Bool(eq), err
}

// pyEqFast is _py_eq's fast path (starlark.FastCallable) for the
// operands whose == needs none of pyEqual's conversions: two strs, two
// ints that fit in an int64, or a str or an int against a str, an int or
// None. The call's frame and argument copy cost several times the
// comparison (a == b of two strs in a loop).
func pyEqFast(_ *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
	if len(args) != 2 {
		return nil, false
	}
	switch x := args[0].(type) {
	case starlark.String:
		switch y := args[1].(type) {
		case starlark.String:
			return starlark.Bool(x == y), true
		case starlark.Int, starlark.NoneType:
			return starlark.False, true
		}
	case starlark.Int:
		switch y := args[1].(type) {
		case starlark.Int:
			a, ok1 := x.Int64()
			b, ok2 := y.Int64()
			if ok1 && ok2 {
				return starlark.Bool(a == b), true
			}
		case starlark.String, starlark.NoneType:
			return starlark.False, true
		}
	}
	return nil, false
}

// pyEqual is Python's ==: deferred values compare as their results, bools
// as the ints 0 and 1, and NaN equals nothing.
func pyEqual(thread *starlark.Thread, x, y starlark.Value) (bool, error) {
	if xs, ok := x.(starlark.String); ok {
		if ys, ok := y.(starlark.String); ok {
			return xs == ys, nil
		}
	}
	var err error
	if _, ok := x.(Proxy); ok {
		if x, err = Unproxy(thread, x); err != nil {
			return false, err
		}
	}
	if _, ok := y.(Proxy); ok {
		if y, err = Unproxy(thread, y); err != nil {
			return false, err
		}
	}
	xb, xIsBool := x.(starlark.Bool)
	yb, yIsBool := y.(starlark.Bool)
	if xIsBool != yIsBool {
		if xIsBool {
			x = boolInt(xb)
		} else {
			y = boolInt(yb)
		}
	}
	if f, ok := x.(starlark.Float); ok && f != f {
		return false, nil
	}
	if f, ok := y.(starlark.Float); ok && f != f {
		return false, nil
	}
	return starlark.Equal(x, y)
}

// contextManager is a built-in value a with statement accepts.
type contextManager interface {
	starlark.Value
	// Enter starts the block and returns the value bound by `as`.
	Enter(thread *starlark.Thread) (starlark.Value, error)
	// Exit ends the block (normally or by an exception).
	Exit(thread *starlark.Thread) error
}

// pyEnter is _py_enter(m): the start of `with m as x`, which returns
// (m, what m's __enter__ returned).
func pyEnter(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, ArgErr("_py_enter", "takes 1 argument")
	}
	switch m := args[0].(type) {
	case *PyObject:
		if _, ok := m.Cls.Lookup("__exit__"); ok {
			v, ok, err := m.dunder("__enter__")
			if ok {
				if err != nil {
					return nil, err
				}
				return starlark.Tuple{m, v}, nil
			}
		}
	case contextManager:
		v, err := m.Enter(thread)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple{m, v}, nil
	}
	return nil, Errorf("TypeError", "'%s' object does not support the context manager protocol", PyType(args[0]))
}

// pyExit is _py_exit(m): the end of a with block (m's __exit__ gets no
// exception).
func pyExit(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, ArgErr("_py_exit", "takes 1 argument")
	}
	switch m := args[0].(type) {
	case *PyObject:
		_, _, err := m.dunder("__exit__", starlark.None, starlark.None, starlark.None)
		return starlark.None, err
	case contextManager:
		return starlark.None, m.Exit(thread)
	}
	return starlark.None, nil
}
