package sandbox

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromGoToGo(t *testing.T) {
	d := pyjson.NewDict(3)
	d.Set("z", int64(1))
	d.Set("a", []any{"x", 2.5, nil, true})
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	d.Set("big", big1)

	v, err := FromGo(d)
	require.NoError(t, err)
	assert.Equal(t, "{'z': 1, 'a': ['x', 2.5, None, True], 'big': 123456789012345678901234567890}", Repr(v))

	back, err := ToGo(v)
	require.NoError(t, err)
	bd, ok := back.(*pyjson.Dict)
	require.True(t, ok)
	assert.Equal(t, []string{"z", "a", "big"}, bd.Keys())
	a, _ := bd.Get("a")
	assert.Equal(t, []any{"x", 2.5, nil, true}, a)
	b, _ := bd.Get("big")
	assert.Equal(t, 0, big1.Cmp(b.(*big.Int)))

	_, err = FromGo(struct{}{})
	assert.ErrorContains(t, err, "cannot convert")

	tup, err := ToGo(starlark.Tuple{starlark.MakeInt(1), starlark.String("s")})
	require.NoError(t, err)
	assert.Equal(t, []any{int64(1), "s"}, tup)
}

// fakeProxy stands for a value computed elsewhere.
type fakeProxy struct {
	target starlark.Value
	waits  int
}

func (p *fakeProxy) String() string        { return "<pending>" }
func (p *fakeProxy) Type() string          { return "future" }
func (p *fakeProxy) Freeze()               {}
func (p *fakeProxy) Truth() starlark.Bool  { return true }
func (p *fakeProxy) Hash() (uint32, error) { return 0, nil }
func (p *fakeProxy) ProxyTarget(*starlark.Thread) (starlark.Value, error) {
	p.waits++
	return p.target, nil
}

func TestProxy(t *testing.T) {
	p := &fakeProxy{target: starlark.NewList([]starlark.Value{starlark.String("a"), starlark.MakeInt(1)})}
	assert.Equal(t, "['a', 1]", Repr(p))
	assert.Equal(t, "['a', 1]", Str(p))
	g, err := ToGo(p)
	require.NoError(t, err)
	assert.Equal(t, []any{"a", int64(1)}, g)

	s := New(Config{})
	s.SetGlobal("fut", p)
	s.SetGlobal("sfut", &fakeProxy{target: starlark.String("x y")})
	res, err := s.Exec(context.Background(), "print(fut, len(fut), f'{fut}', str(sfut), sfut.split(), [c for c in fut])")
	require.NoError(t, err)
	assert.Equal(t, "['a', 1] 2 ['a', 1] x y ['x', 'y'] ['a', 1]\n", res.Output)
	assert.Positive(t, p.waits)
}

var errHostSentinel = errors.New("host sentinel")

// hostErr is a host error that code must not catch (like SUBMIT).
type hostErr struct{}

func (hostErr) Error() string     { return "host says stop" }
func (hostErr) Uncatchable() bool { return true }
func (hostErr) Unwrap() error     { return errHostSentinel }

func TestThreadHookAndHostErrors(t *testing.T) {
	var hooked int
	s := New(Config{
		ThreadHook: func(th *starlark.Thread) { hooked++; th.SetLocal("host", "h") },
		Predeclared: starlark.StringDict{
			"host_name": starlark.NewBuiltin(
				"host_name",
				func(th *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
					return starlark.String(th.Local("host").(string)), nil
				},
			),
			"stop": starlark.NewBuiltin(
				"stop",
				func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
					return nil, hostErr{}
				},
			),
			"fail": starlark.NewBuiltin(
				"fail",
				func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
					return nil, Errorf("ValueError", "fail: bad argument")
				},
			),
		},
	})
	ctx := context.Background()
	res, err := s.Exec(ctx, "print(host_name())")
	require.NoError(t, err)
	assert.Equal(t, "h\n", res.Output)
	assert.Equal(t, 1, hooked)
	assert.NotContains(t, s.UserGlobals(), "host_name")

	// A host error propagates through try/except and unwraps to its sentinel.
	_, err = s.Exec(ctx, "try:\n    stop()\nexcept Exception:\n    print('swallowed')")
	require.Error(t, err)
	assert.ErrorIs(t, err, errHostSentinel)

	// A builtin's PyError sets the kind and can be caught.
	res, err = s.Exec(ctx, "try:\n    fail()\nexcept ValueError as e:\n    print('caught', e)")
	require.NoError(t, err)
	assert.Equal(t, "caught fail: bad argument\n", res.Output)
	_, err = s.Exec(ctx, "fail()")
	var se *ScriptError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "ValueError", se.Kind)
	assert.Equal(t, 4, hooked, "one fresh thread per step")
}

func TestStepGlobals(t *testing.T) {
	var names []string
	var vals starlark.StringDict
	s := New(Config{Predeclared: starlark.StringDict{
		"probe": starlark.NewBuiltin(
			"probe",
			func(th *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				names, vals = StepGlobals(th)
				return starlark.None, nil
			},
		),
	}})
	ctx := context.Background()
	_, err := s.Exec(ctx, "a = 1\nb = [2]")
	require.NoError(t, err)
	_, err = s.Exec(ctx, "c = 'x'\na = 5\nprobe()")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, names)
	assert.Equal(t, "5", Repr(vals["a"]))
	assert.Equal(t, "'x'", Repr(vals["c"]))
	n, v := StepGlobals(&starlark.Thread{})
	assert.Nil(t, n)
	assert.Nil(t, v)
}

// TestSumOfFutures: sum adds futures by their values, ints on the fast
// path and others after it, in a list and as a generator (the fold).
func TestSumOfFutures(t *testing.T) {
	s := New(Config{})
	s.SetGlobal("f3", &fakeProxy{target: starlark.MakeInt(3)})
	s.SetGlobal("fbig", &fakeProxy{target: starlark.MakeInt64(1 << 62)})
	s.SetGlobal("fx", &fakeProxy{target: starlark.Float(0.5)})
	r, err := s.Exec(
		context.Background(),
		`print(sum([1, f3, 2]), sum(x for x in [f3, f3]), sum([fbig, fbig, f3]), sum(x for x in [1, f3, fx]))`,
	)
	require.NoError(t, err)
	assert.Equal(t, "6 6 9223372036854775811 4.5\n", r.Output)
}
