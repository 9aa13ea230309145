package sandbox

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/pylib"
)

// TestClassSeq: for patterns that are a sequence of counted classes
// needing no backtracking, the sequence scan (classSeq) finds the
// matches and groups RE2 finds, on random ASCII, Unicode and invalid
// UTF-8 text and at the text's ends, also searching from every position
// and matching (re.match, re.fullmatch) at every position;
// patterns that would need backtracking do not take it.
func TestClassSeq(t *testing.T) {
	taken := []string{
		`\d{7}`, `[A-Z]{5}`, `(\d{4})-(\d{2})-(\d{2})`, `\b[A-Z][a-z]+\b`, `\d{2,4}`, `\d{2,}`, `[a-z]+\d+`,
		`\b\d+\b`, `x\d*y`, `[A-Z][a-z]*`, `(\w+)@(\w+)`, `a.c`, `\b[a-z]{3}\b`, `é\d{2}`,
		`[^\d\s]+\d`, `\d\d\d`, `((\d)(\d))-`, `\s\d{1,3}`, `\b\d{3,5}`, `[\u0660-\u0669]{2}`, `(?s:.)\d`,
		`\w{3}`, `a|b`, `\b[0-9]+\b\d`, `\b[a-z]+\b-`,
	}
	notTaken := []string{
		`\d+\d`, `\d*\b`, `[a-z]+[a-z0-9]`, `\w+\b`, `(?i)abc`, `\d+?`, `\b\w+\b\d`, `ab|cd`, `(\d)+`, `^\d+`, `\d+$`,
		`\d*`, `[a-z]*x`, `\B\d+`, `\s*\b`, `(?:ab)+`, `\d+[a-z]?`,
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"0", "1", "7", "9", "a", "b", "c", "x", "y", "z", "A", "B", "Z", "-", " ", "\n", "_", "@",
		"é", "É", "٣", "日", "\xff", "\xc3", "2024-01-13", "1234567"}
	texts := []string{"", "1", "1234567", "12345678901234", "ABCDE", "Hello World", "é12", "٣٣", "x12y", "a\xffc", "\n"}
	for range 300 {
		var b strings.Builder
		for range rng.Intn(40) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	check := func(pat string, want bool) {
		r, err := pylib.CompileRegexp(pat, 0)
		require.NoError(t, err, pat)
		assert.Equal(t, want, r.Seq != nil, "%s takes the sequence scan", pat)
		if r.Seq == nil {
			return
		}
		for _, s := range texts {
			var got [][]int
			r.Seq.Each(s, func(m []int) bool {
				got = append(got, m)
				return true
			})
			assert.Equal(t, r.Re.FindAllStringSubmatchIndex(s, -1), got, "%s on %q", pat, s)
		}
		// A search from each position (re.search(s, pos), finditer's
		// later matches) finds what the general path finds.
		general, err := pylib.CompileRegexp(pat, 0)
		require.NoError(t, err)
		general.Seq = nil
		for _, s := range texts {
			for pos := 0; pos <= len(s); pos++ {
				assert.Equal(t, general.FindIndex(s, pos), r.FindIndex(s, pos), "%s on %q from %d", pat, s, pos)
				// re.match and re.fullmatch at pos (a character's start:
				// Python's positions count characters).
				if pos < len(s) && !utf8.RuneStart(s[pos]) {
					continue
				}
				for _, full := range []bool{false, true} {
					assert.Equal(t, general.MatchIndex(s, pos, full), r.MatchIndex(s, pos, full), "%s on %q at %d (full %v)", pat, s, pos, full)
				}
			}
		}
	}
	for _, pat := range taken {
		check(pat, true)
	}
	for _, pat := range notTaken {
		check(pat, false)
	}
}

// TestClassSeqThroughRe: re.findall, finditer, sub and split with
// sequence patterns give CPython's results (the expected output is
// CPython 3's for the same script).
func TestClassSeqThroughRe(t *testing.T) {
	s := New(Config{})
	r, err := s.Exec(t.Context(), `import re
t = "2024-01-13 id=1234567 [ABCDE] Hello World x12345678y 99-12-31 2023-1-5 ABCDEFGHIJ Zed\n" * 3
print(len(re.findall(r"\d{7}", t)), re.findall(r"\d{7}", t)[:3])
print(re.findall(r"[A-Z]{5}", t))
print([(m.group(1), m.span(2), m.groups()) for m in re.finditer(r"(\d{4})-(\d{2})-(\d{2})", t)])
print(re.findall(r"\b[A-Z][a-z]+\b", t), re.findall(r"(\d{2,4})-(\d+)", t))
print(re.sub(r"\b\d{2,}\b", "#", t[:60]), re.split(r"[A-Z]{3}", t[:80]))
print(re.findall(r"\d{7}", "1234567"), re.findall(r"\b[a-z]+\b", "abc"), re.findall(r"\d{3}", ""))
`)
	require.NoError(t, err)
	assert.Equal(t, `6 ['1234567', '1234567', '1234567']
['ABCDE', 'ABCDE', 'FGHIJ', 'ABCDE', 'ABCDE', 'FGHIJ', 'ABCDE', 'ABCDE', 'FGHIJ']
[('2024', (5, 7), ('2024', '01', '13')), ('2024', (91, 93), ('2024', '01', '13')), ('2024', (177, 179), ('2024', '01', '13'))]
['Hello', 'World', 'Zed', 'Hello', 'World', 'Zed', 'Hello', 'World', 'Zed'] [('2024', '01'), ('99', '12'), ('2023', '1'), ('2024', '01'), ('99', '12'), ('2023', '1'), ('2024', '01'), ('99', '12'), ('2023', '1')]
#-#-# id=# [ABCDE] Hello World x12345678y #-#-3 ['2024-01-13 id=1234567 [', 'DE] Hello World x12345678y 99-12-31 2023-1-5 ', '', '', '']
['1234567'] ['abc'] []
`, r.Output)
}

// TestClassSeqWithPrefilter: on texts long enough for the literal
// prefilter, the sequence matcher scanning the lines holding a candidate
// (and the rest whole once most lines hold one) finds RE2's matches, all
// of them or the first n.
func TestClassSeqWithPrefilter(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	line := func(dense bool) string {
		parts := []string{"id=1234567", "id=", "x_id=42", "timeout abc", "timeoutx", "QZX9", "é id=7", "2024-01-13", "Zed", "-"}
		var b strings.Builder
		for range rng.Intn(6) {
			if dense || rng.Intn(20) == 0 {
				b.WriteString(parts[rng.Intn(len(parts))])
			} else {
				b.WriteString("filler words here")
			}
			b.WriteString(" ")
		}
		return b.String()
	}
	var dense, sparse strings.Builder
	for dense.Len() < 600<<10 {
		dense.WriteString(line(true) + "\n")
	}
	for sparse.Len() < 600<<10 {
		sparse.WriteString(line(false) + "\n")
	}
	for _, pat := range []string{`id=(\d+)`, `\bid=\d{2,}`, `timeout [a-z]+`, `QZX\d+\b`, `(\d{4})-(\d{2})-(\d{2})`, `[A-Z][a-z]+ id`} {
		r, err := pylib.CompileRegexp(pat, 0)
		require.NoError(t, err, pat)
		require.NotNil(t, r.Seq, pat)
		for _, s := range []string{dense.String(), sparse.String()} {
			require.True(t, r.CanPrefilter(s, 0), pat)
			for _, n := range []int{-1, 3} {
				assert.Equal(t, r.Re.FindAllStringSubmatchIndex(s, n), r.FindAllIndex(s, n), "%s, n = %d", pat, n)
			}
		}
	}
}
