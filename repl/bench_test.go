package repl

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
)

// jsonVarInput writes a deterministic JSON input of about size bytes:
// "sources", a dict of paths to Go-like source texts (escapes on every
// line), or "records", a list of records with nested fields.
func jsonVarInput(b *testing.B, kind string, size int) string {
	r := rand.New(rand.NewPCG(30, 2))
	words := []string{"func", "return", "if", "err", "nil", "for", "range", "ctx", "value", "append", "fmt.Errorf", "é", "—"}
	var v any
	n := 0
	switch kind {
	case "sources":
		files := map[string]string{}
		for i := 0; n < size; i++ {
			var src strings.Builder
			for src.Len() < 4000+r.IntN(20000) {
				src.WriteString(strings.Repeat("\t", r.IntN(3)))
				for range 2 + r.IntN(10) {
					src.WriteString(words[r.IntN(len(words))] + " ")
				}
				if r.IntN(5) == 0 {
					src.WriteString(`// "quoted" \ comment`)
				}
				src.WriteByte('\n')
			}
			files[fmt.Sprintf("pkg%d/file_%05d.go", i%10, i)] = src.String()
			n += src.Len() + 30
		}
		v = files
	case "records":
		var recs []any
		for i := 0; n < size; i++ {
			recs = append(recs, map[string]any{"id": i, "name": fmt.Sprintf("user%d", i), "active": r.IntN(2) == 0,
				"score": float64(r.IntN(100000)) / 1000, "tags": words[:r.IntN(4)],
				"address": map[string]any{"city": words[r.IntN(len(words))], "geo": []float64{r.Float64(), -r.Float64()}}})
			n += 180
		}
		v = recs
	}
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), kind+".json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkLoadJSONVar: a JSON variable loaded as rlm exec loads it (its
// outline, then its interpreter values), its document parsed twice
// (twice: the outline, then the values decoded from the text) or once
// (once: LoadOptions.Values, the values made in the outline's pass).
//
//	go test -run '^$' -bench LoadJSONVar ./repl/
func BenchmarkLoadJSONVar(b *testing.B) {
	for _, in := range []struct {
		kind string
		size int
	}{{"sources", 8 << 20}, {"records", 4 << 20}} {
		path := jsonVarInput(b, in.kind, in.size)
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, once := range []bool{false, true} {
			name := in.kind + "/twice"
			opts := rlmctx.LoadOptions{}
			if once {
				name, opts.Values = in.kind+"/once", JSONValues
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(fi.Size())
				b.ReportAllocs()
				for b.Loop() {
					v, _, err := rlmctx.LoadVar(context.Background(), rlmctx.VarSpec{Name: "d", Source: path}, opts)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := InterpVars([]*rlmctx.Variable{v}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkNewExec: a new REPL and one small step, what rlm serve does
// for every request (allocations are the figure to watch).
//
//	go test -run '^$' -bench NewExec ./repl/
func BenchmarkNewExec(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		r, err := New(Config{Host: &builtins.Host{}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Exec(context.Background(), "x = 1\nprint(x)"); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
