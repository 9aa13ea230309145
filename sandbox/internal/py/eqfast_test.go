package py

import (
	"math"
	"math/big"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPyEqFast: _py_eq's fast path answers as pyEqual (Python's ==) for
// every pair it takes, takes the common pairs (strs, ints, None) and
// leaves the others (bools, floats, big ints, containers) to pyEqual.
func TestPyEqFast(t *testing.T) {
	big70 := starlark.MakeBigInt(new(big.Int).Lsh(big.NewInt(1), 70))
	vals := []starlark.Value{
		starlark.String(""), starlark.String("a"), starlark.String("1"), starlark.String("é"),
		starlark.MakeInt(0), starlark.MakeInt(1), starlark.MakeInt(-1), starlark.MakeInt64(math.MaxInt64), big70,
		starlark.None, starlark.True, starlark.False,
		starlark.Float(1), starlark.Float(math.NaN()),
		starlark.NewList([]starlark.Value{starlark.MakeInt(1)}), starlark.Tuple{starlark.MakeInt(1)},
	}
	thread := &starlark.Thread{}
	taken := 0
	for _, x := range vals {
		for _, y := range vals {
			want, err := pyEqual(thread, x, y)
			require.NoError(t, err)
			got, ok := pyEqFast(thread, starlark.Tuple{x, y})
			if !ok {
				assert.Nil(t, got)
				continue
			}
			taken++
			assert.Equal(t, starlark.Bool(want), got, "%s == %s", x, y)
		}
	}
	// 4 strs against the strs, the 5 ints and None; the 5 ints against
	// the strs and None; the 4 int64 ints against each other.
	assert.Equal(t, 4*10+5*5+4*4, taken)
	for _, args := range []starlark.Tuple{
		{starlark.True, starlark.MakeInt(1)}, {starlark.MakeInt(1), starlark.True},
		{starlark.MakeInt(1), starlark.Float(1)}, {big70, big70}, {starlark.MakeInt(1)},
	} {
		_, ok := pyEqFast(thread, args)
		assert.False(t, ok, "%v", args)
	}
}
