package sandbox

import (
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

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

var typeDeque = &typeObj{name: "deque", check: isType[*deque]}

func init() { typeDeque.call = newDeque }

func (d *deque) items() []starlark.Value    { return d.elems[d.head:] }
func (d *deque) String() string             { return Repr(d) }
func (d *deque) Type() string               { return "deque" }
func (d *deque) pyTypeObj() *typeObj        { return typeDeque }
func (d *deque) Freeze()                    {}
func (d *deque) Truth() starlark.Bool       { return len(d.items()) > 0 }
func (d *deque) Hash() (uint32, error)      { return 0, fmt.Errorf("unhashable type: 'deque'") }
func (d *deque) Len() int                   { return len(d.items()) }
func (d *deque) Index(i int) starlark.Value { return d.items()[i] }
func (d *deque) Iterate() starlark.Iterator {
	return starlark.Tuple(append([]starlark.Value(nil), d.items()...)).Iterate()
}
func (d *deque) writeRepr(r *renderer) {
	r.b.WriteString("deque(")
	r.repr(starlark.NewList(append([]starlark.Value(nil), d.items()...)))
	if d.maxlen >= 0 {
		fmt.Fprintf(&r.b, ", maxlen=%d", d.maxlen)
	}
	r.b.WriteByte(')')
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
	bi := func(fn builtinFn) (starlark.Value, error) {
		return NewBuiltin(name, fn).BindReceiver(d), nil
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
			elems, err := collect(thread, it)
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
				return nil, Errorf("IndexError", "pop from an empty deque")
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
			return nil, Errorf("ValueError", "maxlen must be a non-negative integer")
		}
		d.maxlen = n
	}
	if it != nil && it != starlark.None {
		elems, err := collect(thread, it)
		if err != nil {
			return nil, err
		}
		for _, v := range elems {
			d.push(v, false)
		}
	}
	return d, nil
}
