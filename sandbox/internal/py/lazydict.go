package py

import (
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// DictFields computes the entries of a LazyDict: a few str keys, in
// order, whose values are made when they are read.
type DictFields interface {
	// FieldCount is the number of entries.
	FieldCount() int
	// FieldKey returns the i-th key (0 <= i < FieldCount()).
	FieldKey(i int) starlark.String
	// FieldValue returns the i-th value, made anew on each call (equal
	// each time).
	FieldValue(i int) starlark.Value
}

// LazyDict is a dict whose entries a compact Go value (DictFields)
// computes when they are read, for builtins that return many small
// records (search() hits): a record costs its Go value instead of a hash
// table and its strings. To model code it is a dict in every way: type()
// is dict, isinstance(x, dict) holds, it indexes, iterates, prints,
// compares (== with a dict of the same items) and converts (json.dumps,
// dict(), SUBMIT) as the dict of its entries does. The first write (or
// an operation on the dict as a whole, such as a view or json.dumps)
// copies the entries into a real dict, which the LazyDict is from then on.
//
// Embed it in the Go value and call Init with that value; the value must
// not change its entries afterwards.
type LazyDict struct {
	fields DictFields
	d      *starlark.Dict // the entries once copied into a dict
}

var (
	_ starlark.HasSetKey       = (*LazyDict)(nil)
	_ starlark.IterableMapping = (*LazyDict)(nil)
	_ starlark.Sequence        = (*LazyDict)(nil)
	_ starlark.HasAttrs        = (*LazyDict)(nil)
	_ starlark.HasBinary       = (*LazyDict)(nil)
	_ starlark.Comparable      = (*LazyDict)(nil)
	_ starlark.HasCompareOther = (*LazyDict)(nil)
	_ PyDictLike               = (*LazyDict)(nil)
	_ PyReprer                 = (*LazyDict)(nil)
)

// Init sets the fields that l presents as a dict.
func (l *LazyDict) Init(f DictFields) { l.fields = f }

// Dict returns the entries as a new dict (the copy itself once l was
// written to): for reading, not for keeping.
func (l *LazyDict) Dict() *starlark.Dict {
	if l.d != nil {
		return l.d
	}
	n := l.fields.FieldCount()
	d := starlark.NewDict(n)
	for i := 0; i < n; i++ {
		d.SetKey(l.fields.FieldKey(i), l.fields.FieldValue(i))
	}
	return d
}

// UnderlyingDict copies the entries into the dict that l is from now on.
func (l *LazyDict) UnderlyingDict() *starlark.Dict {
	if l.d == nil {
		l.d = l.Dict()
	}
	return l.d
}

func (l *LazyDict) String() string        { return Repr(l) }
func (l *LazyDict) Type() string          { return "lazy_dict" } // not "dict": Starlark would compare it as a *Dict
func (l *LazyDict) PyTypeName() string    { return "dict" }
func (l *LazyDict) PyTypeObj() *TypeObj   { return TypeDict }
func (l *LazyDict) Freeze()               { l.UnderlyingDict().Freeze() }
func (l *LazyDict) Truth() starlark.Bool  { return l.Len() > 0 }
func (l *LazyDict) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: dict") }
func (l *LazyDict) AttrNames() []string   { return l.UnderlyingDict().AttrNames() }
func (l *LazyDict) SetKey(k, v starlark.Value) error {
	return l.UnderlyingDict().SetKey(k, v)
}

// Attr returns the dict method name, bound to the dict that l becomes.
func (l *LazyDict) Attr(name string) (starlark.Value, error) {
	return l.UnderlyingDict().Attr(name)
}

// Len returns the number of entries.
func (l *LazyDict) Len() int {
	if l.d != nil {
		return l.d.Len()
	}
	return l.fields.FieldCount()
}

// Get returns the value of key k.
func (l *LazyDict) Get(k starlark.Value) (starlark.Value, bool, error) {
	if l.d != nil {
		return l.d.Get(k)
	}
	if s, ok := k.(starlark.String); ok {
		n := l.fields.FieldCount()
		for i := 0; i < n; i++ {
			if l.fields.FieldKey(i) == s {
				return l.fields.FieldValue(i), true, nil
			}
		}
		return nil, false, nil
	}
	if _, err := k.Hash(); err != nil {
		return nil, false, err // unhashable, as a dict reports it
	}
	return nil, false, nil
}

// Keys returns the keys in order.
func (l *LazyDict) Keys() []starlark.Value {
	if l.d != nil {
		return l.d.Keys()
	}
	n := l.fields.FieldCount()
	keys := make([]starlark.Value, n)
	for i := range keys {
		keys[i] = l.fields.FieldKey(i)
	}
	return keys
}

// Items returns the (key, value) pairs in order.
func (l *LazyDict) Items() []starlark.Tuple {
	if l.d != nil {
		return l.d.Items()
	}
	n := l.fields.FieldCount()
	items := make([]starlark.Tuple, n)
	pairs := make([]starlark.Value, 2*n)
	for i := range items {
		pairs[2*i], pairs[2*i+1] = l.fields.FieldKey(i), l.fields.FieldValue(i)
		items[i] = pairs[2*i : 2*i+2 : 2*i+2]
	}
	return items
}

// Iterate iterates a snapshot of the keys, as a for loop over a dict
// does in the sandbox (Python lets the loop update existing keys).
func (l *LazyDict) Iterate() starlark.Iterator { return starlark.Tuple(l.Keys()).Iterate() }

// CompareSameType compares two LazyDicts as the dicts of their entries.
func (l *LazyDict) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return starlark.CompareDepth(op, l.Dict(), y.(*LazyDict).Dict(), depth)
}

// CompareOther compares l with a dict (or a dict subclass) as the dict of
// its entries.
func (l *LazyDict) CompareOther(op syntax.Token, y starlark.Value, side starlark.Side) (bool, bool, error) {
	switch y.(type) {
	case *starlark.Dict, PyDictLike:
	default:
		return false, false, nil
	}
	x := starlark.Value(l.Dict())
	if side == starlark.Right {
		x, y = y, x
	}
	r, err := starlark.Compare(op, x, y)
	return r, true, err
}

// Binary computes l | y and y | l as with the dict of l's entries.
func (l *LazyDict) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if op != syntax.PIPE {
		return nil, nil
	}
	if side == starlark.Left {
		return starlark.Binary(op, l.Dict(), y)
	}
	return starlark.Binary(op, y, l.Dict())
}

func (l *LazyDict) WriteRepr(r *Renderer) {
	if l.d != nil {
		r.WriteDictItems(l.d)
		return
	}
	r.B.WriteByte('{')
	n := l.fields.FieldCount()
	for i := 0; i < n && !r.full(); i++ {
		if i > 0 {
			r.B.WriteString(", ")
		}
		r.Repr(l.fields.FieldKey(i))
		r.B.WriteString(": ")
		r.Repr(l.fields.FieldValue(i))
	}
	r.B.WriteByte('}')
}

// index is l[k] for the interpreter (KeyError as a dict's).
func (l *LazyDict) index(k starlark.Value) (starlark.Value, error) {
	v, found, err := l.Get(k)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, KeyErr(k)
	}
	return v, nil
}

// method calls the dict method name: get and copy read the entries, the
// others run on the dict that l becomes.
func (l *LazyDict) method(
	thread *starlark.Thread,
	name string,
	args starlark.Tuple,
	kwargs []starlark.Tuple,
) (starlark.Value, bool, error) {
	if l.d == nil {
		switch name {
		case "get":
			var k, dflt starlark.Value = nil, starlark.None
			if err := starlark.UnpackPositionalArgsNoEscape("get", args, kwargs, 1, &k, &dflt); err != nil {
				return nil, true, err
			}
			v, found, err := l.Get(k)
			if err != nil || found {
				return v, true, err
			}
			return dflt, true, nil
		case "copy":
			return l.Dict(), true, NoArgs(name, args, kwargs)
		}
	}
	return dictMethod(thread, l.UnderlyingDict(), name, args, kwargs)
}
