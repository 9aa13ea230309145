package sandbox

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// innocentCode allocates a few megabytes at a time (lists and strings,
// sorting, json) in a loop until done() says the bomb's step ended; it
// keeps about 2 MB.
const innocentCode = `import json
doc = json.dumps([{"k": i, "v": "x" * 20} for i in range(10000)])
started()
n = 0
while not done():
    a = [str(i) for i in range(20000)]
    a.sort(reverse=True)
    s = "-".join(a)
    b = s.split("-")
    d = json.loads(doc)
    t = "y" * 1000000
    n += len(d) + len(b) + len(t)
print(n > 0)
`

// TestBombDoesNotStopOtherSteps: steps of other sessions that run while
// one session's step is a memory bomb are not stopped by the heap the
// bomb grows; the bomb's step is, by its own limit. Without the sharing
// rules (memshare.go) about one innocent step in three failed.
func TestBombDoesNotStopOtherSteps(t *testing.T) {
	bombs := []struct{ name, code string }{
		{"list of strings", "x = []\nwhile True:\n    x.append('a' * 1000)"},
		{"dict of small strings", "d = {}\ni = 0\nwhile True:\n    d['k%d' % i] = 'v%d' % i\n    i += 1"},
		{"big pieces", "x = []\nwhile True:\n    x.append('x' * 10**6)"},
		{"string growth", "s = ''\nwhile True:\n    s += 'x' * 10**6"},
		{"comprehension", "x = ['%d' % i for i in range(10**9)]"},
		{"nested lists", "x = None\nwhile True:\n    x = [x, 'a' * 200]"},
		{"in a function", "def f():\n    x = []\n    while True:\n        x.append('a' * 1000)\nf()"},
	}
	const innocents = 2
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			for trial := range 1 {
				var bombDone atomic.Bool
				var started sync.WaitGroup
				started.Add(innocents)
				predeclared := starlark.StringDict{
					"done": starlark.NewBuiltin(
						"done",
						func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
							return starlark.Bool(bombDone.Load()), nil
						},
					),
					"started": starlark.NewBuiltin(
						"started",
						func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
							started.Done()
							return starlark.None, nil
						},
					),
				}
				lim := Limits{MaxMemory: 16 << 20, MaxSessionMemory: 1 << 30, Timeout: time.Minute}
				var wg sync.WaitGroup
				errs := make([]error, innocents)
				for i := range innocents {
					wg.Add(1)
					go func() {
						defer wg.Done()
						s := New(Config{Limits: lim, Predeclared: predeclared})
						_, errs[i] = s.Exec(context.Background(), innocentCode)
					}()
				}
				started.Wait()
				s := New(Config{Limits: lim})
				_, err := s.Exec(context.Background(), b.code)
				bombDone.Store(true)
				wg.Wait()
				var se *ScriptError
				if assert.True(t, errors.As(err, &se), "trial %d: the bomb ends with a MemoryError, got %v", trial, err) {
					assert.Equal(t, "MemoryError", se.Kind, se.Traceback)
					assert.True(t, errors.Is(err, ErrMemoryLimit) || errors.Is(err, ErrSessionMemoryLimit), "%v", err)
				}
				for i, err := range errs {
					assert.NoError(t, err, "trial %d: innocent step %d", trial, i)
				}
			}
		})
	}
}

// TestSizer: the sizing of what a session holds counts shared values
// once and what containers hold.
func TestSizer(t *testing.T) {
	s := New(Config{})
	ctx := context.Background()
	size := func() int64 {
		st := newStep(s, ctx)
		return st.held(nil, -1)
	}
	empty := size()
	_, err := s.Exec(ctx, "big = 'x' * 10**6\nrefs = [big] * 1000")
	require.NoError(t, err)
	one := size() - empty
	assert.InDelta(t, 1e6+16e3, float64(one), 1e5, "the string counts once: %d", one)
	_, err = s.Exec(ctx, "d = {str(i): [i, 'y' * 1000] for i in range(1000)}")
	require.NoError(t, err)
	two := size() - empty - one
	assert.Greater(t, two, int64(1000*1000), "what the dict's lists hold: %d", two)
	_, err = s.Exec(ctx, "x = []\nx.append(x)\nt = (x, x)")
	require.NoError(t, err)
	assert.Less(t, size()-empty-one-two, int64(1000), "cycles count once")
}
