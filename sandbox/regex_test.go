package sandbox

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/internal/pyre"
)

// TestPrefilterMatchesRegexp checks that the literal prefilter finds
// exactly what Go's regexp finds on a large text.
func TestPrefilterMatchesRegexp(t *testing.T) {
	text := benchText(prefilterMin * 8)
	patterns := []string{
		`magic number \d+`, `[Mm]agic number`, `(?i)magic NUMBER`, `magic number`, `ERROR disk (\w+) on node (\d+)`,
		`(?m)^2024-01-0\d 0000\d\d ERROR`, `\d{6} alpha`, `node \d+$`, `(?i)MAGIC number (\d)(\d)?`, `full|magic`,
		`magic number|NUMBER is`, `(?i)(magic|node) \d`, `\d{4}`, `(?i)kelvin|stop`, `[Nn]ode \d+`,
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

// TestCompileRegexpErrors checks that constructs RE2 lacks are re.error
// exceptions wrapping both sentinels, with the shared translator's message.
func TestCompileRegexpErrors(t *testing.T) {
	tests := []struct {
		in    string
		flags int
		want  string
	}{
		{`(a)\1`, 0, `uses a backreference (\1)`},
		{`(?P<n>a)(?P=n)`, 0, "uses a named backreference"},
		{`a(?=b)`, 0, "uses a lookahead assertion (?=...)"},
		{`a(?!b)`, 0, "uses a lookahead assertion (?!...)"},
		{`(?<!a)b`, 0, "uses a lookbehind assertion (?<!...)"},
		{`(?<=a)b`, reIgnoreCase, "uses a lookbehind assertion (?<=...)"},
		{`(?>ab)`, 0, "uses an atomic group"},
		{`a++`, 0, "uses a possessive quantifier"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := CompileRegexp(tt.in, tt.flags)
			var pe *PyError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "re.error", pe.Kind)
			assert.Contains(t, pe.Msg, tt.want)
			assert.Contains(t, pe.Msg, "RE2")
			assert.ErrorIs(t, err, ErrUnsupported)
			assert.ErrorIs(t, err, pyre.ErrUnsupported)
		})
	}
	_, err := CompileRegexp(`(a`, 0)
	var pe *PyError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "re.error", pe.Kind)
	assert.Contains(t, pe.Msg, `invalid regular expression "(a": missing closing )`)
	assert.NotErrorIs(t, err, ErrUnsupported)
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

// With pos, ^, \A and \b see the text before pos, as in CPython 3.11
// (expected values from CPython).
func TestSearchFromPos(t *testing.T) {
	big := strings.Repeat("filler line\n", prefilterMin/8) // past the prefilter threshold
	tests := []struct{ code, want string }{
		{`print(re.compile(r"(?m)^b").search("ab", 1), re.compile(r"\bb").search("ab", 1))`, "None None\n"},
		{`print(re.compile(r"\Ab").search("ab", 1), re.compile(r"b").search("ab", 1).span())`, "None (1, 2)\n"},
		{`print(re.compile(r"\Bb").search("ab", 1).span(), re.compile(r"\bb|c").search("abc", 1).span())`, "(1, 2) (2, 3)\n"},
		{`print(re.compile(r"^").search("ab", 1), re.compile(r"(?m)^").search("ab", 1), re.compile(r"\b").search("ab ", 1).span())`, "None None (2, 2)\n"},
		{`print(re.compile(r"(?m)^b").search("a\nb", 2).span(), re.compile(r"\bb").search("a b", 2).span())`, "(2, 3) (2, 3)\n"},
		{`print(re.compile(r"^b").match("ab", 1), re.compile(r"b").match("ab", 1).span())`, "None (1, 2)\n"},
		{`print(re.compile(r"\bb").fullmatch("ab", 1), re.compile(r"b").fullmatch("ab", 1).span())`, "None (1, 2)\n"},
		{`print(re.compile(r"(b)(c)?").search("abcé", 1).groups(), re.compile(r"é").search("abé", 2).span())`, "('b', 'c') (2, 3)\n"},
		{`p = re.compile(r"(?m)^x\w+"); print(p.search("ax1\nx2" + big, 1).group(), p.search("xa x3\n" + big, 2))`, "x2filler None\n"},
		{`p = re.compile(r"\bnode\d"); print(p.search(big + "anode1 node2", len(big) + 1).group())`, "node2\n"},
	}
	for _, tt := range tests {
		res, err := New(Config{}).Exec(context.Background(), "import re\nbig = "+strconv.Quote(big)+"\n"+tt.code)
		require.NoError(t, err, tt.code)
		assert.Equal(t, tt.want, res.Output, tt.code)
	}
}
