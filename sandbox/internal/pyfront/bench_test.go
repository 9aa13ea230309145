package pyfront

import (
	"os"
	"testing"
)

// BenchmarkCompile measures Compile on a corpus snippet, against the
// upstream Starlark parser on Starlark-compatible source as a baseline.
func BenchmarkCompile(b *testing.B) {
	src, err := os.ReadFile("../../../testdata/compat/100_step_by_step_exploration.py")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pyfront", func(b *testing.B) {
		for b.Loop() {
			if _, err := Compile("b.py", string(src), Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	star := "x = 1\nfor i in range(10):\n    x += i\nprint(x)\n"
	b.Run("pyfront-small", func(b *testing.B) {
		for b.Loop() {
			if _, err := Compile("b.py", star, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("upstream-small", func(b *testing.B) {
		for b.Loop() {
			if _, err := FileOptions.Parse("b.py", star, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
