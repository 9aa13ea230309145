package builtins_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/sandbox"
)

const logText = `2024-01-01 INFO start
2024-01-01 ERROR disk full on /dev/sda
2024-01-02 WARN Magic number mismatch
2024-01-03 error: magic NUMBER 42 rejected
2024-01-04 INFO done`

func TestSearchString(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"log": logText})
	tests := []struct{ code, want string }{
		{`print(search(log, "ERROR"))`,
			"[{'line': 2, 'offset': 33, 'match': 'ERROR', 'preview': '2024-01-01 ERROR disk full on /dev/sda'}]"},
		{`print([(r["line"], r["offset"]) for r in search(log, "2024-01-0")])`,
			"[(1, 0), (2, 22), (3, 61), (4, 99), (5, 142)]"},
		{`print([r["line"] for r in search(log, "2024", max_results=2)])`, "[1, 2]"},
		{`print(len(search(log, "2024", max_results=None)))`, "5"},
		{`print([r["match"] for r in search(log, r"[Mm]agic \w+", regex=True)])`, "['Magic number', 'magic NUMBER']"},
		{`print([r["line"] for r in search(log, r"(?i)magic number", regex=True)])`, "[3, 4]"},
		{`print([r["match"] for r in search(log, r"\w+$", regex=True)])`, "['start', 'sda', 'mismatch', 'rejected', 'done']"},
		{`print([r["line"] for r in search(log, r"^2024-01-0[34]", regex=True)])`, "[4, 5]"},
		{
			`print([r["match"] for r in search(log, r"\b\d{2}\b", regex=True)])`,
			"['01', '01', '01', '01', '01', '02', '01', '03', '42', '01']",
		},
		{`print(search(log, "absent"))`, "[]"},
		{`r = search(log, "full")[0]; print(log[r["offset"]:r["offset"]+4])`, "full"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want+"\n", e.run(tt.code))
		})
	}
}

func TestSearchPreviewIsBoundedAndEscaped(t *testing.T) {
	long := strings.Repeat("x", 1000) + "NEEDLE\tend\x01" + strings.Repeat("y", 1000)
	e := newEnv(t, nil, map[string]any{"s": long + "\nnext"})
	out := e.run(`r = search(s, "NEEDLE")[0]
print(r["line"], r["offset"], len(r["preview"]) < 160)
print(r["preview"][:3], r["preview"][-3:])`)
	assert.Equal(t, "1 1000 True\n... ...\n", out)
	out = e.run(`print(search(s, "NEEDLE")[0]["preview"])`)
	assert.Contains(t, out, "NEEDLE\tend\\x01yyy")

	// The boundaries of the printable-ASCII fast path: DEL is escaped,
	// printable non-ASCII characters are kept.
	e = newEnv(t, nil, map[string]any{"s": "caf\u00e9 NEEDLE ~\x7f end\nNEEDLE ~ plain"})
	out = e.run(`print([r["preview"] for r in search(s, "NEEDLE")])`)
	assert.Equal(t, `['café NEEDLE ~\\x7f end', 'NEEDLE ~ plain']`+"\n", out)
}

func TestSearchCollections(t *testing.T) {
	e := newEnv(t, nil, map[string]any{
		"msgs": []any{
			dict("role", "user", "content", "where is the key?"),
			dict("role", "assistant", "content", "under the mat"),
			dict("role", "user", "content", "thanks"),
		},
		"lines": []any{"alpha", "beta key", "gamma", "key again"},
		"nums":  []any{int64(10), int64(42), int64(420)},
		"files": dict("a.py", "import os\nprint(1)", "b.py", "def key():\n    pass", "c.md", "# Key ideas"),
		"src": dict(
			"h.go",
			"// Register wires the API.\nfunc Register() {\n\tmux.HandleFunc(a)\n\tmux.Handle(b)\n}",
			"x.go",
			"package x",
		),
	})
	tests := []struct{ code, want string }{
		{`print(search(lines, "key"))`, "[{'index': 1, 'preview': 'beta key'}, {'index': 3, 'preview': 'key again'}]"},
		{`print(search(msgs, "key"))`, `[{'index': 0, 'field': 'content', 'preview': "{'role': 'user', 'content': 'where is the key?'}"}]`},
		{
			`print(search(msgs, "assistant"))`,
			`[{'index': 1, 'field': 'role', 'preview': "{'role': 'assistant', 'content': 'under the mat'}"}]`,
		},
		{`print(search(nums, "42"))`, "[{'index': 1, 'preview': '42'}, {'index': 2, 'preview': '420'}]"},
		{`print(search(files, "key"))`, "[{'key': 'b.py', 'line': 1, 'count': 1, 'preview': 'def key():\\n    pass'}]"},
		// An item of several lines: the line of its first match and how
		// many it holds; the groups are the first match's (also through
		// the backtracking engine, which a lookbehind needs).
		{`h = search(src, "mux.")[0]; print(h["key"], h["line"], h["count"])`, "h.go 3 2"},
		{
			`h = search(src, r"mux\.(\w+)", regex=True)[0]; print(h["line"], h["count"], h["match"], h["groups"])`,
			"3 2 mux.HandleFunc ('HandleFunc',)",
		},
		{
			`h = search(src, r"(?<=mux\.)(\w+)\(", regex=True)[0]; print(h["line"], h["count"], h["match"], h["groups"])`,
			"3 2 HandleFunc( ('HandleFunc',)",
		},
		{`print(search(src, "\tmux.Handle(")[0]["line"])`, "4"},
		{`print([r["key"] for r in search(files, r"(?i)^#? ?(def|key)", regex=True)])`, "['b.py', 'c.md']"},
		{`print(search(lines, "a", max_results=2))`, "[{'index': 0, 'preview': 'alpha'}, {'index': 1, 'preview': 'beta key', 'more': 2}]"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want+"\n", e.run(tt.code))
		})
	}
}

func TestSearchErrors(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"s": "text"})
	tests := []struct{ code, kind, want string }{
		{`search(s, 42)`, "TypeError", "search: pattern must be a str, got int"},
		{`search(s, "")`, "ValueError", "search: pattern must not be empty"},
		{`search(3.5, "x")`, "TypeError", "search: var must be a str, list, tuple or dict, got float"},
		{`search(s, "x", regex="yes")`, "TypeError", "search: regex must be True or False, got str"},
		{`search(s, "x", max_results=0)`, "ValueError", "search: max_results must be positive"},
		{
			`search(s, "(a", regex=True)`,
			"ValueError",
			"search: invalid regular expression \"(a\": missing ), unterminated subpattern at position 0",
		},
		{`search(s, "a(?i)b", regex=True)`, "ValueError", "global flags not at the start of the expression at position 1"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, err := e.exec(tt.code)
			assert.Contains(t, scriptErr(t, err, tt.kind), tt.want)
		})
	}
}

// search() runs lookaround and backreference patterns on the backtracking
// engine; a catastrophic one stops at the step's time limit.
func TestSearchBacktracking(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"s": "Dr. Who. Yes! ok\nthe the end é é"})
	assert.Equal(
		t,
		"[(1, 3, ' '), (1, 8, ' '), (1, 13, ' ')] [(2, 17, 'the the'), (2, 29, 'é é')]\n",
		e.run(
			`print([(r["line"], r["offset"], r["match"]) for r in search(s, r"(?<=[.!?])\s+", regex=True)], [(r["line"], r["offset"], r["match"]) for r in search(s, r"(\w+) \1", regex=True)])`,
		),
	)
}

func TestSearchCatastrophicPatternReturns(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"s": strings.Repeat("a", 50000) + "b"})
	require.Equal(t, "[]\n", e.run(`print(search(s, r"(a+)+$", regex=True))`))
}

// A list of dicts: field= searches one field, and the preview shows the
// whole item (cut when long) so the model need not fetch it.
func TestSearchDictItems(t *testing.T) {
	long := strings.Repeat("filler text ", 60) + "the secret is here " + strings.Repeat("more filler ", 60)
	e := newEnv(t, nil, map[string]any{
		"users": []any{
			dict("id", int64(1), "name", "Ada Lovelace", "email", "ada@example.org", "manager", "Grace"),
			dict("id", int64(2), "name", "Grace Hopper", "email", "grace@example.org", "manager", "Ada"),
			"not a dict",
		},
		"byid": dict("u1", dict("name", "Ada", "city", "London"), "u2", dict("name", "Alan", "city", "Wilmslow")),
		"docs": []any{dict("title", "Report", "body", long, "tags", []any{"a", "b"})},
	})
	tests := []struct{ code, want string }{
		// Without field=, Grace matches Ada's manager field first.
		{`print([(r["index"], r["field"]) for r in search(users, "Grace")])`, "[(0, 'manager'), (1, 'name')]"},
		{`print(search(users, "Grace", field="name"))`,
			`[{'index': 1, 'field': 'name', 'preview': "{'id': 2, 'name': 'Grace Hopper', 'email': 'grace@example.org', 'manager': 'Ada'}"}]`},
		{`print(search(users, "2", field="id")[0]["index"])`, "1"},
		{`print(search(users, "nobody", field="name"))`, "[]"},
		{`print(search(byid, "Wilmslow", field="city"))`,
			`[{'key': 'u2', 'field': 'city', 'preview': "{'name': 'Alan', 'city': 'Wilmslow'}"}]`},
		{`print(search(users, r"(\w+)@example", regex=True, field="email", max_results=1))`,
			`[{'index': 0, 'field': 'email', 'match': 'ada@example', 'groups': ('ada',), 'preview': "{'id': 1, 'name': 'Ada Lovelace', 'email': 'ada@example.org', 'manager': 'Grace'}", 'more': 1}]`},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want+"\n", e.run(tt.code))
		})
	}

	// A long item: every field is shown, long values cut, the matching one
	// around the match.
	p := e.run(`print(search(docs, "secret")[0]["preview"])`)
	assert.LessOrEqual(t, len(p), 310)
	assert.Contains(t, p, "{'title': 'Report', 'body': '...")
	assert.Contains(t, p, "the secret is here")
	assert.Contains(t, p, "'tags': ['a', 'b']}")

	errs := []struct{ code, kind, want string }{
		{
			`search(users, "x", field="mail")`,
			"ValueError",
			"search: no item has the field 'mail'; the first item's fields are 'id', 'name', 'email', 'manager'",
		},
		{`search(["a", "b"], "a", field="name")`, "TypeError", "var holds no dict"},
		{
			`search("text", "x", field="name")`,
			"TypeError",
			"search: field= searches one field of the dicts in a list or dict; var is a str",
		},
		{`search(users, "x", field=[1])`, "TypeError", "search: field must be a dict key such as a str, got list"},
	}
	for _, tt := range errs {
		t.Run(tt.code, func(t *testing.T) {
			_, err := e.exec(tt.code)
			assert.Contains(t, scriptErr(t, err, tt.kind), tt.want)
		})
	}
}

// When max_results cuts the results, the last one says how many matches
// were left out.
func TestSearchMore(t *testing.T) {
	e := newEnv(t, nil, map[string]any{
		"log":   logText,
		"items": []any{"x1", "y", "x2", "x3", "x4"},
		"files": dict("a", "x", "b", "x", "c", "y"),
		"many":  strings.Repeat("ab ", 100_050),
	})
	tests := []struct{ code, want string }{
		{`print([r.get("more") for r in search(log, "2024", max_results=2)])`, "[None, 3]"},
		{`print([r.get("more") for r in search(log, "2024", max_results=5)])`, "[None, None, None, None, None]"},
		{`print([r.get("more") for r in search(log, "2024", max_results=None)])`, "[None, None, None, None, None]"},
		{`print(search(log, r"^2024-01-0[1-3]", regex=True, max_results=1)[-1]["more"])`, "3"},
		{`print(search(items, "x", max_results=3)[-1])`, "{'index': 3, 'preview': 'x3', 'more': 1}"},
		{`print(search(files, "x", max_results=1))`, "[{'key': 'a', 'preview': 'x', 'more': 1}]"},
		{`print(search(many, "ab")[-1]["more"])`, "100000"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want+"\n", e.run(tt.code))
		})
	}
}

// With regex=True each result holds the capture groups, as re's
// m.groups() would for the same match.
func TestSearchGroups(t *testing.T) {
	text := "id: 17 name=ada\nid: 42\nref id:99 (x)\nzid: 5"
	e := newEnv(t, nil, map[string]any{"s": text, "lines": []any{"key=alpha", "none", "key=beta"}})
	tests := []struct{ code, want string }{
		{`print([r["groups"] for r in search(s, r"id: (\d+)(?: name=(\w+))?", regex=True)])`, "[('17', 'ada'), ('42', None), ('5', None)]"},
		{`print([r["groups"] for r in search(s, r"\bid:\s*(\d+)", regex=True)])`, "[('17',), ('42',), ('99',)]"},
		{`print([r["groups"] for r in search(s, r"^(\w+):", regex=True)])`, "[('id',), ('id',), ('zid',)]"},
		{`print([r["groups"] for r in search(s, r"(?P<k>\w+)=(?P<v>\w+)", regex=True)])`, "[('name', 'ada')]"},
		{`print([r["groups"] for r in search(s, r"(\d+)\n(\w+)", regex=True)])`, "[('42', 'ref')]"},
		{`print("groups" in search(s, r"id: \d+", regex=True)[0], "groups" in search(s, "id: ")[0])`, "False False"},
		{
			`print([(r["index"], r["match"], r["groups"]) for r in search(lines, r"key=(\w+)", regex=True)])`,
			"[(0, 'key=alpha', ('alpha',)), (2, 'key=beta', ('beta',))]",
		},
		// Patterns on the backtracking engine (lookaround, backreferences)
		// and non-ASCII lines report their groups too.
		{`print([r["groups"] for r in search(s, r"(?<=id: )(\d)(\d)?", regex=True)])`, "[('1', '7'), ('4', '2'), ('5', None)]"},
		{`print([r["groups"] for r in search(s, r"(\w+)=(a)d\2", regex=True)])`, "[('name', 'a')]"},
		{`print([r["groups"] for r in search(s, r"(?<=(\w)d:)(\d+)", regex=True)])`, "[('i', '99')]"},
		{`print([r["groups"] for r in search(lines, r"(?<=key=)(\w)(\w*)", regex=True)])`, "[('a', 'lpha'), ('b', 'eta')]"},
		{`print([r["groups"] for r in search(s, r"(?<=id: )(\d+)\n(\w+)", regex=True)])`, "[('42', 'ref')]"},
		{`print([r["groups"] for r in search("naïve: 3 ÉUR", r"(\w+): (\d) (\w+)", regex=True)])`, "[('naïve', '3', 'ÉUR')]"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want+"\n", e.run(tt.code))
		})
	}
	// The same groups as re.finditer on each line.
	out := e.run(`import re
pat = r"(\w)(\d)?\b"
viaSearch = [r["groups"] for r in search(s, pat, regex=True, max_results=None)]
viaRe = [m.groups() for line in s.split("\n") for m in re.finditer(pat, line)]
print(viaSearch == viaRe, len(viaRe))`)
	assert.Equal(t, "True 12\n", out)
}

// TestSearchHitBytes: a text hit is a LazyDict over the text, allocated
// in slabs and listed once, so a hit costs its 64-byte struct and its
// list slot, not a dict, a preview and a match (over 550 bytes before).
func TestSearchHitBytes(t *testing.T) {
	const hits = 20000
	text := strings.Repeat("ab the cd\n", hits)
	e := newEnv(t, nil, map[string]any{"text": text})
	e.run(`n = len(search(text, "the", max_results=None))`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e.run(`hits = search(text, "the", max_results=None)`)
	runtime.ReadMemStats(&after)
	perHit := float64(after.TotalAlloc-before.TotalAlloc) / hits
	assert.Less(t, perHit, 100.0, "bytes allocated per search() hit")
}

// A pattern that can prefer an empty match (a lazy quantifier, an empty
// alternative) finds, after an empty match, the non-empty one at the same
// place, as re.finditer does on each line (want: CPython 3.11).
func TestSearchEmptyFirst(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"s": "aa,b x\nabba"})
	e.run(`import re
def via_re(p):
    out, base = [], 0
    for line in s.split("\n"):
        out += [(base + m.start(), m.group()) for m in re.finditer(p, line)]
        base += len(line) + 1
    return out
`)
	tests := []struct{ pattern, want string }{
		{
			`a??`,
			`[(0, ''), (0, 'a'), (1, ''), (1, 'a'), (2, ''), (3, ''), (4, ''), (5, ''), (6, ''), (7, ''), (7, 'a'), (8, ''), (9, ''), (10, ''), (10, 'a'), (11, '')]`,
		},
		{`(,|)`, `[(0, ''), (1, ''), (2, ','), (3, ''), (4, ''), (5, ''), (6, ''), (7, ''), (8, ''), (9, ''), (10, ''), (11, '')]`},
		{
			`\s*?`,
			`[(0, ''), (1, ''), (2, ''), (3, ''), (4, ''), (4, ' '), (5, ''), (6, ''), (7, ''), (8, ''), (9, ''), (10, ''), (11, '')]`,
		},
		{`x|`, `[(0, ''), (1, ''), (2, ''), (3, ''), (4, ''), (5, 'x'), (6, ''), (7, ''), (8, ''), (9, ''), (10, ''), (11, '')]`},
		{
			`b*?`,
			`[(0, ''), (1, ''), (2, ''), (3, ''), (3, 'b'), (4, ''), (5, ''), (6, ''), (7, ''), (8, ''), (8, 'b'), (9, ''), (9, 'b'), (10, ''), (11, '')]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			out := e.run(fmt.Sprintf(`got = [(r["offset"], r["match"]) for r in search(s, %q, regex=True, max_results=None)]
print(got)
print(got == via_re(%q))`, tt.pattern, tt.pattern))
			assert.Equal(t, tt.want+"\nTrue\n", out)
		})
	}
}

// Results that outgrow the step's memory limit end the search with the
// limit's MemoryError while they grow, not after the whole list is built.
func TestSearchStopsAtMemoryLimit(t *testing.T) {
	tests := []struct{ setup, code string }{
		{`s = "e" * 8_000_000`, `hits = search(s, "e", max_results=None)`},
		{`l = ["e"] * 2_000_000`, `hits = search(l, "e", max_results=None)`},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			sess := sandbox.New(
				sandbox.Config{
					Predeclared: builtins.Predeclared(&builtins.Host{}),
					Limits:      sandbox.Limits{MaxMemory: 48 << 20, Timeout: time.Minute},
				},
			)
			_, err := sess.Exec(context.Background(), tt.setup)
			require.NoError(t, err)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = sess.Exec(context.Background(), tt.code)
			runtime.ReadMemStats(&after)
			assert.Contains(t, scriptErr(t, err, "MemoryError"), "memory limit exceeded (48 MB per step)")
			// Stopped near the limit, not after building every hit (all the hits
			// take 400-640 MB).
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(250<<20), "bytes allocated")
			_, bound := sess.Global("hits")
			assert.False(t, bound)
		})
	}
}
