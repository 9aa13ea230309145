package starlark

import (
	"runtime"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestNewTupleValue: tuples of every length made by MAKETUPLE are the
// tuples they should be (elements, equality, hashing as dict keys,
// slicing, concatenation), survive garbage collections, and a short one
// takes one allocation.
func TestNewTupleValue(t *testing.T) {
	src := `r = []
for i in range(3):
    t0, t1, t2, t3, t4, t5 = (), (i,), (i, "a"), (i, "a", None), (i, "a", None, 1.5), (i, 1, 2, 3, 4)
    r.append((t0, t1, t2, t3, t4, t5))
d = {(1, "a"): "x", (1, "a", None): "y"}
s = (r[2][2] + r[1][3])[1:4]
r = (r[2], d[(1, "a")], d[r[1][3]], s, r[0][4] == (0, "a", None, 1.5), len(r[2][5]))`
	g, err := ExecFileOptions(&syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}, &Thread{}, "f.star", src, Universe)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	want := `(((), (2,), (2, "a"), (2, "a", None), (2, "a", None, 1.5), (2, 1, 2, 3, 4)), "x", "y", ("a", 1, "a"), True, 5)`
	if got := g["r"].String(); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	elems := []Value{MakeInt(1), String("a"), None}
	var sink Value
	for n := 2; n <= 3; n++ {
		if a := testing.AllocsPerRun(100, func() { sink = newTupleValue(elems[:n]) }); a != 1 {
			t.Errorf("%d elements: %v allocations, want 1", n, a)
		}
	}
	if tu, ok := sink.(Tuple); !ok || tu.Len() != 3 || tu.Index(1) != String("a") {
		t.Errorf("sink = %v", sink)
	}
}

// TestConcatValue: short concatenations made in one cell are the strings
// they should be, at each length up to concatSmallMax and past it,
// survive garbage collections, hash as other strings, and take one
// allocation.
func TestConcatValue(t *testing.T) {
	var vals []Value
	var wants []string
	for n := 1; n <= concatSmallMax+2; n++ {
		x := String("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP"[:n/2+1])
		y := String("é" + "zyxwvutsrqponmlkjihgfedcba9876543210ZYXWVUTSRQPONM"[:n-n/2])
		v, err := Binary(syntax.PLUS, x, y)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
		wants = append(wants, string(x)+string(y))
	}
	runtime.GC()
	runtime.GC()
	for i, v := range vals {
		s, ok := v.(String)
		if !ok || string(s) != wants[i] {
			t.Errorf("%d: got %v, want %q", i, v, wants[i])
		}
		h, _ := v.Hash()
		if h2, _ := String(wants[i]).Hash(); h != h2 {
			t.Errorf("%d: hash differs", i)
		}
	}
	x, y := String("n"), String("12345")
	var sink Value
	if a := testing.AllocsPerRun(100, func() { sink, _ = Binary(syntax.PLUS, x, y) }); a != 1 {
		t.Errorf("%v allocations for a short concatenation, want 1", a)
	}
	if sink != String("n12345") {
		t.Errorf("sink = %v", sink)
	}
}

// TestByteString: the preallocated one-byte strings are those bytes, and
// indexing or iterating a str's elems gives them without an allocation.
func TestByteString(t *testing.T) {
	for i := 0; i < 256; i++ {
		if s, ok := ByteString(byte(i)).(String); !ok || len(s) != 1 || s[0] != byte(i) {
			t.Fatalf("ByteString(%d) = %v", i, ByteString(byte(i)))
		}
	}
	s := String("héllo")
	if got := s.Index(1); got != String("\xc3") {
		t.Errorf("Index(1) = %v", got)
	}
	var sink Value
	if a := testing.AllocsPerRun(100, func() { sink = s.Index(4) }); a != 0 {
		t.Errorf("%v allocations for an index, want 0", a)
	}
	if sink != String("l") {
		t.Errorf("sink = %v", sink)
	}
}
