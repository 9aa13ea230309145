package pyre

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/benchtext"
)

func benchText() string { return benchtext.Text() }

func benchMatch(b *testing.B, m *Matcher) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n = 0
		m.FindAll(text, -1, func(s, e int) bool { n++; return true })
	}
	b.ReportMetric(float64(n), "matches")
}

func mustCompile(b *testing.B, p string) *Matcher {
	m, err := Compile(p)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkMemoryScan is the baseline: one pass over the text for a byte
// that does not occur.
func BenchmarkMemoryScan(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if strings.IndexByte(text, 0) >= 0 {
			b.Fatal("unexpected NUL")
		}
	}
}

func BenchmarkLiteral(b *testing.B)     { benchMatch(b, Literal("magic number")) }
func BenchmarkLiteralRare(b *testing.B) { benchMatch(b, Literal("number is 4242")) }
func BenchmarkStringsIndex(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for pos := 0; ; {
			i := strings.Index(text[pos:], "magic number")
			if i < 0 {
				break
			}
			pos += i + 1
		}
	}
}
func BenchmarkPrefixed(b *testing.B)  { benchMatch(b, mustCompile(b, `magic number \d+`)) }
func BenchmarkClass(b *testing.B)     { benchMatch(b, mustCompile(b, `[Mm]agic number`)) }
func BenchmarkFoldCase(b *testing.B)  { benchMatch(b, mustCompile(b, `(?i)magic number`)) }
func BenchmarkAlternate(b *testing.B) { benchMatch(b, mustCompile(b, `magic number|NUMBER is`)) }
func BenchmarkNoLiteral(b *testing.B) { benchMatch(b, mustCompile(b, `\d{4}`)) }

// BenchmarkPlainRegexp is Go's regexp over the whole text, without the
// prefilter, for the unprefixed pattern.
func BenchmarkPlainRegexpClass(b *testing.B) {
	if testing.Short() {
		b.Skip("slow")
	}
	text := benchText()
	re := regexp.MustCompile(`(?m)[Mm]agic number`)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		re.FindAllStringIndex(text, -1)
	}
}
