package py

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendFloatRepr: the fast repr of floats writes what formatFloatRepr
// (CPython's repr) writes, on edge values and random bit patterns.
func TestAppendFloatRepr(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, 0.1, 0.1 + 0.2, 1e-4, -1e-4,
		math.Nextafter(1e-4, 0), 9.99e-5, 1e16, math.Nextafter(1e16, 0), 9999999999999998,
		1e15 + 0.3, 123456789.125, 5e-324, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 1e22, 100}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		vals = append(vals, math.Float64frombits(r.Uint64()), r.Float64()*math.Pow(10, float64(r.IntN(40)-20)))
	}
	for _, f := range vals {
		require.Equal(t, formatFloatRepr(f), string(appendFloatRepr(nil, f)), "%b", f)
	}
}

// TestAppendFormatFast: the fast paths of format() agree with the
// general formatting for the specs they take and decline the others.
func TestAppendFormatFast(t *testing.T) {
	tests := []struct {
		spec string
		fast bool
	}{
		{"", true}, {">8", true}, {"<8", true}, {"^9", true}, {"*^9", true}, {"é>6", true},
		{"08", true}, {"+08", true}, {" ", true}, {".2f", true}, {"+10.3f", true}, {"#.0f", true},
		{",", false}, {"_x", false}, {"z.1f", false}, {".3e", false}, {"%", false}, {"c", false},
	}
	s, err := parseSpec(".2s")
	require.NoError(t, err)
	out, ok := appendFormatFast(nil, starlark.String("héllo"), &s)
	assert.True(t, ok)
	assert.Equal(t, "hé", string(out))
	for _, tt := range tests {
		s, err := parseSpec(tt.spec)
		require.NoError(t, err)
		for _, v := range []any{"abc", "", int64(-42), int64(7), int64(math.MinInt64), 2.5, math.Copysign(0, -1), 1e-7, 1e300} {
			val, err := FromGo(v)
			require.NoError(t, err)
			out, ok := appendFormatFast(nil, val, &s)
			want, werr := formatValue(nil, val, tt.spec)
			if !ok {
				continue
			}
			require.NoError(t, werr, "%q %v", tt.spec, v)
			assert.Equal(t, want, string(out), "%q %v", tt.spec, v)
		}
		if !tt.fast {
			_, ok := appendFormatFast(nil, starlark.Float(2.5), &s)
			assert.False(t, ok, tt.spec)
		}
	}
}
