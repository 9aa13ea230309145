package pyre

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad patterns are errors with CPython 3.11's messages (expected values
// from CPython).
func TestParseErrors(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{`a(?i)`, "global flags not at the start of the expression at position 1"},
		{"x\n(?x)", "global flags not at the start of the expression at position 2 (line 2, column 1)"},
		{`(a`, "missing ), unterminated subpattern at position 0"},
		{`a)`, "unbalanced parenthesis at position 1"},
		{`[a`, "unterminated character set at position 0"},
		{`a**`, "multiple repeat at position 2"},
		{`*a`, "nothing to repeat at position 0"},
		{`\q`, `bad escape \q at position 0`},
		{`\`, "bad escape (end of pattern) at position 0"},
		{`(?<=a+)b`, "look-behind requires fixed-width pattern"},
		{`(a)\2`, "invalid group reference 2 at position 4"},
		{`(?P<1>a)`, "bad character in group name '1' at position 4"},
		{`a{3,2}`, "min repeat greater than max repeat at position 2"},
		{`(?P=x)`, "unknown group name 'x' at position 4"},
		{`(?<x`, "unknown extension ?<x at position 1"},
		{`(?i`, "missing -, : or ) at position 3"},
		{`(?z)`, "unknown extension ?z at position 1"},
		{`[z-a]`, "bad character range z-a at position 1"},
		{`(?P<a>x)(?P<a>y)`, "redefinition of group name 'a' as group 2; was group 1 at position 12"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, err := CompilePython(tt.pattern, 0)
			require.EqualError(t, err, tt.want)
		})
	}
}

// CompilePython picks RE2 when it can run the pattern with Python's
// meaning, and the backtracking engine otherwise; the latter reports
// code-point offsets and Python's groups.
func TestCompilePythonEngines(t *testing.T) {
	tests := []struct {
		pattern, text string
		re2           bool
		want          []int
	}{
		{`magic \w+`, "a magic number", true, []int{2, 14}},
		{`(?<=[.!?])\s+`, "Hi. Yes", false, []int{3, 4}},
		{`(\w+)\s+\1`, "été été x", false, []int{0, 7, 0, 3}},
		{`(?P<a>x)(y)(?P=a)`, "xyx", false, []int{0, 3, 0, 1, 1, 2}},
		{`a*+a`, "aaa", false, nil},
		{`(a)?(?(1)b|c)`, "c ab", false, []int{0, 1, -1, -1}},
		{`(?a:\w+)`, "é1", false, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			c, err := CompilePython(tt.pattern, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.re2, c.RE2 != nil)
			if c.RE2 != nil {
				assert.Equal(t, tt.want, c.RE2.FindStringSubmatchIndex(tt.text))
				return
			}
			m, err := c.BT.Find([]rune(tt.text), 0, Search, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.want, m)
		})
	}
}

func TestBacktrackBudget(t *testing.T) {
	c, err := CompilePython(`(a+)+(?!a)b`, 0)
	require.NoError(t, err)
	_, err = c.BT.Find([]rune(strings.Repeat("a", 40)+"c"), 0, Search, 50e6)
	require.ErrorIs(t, err, ErrMatchTimeout)
	assert.NotContains(t, err.Error(), "aaaa", "the error does not carry the text")
}

func TestParseTemplate(t *testing.T) {
	names := []string{"", "w", ""}
	tmpl, err := ParseTemplate(`\g<2>-\g<w>-\g<0>\n\1\\`, 2, names)
	require.NoError(t, err)
	var b strings.Builder
	tmpl.Expand(&b, func(g int) string { return []string{"all", "one", "two"}[g] })
	assert.Equal(t, "two-one-all\none\\", b.String())
	for tmpl, want := range map[string]string{
		`\3`:    "invalid group reference 3 at position 1",
		`\q`:    `bad escape \q at position 0`,
		`\g<x>`: "unknown group name 'x'",
		`\g<1`:  "missing >, unterminated name at position 3",
	} {
		_, err := ParseTemplate(tmpl, 2, names)
		assert.EqualError(t, err, want, tmpl)
	}
}
