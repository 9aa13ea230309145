package pylib

import (
	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// listArg is v, the heap argument of heapq function name, as a list.
func listArg(name string, v starlark.Value) (*starlark.List, error) {
	l, ok := v.(*starlark.List)
	if !ok {
		return nil, py.Errorf("TypeError", "%s: heap argument must be a list", name)
	}
	return l, nil
}

// siftDown restores the heap order of l from pos up to start (CPython's
// _siftdown): heap operations on a *starlark.List, as CPython's heapq.
func siftDown(l *starlark.List, start, pos int) error {
	item := l.Index(pos)
	for pos > start {
		parent := (pos - 1) >> 1
		p := l.Index(parent)
		lt, err := py.Less(item, p)
		if err != nil {
			return err
		}
		if !lt {
			break
		}
		l.SetIndex(pos, p)
		pos = parent
	}
	return l.SetIndex(pos, item)
}

// siftUp restores the heap order of l below pos (CPython's _siftup).
func siftUp(l *starlark.List, pos int) error {
	end := l.Len()
	start := pos
	item := l.Index(pos)
	child := 2*pos + 1
	for child < end {
		right := child + 1
		if right < end {
			lt, err := py.Less(l.Index(child), l.Index(right))
			if err != nil {
				return err
			}
			if !lt {
				child = right
			}
		}
		l.SetIndex(pos, l.Index(child))
		pos = child
		child = 2*pos + 1
	}
	l.SetIndex(pos, item)
	return siftDown(l, start, pos)
}

var _ = py.RegisterModule("heapq", heapqModule)

// heapqModule builds the heapq module on its first import.
func heapqModule() *py.Module {
	popLast := func(thread *starlark.Thread, l *starlark.List) (starlark.Value, error) {
		return starlark.Call(thread, py.MustAttr(l, "pop"), nil, nil)
	}
	nbest := func(name string, largest bool) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			var it, key starlark.Value = nil, starlark.None
			if err := starlark.UnpackArgs(name, args, kwargs, "n", &n, "iterable", &it, "key?", &key); err != nil {
				return nil, err
			}
			elems, err := py.Collect(thread, it)
			if err != nil {
				return nil, err
			}
			l := starlark.NewList(elems)
			if err := py.SortList(thread, l, key, largest); err != nil {
				return nil, err
			}
			if n > l.Len() {
				n = l.Len()
			}
			if n < 0 {
				n = 0
			}
			out := make([]starlark.Value, n)
			for i := range out {
				out[i] = l.Index(i)
			}
			return starlark.NewList(out), nil
		}
	}
	return py.NewModule("heapq", map[string]py.BuiltinFn{
		"heappush": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var h, item starlark.Value
			if err := starlark.UnpackPositionalArgs("heappush", args, kwargs, 2, &h, &item); err != nil {
				return nil, err
			}
			l, err := listArg("heappush", h)
			if err != nil {
				return nil, err
			}
			if err := l.Append(item); err != nil {
				return nil, err
			}
			return starlark.None, siftDown(l, 0, l.Len()-1)
		},
		"heappop": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var h starlark.Value
			if err := starlark.UnpackPositionalArgs("heappop", args, kwargs, 1, &h); err != nil {
				return nil, err
			}
			l, err := listArg("heappop", h)
			if err != nil {
				return nil, err
			}
			if l.Len() == 0 {
				return nil, py.Errorf("IndexError", "index out of range")
			}
			last, err := popLast(thread, l)
			if err != nil {
				return nil, err
			}
			if l.Len() == 0 {
				return last, nil
			}
			top := l.Index(0)
			l.SetIndex(0, last)
			return top, siftUp(l, 0)
		},
		"heapify": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var h starlark.Value
			if err := starlark.UnpackPositionalArgs("heapify", args, kwargs, 1, &h); err != nil {
				return nil, err
			}
			l, err := listArg("heapify", h)
			if err != nil {
				return nil, err
			}
			for i := l.Len()/2 - 1; i >= 0; i-- {
				if err := siftUp(l, i); err != nil {
					return nil, err
				}
			}
			return starlark.None, nil
		},
		"heappushpop": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var h, item starlark.Value
			if err := starlark.UnpackPositionalArgs("heappushpop", args, kwargs, 2, &h, &item); err != nil {
				return nil, err
			}
			l, err := listArg("heappushpop", h)
			if err != nil {
				return nil, err
			}
			if l.Len() == 0 {
				return item, nil
			}
			if lt, err := py.Less(l.Index(0), item); err != nil || !lt {
				return item, err
			}
			top := l.Index(0)
			l.SetIndex(0, item)
			return top, siftUp(l, 0)
		},
		"heapreplace": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var h, item starlark.Value
			if err := starlark.UnpackPositionalArgs("heapreplace", args, kwargs, 2, &h, &item); err != nil {
				return nil, err
			}
			l, err := listArg("heapreplace", h)
			if err != nil {
				return nil, err
			}
			if l.Len() == 0 {
				return nil, py.Errorf("IndexError", "index out of range")
			}
			top := l.Index(0)
			l.SetIndex(0, item)
			return top, siftUp(l, 0)
		},
		"merge": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var key, reverse starlark.Value = starlark.None, starlark.False
			if err := starlark.UnpackArgs("merge", nil, kwargs, "key?", &key, "reverse?", &reverse); err != nil {
				return nil, err
			}
			// The inputs are sorted: a stable sort of their concatenation
			// is their merge (ties keep the order of the inputs).
			var all []starlark.Value
			for _, a := range args {
				elems, err := py.Collect(thread, a)
				if err != nil {
					return nil, err
				}
				all = append(all, elems...)
				if err := py.CheckAlloc(thread, int64(len(all))*py.ListElemBytes); err != nil {
					return nil, err
				}
			}
			l := starlark.NewList(all)
			return l, py.SortList(thread, l, key, bool(reverse.Truth()))
		},
		"nlargest":  nbest("nlargest", true),
		"nsmallest": nbest("nsmallest", false),
	}, nil)
}
