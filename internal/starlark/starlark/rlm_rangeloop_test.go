package starlark

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestRangeLoopStore: a range loop's ITERJMP stores each element in the
// loop variable itself (local or global, in the int32 form or past it)
// or, when no SETLOCAL/SETGLOBAL follows (an index or a tuple target),
// pushes it; results and step counts are those of the loop before the
// patch.
func TestRangeLoopStore(t *testing.T) {
	if strconv.IntSize == 32 {
		t.Skip("range bounds are ints, 32 bits here")
	}
	for _, c := range []struct {
		src   string
		want  string
		steps uint64
	}{
		{"def f():\n    s = 0\n    for i in range(5):\n        s += i\n    return [s, i]\nr = f()", "[10, 4]", 55},
		{"r = []\nfor i in range(10, 0, -3):\n    r.append(i)\nr.append(i)", "[10, 7, 4, 1, 1]", 50},
		{"i = 7\nfor i in range(0):\n    pass\nr = i", "7", 12},
		{"def f():\n    r = []\n    for i in range(2147483646, 2147483650):\n        r.append(i)\n    return r\nr = f()", "[2147483646, 2147483647, 2147483648, 2147483649]", 51},
		{"r = [0, 0]\nfor r[1] in range(3):\n    r[0] += r[1]", "[3, 2]", 60},
		{"def f():\n    d = {}\n    for d['k'] in range(-2147483650, -2147483648):\n        pass\n    return d\nr = f()", `{"k": -2147483649}`, 35},
		{"r = [i * j for i in range(3) for j in range(i, 3)]", "[0, 0, 0, 1, 2, 4]", 88},
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
