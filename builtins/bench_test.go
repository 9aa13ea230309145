package builtins_test

import (
	"context"
	"testing"

	"go.starlark.net/starlark"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/internal/benchtext"
	"github.com/rlmhq/rlm/sandbox"
)

// benchSearch times one search() call over the 100 MB corpus through the
// sandbox, all matches (max_results=None), in MB/s. Compare with
// BenchmarkMemoryScan in internal/pyre and with
// builtins/testdata/bench/search.py (CPython) run on the same machine.
func benchSearch(b *testing.B, code string) {
	text := benchtext.Text()
	sess := sandbox.New(sandbox.Config{Predeclared: builtins.Predeclared(&builtins.Host{})})
	sess.SetGlobal("text", starlark.String(text))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := sess.Exec(context.Background(), code); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchLiteral(b *testing.B) {
	benchSearch(b, `n = len(search(text, "magic number", max_results=None))`)
}

func BenchmarkSearchLiteralRare(b *testing.B) {
	benchSearch(b, `n = len(search(text, "number is 4242", max_results=None))`)
}

func BenchmarkSearchRegexPrefixed(b *testing.B) {
	benchSearch(b, `n = len(search(text, r"magic number \d+", regex=True, max_results=None))`)
}

func BenchmarkSearchRegexClass(b *testing.B) {
	benchSearch(b, `n = len(search(text, r"[Mm]agic number", regex=True, max_results=None))`)
}

func BenchmarkSearchRegexFoldCase(b *testing.B) {
	benchSearch(b, `n = len(search(text, r"(?i)magic number", regex=True, max_results=None))`)
}

func BenchmarkSearchFirst10(b *testing.B) {
	benchSearch(b, `n = len(search(text, r"(?i)number is \d+", regex=True))`)
}
