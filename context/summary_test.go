package rlmctx

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// summaryCases are values of every type and shape, small and awkward.
func summaryCases() []struct {
	name string
	v    any
	typ  VarType
} {
	longKeys := NewDict(0)
	for i := 0; i < 50; i++ {
		longKeys.Set(strings.Repeat(fmt.Sprintf("key%d_", i), 20), int64(i))
	}
	files := NewDict(0)
	for i := 0; i < 30; i++ {
		files.Set(fmt.Sprintf("src/pkg%d/very/deep/path/file_%d.go", i, i), "package x\n")
	}
	return []struct {
		name string
		v    any
		typ  VarType
	}{
		{"text", "The quick brown fox.\nJumps over the lazy dog.\n", ""},
		{"empty_text", "", ""},
		{"control_chars", "a\x00b\x1b[31mred\tTAB\r\n\"quoted\" \\ back", ""},
		{"unicode", strings.Repeat("日本語のテキスト🙂", 40), ""},
		{"one_long_line", strings.Repeat("x", 1024), ""},
		{"list_of_dicts", []any{dict("id", int64(1), "name", "a"), dict("id", int64(2), "tags", []any{"x"})}, ""},
		{"list_of_scalars", []any{int64(1), 2.5, "three", nil, true}, ""},
		{"dict", dict("alpha", int64(1), "beta", "two", "gamma", []any{}), ""},
		{"dict_long_keys", longKeys, ""},
		{"files", files, Files},
		{
			"conversation",
			[]any{
				dict("role", "system", "content", "Be brief."),
				dict("role", "user", "content", "Hi there, what's up?"),
				dict("role", "assistant", "content", "Not much."),
			},
			"",
		},
		{"tool_outputs", []any{dict("tool", "grep", "output", "a:1"), dict("tool", "ls", "output", "b")}, ""},
		{"working_memory", dict("memories", []any{"likes tea"}, "goal", "ship"), ""},
		{"scalar", 3.25, ""},
		{"custom", []any{"a", "b"}, Custom("ids")},
	}
}

func TestSummariesGolden(t *testing.T) {
	c := NewContext("q")
	for _, tc := range summaryCases() {
		var opts []VarOption
		if tc.typ != "" {
			opts = append(opts, WithType(tc.typ))
		}
		_, err := c.Add(tc.name, tc.v, opts...)
		require.NoError(t, err, tc.name)
	}
	got := c.VariableSummaries()
	for _, ln := range strings.Split(got, "\n") {
		assert.LessOrEqual(t, llm.CountTokens(ln), MaxSummaryTokens, ln)
		assert.NotContains(t, ln, "\x00")
		assert.NotContains(t, ln, "\x1b")
	}
	// Deterministic: the same values give the same text.
	c2 := NewContext("q")
	for _, tc := range summaryCases() {
		var opts []VarOption
		if tc.typ != "" {
			opts = append(opts, WithType(tc.typ))
		}
		_, err := c2.Add(tc.name, tc.v, opts...)
		require.NoError(t, err)
	}
	assert.Equal(t, got, c2.VariableSummaries())

	golden := filepath.Join("testdata", "summaries.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got+"\n"), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test -run TestSummariesGolden -update")
	assert.Equal(t, string(want), got+"\n")
}

// sizedValue builds a value of the given kind whose encoding is at least
// size bytes, from up to 1000 items sharing one body string (so 100 MB costs
// little).
func sizedValue(kind string, size int) (any, VarType) {
	n := min(max(size/100, 1), 1000)
	line := "2026-01-02T03:04:05Z INFO request id=42 path=/api/v1/items status=200 took=3ms\n"
	body := strings.Repeat(line, size/n/len(line)+1)[:max(size/n, 1)]
	switch kind {
	case "text":
		return strings.Repeat(line, size/len(line)+1)[:size], ""
	case "list_of_dicts":
		l := make([]any, n)
		for i := range l {
			l[i] = dict("id", int64(i), "msg", body, "level", "info")
		}
		return l, ""
	case "dict":
		d := NewDict(n)
		for i := 0; i < n; i++ {
			d.Set(fmt.Sprintf("record_%04d", i), body)
		}
		return d, ""
	case "conversation":
		l := make([]any, n)
		for i := range l {
			l[i] = dict("role", []string{"user", "assistant"}[i%2], "content", body)
		}
		return l, ""
	case "files":
		d := NewDict(n)
		for i := 0; i < n; i++ {
			d.Set(fmt.Sprintf("services/api/internal/handlers/v%d/handler_%04d.go", i%3, i), body)
		}
		return d, Files
	case "tool_outputs":
		l := make([]any, n)
		for i := range l {
			l[i] = dict("tool", fmt.Sprintf("tool_%d", i%5), "output", body)
		}
		return l, ""
	case "working_memory":
		d := NewDict(n)
		d.Set("memories", []any{body})
		for i := 0; i < n; i++ {
			d.Set(fmt.Sprintf("fact_%d", i), body)
		}
		return d, ""
	}
	panic(kind)
}

// TestSummaryTokenCapAllTypes: whatever the type and size (1 KB or 100 MB),
// the summary line stays under MaxSummaryTokens and is never more than a
// preview. Under -race, where tokenizing is ~20x slower (a 100 MB value is
// measured from a 4 MB sample), the large size is 128 KB: plain go test
// runs 100 MB.
func TestSummaryTokenCapAllTypes(t *testing.T) {
	big := 100 << 20
	if raceEnabled {
		big = 128 << 10
	}
	sizes := []int{1 << 10, big}
	if testing.Short() {
		sizes = sizes[:1]
	}
	kinds := []struct {
		kind string
		want VarType
	}{
		{"text", Text}, {"list_of_dicts", JSON}, {"dict", JSON}, {"conversation", Conversation},
		{"files", Files}, {"tool_outputs", ToolOutputs}, {"working_memory", WorkingMemory},
	}
	for _, size := range sizes {
		for _, k := range kinds {
			t.Run(fmt.Sprintf("%s/%s", humanBytes(int64(size)), k.kind), func(t *testing.T) {
				val, typ := sizedValue(k.kind, size)
				v, err := NewVariable("the_"+k.kind, val, WithType(typ))
				require.NoError(t, err)
				assert.Equal(t, k.want, v.Type)
				assert.GreaterOrEqual(t, v.SizeBytes, int64(size))
				ln := summaryLine(v.Name, v.Summary())
				assert.LessOrEqual(t, llm.CountTokens(ln), MaxSummaryTokens, ln)
				assert.Less(t, len(ln), 400, "a summary is never more than a preview")
				assert.Contains(t, v.Summary(), string(k.want))
				assert.Equal(t, v.SizeBytes > llm.DefaultEstimateThreshold, func() bool { _, est := v.Tokens(); return est }())
			})
		}
	}
}

func TestSummaryLongName(t *testing.T) {
	name := strings.Repeat("very_long_variable_name_", 3)
	v, err := NewVariable(name, strings.Repeat("word ", 1000))
	require.NoError(t, err)
	assert.LessOrEqual(t, llm.CountTokens(summaryLine(name, v.Summary())), MaxSummaryTokens)
}

func TestHumanBytes(t *testing.T) {
	assert.Equal(t, "1 byte", humanBytes(1))
	assert.Equal(t, "10,239 bytes", humanBytes(10239))
	assert.Equal(t, "10.0 KB", humanBytes(10240))
	assert.Equal(t, "100.0 MB", humanBytes(100<<20))
}

// TestPreviewCutsAtWords: a preview ends at a word or item boundary, not
// mid-word, unless the only boundary would leave less than half of it.
func TestPreviewCutsAtWords(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"To whom it may concern, hello", 17, "To whom it may"},
		{"To whom it may concern, hello", 24, "To whom it may concern,"},
		{"short", 10, "short"},
		{"exactly at space here", 7, "exactly"},
		{"a verylongwordwithoutbreaks", 12, "a verylongwo"},
		{`[{"id": 1}, {"id": 2}, {"id": 3}]`, 26, `[{"id": 1}, {"id": 2},`},
		{"héllo wörld again", 13, "héllo wörld"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, truncWords(tt.in, tt.max), tt.in)
	}
	v := &Variable{Name: "letter", Type: Text, SizeBytes: 40}
	assert.Equal(t, `"To whom it may"…`, preview(v, "To whom it may concern, I write to", 17))
}
