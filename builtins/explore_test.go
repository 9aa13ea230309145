package builtins_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
)

func dict(kv ...any) *rlmctx.Dict {
	d := rlmctx.NewDict(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1])
	}
	return d
}

func TestPeek(t *testing.T) {
	e := newEnv(t, nil, map[string]any{
		"nums": []any{
			int64(0),
			int64(1),
			int64(2),
			int64(3),
			int64(4),
			int64(5),
			int64(6),
			int64(7),
			int64(8),
			int64(9),
			int64(10),
			int64(11),
		},
		"text": "hello world",
		"d":    dict("a", int64(1), "b", int64(2), "c", int64(3)),
	})
	tests := []struct{ code, want string }{
		{`print(peek(nums))`, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"},
		{`print(peek(nums, 2, 4))`, "[2, 3]"},
		{`print(peek(nums, -3))`, "[9]"},
		{`print(peek(nums, -3, None))`, "[9, 10, 11]"},
		{`print(peek(nums, 10, None))`, "[10, 11]"},
		{`print(peek(nums, start=5, end=2))`, "[]"},
		{`print(peek((1, 2, 3), 1))`, "(2, 3)"},
		{`print(peek(text, 0, 5))`, "hello"},
		{`print(repr(peek(text, 6)))`, "'worl'"},
		{`print(peek(d, 1, 3))`, "{'b': 2, 'c': 3}"},
		{`print(peek(d))`, "{'a': 1, 'b': 2, 'c': 3}"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want+"\n", e.run(tt.code))
		})
	}
}

func TestPeekErrors(t *testing.T) {
	e := newEnv(t, nil, nil)
	tests := []struct{ code, kind, want string }{
		{`peek(42)`, "TypeError", "peek: cannot peek into int"},
		{`peek(None)`, "TypeError", "peek: cannot peek into NoneType"},
		{`peek([1], "a")`, "TypeError", "peek: start must be an int, got str"},
		{`peek([1], 0, 1.5)`, "TypeError", "peek: end must be an int, got float"},
		{`peek()`, "TypeError", "missing required argument 'var'"},
		{`peek([1], foo=1)`, "TypeError", "unexpected keyword argument 'foo'"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, err := e.exec(tt.code)
			assert.Contains(t, scriptErr(t, err, tt.kind), tt.want)
		})
	}
}

func TestChunk(t *testing.T) {
	text := strings.Repeat("a line of text\n", 20) // 300 chars
	e := newEnv(
		t,
		nil,
		map[string]any{"text": text, "items": []any{"a", "b", "c", "d", "e"}, "d": dict("a", int64(1), "b", int64(2), "c", int64(3))},
	)

	out := e.run(`
cs = chunk(text, 100)
print(len(cs), all([len(c) <= 100 for c in cs]), all([c.endswith("\n") for c in cs]))
print("".join(cs) == text)
`)
	assert.Equal(t, "4 True True\nTrue\n", out)

	out = e.run(`
cs = chunk(text, 100, overlap=30)
print(len(cs), cs[1].startswith("a line"), cs[0][-30:] in cs[1][:60])
print(cs[-1].endswith("text\n"))
`)
	assert.Equal(t, "5 True True\nTrue\n", out)

	assert.Equal(t, "[['a', 'b'], ['c', 'd'], ['e']]\n", e.run(`print(chunk(items, 2))`))
	assert.Equal(t, "[['a', 'b', 'c'], ['c', 'd', 'e']]\n", e.run(`print(chunk(items, 3, 1))`))
	assert.Equal(t, "[{'a': 1, 'b': 2}, {'c': 3}]\n", e.run(`print(chunk(d, 2))`))
	// A line longer than size is cut, keeping runes whole.
	assert.Equal(t, "['ééé', 'éé']\n", e.run(`print(chunk("ééééé", 6))`))

	for code, want := range map[string]string{
		`chunk(text, 0)`:        "chunk: size must be positive, got 0",
		`chunk(text, 10, 10)`:   "chunk: overlap must be at least 0 and less than size (10), got 10",
		`chunk(42, 10)`:         "chunk: var must be a str, list, tuple or dict, got int",
		`chunk(text, "10")`:     "chunk: size must be an int, got str",
		`chunk(text, 10, -1)`:   "chunk: overlap must be at least 0",
		`chunk(text, size=3.5)`: "chunk: size must be an int, got float",
	} {
		_, err := e.exec(code)
		assert.Contains(t, scriptErr(t, err, ""), want, code)
	}
}

func TestShowVars(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"context": "one\ntwo", "docs": []any{"a", "b"}})
	e.run(`counts = {"x": 1}`)
	out := e.run(`
n = 7
show_vars()`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 5, out)
	assert.Regexp(t, `^name\s+type\s+size$`, lines[0])
	assert.Regexp(t, `^context\s+str\s+7 chars, 2 lines$`, lines[1])
	assert.Regexp(t, `^docs\s+list\[str\]\s+2 items$`, lines[2])
	assert.Regexp(t, `^counts\s+dict\s+1 key$`, lines[3])
	assert.Regexp(t, `^n\s+int\s+7$`, lines[4])

	_, err := e.exec(`show_vars(1)`)
	assert.Contains(t, scriptErr(t, err, "TypeError"), "show_vars() takes no arguments")

	// Sizes agree with len() and splitlines(): characters, not bytes; a
	// final newline ends the last line, it does not start another.
	e = newEnv(t, nil, map[string]any{"u": "h\u00e9llo w\u00f6rld\n\u65e5\u672c\u8a9e\n"})
	out = e.run(`print(len(u), len(u.splitlines()))
show_vars()`)
	assert.True(t, strings.HasPrefix(out, "16 2\n"), out)
	assert.Regexp(t, `\nu\s+str\s+16 chars, 2 lines\n`, out)
	assert.Contains(t, e.run(`print(summarize(u))`), "str of 16 chars, 2 lines.")
}

// On non-ASCII text, search offsets and peek bounds count code points, as
// str indexing does: text[offset:] starts at the match.
func TestCodePointOffsets(t *testing.T) {
	text := "Zürich — “quoted” naïve\nline two: café au lait"
	e := newEnv(t, nil, map[string]any{"text": text})
	out := e.run(`hits = search(text, "café")
h = hits[0]
print(h["line"], h["offset"], text[h["offset"]:h["offset"] + 4], len(text), peek(text, 0, 6), peek(text, -4, None))
print(text.find("café") == h["offset"], search(text, r"na\w+", regex=True)[0]["offset"])`)
	assert.Equal(t, "2 34 café 46 Zürich lait\nTrue 18\n", out)
}
