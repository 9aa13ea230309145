package starlark

import "testing"

// TestFastMethods: a method's fast path (rlm_fastmethod.go) gives the
// method's own result where it answers, answers the common cases, and
// leaves the rest (errors, non-ASCII white space and case mapping,
// lists due for a grow check) to the method.
func TestFastMethods(t *testing.T) {
	full := NewList(make([]Value, GrowCheckEvery-1))
	frozen := NewList(nil)
	frozen.Freeze()
	dict := NewDict(2)
	_ = dict.SetKey(String("a"), MakeInt(1))
	_ = dict.SetKey(MakeInt(7), String("seven"))
	for _, c := range []struct {
		recv Value
		name string
		args Tuple
		fast bool // the fast path answers
	}{
		{String("Hello, World"), "lower", nil, true},
		{String("hello"), "lower", nil, true},
		{String(""), "lower", nil, true},
		{String("ÀB"), "lower", nil, false},
		{String("Hello"), "lower", Tuple{String("x")}, false},
		{String("Hello, World"), "upper", nil, true},
		{String("aBz@[`{AZ"), "lower", nil, true},
		{String("aBz@[`{AZ"), "upper", nil, true},
		{String("ABC é"), "lower", nil, false},
		{String("abc é"), "upper", nil, false},
		{String("123 .,"), "upper", nil, true},
		{String("HELLO"), "upper", nil, true},
		{String("straße"), "upper", nil, false},
		{String("  a b \t\n"), "strip", nil, true},
		{String("\v\f\ra\r"), "strip", nil, true},
		{String("  a b \t\n"), "lstrip", nil, true},
		{String("  a b \t\n"), "rstrip", nil, true},
		{String("   "), "strip", nil, true},
		{String("ab"), "strip", nil, true},
		{String("\u00a0a\u00a0"), "strip", nil, false},
		{String(" \u2003"), "rstrip", nil, false},
		{String("é a é"), "strip", nil, false},
		{String(" a é"), "lstrip", nil, true},
		{String("..a,b.,"), "strip", Tuple{String(".,")}, true},
		{String("..a,b.,"), "lstrip", Tuple{String(".,")}, true},
		{String("..a,b.,"), "rstrip", Tuple{String(".,")}, true},
		{String("éaé"), "strip", Tuple{String("é")}, false},
		{String("xaé"), "strip", Tuple{String("x")}, true},
		{String("a"), "strip", Tuple{String("")}, true},
		{String("a"), "strip", Tuple{MakeInt(1)}, false},
		{String("a"), "strip", Tuple{String("a"), String("b")}, false},
		{String("hello"), "startswith", Tuple{String("he")}, true},
		{String("hello"), "startswith", Tuple{String("lo")}, true},
		{String("hello"), "endswith", Tuple{String("lo")}, true},
		{String("hello"), "endswith", Tuple{String("")}, true},
		{String("hello"), "startswith", Tuple{Tuple{String("he")}}, true},
		{String("x10"), "endswith", Tuple{Tuple{String("0"), String("5")}}, true},
		{String("x15"), "endswith", Tuple{Tuple{String("0"), String("5")}}, true},
		{String("x17"), "endswith", Tuple{Tuple{String("0"), String("5")}}, true},
		{String("x17"), "endswith", Tuple{Tuple{}}, true},
		{String("x10"), "endswith", Tuple{Tuple{String("0"), MakeInt(5)}}, false}, // not all strs
		{String("x17"), "endswith", Tuple{Tuple{String("0"), MakeInt(5)}}, false}, // TypeError
		{String("x17"), "endswith", Tuple{NewList(nil)}, false},
		{String("a b c"), "partition", Tuple{String(" ")}, true},
		{String("a b c"), "rpartition", Tuple{String(" ")}, true},
		{String("abc"), "partition", Tuple{String(" ")}, true},
		{String("abc"), "rpartition", Tuple{String(" ")}, true},
		{String("a::b::c"), "partition", Tuple{String("::")}, true},
		{String("abc"), "partition", Tuple{String("")}, false},
		{String("abc"), "partition", Tuple{MakeInt(1)}, false},
		{String("abc"), "partition", Tuple{}, false},
		{String("hello"), "endswith", Tuple{String("l"), MakeInt(1)}, false},
		{NewList(nil), "append", Tuple{MakeInt(1)}, true},
		{dict, "get", Tuple{String("a")}, true},
		{dict, "get", Tuple{String("zz")}, true},
		{dict, "get", Tuple{String("zz"), MakeInt(0)}, true},
		{dict, "get", Tuple{MakeInt(7)}, true},
		{dict, "get", Tuple{MakeInt(8), String("d")}, true},
		{dict, "get", Tuple{Tuple{MakeInt(1)}}, false},
		{dict, "get", Tuple{}, false},
		{dict, "get", Tuple{String("a"), None, None}, false},
		{dict, "setdefault", Tuple{String("a"), NewList(nil)}, true},
		{dict, "setdefault", Tuple{MakeInt(7)}, true},
		{dict, "setdefault", Tuple{String("new"), NewList(nil)}, false},
		{full, "append", Tuple{MakeInt(1)}, false},
		{frozen, "append", Tuple{MakeInt(1)}, false},
	} {
		var m *Builtin
		switch c.recv.(type) {
		case *List:
			m = listMethods[c.name]
		case *Dict:
			m = dictMethods[c.name]
		default:
			m = stringMethods[c.name]
		}
		got, ok := m.fastMethod(m, c.recv, c.args)
		if ok != c.fast {
			t.Errorf("%s.%s%v: fast path answered %v, want %v", c.recv, c.name, c.args, ok, c.fast)
		}
		if !ok {
			continue
		}
		var recv Value = c.recv
		if l, isList := recv.(*List); isList {
			recv = NewList(l.elems[: len(l.elems)-1 : len(l.elems)-1]) // as it was
		}
		want, err := Call(&Thread{}, m.BindReceiver(recv), c.args, nil)
		if err != nil {
			t.Errorf("%s.%s%v: fast path answered %v, the method fails: %v", c.recv, c.name, c.args, got, err)
			continue
		}
		if got.Type() != want.Type() || got.String() != want.String() {
			t.Errorf("%s.%s%v = %s (%s), want %s (%s)", c.recv, c.name, c.args, got, got.Type(), want, want.Type())
		}
	}
}
