package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
)

func jsonModule() *module {
	jsonErr := excTypes["JSONDecodeError"]
	return newModule("json", map[string]builtinFn{
		"loads": jsonLoads,
		"dumps": jsonDumps,
		"load":  unavailable("json.load", "file access is not available; use json.loads(text) on a variable"),
		"dump":  unavailable("json.dump", "file access is not available; use json.dumps(obj)"),
	}, starlark.StringDict{"JSONDecodeError": jsonErr})
}

func jsonLoads(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s starlark.Value
	if err := starlark.UnpackArgs("json.loads", args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	s, err := Unproxy(thread, s)
	if err != nil {
		return nil, err
	}
	var text string
	switch x := s.(type) {
	case starlark.String:
		text = string(x)
	case starlark.Bytes:
		text = string(x)
	default:
		return nil, Errorf("TypeError", "the JSON object must be str, bytes or bytearray, not %s", pyType(s))
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := jsonDecode(dec)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			off := dec.InputOffset()
			return nil, jsonError("Extra data", text, int(off))
		}
		return v, nil
	}
	var se *json.SyntaxError
	var probe any
	if uerr := json.Unmarshal([]byte(text), &probe); uerr != nil && errors.As(uerr, &se) {
		return nil, jsonError(pyJSONMsg(se.Error()), text, int(se.Offset)-1)
	}
	if errors.As(err, &se) {
		return nil, jsonError(pyJSONMsg(se.Error()), text, int(se.Offset)-1)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, jsonError("Expecting value", text, len(text))
	}
	var pe *PyError
	if errors.As(err, &pe) {
		return nil, err
	}
	return nil, jsonError(err.Error(), text, int(dec.InputOffset()))
}

func pyJSONMsg(msg string) string {
	switch {
	case strings.Contains(msg, "looking for beginning of value"):
		return "Expecting value"
	case strings.Contains(msg, "after object key:value pair"), strings.Contains(msg, "after array element"):
		return "Expecting ',' delimiter"
	case strings.Contains(msg, "after object key"):
		return "Expecting ':' delimiter"
	case strings.Contains(msg, "looking for beginning of object key string"):
		return "Expecting property name enclosed in double quotes"
	}
	return msg
}

func jsonError(msg, text string, off int) error {
	if off < 0 {
		off = 0
	}
	if off > len(text) {
		off = len(text)
	}
	line := strings.Count(text[:off], "\n") + 1
	col := off - strings.LastIndexByte(text[:off], '\n')
	char := utf8.RuneCountInString(text[:off])
	m := fmt.Sprintf("%s: line %d column %d (char %d)", msg, line, col, char)
	return &PyError{Kind: "JSONDecodeError", Msg: m}
}

func jsonDecode(dec *json.Decoder) (starlark.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := starlark.NewDict(4)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("Expecting property name enclosed in double quotes")
				}
				v, err := jsonDecode(dec)
				if err != nil {
					return nil, err
				}
				d.SetKey(starlark.String(k), v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return d, nil
		case '[':
			var elems []starlark.Value
			for dec.More() {
				v, err := jsonDecode(dec)
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return starlark.NewList(elems), nil
		}
		return nil, fmt.Errorf("Expecting value")
	case string:
		return starlark.String(t), nil
	case json.Number:
		s := string(t)
		if strings.ContainsAny(s, ".eE") {
			var f float64
			if _, err := fmt.Sscan(s, &f); err != nil {
				return nil, err
			}
			return starlark.Float(f), nil
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("bad number %s", s)
		}
		return starlark.MakeBigInt(n), nil
	case bool:
		return starlark.Bool(t), nil
	case nil:
		return starlark.None, nil
	}
	return nil, fmt.Errorf("Expecting value")
}

type jsonOpts struct {
	indent      string
	hasIndent   bool
	sortKeys    bool
	ensureASCII bool
	itemSep     string
	keySep      string
	dflt        starlark.Value
	thread      *starlark.Thread
}

func jsonDumps(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var obj starlark.Value
	var indent, separators, dflt starlark.Value = starlark.None, starlark.None, starlark.None
	sortKeys, ensureASCII := false, true
	var skipkeys, allowNaN starlark.Value
	if err := starlark.UnpackArgs("json.dumps", args, kwargs, "obj", &obj, "indent?", &indent, "sort_keys?", &sortKeys,
		"ensure_ascii?", &ensureASCII, "separators?", &separators, "default?", &dflt, "skipkeys?", &skipkeys, "allow_nan?", &allowNaN); err != nil {
		return nil, err
	}
	o := jsonOpts{sortKeys: sortKeys, ensureASCII: ensureASCII, itemSep: ", ", keySep: ": ", thread: thread}
	if dflt != starlark.None {
		o.dflt = dflt
	}
	switch x := indent.(type) {
	case starlark.Int:
		n, _ := starlark.AsInt32(x)
		o.indent, o.hasIndent, o.itemSep = strings.Repeat(" ", max(n, 0)), true, ","
	case starlark.String:
		o.indent, o.hasIndent, o.itemSep = string(x), true, ","
	}
	if separators != starlark.None {
		t, ok := separators.(starlark.Tuple)
		if !ok || len(t) != 2 {
			if l, ok := separators.(*starlark.List); ok && l.Len() == 2 {
				t = starlark.Tuple{l.Index(0), l.Index(1)}
			} else {
				return nil, Errorf("TypeError", "separators must be an (item_separator, key_separator) tuple")
			}
		}
		o.itemSep, o.keySep = Str(t[0]), Str(t[1])
	}
	var b bytes.Buffer
	if err := o.encode(&b, obj, 0); err != nil {
		return nil, err
	}
	return starlark.String(b.String()), nil
}

func (o *jsonOpts) newline(b *bytes.Buffer, depth int) {
	if !o.hasIndent {
		return
	}
	b.WriteByte('\n')
	for i := 0; i < depth; i++ {
		b.WriteString(o.indent)
	}
}

func (o *jsonOpts) encode(b *bytes.Buffer, v starlark.Value, depth int) error {
	if depth > 500 {
		return Errorf("ValueError", "Circular reference detected")
	}
	v, err := Unproxy(o.thread, v)
	if err != nil {
		return err
	}
	switch x := v.(type) {
	case starlark.NoneType:
		b.WriteString("null")
	case starlark.Bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case starlark.Int:
		b.WriteString(x.String())
	case starlark.Float:
		f := float64(x)
		switch {
		case math.IsNaN(f):
			b.WriteString("NaN")
		case math.IsInf(f, 1):
			b.WriteString("Infinity")
		case math.IsInf(f, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(formatFloatRepr(f))
		}
	case starlark.String:
		o.str(b, string(x))
	case *starlark.Dict, pyDictLike:
		d, ok := x.(*starlark.Dict)
		if !ok {
			d = x.(pyDictLike).underlyingDict()
		}
		items := d.Items()
		if len(items) == 0 {
			b.WriteString("{}")
			return nil
		}
		type kv struct {
			k string
			v starlark.Value
		}
		pairs := make([]kv, 0, len(items))
		for _, it := range items {
			var k string
			switch key := it[0].(type) {
			case starlark.String:
				k = string(key)
			case starlark.Int, starlark.Float, starlark.Bool, starlark.NoneType:
				var kb bytes.Buffer
				o.encode(&kb, key, depth+1)
				k = kb.String()
			default:
				return Errorf("TypeError", "keys must be str, int, float, bool or None, not %s", pyType(key))
			}
			pairs = append(pairs, kv{k, it[1]})
		}
		if o.sortKeys {
			sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].k < pairs[j].k })
		}
		b.WriteByte('{')
		for i, p := range pairs {
			if i > 0 {
				b.WriteString(o.itemSep)
			}
			o.newline(b, depth+1)
			o.str(b, p.k)
			b.WriteString(o.keySep)
			if err := o.encode(b, p.v, depth+1); err != nil {
				return err
			}
		}
		o.newline(b, depth)
		b.WriteByte('}')
	case *starlark.List, starlark.Tuple, *dictView:
		elems, _ := collect(o.thread, x)
		if len(elems) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				b.WriteString(o.itemSep)
			}
			o.newline(b, depth+1)
			if err := o.encode(b, e, depth+1); err != nil {
				return err
			}
		}
		o.newline(b, depth)
		b.WriteByte(']')
	default:
		if o.dflt != nil {
			r, err := starlark.Call(o.thread, o.dflt, starlark.Tuple{v}, nil)
			if err != nil {
				return err
			}
			return o.encode(b, r, depth+1)
		}
		return Errorf("TypeError", "Object of type %s is not JSON serializable", pyType(v))
	}
	return nil
}

func (o *jsonOpts) str(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (o.ensureASCII && r == 0x7f):
				fmt.Fprintf(b, `\u%04x`, r)
			case r >= 0x80 && o.ensureASCII:
				if r > 0xffff {
					r -= 0x10000
					fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
				} else {
					fmt.Fprintf(b, `\u%04x`, r)
				}
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
