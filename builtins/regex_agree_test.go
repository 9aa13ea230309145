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
// re.M), and the same patterns are rejected with CPython's message. Patterns
// RE2 cannot run (lookaround, backreferences) run on the backtracking engine
// in both (expected values from CPython 3.11).
func TestSearchAndReAgree(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"text": agreeText})
	e.run(`import re
def via_search(p):
    try:
        return [r["match"] for r in search(text, p, regex=True, max_results=None)]
    except ValueError as err:
        msg = str(err).removeprefix("search: ")
        return "error: " + msg[msg.index('": ') + 3:]
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
		{`(?P<n>a)(?P=n)`, `[]`},
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
		{`foo(?=bar)`, `[]`},
		{`foo(?!bar)`, `['foo', 'foo', 'foo', 'foo']`},
		{`(?<=_)foo`, `['foo']`},
		{`(?<!_)foo`, `['foo', 'foo', 'foo']`},
		{`(?<=\d )\w+`, `['in']`},
		{`\bfoo(?=\b)`, `['foo']`},
		{`(foo)\1`, `['foofoo']`},
		{`(foo){2,3}`, `['foofoo']`},
		{`o{,2}f`, `['f', 'f', 'f', 'oof', 'f']`},
		{`fo++`, `['foo', 'foo', 'foo', 'foo']`},
		{`(?>foo)`, `['foo', 'foo', 'foo', 'foo']`},
		{`\bfoo\b`, `['foo']`},
		{`[]x]|\]`, `[]`},
		{`(unclosed`, `error: missing ), unterminated subpattern at position 0`},
		{`a(?i)b`, `error: global flags not at the start of the expression at position 1`},
		{`a{2,1}`, `error: min repeat greater than max repeat at position 2`},
		{`NUMBER|number|indented`, `['number', 'NUMBER', 'indented']`},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			code := fmt.Sprintf("p = %q\na, b = via_search(p), via_re(p)\nprint(a == b)\nprint(a)\nprint(b)", tt.pattern)
			out := strings.Split(strings.TrimSuffix(e.run(code), "\n"), "\n")
			require.Len(t, out, 3)
			assert.Equal(t, "True", out[0], "search: %s\nre:     %s", out[1], out[2])
			assert.Equal(t, tt.want, out[1])
		})
	}
}
