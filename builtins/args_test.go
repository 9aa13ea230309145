package builtins

import (
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnpack(t *testing.T) {
	kw := func(k string, v starlark.Value) starlark.Tuple { return starlark.Tuple{starlark.String(k), v} }
	type vars struct {
		v     starlark.Value
		s     string
		n     int
		b     bool
		limit intOrNone
		rest  []starlark.Tuple
	}
	call := func(args starlark.Tuple, kwargs []starlark.Tuple, withRest bool) (vars, error) {
		out := vars{s: "def", n: 7, limit: intOrNone{N: 10}}
		pairs := []any{"v", &out.v, "s??", &out.s, "n?", &out.n, "b?", &out.b, "limit?", &out.limit}
		if withRest {
			pairs = append(pairs, "**rest", &out.rest)
		}
		err := unpack(&starlark.Thread{}, "f", args, kwargs, pairs...)
		return out, err
	}
	tests := []struct {
		name    string
		args    starlark.Tuple
		kwargs  []starlark.Tuple
		rest    bool
		want    vars
		wantErr string
	}{
		{name: "defaults kept", args: starlark.Tuple{starlark.MakeInt(1)},
			want: vars{v: starlark.MakeInt(1), s: "def", n: 7, limit: intOrNone{N: 10}}},
		{
			name:   "positional and keyword",
			args:   starlark.Tuple{starlark.None, starlark.String("x")},
			kwargs: []starlark.Tuple{kw("b", starlark.True), kw("limit", starlark.MakeInt(3))},
			want:   vars{v: starlark.None, s: "x", n: 7, b: true, limit: intOrNone{N: 3}},
		},
		{name: "?? takes None as omitted", args: starlark.Tuple{starlark.None, starlark.None},
			want: vars{v: starlark.None, s: "def", n: 7, limit: intOrNone{N: 10}}},
		{name: "intOrNone takes None", args: starlark.Tuple{starlark.None}, kwargs: []starlark.Tuple{kw("limit", starlark.None)},
			want: vars{v: starlark.None, s: "def", n: 7, limit: intOrNone{N: 10, None: true}}},
		{
			name:   "extra keywords collected",
			args:   starlark.Tuple{starlark.None},
			kwargs: []starlark.Tuple{kw("zz", starlark.MakeInt(1))},
			rest:   true,
			want:   vars{v: starlark.None, s: "def", n: 7, limit: intOrNone{N: 10}, rest: []starlark.Tuple{kw("zz", starlark.MakeInt(1))}},
		},
		{name: "missing required", wantErr: "TypeError: f() missing required argument 'v'"},
		{name: "too many positional", args: make(starlark.Tuple, 6), wantErr: "f() takes at most 5 positional arguments (6 given)"},
		{
			name:    "unexpected keyword",
			args:    starlark.Tuple{starlark.None},
			kwargs:  []starlark.Tuple{kw("zz", starlark.None)},
			wantErr: "f() got an unexpected keyword argument 'zz'",
		},
		{
			name:    "multiple values",
			args:    starlark.Tuple{starlark.None},
			kwargs:  []starlark.Tuple{kw("v", starlark.None)},
			wantErr: "f() got multiple values for argument 'v'",
		},
		{name: "str checked", args: starlark.Tuple{starlark.None, starlark.MakeInt(1)}, wantErr: "TypeError: f: s must be a str, got int"},
		{
			name:    "None is no int",
			args:    starlark.Tuple{starlark.None},
			kwargs:  []starlark.Tuple{kw("n", starlark.None)},
			wantErr: "TypeError: f: n must be an int, got NoneType",
		},
		{
			name:    "int range",
			args:    starlark.Tuple{starlark.None},
			kwargs:  []starlark.Tuple{kw("n", starlark.MakeInt64(1<<40))},
			wantErr: "ValueError: f: n is out of range",
		},
		{
			name:    "bool checked",
			args:    starlark.Tuple{starlark.None},
			kwargs:  []starlark.Tuple{kw("b", starlark.MakeInt(1))},
			wantErr: "TypeError: f: b must be True or False, got int",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(tt.args, tt.kwargs, tt.rest)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
