package pylib

import (
	"errors"
	"sync"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

var _ = py.RegisterModule("functools", functoolsModule)

// functoolsModule builds the functools module on its first import.
func functoolsModule() *py.Module {
	return py.NewModule("functools", map[string]py.BuiltinFn{
		"reduce": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var fn, it, init starlark.Value
			if err := starlark.UnpackPositionalArgs("reduce", args, kwargs, 2, &fn, &it, &init); err != nil {
				return nil, err
			}
			acc := init
			err := py.ForEach(thread, it, func(x starlark.Value) error {
				if acc == nil {
					acc = x
					return nil
				}
				var err error
				acc, err = starlark.Call(thread, fn, starlark.Tuple{acc, x}, nil)
				return err
			})
			if err != nil {
				return nil, err
			}
			if acc == nil {
				return nil, py.Errorf("TypeError", "reduce() of empty iterable with no initial value")
			}
			return acc, nil
		},
		"lru_cache": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			// @lru_cache and @lru_cache(maxsize=...) both work.
			if len(args) == 1 {
				if _, ok := args[0].(starlark.Callable); ok {
					return &memoized{fn: args[0], cache: starlark.NewDict(0), maxsize: 128}, nil
				}
			}
			var maxsize starlark.Value = starlark.MakeInt(128)
			var typed starlark.Value
			if err := starlark.UnpackArgs("lru_cache", args, kwargs, "maxsize?", &maxsize, "typed?", &typed); err != nil {
				return nil, err
			}
			size := -1
			if maxsize != starlark.None {
				n, err := starlark.AsInt32(maxsize)
				if err != nil {
					return nil, py.Errorf("TypeError", "Expected first argument to be an integer, a callable, or None")
				}
				size = max(n, 0)
			}
			return py.NewBuiltin(
				"lru_cache",
				func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
					if len(args) != 1 {
						return nil, py.ArgErr("lru_cache", "decorator takes one function")
					}
					return &memoized{fn: args[0], cache: starlark.NewDict(0), maxsize: size}, nil
				},
			), nil
		},
		"cache": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) != 1 {
				return nil, py.ArgErr("cache", "takes one function")
			}
			return &memoized{fn: args[0], cache: starlark.NewDict(0), maxsize: -1}, nil
		},
		"partial": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) < 1 {
				return nil, py.Errorf("TypeError", "type 'partial' takes at least one argument")
			}
			if _, ok := args[0].(starlark.Callable); !ok {
				return nil, py.Errorf("TypeError", "the first argument must be callable")
			}
			kw := starlark.NewDict(len(kwargs))
			for _, kv := range kwargs {
				if err := kw.SetKey(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
			return &partialFn{fn: args[0], args: append(starlark.Tuple(nil), args[1:]...), kw: kw}, nil
		},
		"cmp_to_key": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var cmp starlark.Value
			if err := starlark.UnpackArgs("cmp_to_key", args, kwargs, "mycmp", &cmp); err != nil {
				return nil, err
			}
			return py.NewBuiltin(
				"functools.KeyWrapper",
				func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
					var obj starlark.Value
					if err := starlark.UnpackPositionalArgs("K", args, kwargs, 1, &obj); err != nil {
						return nil, err
					}
					return &cmpKey{obj: obj, cmp: cmp, thread: thread}, nil
				},
			), nil
		},
	}, nil)
}

// memoized is a function wrapped by functools.lru_cache / functools.cache.
type memoized struct {
	fn           starlark.Value
	cache        *starlark.Dict // least recently used first
	maxsize      int            // -1: unbounded
	hits, misses int
}

var (
	_ starlark.HasAttrs = (*memoized)(nil)
	_ py.MethodFunc     = (*memoized)(nil)
)

// BindsAsMethod implements methodFunc: a cached method binds to its
// instance.
func (m *memoized) BindsAsMethod() {}

// AttrNames lists the lru_cache wrapper's methods.
func (m *memoized) AttrNames() []string { return []string{"cache_clear", "cache_info"} }

// Attr returns cache_info or cache_clear.
func (m *memoized) Attr(name string) (starlark.Value, error) {
	switch name {
	case "cache_info":
		return py.NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			var size starlark.Value = starlark.None
			if m.maxsize >= 0 {
				size = starlark.MakeInt(m.maxsize)
			}
			return typeCacheInfo().Call(nil, starlark.Tuple{starlark.MakeInt(m.hits), starlark.MakeInt(m.misses), size, starlark.MakeInt(m.cache.Len())}, nil)
		}), nil
	case "cache_clear":
		return py.NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			m.cache = starlark.NewDict(0)
			m.hits, m.misses = 0, 0
			return starlark.None, nil
		}), nil
	}
	return nil, nil
}

// typeCacheInfo is functools._CacheInfo.
var typeCacheInfo = sync.OnceValue(func() *py.TypeObj {
	t, err := namedtuple(nil, nil, starlark.Tuple{starlark.String("CacheInfo"), starlark.String("hits misses maxsize currsize")}, nil)
	if err != nil {
		panic(err)
	}
	return t.(*py.TypeObj)
})

func (m *memoized) String() string       { return py.Repr(m.fn) }
func (m *memoized) Type() string         { return "function" }
func (m *memoized) Freeze()              {}
func (m *memoized) Truth() starlark.Bool { return true }

func (m *memoized) Hash() (uint32, error) {
	return 0, errors.New("unhashable type: 'functools._lru_cache_wrapper'")
}

func (m *memoized) Name() string {
	if c, ok := m.fn.(starlark.Callable); ok {
		return c.Name()
	}
	return "memoized"
}

func (m *memoized) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var key starlark.Value = args
	if len(kwargs) > 0 {
		key = starlark.Tuple{args, starlark.String(py.Repr(starlark.Tuple(func() []starlark.Value {
			out := make([]starlark.Value, len(kwargs))
			for i, kv := range kwargs {
				out[i] = kv
			}
			return out
		}())))}
	}
	if v, found, err := m.cache.Get(key); err == nil && found {
		m.hits++
		if m.maxsize >= 0 && m.cache.Len() > 1 { // most recently used last
			m.cache.Delete(key)
			m.cache.SetKey(key, v)
		}
		return v, nil
	} else if err != nil {
		return nil, err // unhashable arguments, as in Python
	}
	m.misses++
	v, err := starlark.Call(thread, m.fn, args, kwargs)
	if err != nil {
		return nil, err
	}
	if err := py.CheckAlloc(thread, int64(m.cache.Len())*64); err != nil {
		return nil, err
	}
	if m.maxsize == 0 {
		return v, nil
	}
	if m.maxsize > 0 && m.cache.Len() >= m.maxsize {
		if oldest, _, ok := firstItem(m.cache); ok {
			m.cache.Delete(oldest)
		}
	}
	m.cache.SetKey(key, v)
	return v, nil
}

// firstItem returns d's first key (insertion order).
func firstItem(d *starlark.Dict) (starlark.Value, starlark.Value, bool) {
	for k, v := range d.Entries() {
		return k, v, true
	}
	return nil, nil, false
}

// partialFn is functools.partial(fn, *args, **keywords).
type partialFn struct {
	fn   starlark.Value
	args starlark.Tuple
	kw   *starlark.Dict
}

var (
	_ starlark.Callable = (*partialFn)(nil)
	_ starlark.HasAttrs = (*partialFn)(nil)
)

func (p *partialFn) String() string        { return py.Repr(p) }
func (p *partialFn) Type() string          { return "functools.partial" }
func (p *partialFn) Freeze()               {}
func (p *partialFn) Truth() starlark.Bool  { return true }
func (p *partialFn) Hash() (uint32, error) { return uint32(uintptr(unsafe.Pointer(p))), nil }
func (p *partialFn) Name() string          { return "partial" }

func (p *partialFn) WriteRepr(r *py.Renderer) {
	r.B.WriteString("functools.partial(")
	r.Repr(p.fn)
	for _, a := range p.args {
		r.B.WriteString(", ")
		r.Repr(a)
	}
	for _, kv := range p.kw.Items() {
		k, _ := starlark.AsString(kv[0])
		r.B.WriteString(", " + k + "=")
		r.Repr(kv[1])
	}
	r.B.WriteByte(')')
}

// CallInternal calls fn with the bound arguments first; keywords of the
// call override the bound ones.
func (p *partialFn) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	kw := starlark.NewDict(p.kw.Len() + len(kwargs))
	for _, kv := range p.kw.Items() {
		kw.SetKey(kv[0], kv[1])
	}
	for _, kv := range kwargs {
		if err := kw.SetKey(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	all := append(append(starlark.Tuple(nil), p.args...), args...)
	return starlark.Call(thread, p.fn, all, kw.Items())
}

// AttrNames lists func, args and keywords.
func (p *partialFn) AttrNames() []string { return []string{"args", "func", "keywords"} }

// Attr returns func, args or keywords.
func (p *partialFn) Attr(name string) (starlark.Value, error) {
	switch name {
	case "func":
		return p.fn, nil
	case "args":
		return p.args, nil
	case "keywords":
		return p.kw.Copy(), nil
	}
	return nil, nil
}

// cmpKey is a key of functools.cmp_to_key: it orders by the cmp function.
type cmpKey struct {
	obj, cmp starlark.Value
	thread   *starlark.Thread
}

var _ starlark.Comparable = (*cmpKey)(nil)

func (k *cmpKey) String() string       { return "<functools.KeyWrapper object>" }
func (k *cmpKey) Type() string         { return "functools.KeyWrapper" }
func (k *cmpKey) Freeze()              {}
func (k *cmpKey) Truth() starlark.Bool { return true }

func (k *cmpKey) Hash() (uint32, error) {
	return 0, py.Errorf("TypeError", "unhashable type: 'functools.KeyWrapper'")
}

// CompareSameType orders keys by the sign of cmp(a, b).
func (k *cmpKey) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	v, err := starlark.Call(k.thread, k.cmp, starlark.Tuple{k.obj, y.(*cmpKey).obj}, nil)
	if err != nil {
		return false, err
	}
	c, err := starlark.Compare(op, v, starlark.MakeInt(0))
	if err != nil {
		return false, py.Errorf("TypeError", "the comparison function must return a number, not '%s'", py.PyType(v))
	}
	return c, nil
}
