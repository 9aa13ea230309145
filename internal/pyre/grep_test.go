package pyre

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reference matches every line with the plain regexp, no prefilter.
func reference(t *testing.T, pattern, text string) [][2]int {
	t.Helper()
	re, _, err := CompileRE(pattern, Multiline)
	require.NoError(t, err)
	var out [][2]int
	ls := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		for _, loc := range re.FindAllStringIndex(body, -1) {
			out = append(out, [2]int{ls + loc[0], ls + loc[1]})
		}
		ls += len(line)
	}
	return out
}

func collect(m *Matcher, text string, limit int) [][2]int {
	var out [][2]int
	m.FindAll(text, limit, func(s, e int) bool {
		out = append(out, [2]int{s, e})
		return true
	})
	return out
}

var words = []string{"the", "magic", "Magic", "MAGIC", "number", "Number", "colour", "color", "ERROR", "error", "WARN",
	"foo", "food", "KELVIN", "\u212aelvin", "kelvin", "ſtop", "stop", "42", "2024-01-02", "é", "naïve", "a+b", "x.y", "\t", ""}

func randomText(r *rand.Rand, lines int) string {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		n := r.Intn(12)
		for j := 0; j < n; j++ {
			if j > 0 {
				b.WriteByte(" -:,"[r.Intn(4)])
			}
			b.WriteString(words[r.Intn(len(words))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestMatcherAgreesWithPlainRegexp(t *testing.T) {
	patterns := []string{
		`magic number`, `[Mm]agic number`, `(?i)magic number`, `(?i)magic`, `ERROR|WARN`, `(?i)error|warn`,
		`\bfoo\b`, `colou?r`, `\d+-\d+`, `\d{4}-\d\d-\d\d`, `(?i)kelvin`, `(?i)stop`, `^the`, `number$`, `^$`,
		`(?i)na[iï]ve`, `a\+b`, `x\.y`, `[Ff]oo[d]?`, `(magic|color) (number|foo)`, `(?i)(magic|colou?r)+`,
		`\w+`, `.`, `(?:ab)*`, `\d{4}`, `\d\d?`, `[0-9]+|x`, `(?i)x`, `[^ ]+ber`, `é`, `(?i)É`, `\t`, `(?i)M`, `[Mm]`,
	}
	r := rand.New(rand.NewSource(1))
	text := randomText(r, 3000)
	for _, p := range patterns {
		t.Run(p, func(t *testing.T) {
			m, err := Compile(p)
			require.NoError(t, err)
			want := reference(t, p, text)
			assert.Equal(t, want, collect(m, text, -1), "prefilter %s", m.Prefilter())
			if len(want) > 3 {
				assert.Equal(t, want[:3], collect(m, text, 3))
			}
		})
	}
}

func TestPrefilterLiterals(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{`magic number`, `"magic number"`},
		{`[Mm]agic number`, `"agic number"`},
		{`(?i)magic number`, `(?i)"magic number"`},
		{`ERROR|WARN`, `"ERROR" | "WARN"`},
		{`\d+ errors?`, `" error"`},
		{`(?i)kelvin`, `(?i)"elvin"`},
		{`\w+`, `none`},
		{`\d{4}`, `class "0123456789"`},
		{`[a-z]+`, `none`},
		{`[A-Z]\w+Exception`, `"Exception"`},
		{`(?i)status: (ok|fail)`, `(?i)"tatu"`},
	}
	for _, tt := range tests {
		m, err := Compile(tt.pattern)
		require.NoError(t, err)
		assert.Equal(t, tt.want, m.Prefilter(), tt.pattern)
	}
}

func TestLiteral(t *testing.T) {
	text := "abcabc\nxabc\n"
	assert.Equal(t, [][2]int{{0, 3}, {3, 6}, {8, 11}}, collect(Literal("abc"), text, -1))
	assert.Equal(t, [][2]int{{0, 3}}, collect(Literal("abc"), text, 1))
	assert.Empty(t, collect(Literal(""), text, -1))
	assert.Equal(t, [][2]int{{5, 8}}, collect(Literal("c\nx"), text, -1))
}

func TestExplicitNewlineMatchesAcrossLines(t *testing.T) {
	m, err := Compile(`end\nstart`)
	require.NoError(t, err)
	assert.Equal(t, [][2]int{{2, 11}}, collect(m, "anend\nstart", -1))
}

func TestTranslate(t *testing.T) {
	got, err := Translate(`(?P<y>\d+)\Z[\Z]`, 0)
	require.NoError(t, err)
	assert.Equal(t, `(?P<y>\d+)\z[\Z]`, got)
	for _, p := range []string{`foo(?=bar)`, `(?!x)`, `(?<=a)b`, `(?<!a)b`, `(a)\1`, `(?P<x>a)(?P=x)`} {
		_, err := Translate(p, 0)
		require.ErrorIs(t, err, ErrUnsupported, p)
	}
	_, err = Compile(`(unclosed`)
	require.EqualError(t, err, `invalid regular expression "(unclosed": missing ), unterminated subpattern at position 0`)
}

func TestCatastrophicPatternIsLinear(t *testing.T) {
	m, err := Compile(`(a+)+$`)
	require.NoError(t, err)
	s, _ := m.First(strings.Repeat("a", 50000) + "b")
	assert.Equal(t, -1, s)
}

// TestMatcherEmptyFirst: a pattern that can prefer an empty match (a lazy
// quantifier or an empty alternative) takes, after an empty match, the
// non-empty match at the same place, as CPython 3.11's re.finditer does
// (spans from re.finditer(pattern, text, re.M)).
func TestMatcherEmptyFirst(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          [][2]int
	}{
		{`a??`, "aa,b x", [][2]int{{0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}}},
		{`a*?`, "aa,b x", [][2]int{{0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}}},
		{`(,|)`, "aa,b x", [][2]int{{0, 0}, {1, 1}, {2, 3}, {3, 3}, {4, 4}, {5, 5}, {6, 6}}},
		{`\s*?`, "aa,b x", [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {4, 5}, {5, 5}, {6, 6}}},
		{`x|`, "aa,b x", [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 6}, {6, 6}}},
		{`b??`, "abba", [][2]int{{0, 0}, {1, 1}, {1, 2}, {2, 2}, {2, 3}, {3, 3}, {4, 4}}},
		{"(\n|)", "a\nb", [][2]int{{0, 0}, {1, 2}, {2, 2}, {3, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			m, err := Compile(tt.pattern)
			require.NoError(t, err)
			assert.Equal(t, tt.want, collect(m, tt.text, -1))
			assert.Equal(t, tt.want[:2], collect(m, tt.text, 2))
		})
	}
}
