package pyjson

import (
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
	alphabet := []string{"a", "b", " ", "\n", "\t", `"`, `\`, "\x00", "\x01", "\x1f", "\x7f", "é", "€", "😀", "\xff", "\xc3", "\x80", "\xed\xa0\x80", "~", "!"}
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
