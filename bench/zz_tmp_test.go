package bench

import "testing"

func BenchmarkZZSeq(b *testing.B) {
	t, _ := Generate(KindNIAH, 1_000_000, 1, 0)
	s := t.Vars[0].Text()
	tok := tokenizer()
	for _, chunk := range []int{len(s), 1 << 20, 256 << 10, 64 << 10} {
		var parts []string
		rest := s
		for len(rest) > chunk {
			c := safeCut(rest, chunk)
			if c <= 0 { break }
			parts = append(parts, rest[:c]); rest = rest[c:]
		}
		parts = append(parts, rest)
		b.Run(FormatSize(chunk), func(b *testing.B) {
			for b.Loop() {
				for _, p := range parts { tok.Count(p) }
			}
		})
	}
}
