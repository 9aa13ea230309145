package pylib

import (
	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

var _ = py.RegisterModule("copy", copyModule)

// copyModule builds the copy module on its first import: copy and
// deepcopy, both by a copier.
func copyModule() *py.Module {
	return py.NewModule("copy", map[string]py.BuiltinFn{
		"copy": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, err := py.OneArg("copy.copy", args, kwargs)
			if err != nil {
				return nil, err
			}
			return (&copier{thread: thread, stop: py.NewStopPoll(thread)}).copy(x, 0)
		},
		"deepcopy": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, err := py.OneArg("copy.deepcopy", args, kwargs)
			if err != nil {
				return nil, err
			}
			return (&copier{thread: thread, deep: true, memo: map[starlark.Value]starlark.Value{}, stop: py.NewStopPoll(thread)}).copy(x, 0)
		},
	}, nil)
}

// copier implements copy.copy (deep=false) and copy.deepcopy. A deep copy
// keeps shared and cyclic structure (memo maps each mutable original to
// its copy) and is bounded in depth like CPython's recursion.
type copier struct {
	thread *starlark.Thread
	deep   bool
	memo   map[starlark.Value]starlark.Value
	stop   py.StopPoll
	// asdict is set for dataclasses.asdict (dcDict) and astuple (dcTuple):
	// dataclass instances become a dict or a tuple of their fields, lists,
	// tuples and dicts (keys too) are rebuilt with their items converted,
	// and any other value is deep-copied. A cycle ends at the depth limit
	// with a RecursionError, as in CPython, while shared parts are
	// converted once: the memo starts past memoAfter values visited, so
	// that small values, the common case, do not pay for it.
	asdict dcConv
	leaf   *copier // asdict: the deep copier of other values
}

// memoAfter is how many values asdict mode visits before it memoizes.
const memoAfter = 256

// dcConv is the conversion of a copier in dataclasses.asdict/astuple mode.
type dcConv int

const (
	dcNone dcConv = iota
	dcDict
	dcTuple
)

func (c *copier) elem(x starlark.Value, depth int) (starlark.Value, error) {
	if !c.deep {
		return x, nil
	}
	return c.copy(x, depth+1)
}

func (c *copier) copy(v starlark.Value, depth int) (starlark.Value, error) {
	if err := c.stop.Stopped(); err != nil {
		return nil, err
	}
	if depth >= py.ValueDepthLimit(c.thread) {
		return nil, py.ErrDepth("while calling a Python object")
	}
	if l, ok := v.(*py.LazyDict); ok {
		v = l.UnderlyingDict() // copied as the dict it is
	}
	switch v.(type) {
	case *starlark.List, *starlark.Dict, *dictSub, *py.PyObject:
		if got, ok := c.memo[v]; ok {
			return got, nil
		}
	}
	if c.asdict != dcNone {
		return c.convert(v, depth)
	}
	switch x := v.(type) {
	case *starlark.List:
		out := starlark.NewList(make([]starlark.Value, 0, x.Len()))
		if c.memo != nil {
			c.memo[v] = out
		}
		for i := 0; i < x.Len(); i++ {
			e, err := c.elem(x.Index(i), depth)
			if err != nil {
				return nil, err
			}
			_ = out.Append(e)
		}
		return out, nil
	case starlark.Tuple:
		if !c.deep {
			return x, nil
		}
		out := make(starlark.Tuple, len(x))
		for i, y := range x {
			e, err := c.elem(y, depth)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case *starlark.Dict:
		d := starlark.NewDict(x.Len())
		if c.memo != nil {
			c.memo[v] = d
		}
		for _, kv := range x.Items() {
			e, err := c.elem(kv[1], depth)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(kv[0], e); err != nil {
				return nil, err
			}
		}
		return d, nil
	case *dictSub:
		cp := x.copy()
		if c.memo != nil {
			c.memo[v] = cp
		}
		if c.deep {
			for _, kv := range cp.d.Items() {
				e, err := c.elem(kv[1], depth)
				if err != nil {
					return nil, err
				}
				if err := cp.d.SetKey(kv[0], e); err != nil {
					return nil, err
				}
			}
		}
		return cp, nil
	case *starlark.Set:
		s := new(starlark.Set)
		it := x.Iterate()
		defer it.Done()
		var y starlark.Value
		for it.Next(&y) {
			if err := s.Insert(y); err != nil {
				return nil, err
			}
		}
		return s, nil
	case *py.PyObject:
		o := &py.PyObject{Cls: x.Cls, Names: append([]string(nil), x.Names...), Attrs: map[string]starlark.Value{}}
		if c.memo != nil {
			c.memo[v] = o
		}
		for k, y := range x.Attrs {
			e, err := c.elem(y, depth)
			if err != nil {
				return nil, err
			}
			o.Attrs[k] = e
		}
		return o, nil
	case *deque:
		return &deque{elems: append([]starlark.Value(nil), x.items()...), maxlen: x.maxlen}, nil
	}
	return v, nil
}

// convert is copy in asdict mode (see copier.asdict), past the stop poll,
// the depth check and the memo.
func (c *copier) convert(v starlark.Value, depth int) (starlark.Value, error) {
	switch x := v.(type) {
	case *py.PyObject:
		if x.Cls.Cls == nil || x.Cls.Cls.DcFields == nil {
			return c.leafCopy(v, depth)
		}
	case *starlark.List, *starlark.Dict, *dictSub, starlark.Tuple:
	case *starlark.Set, *deque:
		return c.leafCopy(v, depth)
	default:
		return v, nil // immutable (the deep copier returns it too)
	}
	if c.memo == nil && c.stop.N > memoAfter {
		c.memo = map[starlark.Value]starlark.Value{}
	}
	var out starlark.Value
	switch x := v.(type) {
	case *py.PyObject:
		fields := x.Cls.Cls.DcFields
		if c.asdict == dcTuple {
			t := make(starlark.Tuple, len(fields))
			for i, f := range fields {
				e, err := c.copy(x.Attrs[f], depth+1)
				if err != nil {
					return nil, err
				}
				t[i] = e
			}
			out = t
			break
		}
		d := starlark.NewDict(len(fields))
		for _, f := range fields {
			e, err := c.copy(x.Attrs[f], depth+1)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(f), e); err != nil {
				return nil, err
			}
		}
		out = d
	case *starlark.List:
		l := make([]starlark.Value, x.Len())
		for i := range l {
			e, err := c.copy(x.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			l[i] = e
		}
		out = starlark.NewList(l)
	case starlark.Tuple:
		t := make(starlark.Tuple, len(x))
		for i, y := range x {
			e, err := c.copy(y, depth+1)
			if err != nil {
				return nil, err
			}
			t[i] = e
		}
		return t, nil
	case *starlark.Dict:
		d := starlark.NewDict(x.Len())
		if err := c.convertItems(d, x.Items(), depth); err != nil {
			return nil, err
		}
		out = d
	case *dictSub:
		cp := x.copy()
		cp.d = starlark.NewDict(x.d.Len())
		if err := c.convertItems(cp.d, x.d.Items(), depth); err != nil {
			return nil, err
		}
		out = cp
	}
	if c.memo != nil {
		c.memo[v] = out
	}
	return out, nil
}

// convertItems sets in d the items converted, keys and values.
func (c *copier) convertItems(d *starlark.Dict, items []starlark.Tuple, depth int) error {
	for _, kv := range items {
		k, err := c.copy(kv[0], depth+1)
		if err != nil {
			return err
		}
		e, err := c.copy(kv[1], depth+1)
		if err != nil {
			return err
		}
		if err := d.SetKey(k, e); err != nil {
			return err
		}
	}
	return nil
}

// leafCopy deep-copies a value that asdict mode does not convert (as
// CPython's asdict does), sharing the stop poll and a memo of its own.
func (c *copier) leafCopy(v starlark.Value, depth int) (starlark.Value, error) {
	if c.leaf == nil {
		c.leaf = &copier{thread: c.thread, deep: true, memo: map[starlark.Value]starlark.Value{}}
	}
	c.leaf.stop = c.stop
	out, err := c.leaf.copy(v, depth)
	c.stop = c.leaf.stop
	return out, err
}
