package starlark

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIterStackFromThread: calls take their iterator stacks from the
// thread's (allocIters): nested loops, loops left by return and break,
// calls made inside loops, comprehensions, and errors
// inside loops give upstream's results, and the thread keeps no iterator
// and no stack space after the calls return.
func TestIterStackFromThread(t *testing.T) {
	for _, c := range []struct {
		name, src, want, err string
	}{
		{"nested", "def f():\n    r = []\n    for x in range(3):\n        for y in [1, 2]:\n            r.append(x * y)\n    return r\nr = f()", "[0, 0, 1, 2, 2, 4]", ""},
		{"return-inside", "def f(xs):\n    for x in xs:\n        for y in xs:\n            if x + y == 3:\n                return (x, y)\nr = f([0, 1, 2, 3])", "(0, 3)", ""},
		{"break", "def f():\n    n = 0\n    for x in range(10):\n        if x == 4:\n            break\n        n += x\n    for y in range(2):\n        n += 100\n    return n\nr = f()", "206", ""},
		{"calls-inside-loops", "def f(n):\n    s = 0\n    for x in range(n):\n        s += x\n    return s\ndef g(n):\n    s = 0\n    for x in range(n):\n        s += f(x)\n    return s\ndef h(n):\n    return [g(x) for x in range(n)]\nr = h(5)", "[0, 0, 0, 1, 4]", ""},
		{"comprehensions", "def f(xs):\n    return [[y for y in range(x) if y % 2] for x in xs if x]\nr = f([0, 3, 5])", "[[1], [1, 3]]", ""},
		{"loop-in-callee", "def g(x):\n    return [y * x for y in range(x)]\ndef f():\n    return [g(x) for x in range(4)]\nr = f()", "[[], [0], [0, 2], [0, 3, 6]]", ""},
		{"error-inside", "def f():\n    for x in [1, 0]:\n        for y in [1]:\n            z = y // x\nf()", "", "floored division by zero"},
	} {
		t.Run(c.name, func(t *testing.T) {
			thread := new(Thread)
			globals, err := ExecFile(thread, "x.star", c.src, nil)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
			} else {
				require.NoError(t, err)
				assert.Equal(t, c.want, globals["r"].String())
			}
			assert.Zero(t, thread.isp)
			for i, it := range thread.istack {
				assert.Nil(t, it, "istack[%d] kept", i)
			}
		})
	}
}
