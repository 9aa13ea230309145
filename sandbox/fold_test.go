package sandbox

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlmhq/rlm/sandbox/internal/pyfront"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFoldSemantics: sum, min and max of a generator expression or list
// comprehension fold its elements as they come (foldSink) with the
// builtins' results and errors; a user's sum, min or max of the same name
// still gets the elements as a list. Expected outputs are CPython's.
func TestFoldSemantics(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"sum-genexp", "print(sum(x * x for x in range(100000)), sum(-x * x for x in range(100000)))", "333328333350000 -333328333350000\n"},
		{"sum-listcomp", "print(sum([1.5 for _ in range(3)]), sum(x for x in []), sum(i for i in range(5) if i % 2))", "4.5 0 4\n"},
		{"sum-nested-clauses", "print(sum(a * b for a in range(3) for b in range(3) if a != b))", "4\n"},
		{"sum-bools-big-floats", "print(sum(x for x in [True, True, 3]), sum(x for x in [2**70, 1]), sum(x for x in [0.1, 0.2]))", "5 1180591620717411303425 0.30000000000000004\n"},
		{"min-max", "print(max(x % 1000 for x in range(3000)), min((x - 5) ** 2 for x in range(10)), max(c for c in 'hello'), min([w for w in 'b a c'.split()]))", "999 0 o a\n"},
		{"parenthesized", "print(max((x for x in range(5))), sum((x for x in range(5))))", "4 10\n"},
		{"in-comprehension", "print([sum(y for y in range(x)) for x in range(5)])", "[0, 0, 1, 3, 6]\n"},
		{"shadowed", "def f():\n    sum = lambda xs: 'mine:' + str(list(xs))\n    return sum(x for x in range(3))\nprint(f())\nmax = sorted\nprint(max(x for x in 'cab'))", "mine:[0, 1, 2]\n['a', 'b', 'c']\n"},
		{"empty-max", "try:\n    max(x for x in [])\nexcept ValueError as e:\n    print('ValueError', e)", "ValueError max() arg is an empty sequence\n"},
		{"sum-type-error", "try:\n    sum(x for x in [1, 'a'])\nexcept TypeError as e:\n    print('TypeError', e)", "TypeError unsupported operand type(s) for +: 'int' and 'str'\n"},
		{"max-type-error", "try:\n    max(x for x in [1, 'a'])\nexcept TypeError as e:\n    print('TypeError', e)", "TypeError '>' not supported between instances of 'str' and 'int'\n"},
		{"error-in-body", "try:\n    sum(1 // x for x in [1, 0])\nexcept ZeroDivisionError as e:\n    print('ZeroDivisionError', e)", "ZeroDivisionError integer division or modulo by zero\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}

// TestFoldBuildsNoList: sum and max of a generator expression run in a
// step whose memory limit the list of its elements would exceed (the
// list of 3 million ints is about 48 MB).
func TestFoldBuildsNoList(t *testing.T) {
	s := New(Config{Limits: Limits{MaxMemory: 16 << 20, Timeout: 60 * time.Second}})
	res, err := s.Exec(context.Background(), "print(sum(x for x in range(3000000)), max(x % 7 for x in range(3000000)))")
	require.NoError(t, err)
	assert.Equal(t, "4499998500000 6\n", res.Output)
}

// TestFoldLowering: with FoldCalls the front end lowers sum, min and max
// of a comprehension to _py_fold, and leaves other calls alone.
func TestFoldLowering(t *testing.T) {
	for _, tt := range []struct {
		src  string
		fold bool
	}{
		{"y = sum(x * x for x in xs)", true},
		{"y = max([x for x in xs])", true},
		{"y = min((x for x in xs))", true},
		{"y = sum({x for x in xs})", false},
		{"y = sorted(x for x in xs)", false},
		{"y = sum(xs)", false},
	} {
		prog, err := pyfront.Compile("x.py", tt.src, pyfront.Options{NativeOps: true, FoldCalls: true})
		require.NoError(t, err)
		out := pyfront.Unparse(prog.Chunks[0].File.Stmts)
		assert.Equal(t, tt.fold, strings.Contains(out, "_py_fold("), "%s -> %s", tt.src, out)
	}
}

// TestSmallDictBytes: a small dict (a record) costs under 400 bytes of
// heap (the hash table's inline bucket holds 4 entries; with 8 it was 512
// bytes before any other allocation).
func TestSmallDictBytes(t *testing.T) {
	s := New(Config{})
	ctx := context.Background()
	_, err := s.Exec(ctx, "n = 100000\nrecords = None")
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = s.Exec(ctx, `records = [{"id": i, "v": i % 7} for i in range(n)]`)
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	perDict := float64(after.TotalAlloc-before.TotalAlloc) / 100000
	assert.Less(t, perDict, 400.0, "bytes allocated per record dict (list slot included)")
}

// TestRecordDictBytes: a dict of 5 to 8 entries (a JSON record) chains one
// overflow bucket to its inline one instead of growing to a table of two
// buckets beside the unused inline one (with four-entry buckets that cost
// over 250 bytes more per record).
func TestRecordDictBytes(t *testing.T) {
	s := New(Config{})
	ctx := context.Background()
	_, err := s.Exec(ctx, "n = 100000\nrecords = None")
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = s.Exec(ctx, `records = [{"id": i, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5} for i in range(n)]`)
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	perDict := float64(after.TotalAlloc-before.TotalAlloc) / 100000
	assert.Less(t, perDict, 700.0, "bytes allocated per 6-entry record dict (list slot included)")
}
