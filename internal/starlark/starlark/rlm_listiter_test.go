package starlark

import (
	"fmt"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestLiveListIterator: the live iterator yields the list's elements by
// index as the list is at each step (appended elements seen, removed ones
// ending it early).
func TestLiveListIterator(t *testing.T) {
	l := NewList([]Value{MakeInt(1), MakeInt(2), MakeInt(3)})
	it := NewLiveListIterator(l)
	var got []Value
	var v Value
	for it.Next(&v) {
		got = append(got, v)
		if len(got) == 1 {
			l.elems = append(l.elems, MakeInt(4))
		}
		if len(got) == 2 {
			l.elems = l.elems[:3]
		}
	}
	it.Done()
	if fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("got %v, want [1 2 3]", got)
	}
}

// TestLiveListLoopSteps: loops over lists stepped inline (the PyOps
// Iterable hook giving the live iterator) give the results and step
// counts of upstream's list iterator: the loop variable's store taken by
// ITERJMP, a loop with another target, comprehensions, empty lists.
func TestLiveListLoopSteps(t *testing.T) {
	const src = `
def f(xs):
    t = 0
    for x in xs:
        t += x
    r = [x + 1 for x in xs if x > 1]
    for a, b in [[1, 2], [3, 4]]:
        t += a * b
    d = {}
    for d["k"] in xs:
        t += 1
    for e in []:
        t += 100
    return t, r, d
r = [f([1, 2, 3]), f([]), f(list(range(50)))]
`
	run := func(live bool) (string, uint64) {
		saved := PyOps
		defer func() { PyOps = saved }()
		PyOps = nil
		if live {
			hooks := *testPyOps()
			PyOps = &hooks
		}
		thread := &Thread{}
		g, err := ExecFileOptions(&syntax.FileOptions{}, thread, "f.star", src, Universe)
		if err != nil {
			return "error: " + err.Error(), thread.ExecutionSteps()
		}
		return fmt.Sprint(g["r"]), thread.ExecutionSteps()
	}
	want, wantSteps := run(false)
	got, gotSteps := run(true)
	if got != want || gotSteps != wantSteps {
		t.Errorf("live: %s (%d steps)\nupstream: %s (%d steps)", got, gotSteps, want, wantSteps)
	}
}

// testPyOps returns PyOps hooks that give lists the live iterator and
// leave every other operation to upstream's code.
func testPyOps() *PyOpsHooks {
	return &PyOpsHooks{
		Iterable: func(_ *Thread, x Value) (Value, error) {
			if l, ok := x.(*List); ok {
				return liveListValue{l}, nil
			}
			return x, nil
		},
		Index: func(_ *Thread, x, y Value) (Value, error) { return getIndex(x, y) },
	}
}

// liveListValue is a list iterated by the live iterator.
type liveListValue struct{ *List }

func (v liveListValue) Iterate() Iterator { return NewLiveListIterator(v.List) }
