package py

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrSliceFast: str subscripts and slices by the ASCII end of the
// string give what the general path (code point offsets from the
// string's facts) gives, on ASCII and non-ASCII strings, short and
// cached, with bounds of every sign, None and past the ends; indexes out
// of range still fail.
func TestStrSliceFast(t *testing.T) {
	thread := &starlark.Thread{}
	long := strings.Repeat("2024-01-05 000123 alpha beta ", 300)
	strs := []string{"", "a", "abc", "é", "aé", "éa", "2024-01-05 000123 ok", "naïve café — “quoted”",
		long, long + "é", "é" + long, long[:strCacheMin-1] + "ü"}
	r := rand.New(rand.NewPCG(3, 4))
	bound := func(n int) starlark.Value {
		switch r.IntN(6) {
		case 0:
			return starlark.None
		case 1:
			return starlark.MakeInt(r.IntN(2*n+3) - n - 1)
		case 2:
			return starlark.MakeInt(r.IntN(strEndScan+10) - 5)
		case 3:
			return starlark.MakeInt(-r.IntN(strEndScan + 10))
		case 4:
			return starlark.MakeInt(r.IntN(n + 2))
		}
		return starlark.True
	}
	fast := 0
	for _, s := range strs {
		runes := []rune(s)
		for range 400 {
			lo, hi := bound(len(s)), bound(len(s))
			want, err := pySlice(thread, starlark.String(s), lo, hi, starlark.MakeInt(1))
			require.NoError(t, err)
			got, err := pySlice(thread, starlark.String(s), lo, hi, starlark.None)
			require.NoError(t, err)
			assert.Equal(t, want, got, "%q[%v:%v]", s, lo, hi)
			if _, ok := strSliceFast(s, lo, hi); ok {
				fast++
			}
			i := r.IntN(2*len(runes)+3) - len(runes) - 1
			v, err := pyIndex(thread, starlark.String(s), starlark.MakeInt(i))
			if i < -len(runes) || i >= len(runes) {
				assert.Error(t, err, "%q[%d]", s, i)
				continue
			}
			require.NoError(t, err)
			assert.Equal(t, starlark.String(string(runes[(i+len(runes))%len(runes)])), v, "%q[%d]", s, i)
		}
	}
	assert.Greater(t, fast, 1000)
}
