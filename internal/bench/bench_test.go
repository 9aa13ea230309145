package bench

import (
	"testing"
)

// BenchmarkGenerate measures generating 1M-token tasks.
func BenchmarkGenerate(b *testing.B) {
	for _, kind := range Kinds() {
		b.Run(kind, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				t, err := Generate(kind, 1_000_000, uint64(i), 0)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(t.Vars[0].Text())))
			}
		})
	}
}

// BenchmarkCountTokens compares the chunked parallel exact count with the
// tokenizer's single pass (the baseline) on a 1M-token text.
func BenchmarkCountTokens(b *testing.B) {
	t, err := Generate(KindNIAH, 1_000_000, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	s := t.Vars[0].Text()
	b.Run("single", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			tokenizer().Count(s)
		}
	})
	b.Run("chunked", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			CountTokens(s)
		}
	})
}
