package builtins

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/internal/numfmt"
	"github.com/rlmhq/rlm/internal/pylines"
	"github.com/rlmhq/rlm/sandbox"
)

// peek(var, start=0, end=10)
// Return items start..end of a list, the entries start..end of a dict (as a dict, in key order), or characters start..end of a string.
func peek(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		v     starlark.Value
		start int
		end   = intOrNone{N: 10}
	)
	if err := unpack(thread, name, args, kwargs, "var", &v, "start??", &start, "end?", &end); err != nil {
		return nil, err
	}
	n, ok := lengthOf(v)
	if !ok {
		return nil, typeErr("%s: cannot peek into %s; var must be a list, tuple, dict or str", name, pyTypeName(v))
	}
	if end.None {
		end.N = n
	}
	lo, hi := sliceBounds(start, end.N, n)
	switch v := v.(type) {
	case starlark.String:
		// start and end count code points, as str indexing does.
		return v[sandbox.ByteOffset(string(v), lo):sandbox.ByteOffset(string(v), hi)], nil
	case starlark.Tuple:
		return v[lo:hi], nil
	case *starlark.List:
		elems := make([]starlark.Value, 0, hi-lo)
		for i := lo; i < hi; i++ {
			elems = append(elems, v.Index(i))
		}
		return starlark.NewList(elems), nil
	case starlark.IterableMapping:
		items := v.Items()
		d := starlark.NewDict(hi - lo)
		for _, kv := range items[lo:hi] {
			if err := d.SetKey(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	return nil, typeErr("%s: cannot peek into %s", name, pyTypeName(v))
}

// lengthOf is the Python len of a str, list, tuple or dict.
func lengthOf(v starlark.Value) (int, bool) {
	switch v := v.(type) {
	case starlark.String:
		return sandbox.StrLen(string(v)), true
	case *starlark.List, starlark.Tuple:
		return v.(starlark.Sequence).Len(), true
	case starlark.IterableMapping:
		if s, ok := v.(starlark.Sequence); ok {
			return s.Len(), true
		}
		return len(v.Items()), true
	}
	return 0, false
}

// sliceBounds applies Python's slice rules for [start:end] on length n.
func sliceBounds(start, end, n int) (int, int) {
	norm := func(i int) int {
		if i < 0 {
			i += n
			if i < 0 {
				i = 0
			}
		}
		if i > n {
			i = n
		}
		return i
	}
	lo, hi := norm(start), norm(end)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// chunk(var, size, overlap=0)
// Split a string into line-aligned pieces of about size characters, or a list or dict into pieces of size items; consecutive pieces share overlap characters or items.
func chunk(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		v             starlark.Value
		size, overlap int
	)
	if err := unpack(thread, name, args, kwargs, "var", &v, "size", &size, "overlap?", &overlap); err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, valueErr("%s: size must be positive, got %d", name, size)
	}
	if overlap < 0 || overlap >= size {
		return nil, valueErr("%s: overlap must be at least 0 and less than size (%d), got %d", name, size, overlap)
	}
	switch v := v.(type) {
	case starlark.String:
		pieces := chunkText(string(v), size, overlap)
		elems := make([]starlark.Value, len(pieces))
		for i, p := range pieces {
			elems[i] = starlark.String(p.text)
		}
		return starlark.NewList(elems), nil
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		var out []starlark.Value
		for lo := 0; lo < seq.Len(); lo += size - overlap {
			hi := min(lo+size, seq.Len())
			elems := make([]starlark.Value, 0, hi-lo)
			for i := lo; i < hi; i++ {
				elems = append(elems, seq.Index(i))
			}
			out = append(out, starlark.NewList(elems))
			if hi == seq.Len() {
				break
			}
		}
		return starlark.NewList(out), nil
	case starlark.IterableMapping:
		items := v.Items()
		var out []starlark.Value
		for lo := 0; lo < len(items); lo += size - overlap {
			hi := min(lo+size, len(items))
			d := starlark.NewDict(hi - lo)
			for _, kv := range items[lo:hi] {
				if err := d.SetKey(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
			out = append(out, d)
			if hi == len(items) {
				break
			}
		}
		return starlark.NewList(out), nil
	}
	return nil, typeErr("%s: var must be a str, list, tuple or dict, got %s", name, pyTypeName(v))
}

// textPiece is a piece of a string and its byte offset and 1-based line.
type textPiece struct {
	text   string
	offset int
	line   int
}

// chunkText splits s into pieces of at most size bytes that end at line
// boundaries where possible (a line longer than size is cut at a rune
// boundary). Each piece after the first starts about overlap bytes before
// the end of the previous one, at a line start where possible.
func chunkText(s string, size, overlap int) []textPiece {
	var out []textPiece
	line := 1
	lineAt := 0 // byte offset whose line number is `line`
	start := 0
	for start < len(s) {
		end := start + size
		if end >= len(s) {
			end = len(s)
		} else if nl := strings.LastIndexByte(s[start:end], '\n'); nl >= 0 {
			end = start + nl + 1
		} else {
			for end > start+1 && !utf8.RuneStart(s[end]) {
				end--
			}
		}
		line += strings.Count(s[lineAt:start], "\n")
		lineAt = start
		out = append(out, textPiece{text: s[start:end], offset: start, line: line})
		if end == len(s) {
			break
		}
		next := end
		if overlap > 0 {
			// Start at the beginning of the line holding end-overlap, so at
			// least overlap bytes are shared; else mid-line at a rune start.
			at := end - overlap
			next = strings.LastIndexByte(s[:at], '\n') + 1
			if next <= start || at-next > overlap {
				next = at
				for next < end && !utf8.RuneStart(s[next]) {
					next++
				}
			}
			if next <= start {
				next = end
			}
		}
		start = next
	}
	return out
}

// show_vars()
// Print the names, types and sizes of the variables defined so far.
func showVars(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(name, args, kwargs); err != nil {
		return nil, err
	}
	vars := userVars(h, thread)
	if len(vars) == 0 {
		printOut(thread, "(no variables defined)")
		return starlark.None, nil
	}
	rows := [][3]string{{"name", "type", "size"}}
	for _, nv := range vars {
		rows = append(rows, [3]string{nv.name, typeLabel(nv.value), sizeLabel(nv.value)})
	}
	w0, w1 := 0, 0
	for _, r := range rows {
		w0 = max(w0, len(r[0]))
		w1 = max(w1, len(r[1]))
	}
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %s", w0, r[0], w1, r[1], r[2])
	}
	printOut(thread, strings.TrimRight(b.String(), " "))
	return starlark.None, nil
}

func printOut(thread *starlark.Thread, msg string) {
	if thread.Print != nil {
		thread.Print(thread, msg)
	} else {
		fmt.Println(msg)
	}
}

func typeLabel(v starlark.Value) string {
	switch v := v.(type) {
	case *starlark.List:
		if v.Len() > 0 {
			t := pyTypeName(v.Index(0))
			for i := 1; i < v.Len(); i++ {
				if pyTypeName(v.Index(i)) != t {
					return "list"
				}
			}
			return "list[" + t + "]"
		}
	case *starlark.Builtin, *starlark.Function:
		return "function"
	}
	return pyTypeName(v)
}

func sizeLabel(v starlark.Value) string {
	switch v := v.(type) {
	case starlark.String:
		return numfmt.Plural(utf8.RuneCountInString(string(v)), "char") + ", " + numfmt.Plural(pylines.Count(string(v)), "line")
	case *starlark.List, starlark.Tuple:
		return numfmt.Plural(v.(starlark.Sequence).Len(), "item")
	case starlark.IterableMapping:
		n, _ := lengthOf(v)
		return numfmt.Plural(n, "key")
	case *starlark.Builtin, *starlark.Function:
		return ""
	case *childHandle:
		return v.state()
	case *deferred.Future:
		if v.Done() {
			if v.Err() != nil {
				return "failed"
			}
			return "done"
		}
		return "pending"
	}
	s := sandbox.ReprLimit(v, 41)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

type namedValue struct {
	name  string
	value starlark.Value
}

// userVars returns the user's variables: inside a sandbox step, those the
// step sees (previous steps overlaid with the running chunk's globals);
// otherwise those of h.Session.
func userVars(h *Host, thread *starlark.Thread) []namedValue {
	var out []namedValue
	add := func(name string, v starlark.Value) {
		if strings.HasPrefix(name, "_") {
			return
		}
		out = append(out, namedValue{name, v})
	}
	if names, vals := sandbox.StepGlobals(thread); names != nil || vals != nil {
		for _, n := range names {
			if !helperNames[n] {
				add(n, vals[n])
			}
		}
		return out
	}
	if g := h.Session; g != nil {
		for _, n := range g.UserGlobals() {
			if v, ok := g.Global(n); ok {
				add(n, v)
			}
		}
	}
	return out
}

var helperNames map[string]bool

func init() {
	helperNames = map[string]bool{}
	for _, hp := range helpers {
		helperNames[hp.Name] = true
	}
}

// lookupVar finds a user variable by name.
func lookupVar(h *Host, thread *starlark.Thread, name string) (starlark.Value, bool) {
	if names, vals := sandbox.StepGlobals(thread); names != nil || vals != nil {
		v, ok := vals[name]
		return v, ok
	}
	if g := h.Session; g != nil {
		return g.Global(name)
	}
	return nil, false
}
