package pylib

import (
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONStringLen: the size json.dumps checks before writing a long
// string is the length the writer writes.
func TestJSONStringLen(t *testing.T) {
	for _, s := range []string{"", "abc", "a\"b\\c\n\r\t\b\f", "\x00\x01\x1f\x7f", "é€😀", "\xff\xfe a \xc3", "\U0010ffff\ufeff", strings.Repeat("x\x02é😀\"", 100)} {
		for _, ascii := range []bool{true, false} {
			var b strings.Builder
			w := pyjson.NewWriter(&b, pyjson.EncodeOptions{EnsureASCII: ascii})
			w.String(s)
			require.NoError(t, w.Err())
			assert.Equal(t, b.Len(), jsonStringLen(s, ascii), "%q ascii=%v", s, ascii)
		}
	}
}
