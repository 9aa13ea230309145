package pylib

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"
)

// TestNormalizeChecked: unicodedata.normalize measures a long string's
// result before building it and returns what norm's String returns.
func TestNormalizeChecked(t *testing.T) {
	texts := []string{
		"",
		"plain ascii",
		"e\u0301 \u00e9 \ufdfa \ufb01 \u1e9b\u0323 \ud4db \u1100\u1161\u11a8 \u0958 \U0001d15e \u2460",
		"\xff\xfe broken \xc3 utf-8 \u0301\u0301 leading marks",
	}
	var long []string
	for _, s := range texts {
		long = append(long, strings.Repeat(s+" ", 8<<10/(len(s)+1)+1))
	}
	long = append(long, "\u0301"+strings.Repeat("a", 5000)+"\u0301", strings.Repeat("\u00e9", 3000)+"e\u0301")
	for _, f := range []norm.Form{norm.NFC, norm.NFD, norm.NFKC, norm.NFKD} {
		for _, s := range append(texts, long...) {
			got, err := normalizeChecked(nil, f, s)
			require.NoError(t, err)
			assert.Equal(t, f.String(s), got, "form %d of %.40q", f, s)
		}
	}
}
