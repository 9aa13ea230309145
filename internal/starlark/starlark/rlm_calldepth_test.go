package starlark

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestCallDepthLimits: the recursion limit (the thread's, else
// MaxCallDepth; none when not positive) stops the first call past it and
// no call below it, lambdas are not counted against it, and the test the
// interpreter makes before it asks callDepthExceeded keeps these answers.
func TestCallDepthLimits(t *testing.T) {
	errDeep := errors.New("too deep")
	defer func(m int, e func() error) { MaxCallDepth, CallDepthError = m, e }(MaxCallDepth, CallDepthError)
	CallDepthError = func() error { return errDeep }
	const prog = `
def f(n):
    if n == 0:
        return 0
    return f(n - 1) + 1
g = lambda n: 0 if n == 0 else g(n - 1) + 1
`
	// The toplevel and f(k) hold k+2 frames at the deepest call.
	tests := []struct {
		name           string
		thread, global int
		okDepth        int // f(okDepth) returns; f(okDepth+1) fails (-1: no limit)
	}{
		{"thread limit", 10, 0, 8},
		{"thread limit of 1", 1, 0, -2},
		{"global limit", 0, 12, 10},
		{"thread limit over global", 20, 5, 18},
		{"negative thread limit: none", -1, 5, -1},
		{"no limit", 0, 0, -1},
	}
	opts := &syntax.FileOptions{Recursion: true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			MaxCallDepth = tt.global
			run := func(call string) (Value, error) {
				th := &Thread{}
				th.SetMaxCallDepth(tt.thread)
				g, err := ExecFileOptions(opts, th, "a.star", prog+"r = "+call+"\n", nil)
				if err != nil {
					return nil, err
				}
				return g["r"], nil
			}
			if tt.okDepth == -1 {
				v, err := run("f(300)")
				if err != nil || v.String() != "300" {
					t.Fatalf("f(300) = %v, %v; want 300 without a limit", v, err)
				}
				return
			}
			if tt.okDepth >= 0 {
				v, err := run(fmt.Sprintf("f(%d)", tt.okDepth))
				if err != nil || v.String() != fmt.Sprint(tt.okDepth) {
					t.Fatalf("f(%d) = %v, %v; want it to return below the limit", tt.okDepth, v, err)
				}
			}
			_, err := run(fmt.Sprintf("f(%d)", tt.okDepth+1))
			if !errors.Is(err, errDeep) {
				t.Fatalf("f(%d): err %v, want the CallDepthError", tt.okDepth+1, err)
			}
			// Lambdas are not counted.
			if v, err := run("g(50)"); err != nil || v.String() != "50" {
				t.Fatalf("g(50) = %v, %v; want 50 (lambdas have no limit)", v, err)
			}
		})
	}
}

// TestFreeSpaceClears: a call's locals and operand stack are cleared when
// it returns, for calls of a few values (cleared one by one) and of many
// (cleared at once), normal returns and errors alike.
func TestFreeSpaceClears(t *testing.T) {
	var many strings.Builder
	many.WriteString("def big(x):\n")
	for i := range 24 {
		fmt.Fprintf(&many, "    v%d = [x, %d]\n", i, i)
	}
	many.WriteString("    return len(v0)\n")
	for _, src := range []string{
		"def f(x):\n    y = [x, x]\n    return len(y)\nn = f('secret')\n",
		many.String() + "n = big('secret')\n",
		"def f(x):\n    y = [x, x]\n    return y[5]\nn = f('secret')\n",
	} {
		th := &Thread{}
		_, _ = ExecFile(th, "a.star", src, nil)
		for i, v := range th.vstack {
			if v != nil {
				t.Fatalf("%q: value stack holds %v at %d after the run", src, v, i)
			}
		}
		if th.vsp != 0 {
			t.Fatalf("%q: value stack pointer %d after the run, want 0", src, th.vsp)
		}
	}
}
