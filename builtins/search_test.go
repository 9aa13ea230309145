package builtins_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{`print([r["match"] for r in search(log, r"\b\d{2}\b", regex=True)])`, "['01', '01', '01', '01', '01', '02', '01', '03', '42', '01']"},
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
	assert.Contains(t, out, `NEEDLE\tend\x01yyy`)
}

func TestSearchCollections(t *testing.T) {
	e := newEnv(t, nil, map[string]any{
		"msgs":  []any{dict("role", "user", "content", "where is the key?"), dict("role", "assistant", "content", "under the mat"), dict("role", "user", "content", "thanks")},
		"lines": []any{"alpha", "beta key", "gamma", "key again"},
		"nums":  []any{int64(10), int64(42), int64(420)},
		"files": dict("a.py", "import os\nprint(1)", "b.py", "def key():\n    pass", "c.md", "# Key ideas"),
	})
	tests := []struct{ code, want string }{
		{`print(search(lines, "key"))`, "[{'index': 1, 'preview': 'beta key'}, {'index': 3, 'preview': 'key again'}]"},
		{`print(search(msgs, "key"))`, "[{'index': 0, 'field': 'content', 'preview': 'where is the key?'}]"},
		{`print(search(msgs, "assistant"))`, "[{'index': 1, 'field': 'role', 'preview': 'assistant'}]"},
		{`print(search(nums, "42"))`, "[{'index': 1, 'preview': '42'}, {'index': 2, 'preview': '420'}]"},
		{`print(search(files, "key"))`, "[{'key': 'b.py', 'preview': 'def key():\\\\n    pass'}]"},
		{`print([r["key"] for r in search(files, r"(?i)^#? ?(def|key)", regex=True)])`, "['b.py', 'c.md']"},
		{`print(search(lines, "a", max_results=2))`, "[{'index': 0, 'preview': 'alpha'}, {'index': 1, 'preview': 'beta key'}]"},
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
		{`search(s, "(a", regex=True)`, "ValueError", "search: invalid regular expression \"(a\": missing ), unterminated subpattern at position 0"},
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
	assert.Equal(t, "[(1, 3, ' '), (1, 8, ' '), (1, 13, ' ')] [(2, 17, 'the the'), (2, 29, 'é é')]\n",
		e.run(`print([(r["line"], r["offset"], r["match"]) for r in search(s, r"(?<=[.!?])\s+", regex=True)], [(r["line"], r["offset"], r["match"]) for r in search(s, r"(\w+) \1", regex=True)])`))
}

func TestSearchCatastrophicPatternReturns(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"s": strings.Repeat("a", 50000) + "b"})
	require.Equal(t, "[]\n", e.run(`print(search(s, r"(a+)+$", regex=True))`))
}
