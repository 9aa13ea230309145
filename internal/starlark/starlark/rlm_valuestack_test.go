package starlark

import "testing"

// TestReleaseValueStack: an ended thread's value stack is released only
// when no call is active on it, and a stack given to another thread holds
// no value of the first one's calls.
func TestReleaseValueStack(t *testing.T) {
	const prog = "def f(x):\n    y = [x, x]\n    return len(y)\nn = f('secret')\n"
	a := &Thread{}
	if _, err := ExecFile(a, "a.star", prog, nil); err != nil {
		t.Fatal(err)
	}
	if len(a.vstack) != minValueStack {
		t.Fatalf("first stack has %d values, want %d", len(a.vstack), minValueStack)
	}
	stack := a.vstack
	a.ReleaseValueStack()
	if a.vstack != nil {
		t.Fatal("the stack of an ended thread was not released")
	}
	for i, v := range stack {
		if v != nil {
			t.Fatalf("released stack holds %v at %d", v, i)
		}
	}

	// A thread with an active call keeps its stack.
	b := &Thread{}
	_, mark := b.allocSpace(8)
	b.ReleaseValueStack()
	if b.vstack == nil {
		t.Fatal("released the stack of a thread with an active call")
	}
	b.freeSpace(b.vstack[mark:mark+8], mark)

	// A released thread used again takes a stack and runs.
	if _, err := ExecFile(a, "a.star", prog, nil); err != nil {
		t.Fatal(err)
	}
}
