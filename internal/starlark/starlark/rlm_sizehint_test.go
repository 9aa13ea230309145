package starlark

import (
	"errors"
	"fmt"
	"testing"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestSizeHint: a list comprehension with one for clause and no if
// starts with room for the iterable's length (SIZEHINT), so it never
// grows; with an if, a second for, or a short or unsized iterable it
// grows by appends as before. The elements are the same either way.
func TestSizeHint(t *testing.T) {
	for _, c := range []struct {
		src  string
		len  int
		cap  int // -1: any but len (grown by appends)
		want string
	}{
		{"r = [x * 2 for x in range(100)]", 100, 100, ""},
		{"r = [x for x in list(range(40))]", 40, 40, ""},
		{"r = [x for x in tuple(range(17))]", 17, 17, ""},
		{"r = [k for k in {i: i for i in range(20)}]", 20, 20, ""},
		{"r = [x for x in set(range(30))]", 30, 30, ""},
		{"r = [x for x in range(100) if x < 99]", 99, -1, ""},
		{"r = [(x, y) for x in range(10) for y in range(10)]", 100, -1, ""},
		{"r = [x for x in range(10)]", 10, -1, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"},
		{"r = [c for c in 'abcdefghijklmnopqrstuvwxyz'.elems()]", 26, -1, ""},
	} {
		g, err := ExecFileOptions(&syntax.FileOptions{TopLevelControl: true, GlobalReassign: true, Set: true}, &Thread{}, "f.star", c.src, Universe)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		r := g["r"].(*List)
		if r.Len() != c.len {
			t.Errorf("%s: len %d, want %d", c.src, r.Len(), c.len)
		}
		if c.cap >= 0 && cap(r.elems) != c.cap || c.cap < 0 && cap(r.elems) == c.len {
			t.Errorf("%s: cap %d, want %d (-1: grown)", c.src, cap(r.elems), c.cap)
		}
		if c.want != "" && r.String() != c.want {
			t.Errorf("%s: %s, want %s", c.src, r, c.want)
		}
	}
}

// TestSizeHintBounds: sizeHint allocates at most sizeHintMax elements,
// asks the grow check first for 64 KB or more, and when the check
// refuses leaves the list to grow (and meet the refusal) by appends.
func TestSizeHintBounds(t *testing.T) {
	thread := &Thread{}
	var asked []int64
	refuse := false
	SetGrowCheck(thread, func(_ *Thread, n int64) error {
		asked = append(asked, n)
		if refuse {
			return errors.New("no")
		}
		return nil
	})
	big := rangeValue{start: 0, stop: 1 << 30, step: 1, len: 1 << 30}
	l := new(List)
	sizeHint(thread, l, big)
	want := int64(unsafe.Sizeof(Value(nil))) * sizeHintMax
	if cap(l.elems) != sizeHintMax || fmt.Sprint(asked) != fmt.Sprint([]int64{want}) {
		t.Errorf("cap %d, checks %v; want %d and one check of %d bytes", cap(l.elems), asked, sizeHintMax, want)
	}
	asked, refuse = nil, true
	l = new(List)
	sizeHint(thread, l, rangeValue{start: 0, stop: 10000, step: 1, len: 10000})
	if cap(l.elems) != 0 || len(asked) != 1 {
		t.Errorf("refused: cap %d, checks %v; want 0 and one check", cap(l.elems), asked)
	}
	asked = nil
	l = new(List)
	sizeHint(thread, l, rangeValue{start: 0, stop: 1000, step: 1, len: 1000})
	if cap(l.elems) != 1000 || len(asked) != 0 {
		t.Errorf("small: cap %d, checks %v; want 1000 and no check", cap(l.elems), asked)
	}
}
