package repl_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/repl"
)

// TestNew: a REPL has the variables as globals, the helpers with their
// __doc__ and help(), and its futures settle at the barrier.
func TestNew(t *testing.T) {
	ctx := context.Background()
	r, err := repl.New(repl.Config{
		Host: &builtins.Host{Context: ctx},
		Vars: []repl.Var{{Name: "doc", Value: "alpha\nbeta\n"}, {Name: "nums", Value: []any{int64(1), int64(2)}}},
	})
	require.NoError(t, err)
	defer r.Close()
	require.NotNil(t, r.Host.Session, "New binds the host to the session")

	tests := []struct{ code, want string }{
		{"print(len(doc.splitlines()), sum(nums))", "2 3\n"},
		{"print(search(doc, 'beta')[0]['line'])", "2\n"},
		{"print(search.__doc__.splitlines()[0])", "search(var, pattern, regex=False, max_results=10, field=None)\n"},
		{"print(sorted.__doc__)", "None\n"},
		{"help(peek)", "peek(var, start=0, end=10)\n\nReturn items start..end"},
	}
	for _, tt := range tests {
		res, err := r.Exec(ctx, tt.code)
		require.NoError(t, err, tt.code)
		assert.Contains(t, res.Output, tt.want, tt.code)
		require.NoError(t, r.Settle(ctx))
	}
}

// TestNewBadVariable: a value the interpreter cannot hold is refused with
// the variable's name.
func TestNewBadVariable(t *testing.T) {
	_, err := repl.New(repl.Config{Host: &builtins.Host{}, Vars: []repl.Var{{Name: "ch", Value: make(chan int)}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "variable ch")
}
