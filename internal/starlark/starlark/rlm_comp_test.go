package starlark

import (
	"fmt"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/internal/compile"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestComprehensionAccumulator: comprehensions whose APPEND and SETDICT
// keep the accumulator on the stack (no DUP per element) give upstream's
// results, errors and step counts (the steps were counted with the DUP):
// nested clauses, filters, nested comprehensions, accumulators among
// other operands on the stack, dict comprehensions with repeated keys,
// and errors while the accumulator is on the stack.
func TestComprehensionAccumulator(t *testing.T) {
	for _, c := range []struct {
		src   string
		want  string
		steps uint64
	}{
		{"r = [x * 2 for x in range(5)]", "[0, 2, 4, 6, 8]", 51},
		{"r = [x for x in range(10) if x % 2 if x > 3]", "[5, 7, 9]", 109},
		{"r = [(x, y) for x in range(3) for y in ['a', 'b'] if x != 1]", `[(0, "a"), (0, "b"), (2, "a"), (2, "b")]`, 99},
		{"r = [[y * x for y in range(x)] for x in range(4)]", "[[], [0], [0, 2], [0, 3, 6]]", 111},
		{"r = {x % 3: x for x in range(7)}", "{0: 6, 1: 4, 2: 5}", 73},
		{"r = {k: [v for v in range(k)] for k in [2, 1, 2]}", "{2: [0, 1], 1: [0]}", 83},
		{"def f(a, b, c):\n    return (a, b, c)\nr = f(1, [x + 1 for x in [1, 2]], {x: 1 for x in ['a', 'b']})", `(1, [2, 3], {"a": 1, "b": 1})`, 59},
		{"r = [x for x in []] + [{} for x in range(2)]", "[{}, {}]", 30},
		{"def f(n):\n    return len([i for i in range(n)]) + len({i: i for i in range(n)})\nr = [f(n) for n in range(3)]", "[0, 2, 4]", 140},
		{"r = [x for x in range(3) if x > 5]", "[]", 31},
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
	// Errors in the element, the key and the appending keep their
	// positions.
	for src, want := range map[string]string{
		"r = [1 // x for x in [1, 0]]":    "f.star:1:8: in <toplevel>\nError: floored division by zero",
		"r = {[x]: 1 for x in range(2)}":  "f.star:1:9: in <toplevel>\nError: unhashable type: list",
		"r = {x: 1 // x for x in [2, 0]}": "f.star:1:11: in <toplevel>\nError: floored division by zero",
		"r = [[1][x] for x in range(3)]":  "f.star:1:9: in <toplevel>\nError: list index 1 out of range [-1:0]",
		"def f():\n    return [g() for x in range(2)]\ndef g():\n    fail(\"g\")\nr = f()": "f.star:2:14: in f\n  f.star:4:9: in g\nError in fail: fail: g",
	} {
		_, err := ExecFileOptions(&syntax.FileOptions{}, &Thread{}, "f.star", src, Universe)
		if err == nil {
			t.Errorf("%s: no error", src)
			continue
		}
		if got := err.(*EvalError).Backtrace(); !containsTail(got, want) {
			t.Errorf("%s: got\n%s\nwant it to end with\n%s", src, got, want)
		}
	}
}

func containsTail(s, tail string) bool {
	return len(s) >= len(tail) && s[len(s)-len(tail):] == tail
}

// TestComprehensionWithoutDup: the compiler emits no DUP per element for
// list and dict comprehensions (the test above passes with it too).
func TestComprehensionWithoutDup(t *testing.T) {
	_, prog, err := SourceProgramOptions(&syntax.FileOptions{}, "f.star",
		"def f(xs):\n    return [x for x in xs if x], {x: 1 for x in xs}\n", func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	fn := prog.compiled.Functions[0]
	for pc := 0; pc < len(fn.Code); {
		op := compile.Opcode(fn.Code[pc])
		if op == compile.DUP {
			t.Errorf("f has a DUP at %d", pc)
		}
		pc++
		if op >= compile.OpcodeArgMin {
			for fn.Code[pc] >= 0x80 {
				pc++
			}
			pc++
		}
	}
}
