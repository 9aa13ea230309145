package pyre

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTranslateTable(t *testing.T) {
	tests := []struct {
		in    string
		flags Flags
		want  string // translated expression, or an error substring
		err   bool
	}{
		{`abc\Z`, 0, `abc\z`, false},
		{`\Aabc`, 0, `\Aabc`, false},
		{`a{,3}`, 0, `a{0,3}`, false},
		{`a{2,5}`, 0, `a{2,5}`, false},
		{`(?P<x>a)`, IgnoreCase | Multiline, `(?im)(?P<x>a)`, false},
		{`(?P<x>a)`, DotAll, `(?s)(?P<x>a)`, false},
		{`(?i)a(?m)b(?s)c`, 0, `(?i)a(?m)b(?s)c`, false},
		{`a b # comment`, Verbose, `ab`, false},
		{`(?x) a  b`, 0, `ab`, false},
		{`(?ix) a  b`, 0, `(?i)ab`, false},
		{`[]a]`, 0, `[\]a]`, false},
		{`[^]a]`, 0, `[^\]a]`, false},
		{`[[:alpha:]]`, 0, `[\[:alpha:]]`, false},
		{`\u00e9`, 0, `\x{00e9}`, false},
		{`\d\s\b`, 0, `\d[\t-\r\x1c-\x20\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]\b`, false},
		{`[\s]\S`, ASCII, `[\t-\r ][^\t-\r ]`, false},
		{`\w+\W`, 0, `[\p{L}\p{N}_]+[^\p{L}\p{N}_]`, false},
		{`[\w-]`, 0, `[\p{L}\p{N}_-]`, false},
		{`\w+`, ASCII, `\w+`, false},
		{`a(?#note)b`, 0, `ab`, false},
		{`(a)\1`, 0, `uses a backreference (\1)`, true},
		{`(?P<n>a)(?P=n)`, 0, `uses a named backreference`, true},
		{`a(?=b)`, 0, `uses a lookahead assertion (?=...)`, true},
		{`a(?!b)`, 0, `uses a lookahead assertion (?!...)`, true},
		{`(?<=a)b`, 0, `uses a lookbehind assertion (?<=...)`, true},
		{`(?<!a)b`, 0, `uses a lookbehind assertion (?<!...)`, true},
		{`(?>ab)`, 0, `uses an atomic group`, true},
		{`a*+`, 0, `uses a possessive quantifier (*+)`, true},
		{`a{2}+`, 0, `uses a possessive quantifier (}+)`, true},
		{`(?(1)a|b)`, 0, `uses a conditional group`, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.in, "/", int(tt.flags)), func(t *testing.T) {
			got, err := Translate(tt.in, tt.flags)
			if tt.err {
				require.ErrorIs(t, err, ErrUnsupported)
				assert.Contains(t, err.Error(), tt.want)
				assert.Contains(t, err.Error(), fmt.Sprintf("regular expression %q", tt.in))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			_, _, err = CompileRE(tt.in, tt.flags)
			require.NoError(t, err)
		})
	}
}

func TestCompileREInvalid(t *testing.T) {
	_, _, err := CompileRE(`(a`, Multiline)
	require.EqualError(t, err, `invalid regular expression "(a": missing closing )`)
	_, _, err = CompileRE(`a(?#x`, 0)
	require.EqualError(t, err, `invalid regular expression "a(?#x": missing ), unterminated comment`)
}

func ExampleTranslate() {
	expr, _ := Translate(`(?P<word>\w+)\Z`, IgnoreCase)
	fmt.Println(expr)
	_, err := Translate(`foo(?=bar)`, 0)
	fmt.Println(err)
	// Output:
	// (?i)(?P<word>[\p{L}\p{N}_]+)\z
	// regular expression "foo(?=bar)" uses a lookahead assertion (?=...), which is not supported by RE2, a linear-time engine; match more broadly and filter the matches in code
}
