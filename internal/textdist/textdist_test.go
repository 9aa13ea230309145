package textdist

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"results", "result", 1},
		{"run1/answer", "run1/answers", 1},
		{"ab", "ba", 2},
		{"héllo", "hello", 2}, // bytes, not runes: é is two bytes
	}
	for _, tt := range tests {
		t.Run(tt.a+"_"+tt.b, func(t *testing.T) {
			assert.Equal(t, tt.want, Levenshtein(tt.a, tt.b))
			assert.Equal(t, tt.want, Levenshtein(tt.b, tt.a), "symmetric")
		})
	}
}

func ExampleLevenshtein() {
	fmt.Println(Levenshtein("recods", "records"))
	// Output: 1
}
