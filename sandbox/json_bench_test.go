package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// jsonBenchDoc is a ~200 KB JSON document of the kind models load: a list
// of records with strings (some non-ASCII and escaped), ints, floats,
// booleans, nulls and nested lists and objects.
func jsonBenchDoc() string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 1000; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(
			&b,
			`{"id": %d, "name": "user %d caf\u00e9", "score": %d.%d, "active": %v, "tags": ["a", "b\n%d", "\u00fcber"], "meta": {"n": null, "ratio": %de-3, "deep": [[%d, {"k": "v"}]]}, "text": "lorem ipsum dolor sit amet, \"quoted\" text %d"}`,
			i,
			i,
			i%100,
			i%7,
			i%2 == 0,
			i,
			i,
			i,
			i,
		)
	}
	b.WriteString("]")
	return b.String()
}

// BenchmarkJSON measures json.loads and json.dumps (compact, indented and
// ASCII-escaped) on jsonBenchDoc in the sandbox.
func BenchmarkJSON(b *testing.B) {
	doc := jsonBenchDoc()
	for _, bc := range []struct{ name, code string }{
		{"loads", "v = json.loads(doc)"},
		{"dumps", "s = json.dumps(v)"},
		{"dumps-indent", "s = json.dumps(v, indent=2, sort_keys=True)"},
		{"dumps-unicode", "s = json.dumps(v, ensure_ascii=False)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := New(Config{})
			s.SetGlobal("doc", starlark.String(doc))
			ctx := context.Background()
			if _, err := s.Exec(ctx, "v = json.loads(doc)"); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(doc)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Exec(ctx, bc.code); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
