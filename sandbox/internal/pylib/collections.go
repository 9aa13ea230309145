package pylib

import (
	"fmt"
	"slices"
	"sync"

	"sort"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// dictSub is a dict subclass: Counter or defaultdict.
type dictSub struct {
	kind    string // "Counter" or "defaultdict"
	d       *starlark.Dict
	factory starlark.Value // defaultdict default_factory (None if unset)
	sess    *py.State      // to call a Starlark factory from Get
}

var (
	_ starlark.HasSetKey       = (*dictSub)(nil)
	_ starlark.IterableMapping = (*dictSub)(nil)
	_ starlark.Container       = (*dictSub)(nil)
	_ starlark.Sequence        = (*dictSub)(nil)
	_ starlark.HasAttrs        = (*dictSub)(nil)
	_ starlark.HasBinary       = (*dictSub)(nil)
	_ starlark.Comparable      = (*dictSub)(nil)
	_ starlark.HasCompareOther = (*dictSub)(nil)
)

var typeCounter, typeDefaultdict, typeOrderedDict = new(py.TypeObj), new(py.TypeObj), new(py.TypeObj)

// completeCollectionsTypes completes the types of the collections module
// (the dict subclasses and deque), once, on its first import.
var completeCollectionsTypes = sync.OnceFunc(func() {
	*typeCounter = py.TypeObj{PyName: "Counter", Base: py.TypeDict, Check: func(v starlark.Value) bool {
		d, ok := v.(*dictSub)
		return ok && d.kind == "Counter"
	}}
	*typeDefaultdict = py.TypeObj{PyName: "defaultdict", Base: py.TypeDict, Check: func(v starlark.Value) bool {
		d, ok := v.(*dictSub)
		return ok && d.kind == "defaultdict"
	}}
	*typeOrderedDict = py.TypeObj{PyName: "OrderedDict", Base: py.TypeDict, Check: func(v starlark.Value) bool {
		d, ok := v.(*dictSub)
		return ok && d.kind == "OrderedDict"
	}}
	typeOrderedDict.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		d, err := py.BuiltinDict(thread, args, kwargs)
		if err != nil {
			return nil, err
		}
		return &dictSub{kind: "OrderedDict", d: d.(*starlark.Dict)}, nil
	}
	typeCounter.Call = newCounter
	typeCounter.NewBuilder = func() py.Builder {
		return &counterBuilder{c: &dictSub{kind: "Counter", d: starlark.NewDict(0)}}
	}
	typeDefaultdict.Call = newDefaultdict
	typeDeque.Call = newDeque
})

func (c *dictSub) String() string                 { return py.Repr(c) }
func (c *dictSub) Type() string                   { return c.kind }
func (c *dictSub) PyTypeObj() *py.TypeObj         { return c.typ() }
func (c *dictSub) PyTypeName() string             { return c.kind }
func (c *dictSub) Freeze()                        { c.d.Freeze() }
func (c *dictSub) Truth() starlark.Bool           { return c.d.Len() > 0 }
func (c *dictSub) Hash() (uint32, error)          { return 0, fmt.Errorf("unhashable type: '%s'", c.kind) }
func (c *dictSub) Len() int                       { return c.d.Len() }
func (c *dictSub) Iterate() starlark.Iterator     { return c.d.Iterate() }
func (c *dictSub) Items() []starlark.Tuple        { return c.d.Items() }
func (c *dictSub) UnderlyingDict() *starlark.Dict { return c.d }
func (c *dictSub) SetKey(k, v starlark.Value) error {
	return c.d.SetKey(k, v)
}
func (c *dictSub) typ() *py.TypeObj {
	switch c.kind {
	case "Counter":
		return typeCounter
	case "OrderedDict":
		return typeOrderedDict
	}
	return typeDefaultdict
}

func (c *dictSub) Has(k starlark.Value) (bool, error) {
	_, found, err := c.d.Get(k)
	return found, err
}

// Get returns the value for k; a missing key counts 0 in a Counter and
// is created with the factory in a defaultdict.
func (c *dictSub) Get(k starlark.Value) (starlark.Value, bool, error) {
	v, found, err := c.d.Get(k)
	if err != nil || found {
		return v, found, err
	}
	if c.kind == "Counter" {
		return starlark.MakeInt(0), true, nil
	}
	if c.factory == nil || c.factory == starlark.None {
		return nil, false, nil
	}
	var thread *starlark.Thread
	if c.sess != nil {
		thread = c.sess.Current
	}
	if thread == nil {
		thread = &starlark.Thread{Name: "defaultdict"}
	}
	v, err = starlark.Call(thread, c.factory, nil, nil)
	if err != nil {
		return nil, false, err
	}
	if err := c.d.SetKey(k, v); err != nil {
		return nil, false, err
	}
	return v, true, nil
}

func (c *dictSub) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*dictSub)
	if c.kind == "OrderedDict" && o.kind == "OrderedDict" && (op == syntax.EQL || op == syntax.NEQ) {
		// Two OrderedDicts are equal only with the same order.
		a, b := starlark.NewList(nil), starlark.NewList(nil)
		for _, kv := range c.d.Items() {
			a.Append(kv)
		}
		for _, kv := range o.d.Items() {
			b.Append(kv)
		}
		return starlark.CompareDepth(op, a, b, depth)
	}
	return starlark.CompareDepth(op, c.d, o.d, depth)
}

// CompareOther compares c with a dict (or a LazyDict) for == and != as
// the dict of its items, whatever the order, as Python does.
func (c *dictSub) CompareOther(op syntax.Token, y starlark.Value, side starlark.Side) (bool, bool, error) {
	if op != syntax.EQL && op != syntax.NEQ {
		return false, false, nil
	}
	var d *starlark.Dict
	switch y := y.(type) {
	case *starlark.Dict:
		d = y
	case py.PyDictLike:
		d = y.UnderlyingDict()
	default:
		return false, false, nil
	}
	r, err := starlark.Compare(op, c.d, d)
	return r, true, err
}

func (c *dictSub) WriteRepr(r *py.Renderer) {
	if c.kind == "Counter" {
		if c.d.Len() == 0 {
			r.B.WriteString("Counter()")
			return
		}
		r.B.WriteString("Counter(")
		d := starlark.NewDict(c.d.Len())
		for _, kv := range c.mostCommon() {
			d.SetKey(kv[0], kv[1])
		}
		r.WriteDictItems(d)
		r.B.WriteByte(')')
		return
	}
	if c.kind == "OrderedDict" {
		// OrderedDict([('a', 1), ('b', 2)]), or OrderedDict() when empty.
		r.B.WriteString("OrderedDict(")
		if c.d.Len() > 0 {
			items := make([]starlark.Value, 0, c.d.Len())
			for _, kv := range c.d.Items() {
				items = append(items, kv)
			}
			r.Repr(starlark.NewList(items))
		}
		r.B.WriteByte(')')
		return
	}
	r.B.WriteString("defaultdict(")
	if c.factory == nil {
		r.B.WriteString("None")
	} else {
		r.Repr(c.factory)
	}
	r.B.WriteString(", ")
	r.WriteDictItems(c.d)
	r.B.WriteByte(')')
}

// mostCommon returns the items by decreasing count, ties in insertion order.
func (c *dictSub) mostCommon() []starlark.Tuple {
	items := c.d.Items()
	var sortErr error
	sort.SliceStable(items, func(i, j int) bool {
		gt, err := py.PyCompare(syntax.GT, items[i][1], items[j][1])
		if err != nil {
			sortErr = err
		}
		return gt
	})
	_ = sortErr
	return items
}

func (c *dictSub) AttrNames() []string {
	return []string{
		"clear",
		"copy",
		"default_factory",
		"elements",
		"get",
		"items",
		"keys",
		"most_common",
		"pop",
		"popitem",
		"setdefault",
		"subtract",
		"total",
		"update",
		"values",
	}
}

func (c *dictSub) Attr(name string) (starlark.Value, error) {
	method := func(fn py.BuiltinFn) (starlark.Value, error) {
		return py.NewBuiltin(name, fn).BindReceiver(c), nil
	}
	switch name {
	case "default_factory":
		if c.factory == nil {
			return starlark.None, nil
		}
		return c.factory, nil
	case "items", "keys", "values":
		return method(
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				return &py.DictView{Kind: name, D: c.d}, py.NoArgs(name, args, kwargs)
			},
		)
	case "copy":
		return method(
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				return c.copy(), nil
			},
		)
	case "move_to_end", "popitem":
		if c.kind != "OrderedDict" {
			break
		}
		return method(
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var key starlark.Value
				last := true
				if name == "popitem" {
					if err := starlark.UnpackArgs(name, args, kwargs, "last?", &last); err != nil {
						return nil, err
					}
					items := c.d.Items()
					if len(items) == 0 {
						return nil, &py.PyError{Kind: "KeyError", Msg: "'dictionary is empty'"}
					}
					kv := items[len(items)-1]
					if !last {
						kv = items[0]
					}
					if _, _, err := c.d.Delete(kv[0]); err != nil {
						return nil, err
					}
					return kv, nil
				}
				if err := starlark.UnpackArgs(name, args, kwargs, "key", &key, "last?", &last); err != nil {
					return nil, err
				}
				v, found, err := c.d.Delete(key)
				if err != nil {
					return nil, err
				}
				if !found {
					return nil, &py.PyError{Kind: "KeyError", Msg: py.Repr(key)}
				}
				if last {
					return starlark.None, c.d.SetKey(key, v)
				}
				// To the front: re-insert the others after it (in place, so
				// that views of the dict stay valid).
				rest := c.d.Items()
				if err := c.d.Clear(); err != nil {
					return nil, err
				}
				if err := c.d.SetKey(key, v); err != nil {
					return nil, err
				}
				for _, kv := range rest {
					if err := c.d.SetKey(kv[0], kv[1]); err != nil {
						return nil, err
					}
				}
				return starlark.None, nil
			},
		)
	case "most_common":
		return method(
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var n starlark.Value = starlark.None
				if err := starlark.UnpackPositionalArgs("most_common", args, kwargs, 0, &n); err != nil {
					return nil, err
				}
				items := c.mostCommon()
				if n != starlark.None {
					k, err := starlark.AsInt32(n)
					if err != nil {
						return nil, err
					}
					if k < 0 {
						k = 0
					}
					if k < len(items) {
						items = items[:k]
					}
				}
				out := make([]starlark.Value, len(items))
				for i, kv := range items {
					out[i] = kv
				}
				return starlark.NewList(out), nil
			},
		)
	case "elements":
		return method(
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var out []starlark.Value
				for _, kv := range c.d.Items() {
					n, _ := starlark.AsInt32(kv[1])
					if err := py.CheckAlloc(thread, int64(len(out)+n)*16); err != nil {
						return nil, err
					}
					for i := 0; i < n; i++ {
						out = append(out, kv[0])
					}
				}
				return starlark.NewList(out), nil
			},
		)
	case "total":
		return method(
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var acc starlark.Value = starlark.MakeInt(0)
				for _, kv := range c.d.Items() {
					var err error
					if acc, err = py.Add(acc, kv[1]); err != nil {
						return nil, err
					}
				}
				return acc, nil
			},
		)
	case "update", "subtract":
		return method(
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if c.kind != "Counter" {
					if name == "subtract" {
						return nil, py.Errorf("AttributeError", "'defaultdict' object has no attribute 'subtract'")
					}
					_, err := starlark.Call(thread, py.MustAttr(c.d, "update"), args, kwargs)
					return starlark.None, err
				}
				sign := 1
				if name == "subtract" {
					sign = -1
				}
				if len(args) > 1 {
					return nil, py.Errorf("TypeError", "expected at most 1 argument, got %d", len(args))
				}
				if len(args) == 1 {
					if err := c.count(thread, args[0], sign); err != nil {
						return nil, err
					}
				}
				for _, kv := range kwargs {
					if err := c.addCount(kv[0], kv[1], sign); err != nil {
						return nil, err
					}
				}
				return starlark.None, nil
			},
		)
	}
	// Plain dict methods: get, pop, setdefault, clear, popitem.
	v, err := c.d.Attr(name)
	if err != nil || v == nil {
		return v, err
	}
	if name == "get" && c.kind == "Counter" {
		return v, nil
	}
	return v, nil
}

func (c *dictSub) copy() *dictSub {
	d := starlark.NewDict(c.d.Len())
	for _, kv := range c.d.Items() {
		d.SetKey(kv[0], kv[1])
	}
	return &dictSub{kind: c.kind, d: d, factory: c.factory, sess: c.sess}
}

func (c *dictSub) addCount(k, n starlark.Value, sign int) error {
	old, found, err := c.d.Get(k)
	if err != nil {
		return err
	}
	if !found {
		old = starlark.MakeInt(0)
	}
	if sign < 0 {
		n, err = py.Binary(syntax.MINUS, starlark.MakeInt(0), n)
		if err != nil {
			return err
		}
	}
	sum, err := py.Add(old, n)
	if err != nil {
		return err
	}
	return c.d.SetKey(k, sum)
}

// count adds the elements of an iterable (or a mapping's counts).
func (c *dictSub) count(thread *starlark.Thread, src starlark.Value, sign int) error {
	src, err := py.Unproxy(thread, src)
	if err != nil {
		return err
	}
	if dl, ok := src.(py.PyDictLike); ok {
		src = dl.UnderlyingDict()
	}
	if m, ok := src.(starlark.IterableMapping); ok {
		for _, kv := range m.Items() {
			if err := c.addCount(kv[0], kv[1], sign); err != nil {
				return err
			}
		}
		return nil
	}
	return py.ForEach(thread, src, func(x starlark.Value) error { return c.countOne(x, sign) })
}

// counterBuilder builds the Counter of a generator expression
// (Counter(w for w in words)) element by element.
type counterBuilder struct {
	c *dictSub
	g py.TableGrowth
}

func (b *counterBuilder) Add(thread *starlark.Thread, _ int, v starlark.Value) error {
	if err := b.g.Check(thread, b.c.Len()); err != nil {
		return err
	}
	return b.c.countOne(v, 1)
}
func (b *counterBuilder) Value() starlark.Value { return b.c }

// countOne counts element x once (sign -1: subtracts it).
func (c *dictSub) countOne(x starlark.Value, sign int) error {
	one := starlark.MakeInt(1)
	if sign > 0 {
		old, found, err := c.d.Get(x)
		if err != nil {
			return err
		}
		if found {
			if i, ok := old.(starlark.Int); ok {
				return c.d.SetKey(x, i.Add(one))
			}
		} else {
			return c.d.SetKey(x, one)
		}
	}
	return c.addCount(x, one, sign)
}

// Binary implements Counter arithmetic: + - | &.
func (c *dictSub) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	o, ok := y.(*dictSub)
	if !ok || c.kind != "Counter" || o.kind != "Counter" {
		return nil, nil
	}
	a, b := c, o
	if side == starlark.Right {
		a, b = o, c
	}
	out := &dictSub{kind: "Counter", d: starlark.NewDict(0)}
	keys := append(a.d.Keys(), b.d.Keys()...)
	for _, k := range keys {
		if ok, _ := out.Has(k); ok {
			continue
		}
		x, _, _ := a.Get(k)
		z, _, _ := b.Get(k)
		var r starlark.Value
		var err error
		switch op {
		case syntax.PLUS:
			r, err = py.Add(x, z)
		case syntax.MINUS:
			r, err = py.Binary(syntax.MINUS, x, z)
		case syntax.PIPE:
			if gt, _ := py.PyCompare(syntax.GT, z, x); gt {
				r = z
			} else {
				r = x
			}
		case syntax.AMP:
			if lt, _ := py.PyCompare(syntax.LT, z, x); lt {
				r = z
			} else {
				r = x
			}
		default:
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if pos, _ := py.PyCompare(syntax.GT, r, starlark.MakeInt(0)); pos {
			out.d.SetKey(k, r)
		}
	}
	return out, nil
}

func newCounter(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c := &dictSub{kind: "Counter", d: starlark.NewDict(0)}
	if len(args) > 1 {
		return nil, py.Errorf("TypeError", "expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 && args[0] != starlark.None {
		if err := c.count(thread, args[0], 1); err != nil {
			return nil, err
		}
	}
	for _, kv := range kwargs {
		if err := c.addCount(kv[0], kv[1], 1); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func newDefaultdict(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c := &dictSub{kind: "defaultdict", d: starlark.NewDict(0), factory: starlark.None}
	if thread != nil {
		if st := py.StepOf(thread); st != nil {
			c.sess = st.State
		}
	}
	if len(args) > 0 {
		if args[0] != starlark.None {
			if _, ok := args[0].(starlark.Callable); !ok {
				return nil, py.Errorf("TypeError", "first argument must be callable or None")
			}
		}
		c.factory = args[0]
		if len(args) > 1 || len(kwargs) > 0 {
			d, err := py.BuiltinDict(thread, args[1:], kwargs)
			if err != nil {
				return nil, err
			}
			c.d = d.(*starlark.Dict)
		}
	}
	return c, nil
}

var _ = py.RegisterModule("collections", collectionsModule)

// collectionsModule builds the collections module on its first import.
func collectionsModule() *py.Module {
	completeCollectionsTypes()
	return py.NewModule("collections", map[string]py.BuiltinFn{
		"namedtuple": namedtuple,
	}, starlark.StringDict{
		"OrderedDict": typeOrderedDict,
		"Counter":     typeCounter,
		"defaultdict": typeDefaultdict,
		"deque":       typeDeque,
	})
}

// Unary implements +c (the positive counts) and -c (the negated negative
// counts) of a Counter.
func (c *dictSub) Unary(op syntax.Token) (starlark.Value, error) {
	if c.kind != "Counter" || op != syntax.PLUS && op != syntax.MINUS {
		return nil, nil
	}
	out := &dictSub{kind: "Counter", d: starlark.NewDict(0)}
	zero := starlark.MakeInt(0)
	for _, kv := range c.d.Items() {
		v := kv[1]
		if op == syntax.MINUS {
			var err error
			if v, err = py.Binary(syntax.MINUS, zero, v); err != nil {
				return nil, err
			}
		}
		if pos, _ := py.PyCompare(syntax.GT, v, zero); pos {
			if err := out.d.SetKey(kv[0], v); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// namedtuple builds a class whose instances are printed and compared like
// CPython's named tuples (a dataclass-like class with tuple behaviour).
func namedtuple(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var fieldsV starlark.Value
	var defaults starlark.Value = starlark.None
	var rename starlark.Value
	if err := starlark.UnpackArgs("namedtuple", args, kwargs, "typename", &name, "field_names", &fieldsV, "defaults?", &defaults, "rename?", &rename); err != nil {
		return nil, err
	}
	var fields []string
	if s, ok := fieldsV.(starlark.String); ok {
		fields = strings.Fields(strings.ReplaceAll(string(s), ",", " "))
	} else {
		elems, err := py.Collect(thread, fieldsV)
		if err != nil {
			return nil, err
		}
		for _, e := range elems {
			s, _ := starlark.AsString(e)
			fields = append(fields, s)
		}
	}
	var dflts []starlark.Value
	if defaults != starlark.None {
		var err error
		if dflts, err = py.Collect(thread, defaults); err != nil {
			return nil, err
		}
	}
	t := &py.TypeObj{PyName: name, Base: py.TypeTuple, Attrs: starlark.StringDict{}, Cls: &py.ClassInfo{}}
	t.Check = func(v starlark.Value) bool { nt, ok := v.(*namedTuple); return ok && nt.cls == t }
	t.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		vals := make(starlark.Tuple, len(fields))
		set := make([]bool, len(fields))
		if len(args) > len(fields) {
			return nil, py.Errorf("TypeError", "%s() takes %d positional arguments but %d were given", name, len(fields), len(args))
		}
		for i, a := range args {
			vals[i], set[i] = a, true
		}
		for _, kv := range kwargs {
			k, _ := starlark.AsString(kv[0])
			i := slices.Index(fields, k)
			if i < 0 {
				return nil, py.Errorf("TypeError", "%s() got an unexpected keyword argument '%s'", name, k)
			}
			vals[i], set[i] = kv[1], true
		}
		for i := range fields {
			if set[i] {
				continue
			}
			if d := len(fields) - i; d <= len(dflts) {
				vals[i] = dflts[len(dflts)-d]
				continue
			}
			return nil, py.Errorf("TypeError", "%s() missing 1 required positional argument: '%s'", name, fields[i])
		}
		return &namedTuple{Tuple: vals, cls: t, fields: fields}, nil
	}
	t.Attrs["_fields"] = starlark.Tuple(func() []starlark.Value {
		out := make([]starlark.Value, len(fields))
		for i, f := range fields {
			out[i] = starlark.String(f)
		}
		return out
	}())
	t.Attrs["_make"] = py.NewBuiltin(
		"_make",
		func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var it starlark.Value
			if err := starlark.UnpackPositionalArgs("_make", args, kwargs, 1, &it); err != nil {
				return nil, err
			}
			var vals starlark.Tuple
			if err := py.ForEach(thread, it, func(v starlark.Value) error { vals = append(vals, v); return nil }); err != nil {
				return nil, err
			}
			if len(vals) != len(fields) {
				return nil, py.Errorf("TypeError", "Expected %d arguments, got %d", len(fields), len(vals))
			}
			return &namedTuple{Tuple: vals, cls: t, fields: fields}, nil
		},
	)
	return t, nil
}

// namedTuple is an instance of a namedtuple class.
type namedTuple struct {
	starlark.Tuple
	cls    *py.TypeObj
	fields []string
}

func (n *namedTuple) Type() string { return "tuple" }

// AsTuple implements tupleSubtype.
func (n *namedTuple) AsTuple() starlark.Tuple { return n.Tuple }

func (n *namedTuple) PyTypeObj() *py.TypeObj { return n.cls }
func (n *namedTuple) PyTypeName() string     { return n.cls.PyName }
func (n *namedTuple) String() string         { return py.Repr(n) }

func (n *namedTuple) WriteRepr(r *py.Renderer) {
	r.B.WriteString(n.cls.PyName + "(")
	for i, f := range n.fields {
		if i > 0 {
			r.B.WriteString(", ")
		}
		r.B.WriteString(f + "=")
		r.Repr(n.Tuple[i])
	}
	r.B.WriteByte(')')
}

func (n *namedTuple) AttrNames() []string { return n.fields }

func (n *namedTuple) Attr(name string) (starlark.Value, error) {
	if i := slices.Index(n.fields, name); i >= 0 {
		return n.Tuple[i], nil
	}
	switch name {
	case "_asdict":
		return py.NewBuiltin(
			"_asdict",
			func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
				d := starlark.NewDict(len(n.fields))
				for i, f := range n.fields {
					d.SetKey(starlark.String(f), n.Tuple[i])
				}
				return d, nil
			},
		), nil
	case "_replace":
		return py.NewBuiltin(
			"_replace",
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				vals := append(starlark.Tuple(nil), n.Tuple...)
				for _, kv := range kwargs {
					k, _ := starlark.AsString(kv[0])
					i := slices.Index(n.fields, k)
					if i < 0 {
						return nil, py.Errorf("ValueError", "Got unexpected field names: ['%s']", k)
					}
					vals[i] = kv[1]
				}
				return &namedTuple{Tuple: vals, cls: n.cls, fields: n.fields}, nil
			},
		), nil
	case "_fields":
		return n.cls.Attrs["_fields"], nil
	case "count", "index":
		return nil, nil
	}
	if v, ok := n.cls.Attrs[name]; ok && name[0] != '_' || name == "__str__" || name == "__repr__" {
		if v != nil {
			return py.ClassAttr(n.cls.Cls.SessThread(), n.cls, v, n)
		}
	}
	return nil, py.Errorf("AttributeError", "'%s' object has no attribute '%s'", n.cls.PyName, name)
}

// deque is collections.deque: a list with cheap appends and pops at both
// ends (popleft is O(1) amortized via a moving head).
type deque struct {
	elems  []starlark.Value
	head   int
	maxlen int // -1 if unbounded
}

var (
	_ starlark.Sequence  = (*deque)(nil)
	_ starlark.Indexable = (*deque)(nil)
	_ starlark.HasAttrs  = (*deque)(nil)
)

var typeDeque = &py.TypeObj{PyName: "deque", Check: py.IsType[*deque]}

func (d *deque) items() []starlark.Value { return d.elems[d.head:] }

// HeldValues implements valueHolder: the backing store, consumed slots
// (before head) included.
func (d *deque) HeldValues() []starlark.Value { return d.elems }

func (d *deque) String() string             { return py.Repr(d) }
func (d *deque) Type() string               { return "deque" }
func (d *deque) PyTypeObj() *py.TypeObj     { return typeDeque }
func (d *deque) Freeze()                    {}
func (d *deque) Truth() starlark.Bool       { return len(d.items()) > 0 }
func (d *deque) Hash() (uint32, error)      { return 0, fmt.Errorf("unhashable type: 'deque'") }
func (d *deque) Len() int                   { return len(d.items()) }
func (d *deque) Index(i int) starlark.Value { return d.items()[i] }

func (d *deque) Iterate() starlark.Iterator {
	return starlark.Tuple(append([]starlark.Value(nil), d.items()...)).Iterate()
}

func (d *deque) WriteRepr(r *py.Renderer) {
	r.B.WriteString("deque(")
	r.Repr(starlark.NewList(append([]starlark.Value(nil), d.items()...)))
	if d.maxlen >= 0 {
		fmt.Fprintf(&r.B, ", maxlen=%d", d.maxlen)
	}
	r.B.WriteByte(')')
}

func (d *deque) push(v starlark.Value, left bool) {
	if left {
		if d.head > 0 {
			d.head--
			d.elems[d.head] = v
		} else {
			d.elems = append([]starlark.Value{v}, d.elems...)
		}
		if d.maxlen >= 0 && d.Len() > d.maxlen {
			d.elems = d.elems[:len(d.elems)-1]
		}
		return
	}
	d.elems = append(d.elems, v)
	if d.maxlen >= 0 && d.Len() > d.maxlen {
		d.head++
	}
	if d.head > 1024 && d.head > len(d.elems)/2 {
		d.elems = append([]starlark.Value(nil), d.items()...)
		d.head = 0
	}
}

func (d *deque) AttrNames() []string {
	return []string{"append", "appendleft", "clear", "extend", "extendleft", "maxlen", "pop", "popleft", "rotate"}
}

func (d *deque) Attr(name string) (starlark.Value, error) {
	bi := func(fn py.BuiltinFn) (starlark.Value, error) {
		return py.NewBuiltin(name, fn).BindReceiver(d), nil
	}
	switch name {
	case "maxlen":
		if d.maxlen < 0 {
			return starlark.None, nil
		}
		return starlark.MakeInt(d.maxlen), nil
	case "append", "appendleft":
		return bi(func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &v); err != nil {
				return nil, err
			}
			d.push(v, name == "appendleft")
			return starlark.None, nil
		})
	case "extend", "extendleft":
		return bi(func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var it starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &it); err != nil {
				return nil, err
			}
			elems, err := py.Collect(thread, it)
			if err != nil {
				return nil, err
			}
			for _, v := range elems {
				d.push(v, name == "extendleft")
			}
			return starlark.None, nil
		})
	case "pop", "popleft":
		return bi(func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if d.Len() == 0 {
				return nil, py.Errorf("IndexError", "pop from an empty deque")
			}
			if name == "popleft" {
				v := d.elems[d.head]
				d.elems[d.head] = nil
				d.head++
				return v, nil
			}
			v := d.elems[len(d.elems)-1]
			d.elems = d.elems[:len(d.elems)-1]
			return v, nil
		})
	case "clear":
		return bi(func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			d.elems, d.head = nil, 0
			return starlark.None, nil
		})
	case "rotate":
		return bi(func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n := 1
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0, &n); err != nil {
				return nil, err
			}
			items := append([]starlark.Value(nil), d.items()...)
			if k := len(items); k > 0 {
				n = ((n % k) + k) % k
				items = append(items[k-n:], items[:k-n]...)
			}
			d.elems, d.head = items, 0
			return starlark.None, nil
		})
	}
	return nil, nil
}

func newDeque(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it, maxlen starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("deque", args, kwargs, "iterable?", &it, "maxlen?", &maxlen); err != nil {
		return nil, err
	}
	d := &deque{maxlen: -1}
	if maxlen != starlark.None {
		n, err := starlark.AsInt32(maxlen)
		if err != nil || n < 0 {
			return nil, py.Errorf("ValueError", "maxlen must be a non-negative integer")
		}
		d.maxlen = n
	}
	if it != nil && it != starlark.None {
		elems, err := py.Collect(thread, it)
		if err != nil {
			return nil, err
		}
		for _, v := range elems {
			d.push(v, false)
		}
	}
	return d, nil
}
