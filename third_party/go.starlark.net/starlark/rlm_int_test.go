package starlark_test

import (
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// TestIntLoopOverflow: + and - of ints in the interpreter's loop
// (interp.go, small32) and in fastBinary give the exact result past the
// int32 and int64 bounds on every build: on builds without the posix64
// Int representation (linux/386, windows: GOARCH=386 go test) small32
// once reported every int64 as small and the loop's unchecked + and -
// wrapped. Results are CPython 3.11's.
func TestIntLoopOverflow(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"x + 1", "9223372036854775808"},
		{"x - (-1)", "9223372036854775808"},
		{"-x - 2", "-9223372036854775809"},
		{"x + x", "18446744073709551614"},
		{"m + m", "4294967294"},
		{"-m - m - 2", "-4294967296"},
		{"x % 10 + 1", "8"},
		{"[x + i for i in range(3)][2]", "9223372036854775809"},
		{"x + 1 > x", "True"},
		{"m + 1 == 2147483648", "True"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			// A function body: its + and - run in the interpreter loop.
			src := "x = 9223372036854775807\nm = 2147483647\ndef f():\n    return " + tt.expr + "\ny = f()\nz = " + tt.expr + "\n"
			globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, new(starlark.Thread), "t.star", src, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := globals["y"].String(); got != tt.want {
				t.Errorf("in a function: got %s, want %s", got, tt.want)
			}
			if got := globals["z"].String(); got != tt.want {
				t.Errorf("at top level: got %s, want %s", got, tt.want)
			}
		})
	}
}
