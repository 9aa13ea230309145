package grep

import (
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The benchmark corpus: a 1 MB block of pseudo-English lines from a fixed
// LCG, repeated to 100 MB; every 2,000th line of the block is the needle
// line. builtins/testdata/bench/search.py builds the same text for CPython.
var benchWords = strings.Fields("the of and to in is was for on that with as by at from this be are or an it his which but not were " +
	"error warning info debug request response user server client value number magic Magic data time system file")

const benchNeedle = "The Magic number is 4242 and the magic NUMBER is 17"

func benchBlock() string {
	var b strings.Builder
	x := uint64(12345)
	for line := 0; b.Len() < 1<<20; line++ {
		if line%2000 == 1999 {
			b.WriteString(benchNeedle)
			b.WriteByte('\n')
			continue
		}
		x = x*6364136223846793005 + 1442695040888963407
		n := 4 + int(x>>33)%12
		for j := 0; j < n; j++ {
			x = x*6364136223846793005 + 1442695040888963407
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(benchWords[int(x>>33)%len(benchWords)])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

var benchText = sync.OnceValue(func() string { return strings.Repeat(benchBlock(), 100) })

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
