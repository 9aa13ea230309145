package orchestrator

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
)

func TestMarshalValue(t *testing.T) {
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	d := rlmctx.NewDict(4)
	d.Set("z", int64(1))
	d.Set("a", []any{"x", 2.0, true, nil})
	d.Set("big", big1)
	d.Set("é", "ünïcode")
	nan := rlmctx.NewDict(2)
	nan.Set("x", math.NaN())
	nan.Set("l", []any{math.Inf(1), 0.5})
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"dict order and Python style", d, `{"z": 1, "a": ["x", 2.0, true, null], "big": 123456789012345678901234567890, "é": "ünïcode"}`},
		{"non-finite floats become null", nan, `{"x": null, "l": [null, 0.5]}`},
		{"string", "a\"b", `"a\"b"`},
		{"nil", nil, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := MarshalValue(tt.v)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
			assert.True(t, json.Valid(b), "strict JSON")
		})
	}
	x, _ := nan.Get("x")
	assert.True(t, math.IsNaN(x.(float64)), "the value itself is not changed")
}
