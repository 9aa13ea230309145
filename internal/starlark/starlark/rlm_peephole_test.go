package starlark

import (
	"fmt"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestTakenInstructions: instructions that the interpreter takes with
// the one before them (a loop variable's store after ITERJMP, a CJMP
// after a comparison) give the same results and count the same steps as
// when they ran on their own (the counts were taken before the patch).
func TestTakenInstructions(t *testing.T) {
	for _, c := range []struct {
		src   string
		want  string
		steps uint64
	}{
		{"r = []\nfor i in range(5):\n    r.append(i)", "[0, 1, 2, 3, 4]", 50},
		{"def f():\n    r = []\n    for i in range(5):\n        r.append(i)\n    return r\nr = f()", "[0, 1, 2, 3, 4]", 58},
		{"r = [x for x in [3, 1, 2] if x > 1]", "[3, 2]", 38},
		{"r = [x for x in range(10) if x % 3 == 0 if x != 3]", "[0, 6, 9]", 125},
		{"def f(xs):\n    n = 0\n    for x in xs:\n        if x < 2 or x >= 4:\n            n += 1\n    return n\nr = f([1, 2, 3, 4, 5])", "3", 85},
		{"r = [s for s in ['b', 'a', 'c'] if s <= 'b']", `["b", "a"]`, 38},
		{"r = 0\nfor k in {'a': 1, 'b': 2}:\n    r += len(k)", "2", 34},
		{"r = [(a, b) for a, b in [(1, 2), (3, 4)] if a < b]", "[(1, 2), (3, 4)]", 42},
		{"r = 1 < 2", "True", 6},
		// a fused comparison's CJMP not taken, and the JMP after it
		{"def f(n):\n    r = []\n    for i in range(n):\n        if i % 3 == 1:\n            r.append(i)\n        else:\n            r.append(-i)\n    return r\nr = f(5)", "[0, 1, -2, -3, 4]", 92},
		{"def f(n):\n    return [i for i in range(n) if i > 2]\nr = f(5)", "[3, 4]", 58},
	} {
		thread := &Thread{}
		g, err := ExecFileOptions(&syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}, thread, "f.star", c.src, Universe)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := fmt.Sprint(g["r"]); got != c.want {
			t.Errorf("%s: r = %s, want %s", c.src, got, c.want)
		}
		if thread.ExecutionSteps() != c.steps {
			t.Errorf("%s: %d steps, want %d", c.src, thread.ExecutionSteps(), c.steps)
		}
	}
}
