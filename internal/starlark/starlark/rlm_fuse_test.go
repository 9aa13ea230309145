package starlark

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/internal/compile"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestFusedInstructions: programs give the same results, errors and step
// counts with instruction fusion (internal/compile/fuse.go) as without.
func TestFusedInstructions(t *testing.T) {
	for _, src := range []string{
		// every fusable operator, with a local and with a value on the stack
		`def f(x):
    return [x < 3, x > 3, x >= 3, x <= 3, x == 3, x != 3, x + 3, x - 3, x * 3, x // 3, x % 3, x & 3, x | 3, x ^ 3, x << 3, x >> 3, x / 2, (x + 1) * 2, -x % 7, x in [1, 2]]
r = [f(x) for x in range(-9, 9)]`,
		`r = [i * 2 for i in range(100) if i % 3 == 0]`,
		`r = [x + "!" for x in ["a", "b"]] + [x in "abc" for x in ["a", "z"]]`,
		// a fused operand among many values on the stack
		`def g(*a):
    return a
def f(a, b, c):
    return g(a, b, g(c, a + 1, b * 2, g(c % 5, a - 1)), c + 1)
r = [f(i, i + 1, i + 2) for i in range(5)]`,
		// two locals
		`def f(a, b):
    return [a * b, a < b, b - a, a in [b], a % b, (a + b) * (a - b), a * a]
r = [f(x, y) for x in range(-3, 4) for y in range(1, 4)]`,
		`def f():
    x = 2
    if False:
        y = 1
    return x + y
r = f()`,
		`def f():
    if False:
        x = 1
    y = 2
    return x + y
r = f()`,
		// errors: an unbound local, a failing operator
		`def f():
    if False:
        x = 1
    return x + 1
r = f()`,
		`def f(x):
    return x + 1
r = f("a")`,
		`r = [x % 0 for x in range(3)]`,
	} {
		t.Run(src[:min(len(src), 30)], func(t *testing.T) {
			run := func(fuse bool) (string, uint64) {
				compile.Fuse = fuse
				defer func() { compile.Fuse = true }()
				thread := &Thread{}
				g, err := ExecFileOptions(&syntax.FileOptions{Recursion: true, TopLevelControl: true}, thread, "f.star", src, Universe)
				if err != nil {
					return "error: " + err.Error(), thread.ExecutionSteps()
				}
				return fmt.Sprint(g["r"]), thread.ExecutionSteps()
			}
			want, wantSteps := run(false)
			got, gotSteps := run(true)
			if got != want {
				t.Errorf("fused: %s\nunfused: %s", got, want)
			}
			if gotSteps != wantSteps {
				t.Errorf("steps: fused %d, unfused %d", gotSteps, wantSteps)
			}
		})
	}
}

// TestFusionMakesFusedInstructions: the compiler does fuse (the test
// above would pass with fusion broken off).
func TestFusionMakesFusedInstructions(t *testing.T) {
	_, prog, err := SourceProgramOptions(&syntax.FileOptions{}, "f.star", "def f(x, y):\n    return x % 3 == 0 and x < y\n", func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	var ops []compile.Opcode
	fn := prog.compiled.Functions[0]
	for pc := 0; pc < len(fn.Code); {
		op := compile.Opcode(fn.Code[pc])
		ops = append(ops, op)
		pc++
		if op >= compile.OpcodeArgMin {
			for fn.Code[pc] >= 0x80 {
				pc++
			}
			pc++
		}
	}
	for _, want := range []string{"localopk opk", "localopl"} {
		if !strings.Contains(fmt.Sprint(ops), want) {
			t.Errorf("f compiles to %v, without %s", ops, want)
		}
	}
}
