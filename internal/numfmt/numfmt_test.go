package numfmt

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGroup(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{12345, "12,345"},
		{100000, "100,000"},
		{1234567, "1,234,567"},
		{-123, "-123"},
		{-1234567, "-1,234,567"},
		{math.MaxInt64, "9,223,372,036,854,775,807"},
		{math.MinInt64, "-9,223,372,036,854,775,808"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Group(tt.n), "Group(%d)", tt.n)
	}
}

func TestPlural(t *testing.T) {
	tests := []struct {
		n    int
		unit string
		want string
	}{
		{0, "line", "0 lines"},
		{1, "line", "1 line"},
		{2, "key", "2 keys"},
		{1200, "char", "1,200 chars"},
		{-1, "item", "-1 items"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Plural(tt.n, tt.unit))
	}
}
