package pyjson

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// encodedSize is StringSize the slow way: the length encodeString writes.
func encodedSize(s string) int64 {
	var c countWriter
	_ = encodeString(&c, s, false)
	return c.n
}

// TestStringSize: the counted size is the length of the encoding, for
// every byte at every position of a word and for random strings of
// escapes, control characters, non-ASCII and invalid UTF-8.
func TestStringSize(t *testing.T) {
	cases := []string{"", "a", `"`, `\`, "\x7f", "\x00", "\x1f", " ", "é", "\u2028", "😀", "\xff", "\xe2\x80", "\xef\xbf\xbd",
		"plain ascii text of more than eight bytes", "line\n\tindented \"quoted\" \\ back", strings.Repeat("é\n", 40)}
	for c := range 256 {
		for pos := range 9 {
			cases = append(cases, strings.Repeat("x", pos)+string([]byte{byte(c)})+strings.Repeat("y", 17-pos))
		}
	}
	alphabet := []string{
		"a",
		"b",
		" ",
		"\n",
		"\t",
		`"`,
		`\`,
		"\x00",
		"\x01",
		"\x1f",
		"\x7f",
		"é",
		"€",
		"😀",
		"\xff",
		"\xc3",
		"\x80",
		"\xed\xa0\x80",
		"~",
		"!",
	}
	r := rand.New(rand.NewPCG(30, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, want := StringSize(s), encodedSize(s); got != want {
			t.Fatalf("StringSize(%q) = %d, the encoding is %d bytes", s, got, want)
		}
	}
}

func BenchmarkStringSize(b *testing.B) {
	var src strings.Builder
	for i := 0; src.Len() < 16<<10; i++ {
		src.WriteString("\t\tif err := decode(\"value\", x); err != nil { // é\n")
	}
	s := src.String()
	for _, bc := range []struct {
		name string
		size func(string) int64
	}{{"table", StringSize}, {"encode", encodedSize}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				bc.size(s)
			}
		})
	}
}

// TestFloatSize: the measured size is the length of the encoding, and
// measuring a plain decimal allocates nothing.
func TestFloatSize(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 3))
	fs := []float64{
		0,
		math.Copysign(0, -1),
		1,
		-1,
		0.5,
		1e-4,
		9.99e-5,
		1e16,
		9999999999999998,
		1e100,
		5e-324,
		math.MaxFloat64,
		math.NaN(),
		math.Inf(1),
		math.Inf(-1),
		76.398,
		-180.0,
		1.5e15,
	}
	for range 10000 {
		fs = append(fs, r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), math.Round(r.Float64()*1e5)/1e3)
	}
	for _, f := range fs {
		if got, want := FloatSize(f), int64(len(formatFloat(f))); got != want {
			t.Fatalf("FloatSize(%v) = %d, the encoding %q is %d bytes", f, got, formatFloat(f), want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { FloatSize(76.398) }); n != 0 {
		t.Errorf("FloatSize allocates %v times", n)
	}
}

// sizeBuilder records the sizes the decoder hands with each string.
type sizeBuilder struct {
	goBuilder
	strs  *[]string
	sizes *[]int64
}

func (b sizeBuilder) SizedString(s string, size int64) any {
	*b.strs, *b.sizes = append(*b.strs, s), append(*b.sizes, size)
	return s
}

// TestDecodeStringSizes: the size the decoder reads from a string's text
// (SizedStrings) is StringSize of the string, whatever its escapes.
func TestDecodeStringSizes(t *testing.T) {
	parts := []string{"a", "bc", " ", "é", "€", "😀", "\x7f", `\"`, `\\`, `\/`, `\n`, `\r`, `\t`, `\b`, `\f`,
		`\u0000`, `\u001f`, `\u000a`, `\u0022`, `\u005c`, `\u002f`, `\u007f`, `\u00e9`, `\u20ac`, `\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800x`, `\uD83D\uDE00`}
	r := rand.New(rand.NewPCG(30, 4))
	var doc strings.Builder
	doc.WriteString("[")
	for i := range 20000 {
		if i > 0 {
			doc.WriteString(", ")
		}
		doc.WriteString(`"`)
		for range r.IntN(12) {
			doc.WriteString(parts[r.IntN(len(parts))])
		}
		doc.WriteString(`"`)
	}
	doc.WriteString("]")
	var strs []string
	var sizes []int64
	_, err := DecodeWith[any]([]byte(doc.String()), sizeBuilder{strs: &strs, sizes: &sizes}, DecodeOptions{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(strs) != 20000 {
		t.Fatalf("%d strings", len(strs))
	}
	for i, s := range strs {
		if want := StringSize(s); sizes[i] != want {
			t.Fatalf("string %q: size %d, StringSize %d", s, sizes[i], want)
		}
	}
}
