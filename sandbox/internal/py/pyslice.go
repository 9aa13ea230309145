package py

import (
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// sliceObj is Python's slice(start, stop, step): x[s] with s a slice
// reads x[start:stop:step].
type sliceObj struct{ start, stop, step starlark.Value }

var typeSlice *TypeObj

var (
	_ starlark.HasAttrs   = (*sliceObj)(nil)
	_ starlark.Comparable = (*sliceObj)(nil)
)

func (s *sliceObj) Type() string         { return "slice" }
func (s *sliceObj) PyTypeObj() *TypeObj  { return typeSlice }
func (s *sliceObj) Freeze()              {}
func (s *sliceObj) Truth() starlark.Bool { return true }
func (s *sliceObj) Hash() (uint32, error) {
	return 0, fmt.Errorf("unhashable type: 'slice'")
}
func (s *sliceObj) String() string { return Repr(s) }
func (s *sliceObj) WriteRepr(r *Renderer) {
	r.B.WriteString("slice(")
	r.Repr(s.start)
	r.B.WriteString(", ")
	r.Repr(s.stop)
	r.B.WriteString(", ")
	r.Repr(s.step)
	r.B.WriteByte(')')
}

// CompareSameType compares slices as the tuples of their parts.
func (s *sliceObj) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*sliceObj)
	return starlark.CompareDepth(op, starlark.Tuple{s.start, s.stop, s.step}, starlark.Tuple{o.start, o.stop, o.step}, depth)
}

// AttrNames lists the attributes of a slice.
func (s *sliceObj) AttrNames() []string { return []string{"indices", "start", "step", "stop"} }

// Attr returns start, stop, step or the indices method.
func (s *sliceObj) Attr(name string) (starlark.Value, error) {
	switch name {
	case "start":
		return s.start, nil
	case "stop":
		return s.stop, nil
	case "step":
		return s.step, nil
	case "indices":
		return NewBuiltin(
				"indices",
				func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
					var n int
					if err := starlark.UnpackPositionalArgs("indices", args, kwargs, 1, &n); err != nil {
						return nil, err
					}
					if n < 0 {
						return nil, Errorf("ValueError", "length should not be negative")
					}
					start, end, step, err := sliceBounds(s.start, s.stop, s.step, n)
					if err != nil {
						return nil, err
					}
					return starlark.Tuple{starlark.MakeInt(start), starlark.MakeInt(end), starlark.MakeInt(step)}, nil
				},
			).BindReceiver(s),
			nil
	}
	return nil, nil
}

func init() {
	typeSlice = &TypeObj{PyName: "slice", Check: IsType[*sliceObj]}
	typeSlice.Call = func(_ *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(kwargs) > 0 {
			return nil, Errorf("TypeError", "slice() takes no keyword arguments")
		}
		switch len(args) {
		case 0:
			return nil, Errorf("TypeError", "slice expected at least 1 argument, got 0")
		case 1:
			return &sliceObj{starlark.None, args[0], starlark.None}, nil
		case 2:
			return &sliceObj{args[0], args[1], starlark.None}, nil
		case 3:
			return &sliceObj{args[0], args[1], args[2]}, nil
		}
		return nil, Errorf("TypeError", "slice expected at most 3 arguments, got %d", len(args))
	}
}

// pySetSlice implements _py_setslice(container, lo, hi, step, value).
func pySetSlice(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 5 {
		return nil, ArgErr("_py_setslice", "takes 5 arguments")
	}
	l, ok := args[0].(*starlark.List)
	if !ok {
		return nil, Errorf("TypeError", "'%s' object does not support slice assignment", PyType(args[0]))
	}
	vals, err := Collect(thread, args[4])
	if err != nil {
		return nil, err
	}
	n := l.Len()
	idx := make([]starlark.Value, n)
	for i := range idx {
		idx[i] = starlark.MakeInt(i)
	}
	sel, err := sliceValue(starlark.NewList(idx), args[1], args[2], args[3])
	if err != nil {
		return nil, err
	}
	picked, _ := Collect(thread, sel)
	elems := make([]starlark.Value, n)
	for i := range elems {
		elems[i] = l.Index(i)
	}
	step := 1
	if args[3] != starlark.None {
		step, _ = starlark.AsInt32(args[3])
	}
	var out []starlark.Value
	if step == 1 {
		lo, hi := 0, 0
		if len(picked) > 0 {
			a, _ := starlark.AsInt32(picked[0])
			b, _ := starlark.AsInt32(picked[len(picked)-1])
			lo, hi = a, b+1
		} else {
			// Empty selection: insert at the clamped start.
			v, err := sliceValue(starlark.NewList(append(idx, starlark.MakeInt(n))), args[1], starlark.None, starlark.None)
			if err != nil {
				return nil, err
			}
			first, _ := Collect(thread, v)
			lo = n
			if len(first) > 0 {
				lo, _ = starlark.AsInt32(first[0])
			}
			hi = lo
		}
		out = append(append(append(out, elems[:lo]...), vals...), elems[hi:]...)
	} else {
		if len(picked) != len(vals) {
			return nil, Errorf("ValueError", "attempt to assign sequence of size %d to extended slice of size %d", len(vals), len(picked))
		}
		out = elems
		for k, p := range picked {
			i, _ := starlark.AsInt32(p)
			out[i] = vals[k]
		}
	}
	if _, err := starlark.Call(thread, MustAttr(l, "clear"), nil, nil); err != nil {
		return nil, err
	}
	for _, x := range out {
		if err := l.Append(x); err != nil {
			return nil, err
		}
	}
	return starlark.None, nil
}
