package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/py"
	"github.com/rlmhq/rlm/sandbox/internal/pylib"
)

// TestClassRun: for patterns that are one class repeated (C+), the run
// scan (classRun) finds the matches RE2 finds, on ASCII, Unicode and
// invalid UTF-8 text; other patterns do not take it.
func TestClassRun(t *testing.T) {
	texts := []string{
		"",
		"alpha beta_2, gamma-3\nδέλτα 42 ÉCOLE école 日本語テキスト x",
		strings.Repeat("2024-01-13 1500000 the magic number 7; ", 50),
		"a\xffb\xc3 c\xe2\x82 d",
		"____",
		"   ,,,\n\n",
		"é",
	}
	for _, pat := range []string{`\w+`, `[a-z]+`, `\d+`, `[^,\n]+`, `[A-Za-z0-9_-]+`, `(?i)[a-z]+`, `\S+`, `[éa-z]+`, `[\u4e00-\u9fff]+`, `[^a]+`, `(?a)\w+`, `\w+?`, `(\w+)`, `\w*`, `a+`, `\b\w+\b`, `\b[a-z]+\b`, `\b[A-Za-z0-9_]+\b`} {
		r, err := pylib.CompileRegexp(pat, 0)
		require.NoError(t, err, pat)
		want := map[string]bool{`(?a)\w+`: false, `\w+?`: false, `(\w+)`: false, `\w*`: false, `a+`: false, `\b[a-z]+\b`: false}
		taken, listed := want[pat]
		assert.Equal(t, !listed || taken, r.Run != nil, "%s takes the run scan", pat)
		if r.Run == nil || r.Re == nil {
			continue
		}
		for _, s := range texts {
			if r.Run.AsciiText && !py.IsASCII(s) {
				continue // eachMatch does not take the scan there
			}
			var got [][]int
			r.Run.Each(s, func(m []int) bool {
				got = append(got, append([]int(nil), m...))
				return true
			})
			assert.Equal(t, r.Re.FindAllStringIndex(s, -1), got, "%s on %q", pat, s)
		}
	}
}

// TestClassRunThroughRe: re.findall, finditer, sub and split with a C+
// pattern give CPython's results, also with a count and after a stop.
func TestClassRunThroughRe(t *testing.T) {
	s := New(Config{})
	r, err := s.Exec(t.Context(), `import re
t = "Hello, wörld! It's 2024: naïve café_au_lait 42x"
print(re.findall(r"\w+", t))
print([m.span() for m in re.finditer(r"[a-z]+", t)][:4])
print(re.sub(r"\d+", "#", t), re.sub(r"[A-Z]+", "_", t, count=1))
print(re.split(r"[^\w']+", t))
print(re.search(r"\d+", t).group(), len(re.findall(r"\S+", t * 1000)))
print(re.findall(r"\b\w+\b", t), re.findall(r"\b\w+\b", "it's a_b 12 x-y"))`)
	require.NoError(t, err)
	assert.Equal(t, `['Hello', 'wörld', 'It', 's', '2024', 'naïve', 'café_au_lait', '42x']
[(1, 5), (7, 8), (9, 12), (15, 16)]
Hello, wörld! It's #: naïve café_au_lait #x _ello, wörld! It's 2024: naïve café_au_lait 42x
['Hello', 'wörld', "It's", '2024', 'naïve', 'café_au_lait', '42x']
2024 6001
['Hello', 'wörld', 'It', 's', '2024', 'naïve', 'café_au_lait', '42x'] ['it', 's', 'a_b', '12', 'x', 'y']
`, r.Output)
}
