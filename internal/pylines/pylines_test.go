package pylines

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCount: as len(s.splitlines()) in CPython.
func TestCount(t *testing.T) {
	for s, want := range map[string]int{
		"":                          0,
		"a":                         1,
		"a\n":                       1,
		"a\nb":                      2,
		"\n\n":                      2,
		"héllo wörld\n日本語\n":        2,
		"a\r\nb\rc\vd\fe\x1cf\x1dg": 7,
		"a\u0085b\u2028c\u2029":     3,
		"\r\n":                      1,
		"\u00c2":                    1, // not U+0085
		"“quoted” \u2029":           1,
	} {
		assert.Equal(t, want, Count(s), "%q", s)
	}
}

func TestHasRare(t *testing.T) {
	for s, want := range map[string]bool{
		"":                              false,
		"a\nb\n":                        false,
		"héllo “wörld”\n日本語\n":          false,
		"a\rb":                          true,
		"a\x1eb":                        true,
		"a\u0085":                       true,
		"a\u2028":                       true,
		strings.Repeat("x", 100) + "\f": true,
	} {
		assert.Equal(t, want, HasRare(s), "%q", s)
	}
}
