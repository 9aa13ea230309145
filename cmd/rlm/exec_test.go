package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
)

var updateExec = flag.Bool("update-exec", false, "rewrite the rlm exec golden files in testdata/exec")

func execData(name string) string { return filepath.Join("testdata", "exec", name) }

func TestExecScriptGolden(t *testing.T) {
	code, out, errOut := runCLI(
		t,
		"",
		nil,
		"exec",
		"--var",
		"notes="+execData("notes.txt"),
		"--var",
		"messages="+execData("messages.json"),
		execData("explore.py"),
	)
	require.Equal(t, 0, code, errOut)
	golden := execData("explore.golden")
	if *updateExec {
		require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), out)
}

func TestExecSources(t *testing.T) {
	notes := "notes=" + execData("notes.txt")
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"-c", "", []string{"exec", "--var", notes, "-c", "print(notes.splitlines()[0])"}, "Meeting notes, 3 March\n"},
		{"stdin", "print(1 + 1)\n", []string{"exec", "-"}, "2\n"},
		{"var from stdin", "a\nb\n", []string{"exec", "--var", "text=-", "-c", "print(len(text.splitlines()))"}, "2\n"},
		{"no output", "", []string{"exec", "-c", "x = 1"}, ""},
		{"empty -c", "", []string{"exec", "-c", ""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.stdin, nil, tt.args...)
			require.Equal(t, 0, code, errOut)
			assert.Equal(t, tt.want, out)
		})
	}
}

func TestExecErrors(t *testing.T) {
	notes := "notes=" + execData("notes.txt")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"traceback with line", []string{"exec", "--var", notes, execData("broken.py")}, 1,
			[]string{"Traceback (most recent call last):", "line 4", `print(counts["missing"])`, "KeyError: 'missing'"}},
		{"helper argument", []string{"exec", "-c", "search('abc', 5)"}, 1, []string{"TypeError: search: pattern must be a str, got int"}},
		{"llm_query offline", []string{"exec", "-c", "x = 1\nllm_query('hi')"}, 1,
			[]string{"line 2", "llm_query: no model configured", "OPENAI_API_KEY"}},
		{"no code", []string{"exec"}, 2, []string{"no code: pass -c CODE"}},
		{"code and script", []string{"exec", "-c", "1", "x.py"}, 2, []string{"either -c CODE or a SCRIPT"}},
		{"missing script", []string{"exec", "nope.py"}, 2, []string{"nope.py"}},
		{"stdin twice", []string{"exec", "--var", "a=-", "-"}, 2, []string{"--var a=- reads stdin"}},
		{"bad limit", []string{"exec", "--max-memory", "lots", "-c", "1"}, 2, []string{"want a positive size"}},
		{"step limit", []string{"exec", "--max-steps", "1000", "-c", "while True:\n    pass"}, 1, []string{"step limit exceeded"}},
		{"step timeout", []string{"exec", "--step-timeout", "50ms", "-c", "while True:\n    pass"}, 1, []string{"time limit exceeded"}},
		{
			"recursion",
			[]string{"exec", "--max-recursion", "50", "-c", "def f(n):\n    return f(n + 1)\nf(0)"},
			1,
			[]string{"maximum recursion depth exceeded"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", nil, tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			for _, s := range tt.stderr {
				assert.Contains(t, errOut, s)
			}
		})
	}
}

func TestExecOutputBeforeErrorIsKept(t *testing.T) {
	code, out, errOut := runCLI(t, "", nil, "exec", "-c", "print('partial')\n1/0")
	assert.Equal(t, 1, code)
	assert.Equal(t, "partial\n", out)
	assert.Contains(t, errOut, "ZeroDivisionError")
}

func TestExecSubmit(t *testing.T) {
	code, out, errOut := runCLI(t, "", nil, "exec", "--var", "notes="+execData("notes.txt"), "-c",
		`print("looking")
SUBMIT({"budget": search(notes, r"[\d,]+ EUR", regex=True)[0]["match"], "n": 2})
print("not reached")`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "looking\n{\"budget\":\"12,500 EUR\",\"n\":2}\n", out)

	code, out, _ = runCLI(t, "", nil, "exec", "-c", `FINAL("done")`)
	assert.Equal(t, 0, code)
	assert.Equal(t, "{\"answer\":\"done\"}\n", out)
}

func TestExecOfflineFallbacksAreNoted(t *testing.T) {
	code, out, errOut := runCLI(t, "", nil, "exec", "--var", "notes="+execData("notes.txt"), "-c", `
s = summarize(notes, max_tokens=50)
r = find_relevant(notes, "certificate renewal", top_k=1)
print(str(s).startswith("[extractive summary"))
print(r[0]["method"], "certificate" in r[0]["item"])`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "True\nbm25 True\n", out)
	assert.Contains(t, errOut, "summarize: no model configured; returning an extractive summary")
	assert.Contains(t, errOut, "find_relevant: no embedding model configured; ranking with BM25")
}

func TestExecWithModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Content: "sub:" + strings.ToUpper(c.Messages[len(c.Messages)-1].Content), Delay: time.Millisecond}
	})
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root", "RLM_SUB_MODEL": "small", "RLM_EMBEDDING_MODEL": "emb"}
	code, out, errOut := runCLI(t, "", env, "exec", "--var", "notes="+execData("notes.txt"), "-c", `
fs = llm_query_batched(["a", "b"])
print(fs)
print(llm_query("c"))
r = find_relevant(notes, "launch date", top_k=1)
print(r[0]["method"])`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "['sub:A', 'sub:B']\nsub:C\nembedding\n", out)
	assert.Empty(t, errOut)
	for _, c := range srv.Calls() {
		if strings.HasSuffix(c.Path, "/chat/completions") {
			assert.Equal(t, "small", c.Model)
		}
	}
}

func TestExecPartialModelConfigWarns(t *testing.T) {
	code, out, errOut := runCLI(t, "", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, "exec", "-c", "print(1)")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "1\n", out)
	assert.Contains(t, errOut, "rlm exec: warning: running offline")
	assert.Contains(t, errOut, "has no model")
}
