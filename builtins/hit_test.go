package builtins_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hitAsDictCases are snippets of what model code does with a search()
// hit h; TestSearchHitIsADict runs each on a hit and on the dict literal
// it stands for, and they must print the same or fail the same way.
var hitAsDictCases = []string{
	`print(h)`,
	`print(repr(h), str(h))`,
	`print(h["line"], h["offset"], h["match"], h["preview"])`,
	`print(h["nope"])`,
	`print(h[["unhashable"]])`,
	`print(h[1])`,
	`print(h.get("line"), h.get("nope"), h.get("nope", 7), h.get(key="line"))`,
	`print(h.get())`,
	`print("line" in h, "nope" in h, 1 in h, "line" not in h)`,
	`print(len(h), bool(h), not h)`,
	`print(list(h), [k for k in h], sorted(h), tuple(h))`,
	`print(h.keys(), h.values(), h.items())`,
	`print(list(h.keys()), list(h.values()), list(h.items()))`,
	`for k, v in h.items(): print(k, v)`,
	`print(h == d, d == h, h != d, d != h, h == dict(d), h == {}, h == 1, h == [h])`,
	`print([h] == [d], (h, 1) == (d, 1), h in [d], d in [h], [d].index(h))`,
	`print(h < d)`,
	`print(d < h)`,
	`print(type(h), type(h) == dict, type(h) is dict, isinstance(h, dict), type(h).__name__)`,
	`print(isinstance(h, (list, dict)), isinstance(h, str))`,
	`import json; print(json.dumps(h), json.dumps([h, h], indent=1), json.loads(json.dumps(h)) == h)`,
	`import json; print(json.dumps(h, sort_keys=True))`,
	`print(dict(h), dict(h, extra=1), dict(h) is h, {**h}, {**h, "line": 0})`,
	`print(h | {"x": 1}, {"x": 1} | h)`,
	`def f(line, offset, match, preview): return line + offset
print(f(**h))`,
	`c = h.copy(); c["line"] = 0; print(c, h)`,
	`h["line"] = 99; print(h, h["line"], len(h))`,
	`h["new"] = [1]; print(h, len(h), list(h))`,
	`del h["match"]; print(h, len(h))`,
	`del h["nope"]`,
	`print(h.pop("line"), h)`,
	`print(h.pop("nope", "dflt"), h.setdefault("line", 5), h.setdefault("z", 5), h)`,
	`h.update(line=1, w=2); print(h)`,
	`h.update({"line": 3}); print(h)`,
	`print(h.popitem(), h)`,
	`h.clear(); print(h, len(h), bool(h))`,
	`h |= {"x": 2}; print(h)`,
	`print({h: 1})`,
	`print(hash(h))`,
	`print(set([h]))`,
	`print(f"{h}", "%s" % h, "{}".format(h), "{line}:{match}".format(**h), "{0[line]}".format(h))`,
	`print("%(line)d %(match)s" % h)`,
	`print("{line} {match}".format_map(h))`,
	`print(sorted([h, d], key=lambda r: r["offset"]), max([h], key=lambda r: r["line"]))`,
	`print(h.__class__ if hasattr(h, "__class__") else None, hasattr(h, "get"), hasattr(h, "items"), hasattr(h, "nope"))`,
	`print(getattr(h, "get")("line"), h.get.__name__ if hasattr(h.get, "__name__") else "")`,
	`print(h.nope)`,
	`print(dir(h) == dir({}))`,
	`import copy; c = copy.deepcopy(h); c["line"] = -1; print(c, h, copy.copy(h) == h)`,
	`print(str(h).count("'"), repr([h]), str((h,)))`,
	`print(h + h)`,
	`print(h * 2)`,
	`print(list(enumerate(h)), list(zip(h, h.values())), list(reversed(h)))`,
	`print(any(h), all(h), min(h), max(h), "".join(h), ",".join(h.keys()))`,
	`x = h; x["line"] = 7; print(h["line"], x is h)`,
	`for k in h: h[k] = 0
print(h)`,
	`print(h.fromkeys(["a"]), dict.fromkeys(h))`,
	`print(list(map(lambda k: h[k], h)))`,
	`import sys; print(sys.getsizeof(h) > 0)`,
	`SUBMIT(answer=h)`,
	`print(h())`,
	`print(int(h))`,
	`print(h < 1)`,
	`print(h in h)`,
	`print(len(h, 1))`,
	`print(list(iter(h)), next(iter(h)))`,
	`print(str(h) == repr(h), ascii(h), "%r" % (h,), format(h))`,
	`print(h.get("line", 0) + 1, h.get("preview", "")[:10], h["preview"].split()[0])`,
	`print([k for k, v in h.items() if v == "ERROR"], {k: v for k, v in h.items()} == h)`,
	`print(set(h) == {"line", "offset", "match", "preview"}, frozenset(h.keys()) == set(d.keys()))`,
	`print(h.keys() == d.keys(), h.items() == d.items(), list(h.values()) == list(d.values()))`,
	`print(sorted(h.items(), key=lambda kv: str(kv[1])))`,
	`print(vars(h))`,
	`print(h.__len__())`,
	`print(h.__getitem__("line"))`,
	`print(h.__contains__("line"))`,
	// differential audit (session 5): more of what models do with a hit
	`d.update(h); e = {}; e |= h; print(d, e, {**d, **h}, {**h, **d} == h)`,
	`h.update(d); print(h, len(h))`,
	`print([*h], [*h.values()], *h, sep="|")`,
	`a, b, c, x = h; print(a, b, c, x)`,
	`print(list(zip(*h.items())), dict(sorted(h.items())), dict(reversed(list(h.items()))))`,
	`print(type(h)(h), dict.get(h, "line"), dict.keys(h), dict.items(h) == h.items())`,
	`print(sorted(h, key=lambda k: str(h[k])), {k: h[k] for k in sorted(h)}, max(h, key=len))`,
	`print("line" in h.keys(), 2 in h.values(), ("line", 2) in h.items(), ("line", 3) in h.items())`,
	`print(h == h, h is h, h != h, [h].count(d), h.get("line") is h.get("line"))`,
	`from collections import Counter, OrderedDict, defaultdict; print(Counter(h.keys()), OrderedDict(h), defaultdict(int, h))`,
	`del h["line"]; h["line"] = 1; print(list(h), h)`,
	`for i, (k, v) in enumerate(h.items()): print(i, k, repr(v))`,
	`import json; print(json.dumps(h, indent=2, sort_keys=True), json.dumps({"hits": [h]}, separators=(",", ":")))`,
	`print(h["line"] + h["offset"], h["preview"].upper(), h["match"] * 2, h["preview"][h["preview"].find(h["match"]):])`,
	`import copy; c = copy.copy(h); c["line"] = 0; print(c == h, h["line"])`,
	`print(h.items() - {("line", 2)}, h.keys() & {"line", "x"}, h.keys() | {"z"})`,
	`print(h.setdefault("line"), h.pop("match"), h.get("match", "gone"), len(h), h)`,
	`print(str(h.keys()), repr(h.values()), str(h.items())[:20])`,
}

// TestSearchHitIsADict: a search() hit behaves exactly as the dict of its
// entries for everything model code does with it.
func TestSearchHitIsADict(t *testing.T) {
	const lit = `{'line': 2, 'offset': 33, 'match': 'ERROR', 'preview': '2024-01-01 ERROR disk full on /dev/sda'}`
	for _, code := range hitAsDictCases {
		t.Run(code, func(t *testing.T) {
			outcome := func(setup string) string {
				e := newEnv(t, nil, map[string]any{"log": logText})
				e.run(setup + "\nd = " + lit)
				out, err := e.exec(code)
				if err != nil {
					return fmt.Sprintf("%s\nerror: %v", out, err)
				}
				return out
			}
			want := outcome("h = " + lit)
			got := outcome(`h = search(log, "ERROR")[0]`)
			assert.Equal(t, want, got)
		})
	}
}

// Hits with groups, the last hit with more, and hits compared with each
// other print and compare as their dicts.
func TestSearchHitVariants(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"log": logText})
	tests := []struct{ code, want string }{
		{`print(search(log, r"(\d+)-(\d+)", regex=True, max_results=2))`,
			"[{'line': 1, 'offset': 0, 'match': '2024-01', 'groups': ('2024', '01'), 'preview': '2024-01-01 INFO start'}, {'line': 2, 'offset': 22, 'match': '2024-01', 'groups': ('2024', '01'), 'preview': '2024-01-01 ERROR disk full on /dev/sda', 'more': 3}]"},
		{
			`hs = search(log, r"(\d+)-(\d+)", regex=True); print(hs[0]["groups"], hs[0].get("groups"), "groups" in hs[0], len(hs[0]), list(hs[0]))`,
			"('2024', '01') ('2024', '01') True 5 ['line', 'offset', 'match', 'groups', 'preview']",
		},
		{
			`a, b = search(log, "2024"), search(log, "2024"); print(a == b, a[0] == b[1], a[0] != b[0], a[0] == dict(b[0]))`,
			"True False False True",
		},
		{`a = search(log, "2024"); b = [dict(h) for h in a]; print(a == b, b == a)`, "True True"},
		{
			`h = search(log, "2024", max_results=1)[0]; print(h["more"], len(h), list(h))`,
			"4 5 ['line', 'offset', 'match', 'preview', 'more']",
		},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want+"\n", e.run(tt.code))
		})
	}
	// Offsets count code points; previews escape control characters.
	e = newEnv(t, nil, map[string]any{"s": "héllo wörld\tx\nnaïve wörld"})
	require.Equal(t, `[(1, 6, 'héllo wörld\tx'), (2, 20, 'naïve wörld')]`+"\n",
		e.run(`print([(h["line"], h["offset"], h["preview"]) for h in search(s, "wörld")])`))
	require.Equal(t, "wörld wörld\n", e.run(`print(*[s[h["offset"]:h["offset"]+5] for h in search(s, "wörld")])`))
}

// TestSearchItemHitIsADict: the hits of a list of strs (plain and regex
// with groups) behave as the dicts they stand for.
func TestSearchItemHitIsADict(t *testing.T) {
	setups := []struct{ hit, lit string }{
		{`search(items, "ERROR")[0]`, `{'index': 1, 'preview': 'x ERROR\ty'}`},
		{`search(items, r"E(R+)O", regex=True)[0]`, `{'index': 1, 'match': 'ERRO', 'groups': ('RR',), 'preview': 'x ERROR\ty'}`},
		{`search(items, r"ER+O", regex=True)[0]`, `{'index': 1, 'match': 'ERRO', 'preview': 'x ERROR\ty'}`},
		{`search(byname, "ERROR")[0]`, `{'key': 'b', 'preview': 'x ERROR\ty'}`},
		{`search(items, "ERROR", max_results=1)[0]`, `{'index': 1, 'preview': 'x ERROR\ty', 'more': 1}`},
		{`search(items, "42")[0]`, `{'index': 2, 'preview': '42'}`},
	}
	codes := []string{
		`print(h, len(h), list(h), h.get("index"), h.get("key"), h.get("match"), h.get("groups"), h["preview"])`,
		`print(h == d, [h] == [d], h.items(), type(h) is dict)`,
		`import json; print(json.dumps(h))`,
		`h["x"] = 1; print(h, len(h))`,
		`print(h.pop("preview"), h)`,
		`print(h["nope"])`,
	}
	for _, s := range setups {
		for _, code := range codes {
			t.Run(s.hit+" "+code, func(t *testing.T) {
				outcome := func(setup string) string {
					e := newEnv(
						t,
						nil,
						map[string]any{"items": []any{"a", "x ERROR\ty", int64(42), "ERROR"}, "byname": dict("a", "no", "b", "x ERROR\ty")},
					)
					e.run("h = " + setup + "\nd = " + s.lit)
					out, err := e.exec(code)
					if err != nil {
						return fmt.Sprintf("%s\nerror: %v", out, err)
					}
					return out
				}
				assert.Equal(t, outcome(s.lit), outcome(s.hit))
			})
		}
	}
}
