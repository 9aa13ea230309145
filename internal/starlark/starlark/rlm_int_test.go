package starlark_test

import (
	"strconv"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
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

// TestRangeAcrossInt32: a range loop's elements, made inline in the int32
// form (smallInt) and out of it beyond, are the ints they should be.
func TestRangeAcrossInt32(t *testing.T) {
	if strconv.IntSize == 32 {
		t.Skip("range bounds are ints, 32 bits here")
	}
	src := "r = []\nfor i in range(2147483645, 2147483650):\n    r.append(i * 1)\nfor i in range(-2147483650, -2147483645):\n    r.append(i + 0)\nr = [x - y for x, y in zip(r, r[1:])] + [r[0], r[4], r[5], r[9]]"
	g, err := starlark.ExecFileOptions(&syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}, &starlark.Thread{}, "f.star", src, starlark.Universe)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g["r"].String(), "[-1, -1, -1, -1, 4294967299, -1, -1, -1, -1, 2147483645, 2147483649, -2147483650, -2147483646]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
