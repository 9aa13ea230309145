package starlark

import (
	"fmt"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestDictLiteralSized: dict literals (MAKEDICTN) keep Python's results:
// insertion order, a duplicate key's later value, growth past the
// literal's entries, deletion and clear.
func TestDictLiteralSized(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`r = {"id": 1, "v": 2, "name": "n"}`, `{"id": 1, "v": 2, "name": "n"}`},
		{`r = {1: 2, 1: 3}`, `{1: 3}`},
		{`r = {"a": 1, "b": 2, "c": 3, "a": 4, "b": 5}`, `{"a": 4, "b": 5, "c": 3}`},
		{"r = {\"a\": 1}\nfor i in range(20):\n    r[i] = i * i\nr = (len(r), r[19], r[\"a\"], list(r)[:3])", `(21, 361, 1, ["a", 0, 1])`},
		{"r = {\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4}\nr[\"e\"] = 5\nr.pop(\"a\")\nr[\"a\"] = 6", `{"b": 2, "c": 3, "d": 4, "e": 5, "a": 6}`},
		{"r = {\"a\": 1, \"b\": 2}\nr.clear()\nr[\"z\"] = 0", `{"z": 0}`},
		{"r = {%s}", ""},
		{"r = [{\"k\": i} for i in range(3)]", `[{"k": 0}, {"k": 1}, {"k": 2}]`},
	} {
		src := c.src
		want := c.want
		if want == "" { // a literal of 9 entries: the exactly sized table
			var b, w string
			for i := 0; i < 9; i++ {
				b += fmt.Sprintf("%d: %d, ", i, i+1)
				w += fmt.Sprintf(", %d: %d", i, i+1)
			}
			src, want = fmt.Sprintf(src, b), "{"+w[2:]+"}"
		}
		g, err := ExecFileOptions(&syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}, &Thread{}, "f.star", src, Universe)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if got := g["r"].String(); got != want {
			t.Errorf("%s: %s, want %s", src, got, want)
		}
	}
}

// TestNewDictOfAllocs: a literal of up to 4 entries is one allocation
// (the dict with its entries), however many of them it fills.
func TestNewDictOfAllocs(t *testing.T) {
	k, v := Value(String("k")), Value(MakeInt(1))
	allocs := testing.AllocsPerRun(100, func() {
		d := newDictOf(4)
		for _, key := range []Value{k, String("a"), String("b"), String("c")} {
			if err := d.SetKey(key, v); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 1 {
		t.Errorf("%v allocations for a 4-entry literal, want 1", allocs)
	}
}
