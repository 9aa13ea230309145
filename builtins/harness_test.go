package builtins_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/sandbox"
)

// env is a sandbox session with the helpers bound to a host.
type env struct {
	t     *testing.T
	host  *builtins.Host
	sess  *sandbox.Session
	notes *bytes.Buffer
}

func newEnv(t *testing.T, h *builtins.Host, vars map[string]any) *env {
	t.Helper()
	if h == nil {
		h = &builtins.Host{}
	}
	notes := &bytes.Buffer{}
	if h.Notes == nil {
		h.Notes = notes
	}
	s := sandbox.New(sandbox.Config{Predeclared: builtins.Predeclared(h)})
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		sv, err := sandbox.FromGo(vars[k])
		require.NoError(t, err)
		s.SetGlobal(k, sv)
	}
	h.Session = s
	return &env{t: t, host: h, sess: s, notes: notes}
}

// exec runs one step and returns its output and error.
func (e *env) exec(code string) (string, error) {
	e.t.Helper()
	res, err := e.sess.Exec(context.Background(), code)
	return res.Output, err
}

// run runs one step that must succeed and returns its output.
func (e *env) run(code string) string {
	e.t.Helper()
	out, err := e.exec(code)
	require.NoError(e.t, err, "output so far: %s", out)
	return out
}

func (e *env) global(name string) starlark.Value {
	v, ok := e.sess.Global(name)
	require.True(e.t, ok, "global %s", name)
	return v
}

// scriptErr asserts err is a *sandbox.ScriptError of kind and returns its message.
func scriptErr(t *testing.T, err error, kind string) string {
	t.Helper()
	require.Error(t, err)
	var se *sandbox.ScriptError
	require.ErrorAs(t, err, &se)
	if kind != "" {
		require.Equal(t, kind, se.Kind, "message: %s", se.Msg)
	}
	return se.Msg
}
