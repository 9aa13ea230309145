package starlark

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/internal/compile"
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

// TestDictLiteralConstantKeys: literals whose keys are all string or
// int literals (MAKEDICTKV: keys and values pushed, the dict made at
// once) keep upstream's results, order of evaluation, errors and step
// counts; literals with other keys, or more than 16 entries, are made
// entry by entry as before.
func TestDictLiteralConstantKeys(t *testing.T) {
	seventeen := "{"
	for i := 0; i < 17; i++ {
		seventeen += fmt.Sprintf("%d: %d, ", i, i)
	}
	seventeen += "}"
	for _, c := range []struct {
		src   string
		want  string
		steps uint64
	}{
		{`r = {"id": 1, "v": 2, "name": "n"}`, `{"id": 1, "v": 2, "name": "n"}`, 16},
		{`r = {1: 2, "1": 3, 1: 4}`, `{1: 4, "1": 3}`, 16},
		{"log = []\ndef f(x):\n    log.append(x)\n    return x\nr = ({\"a\": f(1), \"b\": f(2), \"a\": f(3)}, log)", `({"a": 3, "b": 2}, [1, 2, 3])`, 50},
		{"r = [{\"k\": i, \"sq\": {\"v\": i * i}} for i in range(3)]", `[{"k": 0, "sq": {"v": 0}}, {"k": 1, "sq": {"v": 1}}, {"k": 2, "sq": {"v": 4}}]`, 71},
		{"k = \"x\"\nr = {k: 1, \"y\": 2}", `{"x": 1, "y": 2}`, 14},
		{"r = {-1: 1, 2: 2}", `{-1: 1, 2: 2}`, 13},
		{"r = " + seventeen, "", 72},
		{"r = {\"a\": 1}\nr[\"b\"] = 2\nr.pop(\"a\")", `{"b": 2}`, 19},
	} {
		thread := &Thread{}
		g, err := ExecFileOptions(&syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}, thread, "f.star", c.src, Universe)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		want := c.want
		if want == "" {
			want = seventeen[:len(seventeen)-3] + "}"
		}
		if got := g["r"].String(); got != want {
			t.Errorf("%s: %s, want %s", c.src, got, want)
		}
		if thread.ExecutionSteps() != c.steps {
			t.Errorf("%s: %d steps, want %d", c.src, thread.ExecutionSteps(), c.steps)
		}
	}
	// An error in a value keeps its position; no dict is made.
	_, err := ExecFileOptions(&syntax.FileOptions{}, &Thread{}, "f.star", "def f(x):\n    return {\"a\": 1, \"b\": 1 // x}\nr = f(0)", Universe)
	if err == nil {
		t.Fatal("no error")
	}
	if got, want := err.(*EvalError).Backtrace(), "f.star:2:28: in f\nError: floored division by zero"; !containsTail(got, want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", got, want)
	}
}

// TestDictLiteralMakesDictKV: the compiler does emit MAKEDICTKV (the
// test above passes without it).
func TestDictLiteralMakesDictKV(t *testing.T) {
	_, prog, err := SourceProgramOptions(&syntax.FileOptions{}, "f.star", "def f(x):\n    return {\"a\": x, 1: 2}\n", func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if code := prog.compiled.Functions[0].Code; !strings.Contains(string(code), string([]byte{byte(compile.MAKEDICTKV), 2})) {
		t.Errorf("f compiles to %v, without MAKEDICTKV 2", code)
	}
}
