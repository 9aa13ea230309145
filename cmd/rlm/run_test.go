package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/orchestrator"
)

func TestRunNoEndpoint(t *testing.T) {
	code, out, errOut := runCLI(t, "", nil, "run", "--query", "q", "--var", "context=-")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no model endpoint configured")
	assert.Contains(t, errOut, "OPENAI_BASE_URL")
	assert.Contains(t, errOut, "--base-url http://localhost:11434/v1")
}

func TestRunUsageErrors(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "RLM_MODEL": "m"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no query", []string{"run"}, "--query is required"},
		{"bad schema", []string{"run", "--query", "q", "--output", "answer:strng"}, "unknown type"},
		{"bad protocol", []string{"run", "--query", "q", "--protocol", "xml"}, "--protocol must be text or tools"},
		{"bad depth", []string{"run", "--query", "q", "--max-depth", "0"}, "--max-depth must be >= 1"},
		{"bad summarizer", []string{"run", "--query", "q", "--summarizer", "magic"}, "--summarizer must be deterministic or llm"},
		{"stray arg", []string{"run", "--query", "q", "extra"}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", env, tt.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func scriptedRoot(srv *llmtest.Server) {
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if c.Model == "sub" {
			return llmtest.Text("42")
		}
		n := 0
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		if n == 0 {
			return llmtest.Text(
				"```python\nhits = search(context, \"magic\")\nprint(hits[0][\"match\"])\nans = llm_query(\"number in: \" + hits[0][\"preview\"])\n```",
			)
		}
		return llmtest.Text("```python\nSUBMIT({\"answer\": ans.value, \"confidence\": 0.9})\n```")
	})
}

// magicFixture starts a fake server answering with scriptedRoot and writes
// the notes file its script searches; env points rlm at the server (callers
// add their own keys).
func magicFixture(tb testing.TB) (srv *llmtest.Server, dir, ctxFile string, env map[string]string) {
	tb.Helper()
	srv = llmtest.NewServer(tb)
	scriptedRoot(srv)
	dir = tb.TempDir()
	ctxFile = filepath.Join(dir, "notes.txt")
	require.NoError(tb, os.WriteFile(ctxFile, []byte("x\nthe magic number is 42\n"), 0o644))
	return srv, dir, ctxFile, map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub"}
}

func TestRunEndToEnd(t *testing.T) {
	srv := llmtest.NewServer(t)
	scriptedRoot(srv)
	dir := t.TempDir()
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte(strings.Repeat("filler line\n", 1000)+"the magic number is 42\n"), 0o644))
	traj := filepath.Join(dir, "traj.jsonl")
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-secret-cli", "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub"}

	code, out, errOut := runCLI(t, "", env, "run", "--query", "What is the magic number?", "--var", "context="+ctxFile,
		"--output", "answer:str, confidence:float", "--trajectory", traj, "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "42\n", out)

	code, out, errOut = runCLI(t, "", env, "run", "--query", "What is the magic number?", "--var", "context="+ctxFile,
		"--output", "answer:str, confidence:float", "--json", "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, "submit", res["stop_reason"])
	assert.Equal(t, map[string]any{"answer": "42", "confidence": 0.9}, res["outputs"])
	assert.Equal(t, float64(2), res["iterations"])
	usage := res["usage"].(map[string]any)
	assert.Equal(t, float64(3), usage["calls"])
	assert.Contains(t, res, "cost_usd")
	assert.Contains(t, res, "active_ms")

	b, err := os.ReadFile(traj)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "sk-secret-cli")
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 1<<24)
	var types []string
	for sc.Scan() {
		var ev struct {
			V    int
			Type string
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		assert.Equal(t, 1, ev.V)
		types = append(types, ev.Type)
	}
	require.NotEmpty(t, types)
	assert.Equal(t, "run_start", types[0])
	assert.Equal(t, "run_end", types[len(types)-1])
	assert.Contains(t, types, "request")
	assert.Contains(t, types, "exec")
	assert.Contains(t, types, "submit")
}

func TestRunRecordReplay(t *testing.T) {
	srv, dir, ctxFile, env := magicFixture(t)
	rec := filepath.Join(dir, "rec.jsonl")
	code, out1, errOut := runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile, "--record", rec, "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	n := srv.Count()
	code, out2, errOut := runCLI(t, "", nil, "run", "--query", "q", "--var", "context="+ctxFile, "--replay", rec, "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, out1, out2)
	assert.Equal(t, n, srv.Count(), "the replay is offline")
}

func TestRunPartialExitsNonZero(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Text("```python\nanswer = 'maybe 7'\nprint(1)\n```")
	})
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--var", "context=-", "--max-llm-calls", "2")
	assert.Equal(t, 1, code)
	assert.Equal(t, "maybe 7\n", out)
	assert.Contains(t, errOut, "stopped: budget (best partial answer)")
}

func TestStatusLine(t *testing.T) {
	var b strings.Builder
	s := &statusLine{w: &b}
	s.clear()
	assert.Empty(t, b.String(), "nothing to clear before the first update")
	s.update(
		orchestrator.Status{
			Iteration: 3,
			MaxIter:   30,
			Phase:     "model",
			Tokens:    1234,
			CostUSD:   0.0123,
			CostKnown: true,
			Pending:   2,
			Elapsed:   14 * time.Second,
		},
	)
	assert.Equal(t, "\r\x1b[Krlm: iter 3/30 · model · 1234 tokens · $0.0123 · 2 pending · 14s", b.String())
	s.clear()
	assert.True(t, strings.HasSuffix(b.String(), "\r\x1b[K"))
	assert.False(t, isTerminal(&b))
}
