package py

import (
	"math/big"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMinMaxIntScan: min and max of a list, with the leading ints of
// int64 scanned as int64s (intMinMax) and the rest by the general loop,
// answer what comparing each element with PyCompare answers, and the
// first of equal elements wins (True before 1, 1 before True, 1.0 before
// 1): ints past int64, bools, floats and NaN anywhere in the list.
func TestMinMaxIntScan(t *testing.T) {
	big2 := starlark.MakeBigInt(new(big.Int).Lsh(big.NewInt(1), 70))
	i := func(n int64) starlark.Value { return starlark.MakeInt64(n) }
	lists := [][]starlark.Value{
		{i(3), i(1), i(4), i(1), i(5), i(9), i(2), i(6)},
		{i(-5), i(-5), i(7), i(7)},
		{i(1), starlark.True, i(0), starlark.False},
		{starlark.True, i(1), starlark.False, i(0)},
		{i(1), starlark.Float(1.0), i(2), starlark.Float(2.0)},
		{i(2), big2, i(-1)},
		{i(1 << 40), i(-1 << 40), i(3)},
		{i(7), starlark.Float(7.5), i(8), starlark.Float(-1)},
		{i(1)},
		{starlark.Float(2), i(3), i(1)},
	}
	for _, op := range []syntax.Token{syntax.LT, syntax.GT} {
		name := map[syntax.Token]string{syntax.LT: "min", syntax.GT: "max"}[op]
		f := pyMinMax(name, op)
		for _, elems := range lists {
			want := elems[0]
			for _, x := range elems[1:] {
				better, err := PyCompare(op, x, want)
				require.NoError(t, err)
				if better {
					want = x
				}
			}
			got, err := f(&starlark.Thread{}, nil, starlark.Tuple{starlark.NewList(append([]starlark.Value(nil), elems...))}, nil)
			require.NoError(t, err)
			assert.Equal(t, want.Type(), got.Type(), "%s(%v)", name, elems)
			assert.Equal(t, want.String(), got.String(), "%s(%v)", name, elems)
		}
	}
}
