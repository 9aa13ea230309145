package starlark

import (
	"strings"
	"sync"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

// TestDictLiteralTemplate: dict literals of constant keys made in a loop
// (the second and later copied from their site's template) are the dicts
// made key by key: contents, order, lookups, growth and deletion after,
// independence from each other, repeated keys, int keys across the int32
// edge, and step counts.
func TestDictLiteralTemplate(t *testing.T) {
	opts := &syntax.FileOptions{TopLevelControl: true, GlobalReassign: true, While: true}
	for _, c := range []struct{ src, want string }{
		{`r = [{"id": i, "v": i % 3, "name": "n" + str(i)} for i in range(4)]`,
			`[{"id": 0, "v": 0, "name": "n0"}, {"id": 1, "v": 1, "name": "n1"}, {"id": 2, "v": 2, "name": "n2"}, {"id": 3, "v": 0, "name": "n3"}]`},
		// lookups, membership, keys of the same hash and of others
		{"rs = [{\"a\": i, \"b\": -i, \"c\": 0, \"d\": 1} for i in range(3)]\n" +
			"r = [(x[\"a\"], x[\"b\"], x.get(\"d\"), \"c\" in x, \"z\" in x, x.get(\"e\", 9)) for x in rs]",
			`[(0, 0, 1, True, False, 9), (1, -1, 1, True, False, 9), (2, -2, 1, True, False, 9)]`},
		// a copy changed does not change the others or the template
		{"rs = []\nfor i in range(3):\n    x = {\"k\": i, \"j\": 0}\n    x[\"extra\"] = i\n    x.pop(\"k\")\n    x[\"j\"] += 1\n    rs.append(x)\nr = (rs, [{\"k\": i, \"j\": 0} for i in range(2)])",
			`([{"j": 1, "extra": 0}, {"j": 1, "extra": 1}, {"j": 1, "extra": 2}], [{"k": 0, "j": 0}, {"k": 1, "j": 0}])`},
		// growth past the literal's table, then lookups of all keys
		{"rs = [{\"a\": 1, \"b\": 2} for i in range(2)]\nfor x in rs:\n    for j in range(30):\n        x[j] = j\nr = [(len(x), x[\"a\"], x[\"b\"], x[29], list(x)[:3]) for x in rs]",
			`[(32, 1, 2, 29, ["a", "b", 0]), (32, 1, 2, 29, ["a", "b", 0])]`},
		// repeated keys: the later value, every time
		{`r = [{"a": i, "b": 0, "a": -i} for i in range(3)]`, `[{"a": 0, "b": 0}, {"a": -1, "b": 0}, {"a": -2, "b": 0}]`},
		{`r = [{1: i, 1: 2} for i in range(2)]`, `[{1: 2}, {1: 2}]`},
		// int keys, in and past the int32 range
		{`r = [{1: i, -7: 0, 2147483648: "big", 4294967296 * 4294967296: "bigger"} for i in range(3)]`,
			`[{1: 0, -7: 0, 2147483648: "big", 18446744073709551616: "bigger"}, {1: 1, -7: 0, 2147483648: "big", 18446744073709551616: "bigger"}, {1: 2, -7: 0, 2147483648: "big", 18446744073709551616: "bigger"}]`},
		{"r = [{2147483648: i}[2147483648] for i in range(3)]", `[0, 1, 2]`},
		// the same literal in a function called many times
		{"def rec(i):\n    return {\"id\": i, \"sq\": i * i}\nr = [rec(i) for i in range(3)]",
			`[{"id": 0, "sq": 0}, {"id": 1, "sq": 1}, {"id": 2, "sq": 4}]`},
		// a value that fails: the error, not a dict
		{"r = []\nfor i in range(3):\n    r.append({\"a\": 1, \"b\": 10 // (1 - i)})", "error"},
	} {
		g, err := ExecFileOptions(opts, &Thread{}, "f.star", c.src, Universe)
		if c.want == "error" {
			if err == nil || !strings.Contains(err.Error(), "division by zero") {
				t.Errorf("%s: err %v, want division by zero", c.src, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := g["r"].String(); got != c.want {
			t.Errorf("%s: %s, want %s", c.src, got, c.want)
		}
	}
}

// TestDictLiteralTemplateSteps: a literal copied from its template counts
// the steps of one made key by key (the first, which makes the
// template): the first iteration of the loop counts as many as the second.
func TestDictLiteralTemplateSteps(t *testing.T) {
	steps := func(n int) uint64 {
		th := &Thread{}
		src := "r = [{\"id\": i, \"v\": i % 7, \"name\": \"n\"} for i in range(" + MakeInt(n).String() + ")]"
		if _, err := ExecFile(th, "f.star", src, Universe); err != nil {
			t.Fatal(err)
		}
		return th.Steps
	}
	s0, s1, s2 := steps(0), steps(1), steps(2)
	if s1-s0 != s2-s1 {
		t.Errorf("steps for 0, 1, 2 iterations: %d, %d, %d: the first dict counts %d, the copy %d", s0, s1, s2, s1-s0, s2-s1)
	}
}

// TestDictLiteralTemplateUsed: a literal's site gets its template when it
// first runs and the dicts it makes after are copies (no template for
// repeated keys or more than 4 entries).
func TestDictLiteralTemplateUsed(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{`r = [{"id": i, "v": 0} for i in range(3)]`, true},
		{`r = [{"a": i, "a": 0} for i in range(3)]`, false},
		{`r = [{"a": i, "b": 0, "c": 1, "d": 2, "e": 3} for i in range(3)]`, false},
	} {
		opts := &syntax.FileOptions{}
		_, prog, err := SourceProgramOptions(opts, "f.star", c.src, func(string) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := prog.Init(&Thread{}, Universe); err != nil {
			t.Fatal(err)
		}
		f := prog.compiled.Toplevel
		s, _ := f.RLMDictKV.Load().(*dictKVSites)
		used := s != nil && len(s.sites) == 1 && s.sites[0].ok
		if used != c.want {
			t.Errorf("%s: template %v, want %v", c.src, used, c.want)
		}
	}
}

// TestDictLiteralTemplateThreads: threads running the same literal at
// once (under -race) all get right dicts while its template is made.
func TestDictLiteralTemplateThreads(t *testing.T) {
	const src = "def rec(i):\n    return {\"id\": i, \"half\": i // 2, \"k\": \"x\"}\n"
	g, err := ExecFile(&Thread{}, "f.star", src, Universe)
	if err != nil {
		t.Fatal(err)
	}
	rec := g["rec"]
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			th := &Thread{}
			for i := 0; i < 200; i++ {
				v, err := Call(th, rec, Tuple{MakeInt(i)}, nil)
				if err != nil {
					errs <- err.Error()
					return
				}
				d := v.(*Dict)
				id, _, _ := d.Get(String("id"))
				half, _, _ := d.Get(String("half"))
				if d.Len() != 3 || id == nil || id.String() != MakeInt(i).String() || half.String() != MakeInt(i/2).String() {
					errs <- d.String()
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
