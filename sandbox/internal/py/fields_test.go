package py

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFieldsASCII: str.split()'s one-pass ASCII path gives what
// strings.Fields (its path for other text) gives, and leaves non-ASCII
// text to it.
func TestFieldsASCII(t *testing.T) {
	for _, tt := range []struct {
		s     string
		ascii bool
	}{
		{"", true},
		{"   ", true},
		{"a", true},
		{" a ", true},
		{"2024-01-01 000000 alpha user  gamma\tbeta\n", true},
		{"\t\n\v\f\r x \x1c y", true},
		{strings.Repeat("w ", 40) + "end", true}, // more fields than the stack buffer
		{"caf\u00e9 au lait", false},
		{"a\u00a0b", false},
		{"x \xff y", false},
	} {
		got, ok := fieldsASCII(tt.s)
		assert.Equal(t, tt.ascii, ok, "%q", tt.s)
		if ok {
			assert.Equal(t, strings.Fields(tt.s), got, "%q", tt.s)
			assert.NotNil(t, got, "%q", tt.s)
		}
	}
}
