package builtins_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/sandbox"
)

// fuzzValue builds a Python value from data, read as a little program on a
// stack of values: push ints and strings (up to 255 KB), wrap the top in a
// list, tuple or dict once or up to ~60,000 times (deep values), pair the
// two top values, repeat the top in a list of up to 256 items (wide and
// shared values), or make the top list contain itself (cycles).
func fuzzValue(data []byte) starlark.Value {
	stack := []starlark.Value{starlark.MakeInt(0)}
	top := func() starlark.Value { return stack[len(stack)-1] }
	arg := func(i int) int {
		if i < len(data) {
			return int(data[i])
		}
		return 1
	}
	for i := 0; i < len(data) && i < 64; i++ {
		op, n := data[i]%10, arg(i+1)
		switch op {
		case 0:
			stack = append(stack, starlark.MakeInt(n*n*n-1000))
		case 1:
			stack = append(stack, starlark.String(strings.Repeat("aé\n\"\\", n)))
		case 2:
			stack = append(stack, starlark.String(strings.Repeat("x", n<<10))) // up to 255 KB
		case 3:
			stack[len(stack)-1] = starlark.NewList([]starlark.Value{top()})
		case 4:
			stack[len(stack)-1] = starlark.Tuple{top()}
		case 5:
			d := starlark.NewDict(1)
			_ = d.SetKey(starlark.String("k"), top())
			stack[len(stack)-1] = d
		case 6: // deep: wrap n*n times in lists or tuples
			v := top()
			for j := 0; j < n*n; j++ {
				if n%2 == 0 {
					v = starlark.NewList([]starlark.Value{v})
				} else {
					v = starlark.Tuple{v}
				}
			}
			stack[len(stack)-1] = v
		case 7: // pair the two top values
			if len(stack) > 1 {
				a, b := stack[len(stack)-2], top()
				stack = append(stack[:len(stack)-2], starlark.NewList([]starlark.Value{a, b}))
			}
		case 8: // wide and shared
			elems := make([]starlark.Value, n)
			for j := range elems {
				elems[j] = top()
			}
			stack[len(stack)-1] = starlark.NewList(elems)
		case 9: // a cycle
			if l, ok := top().(*starlark.List); ok {
				_ = l.Append(l)
			}
		}
		i++ // the argument
	}
	return starlark.NewList(stack)
}

// fuzzWalks are the renderers and helpers that walk a value.
var fuzzWalks = []string{
	"r = repr(x)", "r = str(x)", "print(x)", "r = f'{x!r:>5}'", "r = json.dumps(x)", "r = json.dumps(x, indent=2, sort_keys=True)",
	"import copy\nr = copy.deepcopy(x)", "r = x == x", "r = x < [x]", "r = peek(x)", "r = peek(x, 0, 3)", "r = search(x, 'a')",
	"r = summarize(x)", "r = chunk(x, 2)", "r = find_relevant(x, 'a')", "SUBMIT(x)",
}

// FuzzWalksOfValues feeds nested, oversized, shared and cyclic values to the
// renderers (repr, str, print, json) and the helpers (peek, search,
// summarize, chunk, find_relevant, SUBMIT): each must return or raise a
// Python error, never crash the process, hang or fail with an internal
// error. The seeds run as a normal unit test.
func FuzzWalksOfValues(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{1, 3, 3, 5, 4, 4},             // small nested
		{6, 250},                       // a list 62,500 deep
		{0, 7, 6, 251},                 // a tuple 63,001 deep
		{3, 0, 9, 0, 5, 0},             // a cycle inside a dict
		{2, 64, 8, 20, 3, 0},           // 20 x a 64 KB string, shared
		{1, 9, 8, 2, 8, 2, 8, 2, 8, 2}, // shared wide lists
		{3, 0, 9, 0, 6, 40, 7, 0, 9, 0},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v := fuzzValue(data)
		for _, code := range fuzzWalks {
			h := &builtins.Host{}
			s := sandbox.New(
				sandbox.Config{
					Limits:      sandbox.Limits{Timeout: 5 * time.Second, MaxOutputBytes: 1 << 20},
					Predeclared: builtins.Predeclared(h),
				},
			)
			s.SetGlobal("x", v)
			_, err := s.Exec(context.Background(), code)
			if err == nil {
				continue
			}
			if _, ok := builtins.Outputs(err); ok {
				continue
			}
			var se *sandbox.ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("%s: not a Python error: %v", code, err)
			}
			switch se.Kind {
			case "SystemError", "Error":
				t.Fatalf("%s: %s", code, se.Traceback)
			}
		}
	})
}
