package pylib

import (
	"errors"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/internal/starjson"
	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// The json module is Python's, on internal/pyjson (the one Python-style
// JSON codec): this file only walks Python values and maps errors.

var _ = py.RegisterModule("json", jsonModule)

// jsonModule builds the json module on its first import.
func jsonModule() *py.Module {
	jsonErr := py.ExcTypes["JSONDecodeError"]
	return py.NewModule("json", map[string]py.BuiltinFn{
		"loads": jsonLoads,
		"dumps": jsonDumps,
		"load":  py.Unavailable("json.load", "file access is not available; use json.loads(text) on a variable"),
		"dump":  py.Unavailable("json.dump", "file access is not available; use json.dumps(obj)"),
	}, starlark.StringDict{"JSONDecodeError": jsonErr})
}

func jsonLoads(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s starlark.Value
	if err := starlark.UnpackArgs("json.loads", args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	s, err := py.Unproxy(thread, s)
	if err != nil {
		return nil, err
	}
	var text string
	switch x := s.(type) {
	case starlark.String:
		text = string(x)
		if strings.HasPrefix(text, "\ufeff") {
			// CPython refuses a str that starts with a BOM.
			se := &pyjson.SyntaxError{Line: 1, Column: 1, Msg: "Unexpected UTF-8 BOM (decode using utf-8-sig)"}
			return nil, &py.PyError{Kind: "JSONDecodeError", Msg: se.PythonMessage(), Err: se}
		}
	case starlark.Bytes:
		// Bytes are decoded as utf-8-sig: a BOM is dropped.
		text = strings.TrimPrefix(string(x), "\ufeff")
	default:
		return nil, py.Errorf("TypeError", "the JSON object must be str, bytes or bytearray, not %s", py.PyType(s))
	}
	// The decoder builds the interpreter's values as it scans (no Go copy
	// of the document), its strings sharing text's immutable bytes; every
	// pyjson.StopEvery values it asks whether the step's limits
	// (time, memory: the heap read afresh) still hold, with room left for
	// what is built last: the values parsed so far may all be items of one
	// array, held on the decoder's stack until the array closes and then
	// copied into its list (jsonItemBytes each).
	parsed := int64(0)
	v, err := starjson.Decode(unsafe.Slice(unsafe.StringData(text), len(text)), starjson.Options{
		DecodeOptions: pyjson.DecodeOptions{Python: true, MaxDepth: py.ValueDepthLimit(thread), Shared: true,
			Stop: func() error {
				parsed += pyjson.StopEvery
				return py.GrowCheckFor(thread, parsed*jsonItemBytes, "json.loads result")
			}},
	})
	if err != nil {
		var se *pyjson.SyntaxError
		if !errors.As(err, &se) {
			return nil, err
		}
		switch se.Kind {
		case pyjson.ErrTooDeep:
			return nil, &py.PyError{Kind: "RecursionError", Msg: se.Msg, Err: py.ErrRecursionLimit}
		case pyjson.ErrIntTooLong:
			return nil, &py.PyError{Kind: "ValueError", Msg: se.Msg + "; use sys.set_int_max_str_digits() to increase the limit", Err: err}
		}
		return nil, &py.PyError{Kind: "JSONDecodeError", Msg: se.PythonMessage(), Err: err}
	}
	return v, nil
}

// jsonItemBytes is what json.loads keeps room for per value parsed: the
// value's slot in the list its array becomes (the decoder's stack, which
// holds it until then, is already in the heap).
const jsonItemBytes = py.ListElemBytes

// jsonEncoder is one json.dumps call: its options and the containers on
// the path being encoded (to detect cycles).
type jsonEncoder struct {
	thread    *starlark.Thread
	w         *pyjson.Writer
	sortKeys  bool
	skipKeys  bool
	allowNaN  bool
	dflt      starlark.Value // default=, or nil
	onPath    map[starlark.Value]bool
	depth     int
	depthStop int
	stop      py.StopPoll
	out       *jsonOut
	ascii     bool // ensure_ascii
}

func jsonDumps(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var obj starlark.Value
	var indent, separators, dflt, cls starlark.Value = starlark.None, starlark.None, starlark.None, starlark.None
	sortKeys, ensureASCII, skipKeys, allowNaN, checkCircular := false, true, false, true, true
	if err := starlark.UnpackArgs("json.dumps", args, kwargs, "obj", &obj, "skipkeys?", &skipKeys, "ensure_ascii?", &ensureASCII,
		"check_circular?", &checkCircular, "allow_nan?", &allowNaN, "cls?", &cls, "indent?", &indent, "separators?", &separators,
		"default?", &dflt, "sort_keys?", &sortKeys); err != nil {
		return nil, err
	}
	var o pyjson.EncodeOptions
	switch x := indent.(type) {
	case starlark.NoneType:
		o = pyjson.PythonOptions(false, "")
	case starlark.Int:
		n, ok := x.Int64()
		if !ok {
			return nil, py.Errorf("OverflowError", "cannot fit 'int' into an index-sized integer")
		}
		if err := py.CheckAlloc(thread, n); err != nil {
			return nil, err
		}
		o = pyjson.PythonOptions(true, strings.Repeat(" ", int(max(n, 0))))
	case starlark.String:
		o = pyjson.PythonOptions(true, string(x))
	default:
		return nil, py.Errorf("TypeError", "can't multiply sequence by non-int of type '%s'", py.PyType(indent))
	}
	o.EnsureASCII = ensureASCII
	if separators != starlark.None {
		items, err := py.Collect(thread, separators)
		if err != nil || len(items) != 2 {
			return nil, py.Errorf("TypeError", "separators must be an (item_separator, key_separator) tuple")
		}
		item, ok1 := items[0].(starlark.String)
		key, ok2 := items[1].(starlark.String)
		if !ok1 || !ok2 {
			return nil, py.Errorf(
				"TypeError",
				"separators must be strings, not %s",
				py.PyType(map[bool]starlark.Value{true: items[1], false: items[0]}[ok1]),
			)
		}
		o.ItemSep, o.KeySep = string(item), string(key)
	}
	b := jsonOut{thread: thread}
	e := jsonEncoder{thread: thread, w: pyjson.NewWriter(&b, o), sortKeys: sortKeys, skipKeys: skipKeys, allowNaN: allowNaN,
		onPath: map[starlark.Value]bool{}, depthStop: py.ValueDepthLimit(thread), stop: py.NewStopPoll(thread), out: &b, ascii: ensureASCII}
	if dflt != starlark.None {
		e.dflt = dflt
	}
	if err := e.encode(obj); err != nil {
		return nil, err
	}
	return starlark.String(b.b.String()), nil
}

// sizeString makes room in the output for a long string's encoding
// before it is written (escapes make it up to six times longer: the
// check comes before any of it is built).
func (e *jsonEncoder) sizeString(s string) error {
	if len(s) < 1<<12 {
		return nil
	}
	return e.out.room(jsonStringLen(s, e.ascii))
}

// jsonStringLen is the length of s encoded as a JSON string by
// pyjson.Writer: quoted, escaped, and with ascii every non-ASCII
// character as \uXXXX (two of them beyond U+FFFF); invalid UTF-8 is
// \ufffd.
func jsonStringLen(s string, ascii bool) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n += 2
			i++
		case c < 0x20:
			n += 6
			i++
		case c < 0x7f:
			n++
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				n += 6
			case !ascii:
				n += size
			case r > 0xffff:
				n += 12
			default:
				n += 6
			}
			i += size
		}
	}
	return n
}

// jsonOut is json.dumps's output: a strings.Builder that asks, before
// each time it grows past jsonOutCheck bytes, whether the grown buffer
// fits in the step's memory (the heap read afresh). An encoding can be
// far larger than the value it encodes (a string shared a million times,
// indent= repeated on every line, \uXXXX escapes six times a control
// character), so dumps stops near the limit instead of after it.
type jsonOut struct {
	thread *starlark.Thread
	b      strings.Builder
}

// jsonOutCheck is the size below which jsonOut grows without asking.
const jsonOutCheck = py.SmallAlloc

// room makes room for n more bytes: past jsonOutCheck, a buffer that
// must grow is grown here (strings.Builder.Grow: to twice its capacity
// and n), after the check.
func (o *jsonOut) room(n int) error {
	l, c := o.b.Len(), o.b.Cap()
	if l+n <= c || l+n < jsonOutCheck {
		return nil
	}
	if err := py.GrowCheckFor(o.thread, 2*int64(c)+int64(n), "json.dumps output"); err != nil {
		return err
	}
	o.b.Grow(n)
	return nil
}

func (o *jsonOut) Write(p []byte) (int, error) {
	if err := o.room(len(p)); err != nil {
		return 0, err
	}
	return o.b.Write(p)
}

func (o *jsonOut) WriteString(s string) (int, error) {
	if err := o.room(len(s)); err != nil {
		return 0, err
	}
	return o.b.WriteString(s)
}

func (o *jsonOut) WriteByte(c byte) error {
	if err := o.room(1); err != nil {
		return err
	}
	return o.b.WriteByte(c)
}

func (e *jsonEncoder) encode(v starlark.Value) error {
	if err := e.stop.Stopped(); err != nil {
		return err
	}
	v, err := py.Unproxy(e.thread, v)
	if err != nil {
		return err
	}
	w := e.w
	switch x := v.(type) {
	case starlark.NoneType:
		w.Null()
	case starlark.Bool:
		w.Bool(bool(x))
	case starlark.Int:
		if i, ok := x.Int64(); ok {
			w.Int(i)
		} else {
			w.BigInt(x.BigInt())
		}
	case starlark.Float:
		if err := e.checkFloat(float64(x)); err != nil {
			return err
		}
		w.Float(float64(x))
	case starlark.String:
		if err := e.sizeString(string(x)); err != nil {
			return err
		}
		w.String(string(x))
	case *starlark.Dict, py.PyDictLike:
		d, ok := x.(*starlark.Dict)
		if !ok {
			d = x.(py.PyDictLike).UnderlyingDict()
		}
		return e.nested(v, func() error { return e.object(d) })
	case *starlark.List, starlark.Tuple, *namedTuple, *py.DictView:
		if nt, ok := x.(*namedTuple); ok {
			x = nt.Tuple
		}
		return e.nested(v, func() error {
			elems, err := py.Collect(e.thread, x)
			if err != nil {
				return err
			}
			w.BeginArray()
			for _, el := range elems {
				if err := e.encode(el); err != nil {
					return err
				}
			}
			w.EndArray()
			return nil
		})
	default:
		if e.dflt == nil {
			return py.Errorf("TypeError", "Object of type %s is not JSON serializable", py.PyType(v))
		}
		return e.nested(v, func() error {
			r, err := starlark.Call(e.thread, e.dflt, starlark.Tuple{v}, nil)
			if err != nil {
				return err
			}
			return e.encode(r)
		})
	}
	return w.Err()
}

// nested encodes a container (or default='s result for v) one level down:
// a container already on the path is a cycle, and nesting beyond the
// recursion limit is CPython's RecursionError.
func (e *jsonEncoder) nested(v starlark.Value, enc func() error) error {
	switch v.(type) {
	case *starlark.List, *starlark.Dict, *dictSub, *py.PyObject:
		if e.onPath[v] {
			return py.Errorf("ValueError", "Circular reference detected")
		}
		e.onPath[v] = true
		defer delete(e.onPath, v)
	}
	if e.depth >= e.depthStop {
		return py.ErrDepth("while encoding a JSON object")
	}
	e.depth++
	defer func() { e.depth-- }()
	return enc()
}

func (e *jsonEncoder) checkFloat(f float64) error {
	if !e.allowNaN && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return py.Errorf("ValueError", "Out of range float values are not JSON compliant")
	}
	return nil
}

func (e *jsonEncoder) object(d *starlark.Dict) error {
	items := d.Items()
	if e.sortKeys {
		var sortErr error
		slices.SortStableFunc(items, func(a, b starlark.Tuple) int {
			if lt, err := starlark.Compare(syntax.LT, a[0], b[0]); err != nil {
				if sortErr == nil {
					sortErr = py.Errorf(
						"TypeError",
						"'<' not supported between instances of '%s' and '%s'",
						py.PyType(a[0]),
						py.PyType(b[0]),
					)
				}
			} else if lt {
				return -1
			} else if gt, _ := starlark.Compare(syntax.GT, a[0], b[0]); gt {
				return 1
			}
			return 0
		})
		if sortErr != nil {
			return sortErr
		}
	}
	e.w.BeginObject()
	for _, kv := range items {
		var k string
		switch key := kv[0].(type) {
		case starlark.String:
			k = string(key)
		case starlark.Float:
			if err := e.checkFloat(float64(key)); err != nil {
				return err
			}
			k, _ = pyjson.KeyString(float64(key))
		case starlark.Int, starlark.Bool, starlark.NoneType:
			g, err := py.ToGo(key)
			if err != nil {
				return err
			}
			k, _ = pyjson.KeyString(g)
		default:
			if e.skipKeys {
				continue
			}
			return py.Errorf("TypeError", "keys must be str, int, float, bool or None, not %s", py.PyType(key))
		}
		if err := e.sizeString(k); err != nil {
			return err
		}
		e.w.Key(k)
		if err := e.encode(kv[1]); err != nil {
			return err
		}
	}
	e.w.EndObject()
	return e.w.Err()
}
