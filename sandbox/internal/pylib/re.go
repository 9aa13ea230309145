package pylib

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/internal/pyre"
	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// rePattern is a compiled re.Pattern.
type rePattern struct {
	r *Regexp
}

var (
	_ starlark.HasAttrs = (*rePattern)(nil)
	_ py.PyReprer       = (*rePattern)(nil)
)

func (p *rePattern) String() string        { return py.Repr(p) }
func (p *rePattern) Type() string          { return "re.Pattern" }
func (p *rePattern) PyTypeName() string    { return "re.Pattern" }
func (p *rePattern) Freeze()               {}
func (p *rePattern) Truth() starlark.Bool  { return true }
func (p *rePattern) Hash() (uint32, error) { return starlark.String(p.r.pattern).Hash() }
func (p *rePattern) WriteRepr(r *py.Renderer) {
	r.B.WriteString("re.compile(")
	py.WriteStringRepr(&r.B, p.r.pattern)
	if f := p.r.flags &^ reUnicode; f != 0 {
		r.B.WriteString(", " + flagNames(f))
	}
	r.B.WriteByte(')')
}

func flagNames(f int) string {
	var names []string
	for _, x := range []struct {
		bit  int
		name string
	}{{ReIgnoreCase, "re.IGNORECASE"}, {reLocale, "re.LOCALE"}, {reMultiline, "re.MULTILINE"}, {reDotAll, "re.DOTALL"}, {reVerbose, "re.VERBOSE"}, {reASCII, "re.ASCII"}} {
		if f&x.bit != 0 {
			names = append(names, x.name)
		}
	}
	return strings.Join(names, "|")
}

func (p *rePattern) AttrNames() []string {
	return []string{
		"findall",
		"finditer",
		"flags",
		"fullmatch",
		"groupindex",
		"groups",
		"match",
		"pattern",
		"search",
		"split",
		"sub",
		"subn",
	}
}

func (p *rePattern) Attr(name string) (starlark.Value, error) {
	switch name {
	case "pattern":
		return starlark.String(p.r.pattern), nil
	case "flags":
		return starlark.MakeInt(p.r.flags | reUnicode), nil
	case "groups":
		return starlark.MakeInt(p.r.NumSubexp()), nil
	case "groupindex":
		d := starlark.NewDict(0)
		for i, n := range p.r.SubexpNames() {
			if n != "" {
				d.SetKey(starlark.String(n), starlark.MakeInt(i))
			}
		}
		return d, nil
	}
	fn, ok := reFuncs[name]
	if !ok {
		return nil, nil
	}
	return py.NewBuiltin("re.Pattern."+name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return fn(thread, p.r, name, args, kwargs)
		}).
			BindReceiver(p),
		nil
}

// reMatch is a re.Match.
type reMatch struct {
	r   *Regexp
	s   string
	m   []int
	pos int
	end int
}

var (
	_ starlark.HasAttrs = (*reMatch)(nil)
	_ starlark.Mapping  = (*reMatch)(nil)
)

func (m *reMatch) String() string        { return py.Repr(m) }
func (m *reMatch) Type() string          { return "re.Match" }
func (m *reMatch) PyTypeName() string    { return "re.Match" }
func (m *reMatch) Freeze()               {}
func (m *reMatch) Truth() starlark.Bool  { return true }
func (m *reMatch) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: 're.Match'") }
func (m *reMatch) WriteRepr(r *py.Renderer) {
	fmt.Fprintf(&r.B, "<re.Match object; span=(%d, %d), match=", py.CharOffset(m.s, m.m[0]), py.CharOffset(m.s, m.m[1]))
	py.WriteStringRepr(&r.B, m.s[m.m[0]:m.m[1]])
	r.B.WriteByte('>')
}

// groupIndex resolves a group reference (int or name).
func (m *reMatch) groupIndex(g starlark.Value) (int, error) {
	switch x := g.(type) {
	case starlark.Int:
		i, ok := x.Int64()
		if !ok || i < 0 || int(i) > m.r.NumSubexp() {
			return 0, py.Errorf("IndexError", "no such group")
		}
		return int(i), nil
	case starlark.String:
		for i, n := range m.r.SubexpNames() {
			if n == string(x) && n != "" {
				return i, nil
			}
		}
		return 0, py.Errorf("IndexError", "no such group")
	}
	return 0, py.Errorf("IndexError", "no such group")
}

func (m *reMatch) group(i int, dflt starlark.Value) starlark.Value {
	if m.m[2*i] < 0 {
		return dflt
	}
	return starlark.String(m.s[m.m[2*i]:m.m[2*i+1]])
}

func (m *reMatch) Get(k starlark.Value) (starlark.Value, bool, error) {
	i, err := m.groupIndex(k)
	if err != nil {
		return nil, false, err
	}
	return m.group(i, starlark.None), true, nil
}

func (m *reMatch) AttrNames() []string {
	return []string{
		"end",
		"endpos",
		"expand",
		"group",
		"groupdict",
		"groups",
		"lastgroup",
		"lastindex",
		"pos",
		"re",
		"span",
		"start",
		"string",
	}
}

func (m *reMatch) Attr(name string) (starlark.Value, error) {
	switch name {
	case "string":
		return starlark.String(m.s), nil
	case "re":
		return &rePattern{m.r}, nil
	case "pos":
		return starlark.MakeInt(py.CharOffset(m.s, m.pos)), nil
	case "endpos":
		return starlark.MakeInt(py.CharOffset(m.s, m.end)), nil
	case "lastindex":
		last := -1
		for i := 1; i <= m.r.NumSubexp(); i++ {
			if m.m[2*i] >= 0 && (last < 0 || m.m[2*i+1] >= m.m[2*last+1]) {
				last = i
			}
		}
		if last < 0 {
			return starlark.None, nil
		}
		return starlark.MakeInt(last), nil
	case "lastgroup":
		v, _ := m.Attr("lastindex")
		if i, ok := v.(starlark.Int); ok {
			n, _ := i.Int64()
			if name := m.r.SubexpNames()[n]; name != "" {
				return starlark.String(name), nil
			}
		}
		return starlark.None, nil
	case "expand", "group", "groups", "groupdict", "start", "end", "span":
		return reMatchMethods()[name].BindReceiver(m), nil
	}
	return nil, nil
}

// reMatchMethods returns the methods of a match, unbound: m.group binds
// one to m (one allocation) instead of making a builtin and a closure
// for each call (a finditer loop reading groups calls several per match).
var reMatchMethods = sync.OnceValue(func() map[string]*starlark.Builtin {
	type matchFn = func(m *reMatch, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
	method := func(name string, fn matchFn) *starlark.Builtin {
		return py.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return fn(b.Receiver().(*reMatch), thread, args, kwargs)
		})
	}
	ms := map[string]*starlark.Builtin{}
	ms["expand"] = method("expand", func(m *reMatch, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var tmpl string
		if err := starlark.UnpackArgs("expand", args, kwargs, "template", &tmpl); err != nil {
			return nil, err
		}
		t, err := parseTemplate(m.r, tmpl)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		expand(&b, t, m.s, m.m)
		return starlark.String(b.String()), nil
	})
	ms["group"] = method("group", func(m *reMatch, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 0 {
			return m.group(0, starlark.None), nil
		}
		out := make(starlark.Tuple, len(args))
		for k, a := range args {
			i, err := m.groupIndex(a)
			if err != nil {
				return nil, err
			}
			out[k] = m.group(i, starlark.None)
		}
		if len(out) == 1 {
			return out[0], nil
		}
		return out, nil
	})
	ms["groups"] = method("groups", func(m *reMatch, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var dflt starlark.Value = starlark.None
		if err := starlark.UnpackArgs("groups", args, kwargs, "default?", &dflt); err != nil {
			return nil, err
		}
		out := make(starlark.Tuple, m.r.NumSubexp())
		for i := range out {
			out[i] = m.group(i+1, dflt)
		}
		return out, nil
	})
	ms["groupdict"] = method("groupdict", func(m *reMatch, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var dflt starlark.Value = starlark.None
		if err := starlark.UnpackArgs("groupdict", args, kwargs, "default?", &dflt); err != nil {
			return nil, err
		}
		d := starlark.NewDict(0)
		for i, n := range m.r.SubexpNames() {
			if n != "" {
				d.SetKey(starlark.String(n), m.group(i, dflt))
			}
		}
		return d, nil
	})
	for _, name := range []string{"start", "end", "span"} {
		ms[name] = method(name, func(m *reMatch, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var g starlark.Value = starlark.MakeInt(0)
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0, &g); err != nil {
				return nil, err
			}
			i, err := m.groupIndex(g)
			if err != nil {
				return nil, err
			}
			// Offsets count code points, like Python's (and slicing).
			s, e := starlark.MakeInt(py.CharOffset(m.s, m.m[2*i])), starlark.MakeInt(py.CharOffset(m.s, m.m[2*i+1]))
			switch name {
			case "start":
				return s, nil
			case "end":
				return e, nil
			}
			return starlark.Tuple{s, e}, nil
		})
	}
	return ms
})

type reFunc func(thread *starlark.Thread, r *Regexp, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

var reFuncs map[string]reFunc

// buildReFuncs builds reFuncs, once, on the re module's first import.
var buildReFuncs = sync.OnceFunc(func() {
	reFuncs = map[string]reFunc{
		"search":    reSearch,
		"match":     reSearch,
		"fullmatch": reSearch,
		"findall":   reFindall,
		"finditer":  reFindall,
		"sub":       reSub,
		"subn":      reSub,
		"split":     reSplit,
	}
})

func textArg(thread *starlark.Thread, v starlark.Value) (string, error) {
	v, err := py.Unproxy(thread, v)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case starlark.String:
		return string(x), nil
	case starlark.Bytes:
		return string(x), nil
	}
	return "", py.Errorf("TypeError", "expected string or bytes-like object, got '%s'", py.PyType(v))
}

func reSearch(thread *starlark.Thread, r *Regexp, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var sv starlark.Value
	pos, endpos := 0, -1
	if err := starlark.UnpackArgs(name, args, kwargs, "string", &sv, "pos?", &pos, "endpos?", &endpos); err != nil {
		return nil, err
	}
	s, err := textArg(thread, sv)
	if err != nil {
		return nil, err
	}
	// pos and endpos count code points.
	if endpos >= 0 {
		if endpos = py.ByteOffset(s, endpos); endpos < len(s) {
			s = s[:endpos]
		}
	}
	if pos < 0 {
		pos = 0
	}
	pos = py.ByteOffset(s, pos)
	if pos > len(s) {
		return starlark.None, nil
	}
	mode := pyre.Search
	switch name {
	case "match":
		mode = pyre.Anchored
	case "fullmatch":
		mode = pyre.Full
	}
	m, err := r.find(thread, s, pos, mode)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return starlark.None, nil
	}
	return &reMatch{r: r, s: s, m: m, pos: pos, end: len(s)}, nil
}

func reFindall(thread *starlark.Thread, r *Regexp, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var sv starlark.Value
	if err := starlark.UnpackArgs(name, args, kwargs, "string", &sv); err != nil {
		return nil, err
	}
	s, err := textArg(thread, sv)
	if err != nil {
		return nil, err
	}
	ng := r.NumSubexp()
	var strs starlark.StringBoxer // the matches of findall, boxed a chunk at a time
	value := func(m []int) starlark.Value {
		switch {
		case name == "finditer":
			return &reMatch{r: r, s: s, m: m, end: len(s)}
		case ng == 0:
			return strs.Box(s[m[0]:m[1]])
		case ng == 1:
			if m[2] < 0 {
				return starlark.String("")
			}
			return strs.Box(s[m[2]:m[3]])
		}
		t := make(starlark.Tuple, ng)
		for g := 1; g <= ng; g++ {
			if m[2*g] < 0 {
				t[g-1] = starlark.String("")
			} else {
				t[g-1] = starlark.String(s[m[2*g]:m[2*g+1]])
			}
		}
		return t
	}
	if name == "findall" && !r.useBT(s) && !r.emptyFirst {
		return findallValues(thread, r, s, value)
	}
	ms, err := findAll(thread, r, s, -1)
	if err != nil {
		return nil, err
	}
	if err := py.CheckAlloc(thread, int64(len(ms))*48); err != nil {
		return nil, err
	}
	out := make([]starlark.Value, len(ms))
	for i, m := range ms {
		out[i] = value(m)
	}
	return starlark.NewList(out), nil
}

// findallValues is re.findall on RE2: it makes each match's value as the
// match is found (Regexp.eachMatch), without holding every match's
// indexes first (for a million matches, 40 MB and as much again in
// garbage), within findAll's bound on the number of matches.
func findallValues(thread *starlark.Thread, r *Regexp, s string, value func(m []int) starlark.Value) (starlark.Value, error) {
	st := py.StepOf(thread)
	limit := -1
	if st != nil {
		limit = matchLimit(st, s)
	}
	var out []starlark.Value
	var err error
	measured := false
	r.eachMatch(s, -1, func(m []int) bool {
		if len(out) == limit {
			if !measured {
				// Perhaps garbage filled the allowance: measure afresh
				// once (the values made so far are in the heap now).
				measured = true
				limit = len(out) + int(max(st.Host.Room(true), 0)/matchBytes)
			}
			if len(out) == limit {
				err = &py.PyError{
					Kind: "MemoryError",
					Msg: fmt.Sprintf(
						"more than %d matches would not fit in what is left of the memory limit (%s per step); search a part of the text at a time",
						limit,
						py.FmtBytes(st.Host.MemLimit()),
					),
					Err: py.ErrMemoryLimit,
				}
				return false
			}
		}
		if len(out) == cap(out) {
			// Room for as many matches as the text so far promises
			// over the whole text (and at least twice as many): a few
			// growths, each copying every value so far, instead of one
			// per doubling.
			c := 2*len(out) + 16
			if m[1] > 0 {
				c = max(c, int(min(int64(len(out))*int64(len(s))/int64(m[1])*9/8, int64(len(s)))))
			}
			if limit >= 0 {
				c = max(min(c, limit), len(out)+1)
			}
			grown := make([]starlark.Value, len(out), c)
			copy(grown, out)
			out = grown
		}
		out = append(out, value(m))
		return true
	})
	if err != nil {
		return nil, err
	}
	return starlark.NewList(out), nil
}

// matchLimit is how many matches findAll lets a search of s find in what
// is left of the step's memory allowance.
func matchLimit(st *py.Step, s string) int {
	return int(min(max(st.Host.Room(false)/matchBytes, 1<<10), 2*int64(len(s))+2)) // an empty and a non-empty match can start at each place
}

// parseTemplate parses a replacement template for r (CPython's rules and errors).
func parseTemplate(r *Regexp, tmpl string) (*pyre.Template, error) {
	t, err := pyre.ParseTemplate(tmpl, r.NumSubexp(), r.SubexpNames())
	if err != nil {
		var pe *pyre.Error
		if errors.As(err, &pe) && pe.Kind != "" {
			return nil, &py.PyError{Kind: pe.Kind, Msg: pe.Error(), Err: err}
		}
		return nil, &py.PyError{Kind: "re.error", Msg: err.Error(), Err: err}
	}
	return t, nil
}

// expand appends template t for match m of s to b.
func expand(b *strings.Builder, t *pyre.Template, s string, m []int) {
	t.Expand(b, func(g int) string {
		if m[2*g] < 0 {
			return ""
		}
		return s[m[2*g]:m[2*g+1]]
	})
}

func reSub(thread *starlark.Thread, r *Regexp, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var repl, sv starlark.Value
	count := 0
	var flags starlark.Value
	if err := starlark.UnpackArgs(name, args, kwargs, "repl", &repl, "string", &sv, "count?", &count, "flags?", &flags); err != nil {
		return nil, err
	}
	s, err := textArg(thread, sv)
	if err != nil {
		return nil, err
	}
	n := -1
	if count > 0 {
		n = count
	}
	ms, err := findAll(thread, r, s, n)
	if err != nil {
		return nil, err
	}
	var tmpl *pyre.Template
	if x, ok := repl.(starlark.String); ok {
		if tmpl, err = parseTemplate(r, string(x)); err != nil {
			return nil, err
		}
		if lit, ok := tmpl.Literal(); ok {
			// A literal replacement: the result's size is known before building it.
			size := int64(len(s))
			for _, m := range ms {
				size += int64(len(lit)) - int64(m[1]-m[0])
			}
			if err := py.CheckAlloc(thread, size); err != nil {
				return nil, err
			}
		}
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		switch {
		case tmpl != nil:
			expand(&b, tmpl, s, m)
		default:
			v, err := starlark.Call(thread, repl, starlark.Tuple{&reMatch{r: r, s: s, m: m, end: len(s)}}, nil)
			if err != nil {
				return nil, err
			}
			str, ok := v.(starlark.String)
			if !ok {
				return nil, py.Errorf("TypeError", "expected str instance, %s found", py.PyType(v))
			}
			b.WriteString(string(str))
		}
		last = m[1]
		if int64(b.Len()) > 1<<20 {
			if err := py.CheckAlloc(thread, int64(b.Len())); err != nil {
				return nil, err
			}
		}
	}
	b.WriteString(s[last:])
	if name == "subn" {
		return starlark.Tuple{starlark.String(b.String()), starlark.MakeInt(len(ms))}, nil
	}
	return starlark.String(b.String()), nil
}

func reSplit(thread *starlark.Thread, r *Regexp, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var sv starlark.Value
	maxsplit := 0
	var flags starlark.Value
	if err := starlark.UnpackArgs(name, args, kwargs, "string", &sv, "maxsplit?", &maxsplit, "flags?", &flags); err != nil {
		return nil, err
	}
	s, err := textArg(thread, sv)
	if err != nil {
		return nil, err
	}
	n := -1
	if maxsplit > 0 {
		n = maxsplit
	}
	ms, err := findAll(thread, r, s, n)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	last := 0
	for _, m := range ms {
		if m[1] == 0 && m[0] == 0 && len(s) > 0 {
			// Python yields a leading empty string for an empty match at 0.
		}
		out = append(out, starlark.String(s[last:m[0]]))
		for g := 1; g <= r.NumSubexp(); g++ {
			if m[2*g] < 0 {
				out = append(out, starlark.None)
			} else {
				out = append(out, starlark.String(s[m[2*g]:m[2*g+1]]))
			}
		}
		last = m[1]
	}
	out = append(out, starlark.String(s[last:]))
	return starlark.NewList(out), nil
}

// Pattern cache shared by all sessions (compiled patterns are immutable).
var (
	reCacheMu sync.Mutex
	reCache   = map[reKey]*Regexp{}
)

func cachedRegexp(pattern string, flags int) (*Regexp, error) {
	key := reKey{pattern, flags} // no string built per call
	reCacheMu.Lock()
	r, ok := reCache[key]
	reCacheMu.Unlock()
	if ok {
		return r, nil
	}
	r, err := CompileRegexp(pattern, flags)
	if err != nil {
		return nil, err
	}
	reCacheMu.Lock()
	if len(reCache) > 512 {
		reCache = map[reKey]*Regexp{}
	}
	reCache[key] = r
	reCacheMu.Unlock()
	return r, nil
}

// reKey is a compiled pattern's key in reCache.
type reKey struct {
	pattern string
	flags   int
}

// patternArg returns the compiled pattern for a str or Pattern argument.
func patternArg(v starlark.Value, flags int) (*Regexp, error) {
	switch x := v.(type) {
	case *rePattern:
		return x.r, nil
	case starlark.String:
		return cachedRegexp(string(x), flags)
	}
	return nil, py.Errorf("TypeError", "first argument must be string or compiled pattern")
}

func flagsArg(v starlark.Value) (int, error) {
	if v == nil || v == starlark.None {
		return 0, nil
	}
	i, err := starlark.AsInt32(v)
	if err != nil {
		return 0, py.Errorf("TypeError", "flags must be an int (e.g. re.IGNORECASE | re.MULTILINE)")
	}
	return i, nil
}

var _ = py.RegisterModule("re", reModule)

// reModule builds the re module on its first import.
func reModule() *py.Module {
	buildReFuncs()
	fns := map[string]py.BuiltinFn{}
	for name, fn := range reFuncs {
		name, fn := name, fn
		// How many arguments come between the pattern and the flags.
		maxPos := map[string]int{"search": 1, "match": 1, "fullmatch": 1, "findall": 1, "finditer": 1, "split": 2, "sub": 3, "subn": 3}[name]
		fns[name] = func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return nil, py.ArgErr("re."+name, "missing required argument 'pattern'")
			}
			// Pull flags out of kwargs (and the positional flags argument).
			var flags starlark.Value
			var rest []starlark.Tuple
			for _, kv := range kwargs {
				if k, _ := starlark.AsString(kv[0]); k == "flags" {
					flags = kv[1]
				} else {
					rest = append(rest, kv)
				}
			}
			pargs := args[1:]
			if len(pargs) > maxPos {
				flags = pargs[maxPos]
				pargs = pargs[:maxPos]
			}
			f, err := flagsArg(flags)
			if err != nil {
				return nil, err
			}
			r, err := patternArg(args[0], f)
			if err != nil {
				return nil, err
			}
			return fn(thread, r, name, pargs, rest)
		}
	}
	fns["compile"] = func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var p, flags starlark.Value
		if err := starlark.UnpackArgs("re.compile", args, kwargs, "pattern", &p, "flags?", &flags); err != nil {
			return nil, err
		}
		if pp, ok := p.(*rePattern); ok {
			return pp, nil
		}
		f, err := flagsArg(flags)
		if err != nil {
			return nil, err
		}
		r, err := patternArg(p, f)
		if err != nil {
			return nil, err
		}
		return &rePattern{r}, nil
	}
	fns["escape"] = func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var s string
		if err := starlark.UnpackArgs("re.escape", args, kwargs, "pattern", &s); err != nil {
			return nil, err
		}
		return starlark.String(escapePattern(s)), nil
	}
	fns["purge"] = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return starlark.None, nil
	}
	flag := func(n int) starlark.Value { return starlark.MakeInt(n) }
	return py.NewModule("re", fns, starlark.StringDict{
		"IGNORECASE": flag(ReIgnoreCase), "I": flag(ReIgnoreCase),
		"MULTILINE": flag(reMultiline), "M": flag(reMultiline),
		"DOTALL": flag(reDotAll), "S": flag(reDotAll),
		"VERBOSE": flag(reVerbose), "X": flag(reVerbose),
		"ASCII": flag(reASCII), "A": flag(reASCII),
		"UNICODE": flag(reUnicode), "U": flag(reUnicode),
		"LOCALE": flag(reLocale), "L": flag(reLocale),
		"NOFLAG":  flag(0),
		"error":   py.ExcTypes["re.error"],
		"Pattern": &py.TypeObj{PyName: "re.Pattern", Check: py.IsType[*rePattern]},
		"Match":   &py.TypeObj{PyName: "re.Match", Check: py.IsType[*reMatch]},
	})
}

// matchBytes estimates the memory of one match found by findAll: its
// indices and the value a caller builds from it.
const matchBytes = 128

// findAll is r.FindAllIndex(s, n) bounded by what is left of the step's
// memory allowance: it asks for one match more than the allowance holds
// and refuses with a MemoryError when it gets it, so that re.findall('a',
// 'a' * 10**8) fails before it builds 10**8 matches.
func findAll(thread *starlark.Thread, r *Regexp, s string, n int) ([][]int, error) {
	st := py.StepOf(thread)
	if st == nil {
		return r.findAllIn(thread, s, n)
	}
	for try := 0; ; try++ {
		limit := matchLimit(st, s)
		if n >= 0 && n <= limit {
			return r.findAllIn(thread, s, n)
		}
		ms, err := r.findAllIn(thread, s, limit)
		if err != nil || len(ms) < limit {
			return ms, err
		}
		if try > 0 {
			return nil, &py.PyError{
				Kind: "MemoryError",
				Msg: fmt.Sprintf(
					"more than %d matches would not fit in what is left of the memory limit (%s per step); search a part of the text at a time",
					limit,
					py.FmtBytes(st.Host.MemLimit()),
				),
				Err: py.ErrMemoryLimit,
			}
		}
		// Perhaps garbage filled the allowance: measure afresh once.
		st.Host.Room(true)
	}
}
