package sandbox

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLowerASCII(t *testing.T) {
	src := "Hello, WORLD! @[`{ AZaz09 Ünïcode ZzAa"
	dst := make([]byte, len(src))
	lowerASCII(dst, src)
	var want strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 32
		}
		want.WriteByte(c)
	}
	assert.Equal(t, want.String(), string(dst))
}

// TestPrefilterMatchesRegexp checks that the literal prefilter finds
// exactly what Go's regexp finds on a large text.
func TestPrefilterMatchesRegexp(t *testing.T) {
	text := benchText(prefilterMin * 8)
	patterns := []string{
		`magic number \d+`, `[Mm]agic number`, `(?i)magic NUMBER`, `magic number`, `ERROR disk (\w+) on node (\d+)`,
		`(?m)^2024-01-0\d 0000\d\d ERROR`, `\d{6} alpha`, `node \d+$`, `(?i)MAGIC number (\d)(\d)?`, `full|magic`,
	}
	for _, p := range patterns {
		t.Run(p, func(t *testing.T) {
			r, err := CompileRegexp(p, 0)
			require.NoError(t, err)
			std := regexp.MustCompile(p)
			assert.Equal(t, std.FindAllStringSubmatchIndex(text, -1), r.FindAllIndex(text, -1))
			assert.Equal(t, std.FindStringSubmatchIndex(text), r.FindIndex(text, 0))
			assert.Equal(t, std.FindAllStringSubmatchIndex(text, 3), r.FindAllIndex(text, 3))
		})
	}
	r, err := CompileRegexp(`no such thing`, reIgnoreCase)
	require.NoError(t, err)
	assert.Nil(t, r.FindIndex(text, 0))
	assert.Empty(t, r.FindAllIndex(text, -1))
}

func TestTranslatePattern(t *testing.T) {
	tests := []struct {
		in    string
		flags int
		want  string
		err   string
	}{
		{`abc\Z`, 0, `abc\z`, ""},
		{`a{,3}`, 0, `a{0,3}`, ""},
		{`(?P<x>a)`, reIgnoreCase | reMultiline, `(?im)(?P<x>a)`, ""},
		{`a b # comment`, reVerbose, `ab`, ""},
		{`(?x) a  b`, 0, `ab`, ""},
		{`[]a]`, 0, `[\]a]`, ""},
		{`\u00e9`, 0, `\x{00e9}`, ""},
		{`(a)\1`, 0, "", "backreferences"},
		{`a(?=b)`, 0, "", "lookahead"},
		{`(?<!a)b`, 0, "", "lookbehind"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.in, tt.flags), func(t *testing.T) {
			got, err := translatePattern(tt.in, tt.flags)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Contains(t, err.Error(), "RE2")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Without MULTILINE, Python's $ also matches just before a final newline
// (expected values from CPython 3.11).
func TestDollarBeforeFinalNewline(t *testing.T) {
	tests := []struct{ code, want string }{
		{`print(re.search(r"\w+$", "abc def\n").group())`, "def\n"},
		{`print(re.match(r"^\w+$", "abc\n") is not None, re.fullmatch(r"abc$", "abc\n"))`, "True None\n"},
		{`print(re.findall(r"\d+$", "1 22\n"), re.findall(r"x$", "x\nx\n"), re.findall(r"x$", "x\nx\n", re.M))`, "['22'] ['x'] ['x', 'x']\n"},
		{`print(re.sub(r"$", "!", "ab\n"), re.sub(r"\s$", "_", "a \n"))`, "ab!\n! a__\n"},
		{`print(re.search(r"(?m)b$", "ab\nc") is not None, re.search(r"b$", "ab\nc"))`, "True None\n"},
		{`print(re.split(r"$", "a\n"), bool(re.search(r"[$]", "a$")))`, "['a', '\\n', ''] True\n"},
	}
	for _, tt := range tests {
		res, err := New(Config{}).Exec(context.Background(), tt.code)
		require.NoError(t, err, tt.code)
		assert.Equal(t, tt.want, res.Output, tt.code)
	}
}
