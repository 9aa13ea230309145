package builtins_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const agreeText = "Magic number 42 in naïve café\nmagic NUMBER 7: déjà vu_2\n  indented line\nfoo foofoo bar_foo\nend"

// TestSearchAndReAgree checks that search(x, pat, regex=True) and the re
// module share one translator: the same Python patterns are accepted, with
// the same matches (search works line by line, so re runs on each line with
// re.M), and the same patterns are rejected with the same message.
func TestSearchAndReAgree(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"text": agreeText})
	e.run(`import re
def via_search(p):
    try:
        return [r["match"] for r in search(text, p, regex=True, max_results=None)]
    except ValueError as err:
        return "error: " + str(err).removeprefix("search: ")
def via_re(p):
    try:
        return [m.group() for line in text.split("\n") for m in re.finditer(p, line, re.M)]
    except re.error as err:
        return "error: " + str(err)
`)
	tests := []struct {
		pattern string
		want    string // matches (repr) or an error substring
	}{
		{`(?P<n>\w+) NUMBER`, `['magic NUMBER']`},
		{`(?P<n>a)(?P=n)`, `error: regular expression "(?P<n>a)(?P=n)" uses a named backreference`},
		{`\w+\Z`, `['café', 'vu_2', 'line', 'bar_foo', 'end']`},
		{`\A\w+`, `['Magic', 'magic', 'foo', 'end']`},
		{`\d+`, `['42', '7', '2']`},
		{`\w+é`, `['café', 'dé']`},
		{`d\w+`, `['déjà', 'dented']`},
		{`\s+line`, `[' line']`},
		{`\S+vu`, `[]`},
		{`(?i)magic number`, `['Magic number', 'magic NUMBER']`},
		{`(?m)^\w+`, `['Magic', 'magic', 'foo', 'end']`},
		{`(?s)c.f.`, `['café']`},
		{`(?x) magic \s NUMBER  # comment`, `['magic NUMBER']`},
		{`(?ix) magic \s number`, `['Magic number', 'magic NUMBER']`},
		{`foo(?=bar)`, `error: regular expression "foo(?=bar)" uses a lookahead assertion (?=...)`},
		{`foo(?!bar)`, `error: regular expression "foo(?!bar)" uses a lookahead assertion (?!...)`},
		{`(?<=_)foo`, `error: regular expression "(?<=_)foo" uses a lookbehind assertion (?<=...)`},
		{`(?<!_)foo`, `error: regular expression "(?<!_)foo" uses a lookbehind assertion (?<!...)`},
		{`(foo)\1`, `error: regular expression "(foo)\\1" uses a backreference (\1)`},
		{`(foo){2,3}`, `['foofoo']`},
		{`o{,2}f`, `['f', 'f', 'f', 'oof', 'f']`},
		{`fo++`, `error: regular expression "fo++" uses a possessive quantifier (++)`},
		{`(?>foo)`, `error: regular expression "(?>foo)" uses an atomic group (?>...)`},
		{`\bfoo\b`, `['foo']`},
		{`[]x]|\]`, `[]`},
		{`(unclosed`, `error: invalid regular expression "(unclosed": missing closing )`},
		{`a{2,1}`, `error: invalid regular expression "a{2,1}": invalid repeat count`},
		{`NUMBER|number|indented`, `['number', 'NUMBER', 'indented']`},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			code := fmt.Sprintf("p = %q\na, b = via_search(p), via_re(p)\nprint(a == b)\nprint(a)\nprint(b)", tt.pattern)
			out := strings.Split(strings.TrimSuffix(e.run(code), "\n"), "\n")
			require.Len(t, out, 3)
			assert.Equal(t, "True", out[0], "search: %s\nre:     %s", out[1], out[2])
			if strings.HasPrefix(tt.want, "error: ") {
				if !strings.HasPrefix(tt.want, "error: invalid") {
					assert.Contains(t, out[1], "which is not supported by RE2")
				}
				assert.Contains(t, out[1], tt.want)
			} else {
				assert.Equal(t, tt.want, out[1])
			}
		})
	}
}
