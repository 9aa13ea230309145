package py

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// Proxy is a value that stands for another value, such as a deferred
// future. print, str, repr, [ToGo] and the Python builtins use its target.
// ProxyTarget waits for the target if it is pending; thread may be nil
// (then it waits without cancellation) and is otherwise the calling thread.
type Proxy interface {
	starlark.Value
	ProxyTarget(thread *starlark.Thread) (starlark.Value, error)
}

// Unproxy returns v's target if v is a Proxy (recursively), else v.
func Unproxy(thread *starlark.Thread, v starlark.Value) (starlark.Value, error) {
	for i := 0; i < 100; i++ {
		p, ok := v.(Proxy)
		if !ok {
			return v, nil
		}
		t, err := p.ProxyTarget(thread)
		if err != nil {
			return nil, err
		}
		v = t
	}
	return nil, fmt.Errorf("proxy chain too long")
}

// FromGo converts a Go value of the rlmctx value kinds (string, bool, nil,
// int, int64, *big.Int, float64, []any, *pyjson.Dict, plus []string,
// map[string]any with sorted keys, and starlark.Value) to a Starlark value.
// Strings are not copied; dict order is kept.
func FromGo(v any) (starlark.Value, error) {
	switch v := v.(type) {
	case nil:
		return starlark.None, nil
	case starlark.Value:
		return v, nil
	case string:
		return starlark.String(v), nil
	case bool:
		return starlark.Bool(v), nil
	case int:
		return starlark.MakeInt(v), nil
	case int64:
		return starlark.MakeInt64(v), nil
	case int32:
		return starlark.MakeInt64(int64(v)), nil
	case uint64:
		return starlark.MakeUint64(v), nil
	case *big.Int:
		return starlark.MakeBigInt(v), nil
	case float64:
		return starlark.Float(v), nil
	case float32:
		return starlark.Float(v), nil
	case []any:
		elems := make([]starlark.Value, len(v))
		for i, x := range v {
			e, err := FromGo(x)
			if err != nil {
				return nil, err
			}
			elems[i] = e
		}
		return starlark.NewList(elems), nil
	case []string:
		elems := make([]starlark.Value, len(v))
		for i, x := range v {
			elems[i] = starlark.String(x)
		}
		return starlark.NewList(elems), nil
	case *pyjson.Dict:
		d := starlark.NewDict(v.Len())
		for _, k := range v.Keys() {
			x, _ := v.Get(k)
			e, err := FromGo(x)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(k), e); err != nil {
				return nil, err
			}
		}
		return d, nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := starlark.NewDict(len(v))
		for _, k := range keys {
			e, err := FromGo(v[k])
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(k), e); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	return nil, fmt.Errorf("sandbox: cannot convert Go value of type %T to a Starlark value", v)
}

// ToGo converts a Starlark value to the rlmctx value kinds: None -> nil,
// bool, int -> int64 (or *big.Int), float64, str -> string, list/tuple/set
// -> []any, dict -> *pyjson.Dict (keys rendered with str() when not
// strings). Proxies convert their target. A value that contains itself is
// a ValueError and one nested deeper than [MaxRenderDepth] a
// RecursionError (both [*PyError]).
//
// ToGo is bounded in time as well as depth: past about sixteen million
// values (a value shared at every level counts each time it appears) it
// fails with a MemoryError. Builtins converting a value for the step
// running on a thread call [ToGoOn], which stops with the step instead.
func ToGo(v starlark.Value) (any, error) {
	return ToGoOn(nil, v)
}

// ToGoOn is [ToGo] for the step running on thread: the conversion stops
// with the step's error when a limit (time, memory) or the caller stops
// the step, within milliseconds, however large or shared the value.
func ToGoOn(thread *starlark.Thread, v starlark.Value) (any, error) {
	c := toGoConv{onPath: map[starlark.Value]bool{}, stop: NewStopPoll(thread)}
	return c.conv(v, 0)
}

// toGoConv is one conversion by [ToGoOn]: the mutable containers being
// converted, to detect cycles, and the poll that stops it.
type toGoConv struct {
	onPath map[starlark.Value]bool
	stop   StopPoll
}

func (c *toGoConv) conv(v starlark.Value, depth int) (any, error) {
	if err := c.stop.Stopped(); err != nil {
		return nil, err
	}
	v, err := Unproxy(nil, v)
	if err != nil {
		return nil, err
	}
	if depth >= MaxRenderDepth {
		return nil, ErrDepth("while converting a value")
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		if i, ok := v.Int64(); ok {
			return i, nil
		}
		return v.BigInt(), nil
	case starlark.Float:
		return float64(v), nil
	case starlark.String:
		return string(v), nil
	case starlark.Bytes:
		return string(v), nil
	}
	if _, ok := v.(starlark.Iterable); !ok {
		return nil, fmt.Errorf("sandbox: cannot convert %s value to a Go value", PyType(v))
	}
	switch v.(type) {
	case *starlark.List, *starlark.Dict, *starlark.Set, *PyObject, PyDictLike, ValueHolder:
		if c.onPath[v] {
			return nil, &PyError{Kind: "ValueError", Msg: "Circular reference detected"}
		}
		c.onPath[v] = true
		defer delete(c.onPath, v)
	}
	switch v := v.(type) {
	case *starlark.Dict:
		d := pyjson.NewDict(v.Len())
		for _, kv := range v.Items() {
			x, err := c.conv(kv[1], depth+1)
			if err != nil {
				return nil, err
			}
			d.Set(Str(kv[0]), x)
		}
		return d, nil
	case PyDictLike:
		return c.conv(v.UnderlyingDict(), depth)
	case starlark.Iterable:
		var out []any
		it := v.Iterate()
		defer it.Done()
		var x starlark.Value
		for it.Next(&x) {
			g, err := c.conv(x, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	}
	return nil, fmt.Errorf("sandbox: cannot convert %s value to a Go value", PyType(v))
}

// PyDictLike is implemented by dict subclasses (Counter, defaultdict).
type PyDictLike interface {
	UnderlyingDict() *starlark.Dict
}

// ValueHolder is implemented by the mutable containers a module defines
// (collections.deque): the conversions check them for cycles and the
// memory accounting counts what they hold.
type ValueHolder interface {
	starlark.Value
	// HeldValues returns the container's backing store: the values it
	// holds, and nil in the slots not in use.
	HeldValues() []starlark.Value
}
