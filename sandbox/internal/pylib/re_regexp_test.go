package pylib

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// TestFindAllChunkedMatchesRegexp: a pattern without a prefilter whose
// matches stay within a line is run on pieces of whole lines (short
// lines, a line longer than a piece, a text without a final newline), or
// from each byte a match can start with (firstBytes) when it does not
// look before a match, and finds what Go's regexp finds on the whole
// text.
func TestFindAllChunkedMatchesRegexp(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 8*PrefilterMin; i++ {
		b.WriteString("Alpha beta_" + strconv.Itoa(i) + " x9 \tGamma Kelvin kx\n\n")
		if i%97 == 0 {
			b.WriteString(strings.Repeat("word ", 3*maxChunk) + "End\n")
		}
	}
	b.WriteString("last Line")
	text := b.String()
	for _, p := range []string{`\w+`, `[A-Z]\w*`, `\b\w{4}\b`, `(?m)^\w+`, `(?m)\w+$`, `(\w)(\d)?`, `\B\w`, `[^\s]+`,
		`(?i)k\w+`, `(?:_\d)*[A-Z][a-z]`, `\d?[A-Z]\w*(?m:$)`} {
		t.Run(p, func(t *testing.T) {
			r, err := CompileRegexp(p, 0)
			require.NoError(t, err)
			require.True(t, r.LineOK && !r.CanPrefilter(text, 0) && (r.Chunk > 0 || r.First != nil), "a path of pieces of lines runs")
			std := regexp.MustCompile(p)
			want := std.FindAllStringSubmatchIndex(text, -1)
			require.NotEmpty(t, want)
			assert.Equal(t, want, r.FindAllIndex(text, -1))
			assert.Equal(t, std.FindAllStringSubmatchIndex(text, 7), r.FindAllIndex(text, 7))
		})
	}
}

// TestCompileRegexpErrors checks that bad patterns are re.error
// exceptions with CPython 3.11's messages, and that the constructs RE2
// lacks compile (for the backtracking engine).
func TestCompileRegexpErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" compiles
	}{
		{`(a)\1`, ""},
		{`(?P<n>a)(?P=n)`, ""},
		{`a(?=b)`, ""},
		{`(?<!a)b`, ""},
		{`(?>ab)`, ""},
		{`a++`, ""},
		{`(?(1)a|b)`, "invalid group reference 1 at position 3"},
		{`(a`, "missing ), unterminated subpattern at position 0"},
		{`a(?i)b`, "global flags not at the start of the expression at position 1"},
		{`(?<=a+)b`, "look-behind requires fixed-width pattern"},
		{`\z`, `bad escape \z at position 0`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := CompileRegexp(tt.in, 0)
			if tt.want == "" {
				require.NoError(t, err)
				assert.Nil(t, r.Re, "runs on the backtracking engine")
				return
			}
			var pe *py.PyError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "re.error", pe.Kind)
			assert.Equal(t, tt.want, pe.Msg)
		})
	}
}

// TestFirstBytes: the bytes a match can start with, past optional and
// empty parts; none when any byte could start one or a part looks back.
func TestFirstBytes(t *testing.T) {
	tests := []struct{ pat, want string }{
		{`[A-C]\w*`, "ABC"},
		{`\d?x`, "0123456789x"},
		{`(?:ab|c)*d`, "acd"},
		{`(?i)k`, "Kk+"},
		{`é`, "+"},
		{`[a\x{100}]`, "a+"},
		{`x|$y`, "xy"},
		{`.x`, ""},
		{`\bx`, ""},
		{`(?s:.)x`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.pat, func(t *testing.T) {
			re, err := syntax.Parse(tt.pat, syntax.Perl)
			require.NoError(t, err)
			set, ok := firstBytes(re.Simplify())
			if tt.want == "" {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			var got strings.Builder
			for b := 0; b < 0x80; b++ {
				if set[b] {
					got.WriteByte(byte(b))
				}
			}
			if set[0x80] && set[0xff] {
				got.WriteByte('+')
			}
			assert.Equal(t, tt.want, got.String())
		})
	}
}
