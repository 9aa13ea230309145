package pyjson

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDict(t *testing.T) {
	for _, n := range []int{3, dictIndexMin + 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var d Dict // zero value usable
			for i := 0; i < n; i++ {
				d.Set(fmt.Sprintf("k%d", n-i), int64(i))
			}
			assert.Equal(t, n, d.Len())
			assert.Equal(t, fmt.Sprintf("k%d", n), d.Keys()[0], "insertion order")
			d.Set(fmt.Sprintf("k%d", n), "updated")
			v, ok := d.Get(fmt.Sprintf("k%d", n))
			assert.True(t, ok)
			assert.Equal(t, "updated", v)
			assert.Equal(t, fmt.Sprintf("k%d", n), d.Keys()[0], "update keeps position")
			_, ok = d.Get("nope")
			assert.False(t, ok)
			assert.True(t, d.Delete("k1"))
			assert.False(t, d.Delete("k1"))
			assert.False(t, d.Has("k1"))
			assert.Equal(t, n-1, d.Len())
			for i, k := range d.Keys() {
				v, ok := d.Get(k)
				assert.True(t, ok, k)
				_ = v
				assert.Equal(t, k, d.Keys()[i])
			}
			var keys []string
			for k, v := range d.All() {
				keys = append(keys, k)
				got, _ := d.Get(k)
				assert.Equal(t, got, v)
			}
			assert.Equal(t, d.Keys(), keys)
		})
	}
}

func TestDecodeLargeObjectDuplicates(t *testing.T) {
	src := `{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "a": 10, "j": {"x": [1, {"y": 2}]}}`
	v, err := Decode([]byte(src))
	assert.NoError(t, err)
	d := v.(*Dict)
	assert.Equal(t, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, d.Keys())
	a, _ := d.Get("a")
	assert.Equal(t, int64(10), a)
	assert.Equal(t, `{"x": [1, {"y": 2}]}`, Excerpt(must(d.Get("j")), -1))
}

func must(v any, ok bool) any {
	if !ok {
		panic("missing")
	}
	return v
}

func dict(kv ...any) *Dict {
	d := NewDict(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1])
	}
	return d
}

func TestHasDupKeys(t *testing.T) {
	keys := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("k%d", i)
		}
		return out
	}
	tests := []struct {
		name string
		keys []string
		want bool
	}{
		{"none", nil, false},
		{"one", []string{"a"}, false},
		{"few distinct", keys(dictIndexMin), false},
		{"few repeated", append(keys(dictIndexMin-1), "k3"), true},
		{"many distinct", keys(dictIndexMin + 5), false},
		{"many repeated", append(keys(dictIndexMin+5), "k0"), true},
		{"empty key repeated", []string{"", "a", ""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, HasDupKeys(tt.keys))
		})
	}
}
