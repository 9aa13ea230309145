package starlark

import (
	"fmt"
	"regexp"
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

// TestFusedSmallInts: the fused instructions' own arithmetic and
// comparisons of two ints of the int32 range (interp.go, the OPK,
// LOCALOPK and LOCALOPL case) give the results, errors and step counts of
// the unfused operators at the edges: the int32 bounds (results past
// them become int64 or big ints), negative operands of // and %, zero and
// negative divisors (the general path), and operands that are not small
// ints (int64, big int, float, bool, str) falling back.
func TestFusedSmallInts(t *testing.T) {
	const vals = `[0, 1, -1, 2, -2, 7, -7, 3, 2147483647, -2147483648, 2147483646, -2147483647, 2147483648, -2147483649, 1099511627776, 1180591620717411303424, -1180591620717411303424, 1.5, -0.5, True, False]`
	ops := []string{"+", "-", "*", "//", "%", "<", ">", "<=", ">=", "==", "!="}
	consts := []string{"0", "1", "-1", "2", "-2", "3", "-7", "2147483647", "-2147483648", "2147483648", "1.5", "True"}
	for _, op := range ops {
		var lines []string
		for _, k := range consts {
			if k == "0" && (op == "//" || op == "%") {
				continue // the errors are tested below
			}
			// LOCALOPK (x op k), OPK ((x + 0) op k, an operand on the
			// stack) and, taken by the comparisons, the CJMP of an if.
			lines = append(lines,
				fmt.Sprintf("    r.append(x %s %s)", op, k),
				fmt.Sprintf("    r.append((x + 0) %s %s)", op, k),
			)
		}
		src := `
def g(x, y):
    r = []
    if x ` + op2cmp(op) + ` y:
        r.append("taken")
    else:
        r.append("not")
    r.append(x ` + op + ` y)
    return r
def f(x):
    r = []
` + strings.Join(lines, "\n") + `
    return r
r = []
for x in ` + vals + `:
    r.append(f(x))
    for y in ` + vals + `:
        if (type(y) == "int" and y != 0) or type(y) == "float" and y != 0:
            r.append(g(x, y))
`
		t.Run(op, func(t *testing.T) {
			run := func(fuse bool) (string, uint64) {
				compile.Fuse = fuse
				defer func() { compile.Fuse = true }()
				thread := &Thread{}
				g, err := ExecFileOptions(&syntax.FileOptions{Recursion: true, TopLevelControl: true, While: true}, thread, "f.star", src, Universe)
				if err != nil {
					return "error: " + err.Error(), thread.ExecutionSteps()
				}
				return fmt.Sprint(g["r"]), thread.ExecutionSteps()
			}
			want, wantSteps := run(false)
			got, gotSteps := run(true)
			if strings.HasPrefix(want, "error") {
				t.Fatalf("unfused: %s", want)
			}
			if got != want {
				t.Errorf("fused: %s\nunfused: %s", got, want)
			}
			if gotSteps != wantSteps {
				t.Errorf("steps: fused %d, unfused %d", gotSteps, wantSteps)
			}
		})
	}
	// Errors of the fused operators: zero divisors.
	for _, src := range []string{
		"def f(x):\n    return x // 0\nr = f(5)",
		"def f(x):\n    return x % 0\nr = f(-5)",
		"def f(x, y):\n    return x % y\nr = f(-5, 0)",
		"def f(x):\n    return (x + 0) // 0\nr = f(5)",
	} {
		run := func(fuse bool) string {
			compile.Fuse = fuse
			defer func() { compile.Fuse = true }()
			_, err := ExecFileOptions(&syntax.FileOptions{}, &Thread{}, "f.star", src, Universe)
			if err == nil {
				return "no error"
			}
			return err.(*EvalError).Backtrace()
		}
		if got, want := run(true), run(false); got != want || !strings.Contains(got, "by zero") {
			t.Errorf("%s: fused %q, unfused %q", src, got, want)
		}
	}
	// Python's values at the edges (floored division, int32 overflow).
	for src, want := range map[string]string{
		"def f(x):\n    return [x // 2, x % 2, x // 3, x % 3, x + 1, x * 2, x - -1]\nr = f(-7)":            "[-4, 1, -3, 2, -6, -14, -6]",
		"def f(x):\n    return [x + 1, x * x, x - -1, x // 1, x % 2147483647]\nr = f(2147483647)":          "[2147483648, 4611686014132420609, 2147483648, 2147483647, 0]",
		"def f(x):\n    return [x - 1, x * x, x // 2, x % 3, x // 2147483647, x < -1]\nr = f(-2147483648)": "[-2147483649, 4611686018427387904, -1073741824, 1, -2, True]",
	} {
		g, err := ExecFileOptions(&syntax.FileOptions{}, &Thread{}, "f.star", src, Universe)
		if err != nil {
			t.Fatal(err)
		}
		if got := g["r"].String(); got != want {
			t.Errorf("%s: got %s, want %s", src, got, want)
		}
	}
}

// op2cmp returns a comparison for g's if: op itself, or < for arithmetic.
func op2cmp(op string) string {
	switch op {
	case "<", ">", "<=", ">=", "==", "!=":
		return op
	}
	return "<"
}

// TestFusedGlobalLocal: GLOBAL g followed by LOCAL l on one line fused
// into GLOBALLOCAL (and the CALL of one argument after it taken by the
// interpreter) give the results, errors, tracebacks and step counts of
// the unfused instructions: calls of Starlark functions and builtins,
// calls with more arguments (not taken), method calls around them,
// unbound globals and locals, and errors in the callee.
func TestFusedGlobalLocal(t *testing.T) {
	for _, src := range []string{
		`def sq(x):
    return x * x
def f(xs):
    r = []
    for x in xs:
        r.append(sq(x))
        r.append(len(str(x)))
        r.append(max(x, 3))
    return r
r = f([1, 2, 30])`,
		`def f(s):
    return [len(s), type(s), str(s), s]
r = [f(w) for w in ["a", "bb"]]`,
		`def g(x):
    return 1 // x
def f(x):
    return g(x)
r = f(0)`,
		`def f(x):
    return h(x)
r = f(1)
def h(x):
    return x`,
		`def id_(x):
    return x
def f():
    if False:
        x = 1
    return id_(x)
r = f()`,
		`def id_(x):
    return x
def f(x):
    return id_(
        x)
r = f([1])`,
		`def ln(x):
    return len(x)
def f(x):
    return ln(x)
r = f(1)`,
		`def f(d, k):
    return d.get(len(k), str(k))
r = f({1: "one"}, "a") + f({}, "bc")`,
		// two globals (top level): a subscript, a call, unbound ones
		`counts = {}
for w in ["a", "b", "a"]:
    counts[w] = counts.get(w, 0) + 1
def sq(x):
    return x * x
r = [counts, sq(counts["a"]), str(w)]`,
		`def f(x):
    return x
if False:
    y = 1
r = f(y)`,
		`if False:
    f = 1
    y = 2
r = f(y)`,
		`r = 0
if r:
    y = 1
r = len(y)`,
		`def fail_(x):
    return 1 // 0
x = 2
r = fail_(x)`,
	} {
		t.Run(src[:min(len(src), 30)], func(t *testing.T) {
			run := func(fuse bool) (string, uint64) {
				compile.Fuse = fuse
				defer func() { compile.Fuse = true }()
				thread := &Thread{}
				g, err := ExecFileOptions(&syntax.FileOptions{Recursion: true, TopLevelControl: true, GlobalReassign: true}, thread, "f.star", src, Universe)
				if err != nil {
					if ee, ok := err.(*EvalError); ok {
						// An unbound second variable's column is the
						// fused instruction's (the first GLOBAL's), as
						// for the operator fusions; lines are exact.
						bt := ee.Backtrace()
						if strings.Contains(bt, "referenced before assignment") {
							bt = regexp.MustCompile(`(f\.star:\d+):\d+`).ReplaceAllString(bt, "$1")
						}
						return "error: " + bt, thread.ExecutionSteps()
					}
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
	// The compiler does fuse.
	_, prog, err := SourceProgramOptions(&syntax.FileOptions{}, "f.star", "def g(x):\n    return x\ndef f(x):\n    return g(x)\n", func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if code := prog.compiled.Functions[1].Code; code[0] != byte(compile.GLOBALLOCAL) {
		t.Errorf("f compiles to %v, not starting with GLOBALLOCAL", code)
	}
	_, prog, err = SourceProgramOptions(&syntax.FileOptions{}, "f.star", "def g(x):\n    return x\nx = 1\ng(x)\n", func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if code := prog.compiled.Toplevel.Code; !strings.Contains(string(code), string([]byte{byte(compile.GLOBALGLOBAL)})) {
		t.Errorf("the top level compiles to %v, without GLOBALGLOBAL", code)
	}
}

// TestFusedChainedOPK: an OPK right after a fused instruction that made a
// small int (`i % 3 == 0`, `x * 2 + 1`), taken by it without going back to
// the loop's head, gives the results, step counts and errors (with their
// positions) of the unfused instructions, at the int32 edges too.
func TestFusedChainedOPK(t *testing.T) {
	src := `
def f(x):
    r = []
    r.append([x % 3 == 0, x % 3 != 1, x % 7 < 3, x * 2 + 1, x - 1 > 2147483646, x + 1 == 2147483648, x * 2 - 1, x // 2 % 5, x % 4 * 3])
    if x % 3 == 0:
        r.append("three")
    elif x % 5 >= 2:
        r.append("five")
    r.append([i for i in range(-7, 25) if i % 3 == 0 or i % 5 == 1])
    r.append((x + 0) % 3 == 0)
    return r
r = [f(x) for x in [0, 1, -1, 5, -7, 15, 2147483647, -2147483648, 2147483646, 1099511627776, True]]
`
	run := func(src string, fuse bool) (string, uint64) {
		compile.Fuse = fuse
		defer func() { compile.Fuse = true }()
		thread := &Thread{}
		g, err := ExecFileOptions(&syntax.FileOptions{TopLevelControl: true}, thread, "f.star", src, Universe)
		if err != nil {
			if e, ok := err.(*EvalError); ok {
				return "error: " + e.Backtrace(), thread.ExecutionSteps()
			}
			return "error: " + err.Error(), thread.ExecutionSteps()
		}
		return fmt.Sprint(g["r"]), thread.ExecutionSteps()
	}
	want, wantSteps := run(src, false)
	got, gotSteps := run(src, true)
	if strings.HasPrefix(want, "error") || got != want || gotSteps != wantSteps {
		t.Errorf("fused: %s (%d steps)\nunfused: %s (%d steps)", got, gotSteps, want, wantSteps)
	}
	for _, src := range []string{
		"def f(x):\n    return x % 3 < \"a\"\nr = f(5)",
		"def f(x):\n    return x % 3 // 0\nr = f(5)",
		"def f(x):\n    y = 1\n    return [y, x * 2 + None]\nr = f(5)",
	} {
		got, gotSteps := run(src, true)
		want, wantSteps := run(src, false)
		if !strings.HasPrefix(want, "error") || got != want || gotSteps != wantSteps {
			t.Errorf("%s:\nfused: %s (%d steps)\nunfused: %s (%d steps)", src, got, gotSteps, want, wantSteps)
		}
	}
}

// TestFusedIndexK: CONSTANT k and INDEX fused into INDEXK (x[k] of a
// dict, list, tuple or str, a negative index, inside a method call's
// arguments) give the results, step counts and errors (tracebacks with
// the subscript's position) of the unfused instructions, and a method
// call with x[k] among its arguments still leaves its method unbound.
func TestFusedIndexK(t *testing.T) {
	run := func(src string, fuse bool) (string, uint64) {
		compile.Fuse = fuse
		defer func() { compile.Fuse = true }()
		thread := &Thread{}
		g, err := ExecFileOptions(&syntax.FileOptions{TopLevelControl: true}, thread, "f.star", src, Universe)
		if err != nil {
			if e, ok := err.(*EvalError); ok {
				return "error: " + e.Backtrace(), thread.ExecutionSteps()
			}
			return "error: " + err.Error(), thread.ExecutionSteps()
		}
		return fmt.Sprint(g["r"]), thread.ExecutionSteps()
	}
	for _, c := range []struct {
		src     string
		wantErr bool
	}{
		{`rs = [{"id": i, "v": i % 3, "name": "n%d" % i} for i in range(5)]
by = {}
for x in rs:
    by.setdefault(x["v"], []).append(x["id"])
r = [by, [x["name"][0] for x in rs], [x["name"][-1] for x in rs], (1, 2, 3)[-1], [4, 5][1], "abc"[1]]`, false},
		{`def f(d):
    return d.get(d["k"], 0) + d["n"]
r = [f({"k": "n", "n": i}) for i in range(3)]`, false},
		{`d = {"a": 1}
r = d["b"]`, true},
		{`def f(xs):
    return xs[5]
r = f([1, 2])`, true},
		{`r = None
r = r["x"]`, true},
	} {
		want, wantSteps := run(c.src, false)
		got, gotSteps := run(c.src, true)
		if strings.HasPrefix(want, "error") != c.wantErr || got != want || gotSteps != wantSteps {
			t.Errorf("%s:\nfused: %s (%d steps)\nunfused: %s (%d steps)", c.src, got, gotSteps, want, wantSteps)
		}
	}

	_, prog, err := SourceProgramOptions(&syntax.FileOptions{}, "f.star", "def f(d, r):\n    return d.get(r[\"k\"], 0)\n", func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	fn := prog.compiled.Functions[0]
	var ops []compile.Opcode
	attrs := 0
	for pc := uint32(0); int(pc) < len(fn.Code); {
		op := compile.Opcode(fn.Code[pc])
		ops = append(ops, op)
		pc++
		if op >= compile.OpcodeArgMin {
			for fn.Code[pc] >= 0x80 {
				pc++
			}
			pc++
		}
		if op == compile.ATTR {
			if methodSiteAt(fn, pc) == nil {
				t.Errorf("d.get(r[k], 0): the ATTR at %d is not a method call site", pc)
			}
			attrs++
		}
	}
	if !strings.Contains(fmt.Sprint(ops), "indexk") || attrs != 1 {
		t.Errorf("f compiles to %v, without indexk or an attr", ops)
	}
}
