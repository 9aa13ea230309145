package sandbox

import (
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

func listArg(name string, v starlark.Value) (*starlark.List, error) {
	l, ok := v.(*starlark.List)
	if !ok {
		return nil, Errorf("TypeError", "%s: heap argument must be a list", name)
	}
	return l, nil
}

func less(a, b starlark.Value) (bool, error) { return pyCompare(syntax.LT, a, b) }

// heap operations on a *starlark.List, as CPython's heapq.
func siftDown(l *starlark.List, start, pos int) error {
	item := l.Index(pos)
	for pos > start {
		parent := (pos - 1) >> 1
		p := l.Index(parent)
		lt, err := less(item, p)
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

func siftUp(l *starlark.List, pos int) error {
	end := l.Len()
	start := pos
	item := l.Index(pos)
	child := 2*pos + 1
	for child < end {
		right := child + 1
		if right < end {
			lt, err := less(l.Index(child), l.Index(right))
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

func heapqModule() *module {
	popLast := func(thread *starlark.Thread, l *starlark.List) (starlark.Value, error) {
		return starlark.Call(thread, mustAttr(l, "pop"), nil, nil)
	}
	nbest := func(name string, largest bool) builtinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			var it, key starlark.Value = nil, starlark.None
			if err := starlark.UnpackArgs(name, args, kwargs, "n", &n, "iterable", &it, "key?", &key); err != nil {
				return nil, err
			}
			elems, err := collect(thread, it)
			if err != nil {
				return nil, err
			}
			l := starlark.NewList(elems)
			if err := sortList(thread, l, key, largest); err != nil {
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
	return newModule("heapq", map[string]builtinFn{
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
				return nil, Errorf("IndexError", "index out of range")
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
			if lt, err := less(l.Index(0), item); err != nil || !lt {
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
				return nil, Errorf("IndexError", "index out of range")
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
				elems, err := collect(thread, a)
				if err != nil {
					return nil, err
				}
				all = append(all, elems...)
				if err := checkAlloc(thread, int64(len(all))*listElemBytes); err != nil {
					return nil, err
				}
			}
			l := starlark.NewList(all)
			return l, sortList(thread, l, key, bool(reverse.Truth()))
		},
		"nlargest":  nbest("nlargest", true),
		"nsmallest": nbest("nsmallest", false),
	}, nil)
}

func bisectModule() *module {
	bis := func(name string, right, insert bool) builtinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, x starlark.Value
			lo, hi := 0, -1
			var key starlark.Value = starlark.None
			if err := starlark.UnpackArgs(name, args, kwargs, "a", &a, "x", &x, "lo?", &lo, "hi?", &hi, "key?", &key); err != nil {
				return nil, err
			}
			seq, ok := a.(starlark.Indexable)
			if !ok {
				return nil, Errorf("TypeError", "%s: a must be a sequence", name)
			}
			if hi < 0 {
				hi = seq.Len()
			}
			kx := x
			for lo < hi {
				mid := (lo + hi) / 2
				m := seq.Index(mid)
				if key != starlark.None {
					var err error
					if m, err = starlark.Call(thread, key, starlark.Tuple{m}, nil); err != nil {
						return nil, err
					}
				}
				var goRight bool
				var err error
				if right {
					var lt bool
					lt, err = less(kx, m)
					goRight = !lt
				} else {
					goRight, err = less(m, kx)
				}
				if err != nil {
					return nil, err
				}
				if goRight {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			if insert {
				l, ok := a.(*starlark.List)
				if !ok {
					return nil, Errorf("TypeError", "%s: a must be a list", name)
				}
				_, err := starlark.Call(thread, mustAttr(l, "insert"), starlark.Tuple{starlark.MakeInt(lo), x}, nil)
				return starlark.None, err
			}
			return starlark.MakeInt(lo), nil
		}
	}
	return newModule("bisect", map[string]builtinFn{
		"bisect":       bis("bisect", true, false),
		"bisect_right": bis("bisect_right", true, false),
		"bisect_left":  bis("bisect_left", false, false),
		"insort":       bis("insort", true, true),
		"insort_right": bis("insort_right", true, true),
		"insort_left":  bis("insort_left", false, true),
	}, nil)
}

func operatorModule() *module {
	getter := func(name string, attr bool) builtinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return nil, argErr(name, "expected at least 1 argument")
			}
			keys := append(starlark.Tuple(nil), args...)
			get := func(v starlark.Value, k starlark.Value) (starlark.Value, error) {
				if attr {
					s, _ := starlark.AsString(k)
					cur := v
					for _, part := range strings.Split(s, ".") {
						ha, ok := cur.(starlark.HasAttrs)
						if !ok {
							return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", pyType(cur), part)
						}
						x, err := ha.Attr(part)
						if err != nil || x == nil {
							return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", pyType(cur), part)
						}
						cur = x
					}
					return cur, nil
				}
				return getItem(v, k)
			}
			return NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				v, err := oneArg(name, args, kwargs)
				if err != nil {
					return nil, err
				}
				if len(keys) == 1 {
					return get(v, keys[0])
				}
				out := make(starlark.Tuple, len(keys))
				for i, k := range keys {
					if out[i], err = get(v, k); err != nil {
						return nil, err
					}
				}
				return out, nil
			}), nil
		}
	}
	bin := func(op syntax.Token) builtinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, b starlark.Value
			if err := starlark.UnpackPositionalArgs(op.String(), args, kwargs, 2, &a, &b); err != nil {
				return nil, err
			}
			return binary(op, a, b)
		}
	}
	return newModule("operator", map[string]builtinFn{
		"itemgetter": getter("itemgetter", false),
		"attrgetter": getter("attrgetter", true),
		"add":        bin(syntax.PLUS),
		"sub":        bin(syntax.MINUS),
		"mul":        bin(syntax.STAR),
		"truediv":    bin(syntax.SLASH),
		"floordiv":   bin(syntax.SLASHSLASH),
		"mod":        bin(syntax.PERCENT),
	}, nil)
}

// mathExtras are math functions added to the math module.
func mathExtras() map[string]builtinFn {
	return map[string]builtinFn{
		"perm": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			var kv starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("math.perm", args, kwargs, 1, &n, &kv); err != nil {
				return nil, err
			}
			k := n
			if kv != starlark.None {
				var err error
				if k, err = starlark.AsInt32(kv); err != nil {
					return nil, err
				}
			}
			if n < 0 || k < 0 {
				return nil, Errorf("ValueError", "n and k must be non-negative integers")
			}
			if k > n {
				return starlark.MakeInt(0), nil
			}
			r, err := intPerm(thread, int64(n), int64(k))
			if err != nil {
				return nil, err
			}
			return starlark.MakeBigInt(r), nil
		},
		"isqrt": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, err := oneArg("math.isqrt", args, kwargs)
			if err != nil {
				return nil, err
			}
			i, ok := x.(starlark.Int)
			if !ok || i.Sign() < 0 {
				return nil, Errorf("ValueError", "isqrt() argument must be a non-negative integer")
			}
			return starlark.MakeBigInt(new(big.Int).Sqrt(i.BigInt())), nil
		},
		"copysign": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, b starlark.Value
			if err := starlark.UnpackPositionalArgs("math.copysign", args, kwargs, 2, &a, &b); err != nil {
				return nil, err
			}
			x, err := floatArg("copysign", a)
			if err != nil {
				return nil, err
			}
			y, err := floatArg("copysign", b)
			if err != nil {
				return nil, err
			}
			return starlark.Float(math.Copysign(x, y)), nil
		},
		"dist": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var p, q starlark.Value
			if err := starlark.UnpackPositionalArgs("math.dist", args, kwargs, 2, &p, &q); err != nil {
				return nil, err
			}
			ps, err := collect(thread, p)
			if err != nil {
				return nil, err
			}
			qs, err := collect(thread, q)
			if err != nil {
				return nil, err
			}
			if len(ps) != len(qs) {
				return nil, Errorf("ValueError", "both points must have the same number of dimensions")
			}
			s := 0.0
			for i := range ps {
				a, err := floatArg("dist", ps[i])
				if err != nil {
					return nil, err
				}
				b, err := floatArg("dist", qs[i])
				if err != nil {
					return nil, err
				}
				s = math.Hypot(s, a-b)
			}
			return starlark.Float(s), nil
		},
	}
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
		elems, err := collect(thread, fieldsV)
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
		if dflts, err = collect(thread, defaults); err != nil {
			return nil, err
		}
	}
	t := &typeObj{name: name, base: typeTuple, attrs: starlark.StringDict{}, cls: &classInfo{}}
	t.check = func(v starlark.Value) bool { nt, ok := v.(*namedTuple); return ok && nt.cls == t }
	t.call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		vals := make(starlark.Tuple, len(fields))
		set := make([]bool, len(fields))
		if len(args) > len(fields) {
			return nil, Errorf("TypeError", "%s() takes %d positional arguments but %d were given", name, len(fields), len(args))
		}
		for i, a := range args {
			vals[i], set[i] = a, true
		}
		for _, kv := range kwargs {
			k, _ := starlark.AsString(kv[0])
			i := indexOf(fields, k)
			if i < 0 {
				return nil, Errorf("TypeError", "%s() got an unexpected keyword argument '%s'", name, k)
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
			return nil, Errorf("TypeError", "%s() missing 1 required positional argument: '%s'", name, fields[i])
		}
		return &namedTuple{Tuple: vals, cls: t, fields: fields}, nil
	}
	t.attrs["_fields"] = starlark.Tuple(func() []starlark.Value {
		out := make([]starlark.Value, len(fields))
		for i, f := range fields {
			out[i] = starlark.String(f)
		}
		return out
	}())
	t.attrs["_make"] = NewBuiltin("_make", func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value
		if err := starlark.UnpackPositionalArgs("_make", args, kwargs, 1, &it); err != nil {
			return nil, err
		}
		var vals starlark.Tuple
		if err := forEach(thread, it, func(v starlark.Value) error { vals = append(vals, v); return nil }); err != nil {
			return nil, err
		}
		if len(vals) != len(fields) {
			return nil, Errorf("TypeError", "Expected %d arguments, got %d", len(fields), len(vals))
		}
		return &namedTuple{Tuple: vals, cls: t, fields: fields}, nil
	})
	return t, nil
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// namedTuple is an instance of a namedtuple class.
type namedTuple struct {
	starlark.Tuple
	cls    *typeObj
	fields []string
}

func (n *namedTuple) Type() string        { return "tuple" }
func (n *namedTuple) pyTypeObj() *typeObj { return n.cls }
func (n *namedTuple) pyTypeName() string  { return n.cls.name }
func (n *namedTuple) String() string      { return Repr(n) }
func (n *namedTuple) writeRepr(r *renderer) {
	r.b.WriteString(n.cls.name + "(")
	for i, f := range n.fields {
		if i > 0 {
			r.b.WriteString(", ")
		}
		r.b.WriteString(f + "=")
		r.repr(n.Tuple[i])
	}
	r.b.WriteByte(')')
}
func (n *namedTuple) AttrNames() []string { return n.fields }
func (n *namedTuple) Attr(name string) (starlark.Value, error) {
	if i := indexOf(n.fields, name); i >= 0 {
		return n.Tuple[i], nil
	}
	switch name {
	case "_asdict":
		return NewBuiltin("_asdict", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			d := starlark.NewDict(len(n.fields))
			for i, f := range n.fields {
				d.SetKey(starlark.String(f), n.Tuple[i])
			}
			return d, nil
		}), nil
	case "_replace":
		return NewBuiltin("_replace", func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			vals := append(starlark.Tuple(nil), n.Tuple...)
			for _, kv := range kwargs {
				k, _ := starlark.AsString(kv[0])
				i := indexOf(n.fields, k)
				if i < 0 {
					return nil, Errorf("ValueError", "Got unexpected field names: ['%s']", k)
				}
				vals[i] = kv[1]
			}
			return &namedTuple{Tuple: vals, cls: n.cls, fields: n.fields}, nil
		}), nil
	case "_fields":
		return n.cls.attrs["_fields"], nil
	case "count", "index":
		return nil, nil
	}
	if v, ok := n.cls.attrs[name]; ok && name[0] != '_' || name == "__str__" || name == "__repr__" {
		if v != nil {
			return classAttr(n.cls.cls.sessThread(), n.cls, v, n)
		}
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", n.cls.name, name)
}

// rlen is the length of s in code points (widths count characters).
func rlen(s string) int { return utf8.RuneCountInString(s) }

// textwrapLines is a helper of the textwrap module.
func textwrapLines(text string, width int) []string {
	words := strings.Fields(text)
	var lines []string
	cur := ""
	for _, w := range words {
		switch {
		case cur == "":
			cur = w
		case rlen(cur)+1+rlen(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
		for rlen(cur) > width && width > 0 {
			cut := ByteOffset(cur, width)
			lines = append(lines, cur[:cut])
			cur = cur[cut:]
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// textwrapArgs is a helper of the textwrap module.
func textwrapArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple, dflt int) (string, int, error) {
	var text string
	width := dflt
	var placeholder starlark.Value
	if err := starlark.UnpackArgs(name, args, kwargs, "text", &text, "width?", &width, "placeholder?", &placeholder); err != nil {
		return "", 0, err
	}
	return text, width, nil
}

func textwrapModule() *module {
	return newModule("textwrap", map[string]builtinFn{
		"wrap":    textwrapWrap,
		"fill":    textwrapFill,
		"shorten": textwrapShorten,
		"dedent":  textwrapDedent,
		"indent":  textwrapIndent,
	}, nil)
}

// textwrapWrap implements textwrap.wrap.
func textwrapWrap(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	text, width, err := textwrapArgs("wrap", args, kwargs, 70)
	if err != nil {
		return nil, err
	}
	return stringList(textwrapLines(text, width)), nil
}

// textwrapFill implements textwrap.fill.
func textwrapFill(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	text, width, err := textwrapArgs("fill", args, kwargs, 70)
	if err != nil {
		return nil, err
	}
	return starlark.String(strings.Join(textwrapLines(text, width), "\n")), nil
}

// textwrapShorten implements textwrap.shorten.
func textwrapShorten(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	var width int
	placeholder := " [...]"
	if err := starlark.UnpackArgs("shorten", args, kwargs, "text", &text, "width", &width, "placeholder?", &placeholder); err != nil {
		return nil, err
	}
	words := strings.Fields(text)
	joined := strings.Join(words, " ")
	if rlen(joined) <= width {
		return starlark.String(joined), nil
	}
	cur := ""
	for _, w := range words {
		next := w
		if cur != "" {
			next = cur + " " + w
		}
		if rlen(next)+rlen(placeholder) > width {
			break
		}
		cur = next
	}
	return starlark.String(strings.TrimLeft(cur+placeholder, " ")), nil
}

// textwrapDedent implements textwrap.dedent.
func textwrapDedent(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	if err := starlark.UnpackPositionalArgs("dedent", args, kwargs, 1, &text); err != nil {
		return nil, err
	}
	lines := strings.Split(text, "\n")
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
		} else {
			lines[i] = strings.TrimPrefix(l, prefix)
		}
	}
	return starlark.String(strings.Join(lines, "\n")), nil
}

// textwrapIndent implements textwrap.indent.
func textwrapIndent(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text, prefix string
	if err := starlark.UnpackPositionalArgs("indent", args, kwargs, 2, &text, &prefix); err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		}
	}
	return starlark.String(strings.Join(lines, "")), nil
}
