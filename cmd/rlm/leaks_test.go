package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
)

// ttyBuffer is a buffer that says it is a terminal.
type ttyBuffer struct{ bytes.Buffer }

func (*ttyBuffer) IsTerminal() bool { return true }

// runCLITTY is runCLI with stdout and stderr seen as terminals.
func runCLITTY(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb ttyBuffer
	code := runCLIOn(t, "", env, &out, &errb, args...)
	return code, out.String(), errb.String()
}

// submitting is a root model that prints doc and submits it as the answer.
func submitting(srv *llmtest.Server) {
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				return llmtest.Text("```python\nSUBMIT(answer=doc)\n```")
			}
		}
		return llmtest.Text("```python\nprint(doc)\n```")
	})
}

// The key and the credential in the base URL's query never reach stdout,
// the trajectory, the recording or the run directory, even when the
// context holds them and the model prints and submits them.
func TestRunKeepsSecretsOutOfEveryArtefact(t *testing.T) {
	const apiKey = "tok-CANARY-key-0123456789"
	const querySecret = "QCANARY-0123456789"
	srv := llmtest.NewServer(t)
	submitting(srv)
	dir := t.TempDir()
	doc := filepath.Join(dir, "env.txt")
	require.NoError(t, os.WriteFile(doc, []byte("API_KEY="+apiKey+"\nGATEWAY="+querySecret+"\n"), 0o644))
	runsDir := filepath.Join(dir, "runs")
	env := map[string]string{"OPENAI_API_KEY": apiKey, "RLM_MODEL": "root", "RLM_RUNS_DIR": runsDir}
	base := srv.URL() + "?api-key=" + querySecret

	for _, asJSON := range []bool{false, true} {
		traj := filepath.Join(dir, "traj.jsonl")
		rec := filepath.Join(dir, "rec.jsonl")
		args := []string{
			"run",
			"--base-url",
			base,
			"--query",
			"what is in doc?",
			"--var",
			"doc=" + doc,
			"--trajectory",
			traj,
			"--record",
			rec,
			"--quiet",
		}
		if asJSON {
			args = append(args, "--json")
		}
		code, out, errOut := runCLI(t, "", env, args...)
		require.Equal(t, 0, code, "stderr: %s", errOut)
		assert.Contains(t, out, "API_KEY=[REDACTED]")
		artefacts := map[string]string{"stdout": out, "stderr": errOut}
		for _, p := range []string{traj, rec} {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			artefacts[p] = string(b)
		}
		require.NoError(t, filepath.Walk(runsDir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				b, rerr := os.ReadFile(p)
				require.NoError(t, rerr)
				artefacts[p] = string(b)
			}
			return err
		}))
		for name, text := range artefacts {
			assert.NotContains(t, text, "CANARY", "%s holds a secret", name)
		}
		assert.Contains(t, artefacts[traj], "[REDACTED]")
	}
	for _, c := range srv.Calls() {
		assert.Equal(t, "/v1/chat/completions", c.Path)
	}
}

// Model code cannot step around --max-cost by naming a model without a
// known price: the call is refused before it is sent.
func TestRunMaxCostRefusesUnpricedModelFromCode(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				return llmtest.Text("```python\nSUBMIT(answer='done')\n```")
			}
		}
		return llmtest.Text("```python\nr = llm_query('hi', model='o1-pro')\nprint(r.value)\n```")
	})
	dir := t.TempDir()
	traj := filepath.Join(dir, "traj.jsonl")
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "gpt-4o-mini"}
	code, out, errOut := runCLI(t, "", env, "run", "--query", "q", "--max-cost", "1", "--trajectory", traj, "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "done\n", out)
	for _, c := range srv.Calls() {
		assert.NotEqual(t, "o1-pro", c.Model, "the unpriced call was sent")
	}
	b, err := os.ReadFile(traj)
	require.NoError(t, err)
	assert.Contains(t, string(b), `model \"o1-pro\" has no known price`)
}

func TestRunMaxResponseSize(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply { return llmtest.Text(strings.Repeat("x", 4096)) })
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	code, _, errOut := runCLI(t, "", env, "run", "--query", "q", "--max-response-size", "1K", "--max-retries", "0")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "response")
	assert.Contains(t, errOut, "--max-response-size")

	code, _, errOut = runCLI(t, "", env, "run", "--query", "q", "--max-response-size", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "max-response-size")
}

func TestEscapeControls(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\nwith lines\tand tabs", "plain text\nwith lines\tand tabs"},
		{"\x1b]0;pwned\x07\x1b[2J", `\x1b]0;pwned\x07\x1b[2J`},
		{"cr\roverwrite", `cr\x0doverwrite`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"bad \xff utf-8, café", `bad \xff utf-8, café`},
		{"del\x7f", `del\x7f`},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, escapeControls(tc.in))
	}
	var plain bytes.Buffer
	assert.Equal(t, "\x1b[2J", termSafe(&plain, "\x1b[2J"), "not a terminal: unchanged")
	assert.Equal(t, `\x1b[2J`, termSafe(&ttyBuffer{}, "\x1b[2J"))
}

// Final answers and store keys from model output or files reach a terminal
// escaped, and a pipe or --json unchanged.
func TestTerminalOutputEscapesControls(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\x1b[2J"
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Text("```python\nSUBMIT(answer='hi \\x1b]0;pwned\\x07\\x1b[2J')\n```")
	})
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root"}
	code, out, errOut := runCLITTY(t, env, "run", "--query", "q", "--quiet")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, `hi \x1b]0;pwned\x07\x1b[2J`+"\n", out)
	code, out, _ = runCLI(t, "", env, "run", "--query", "q", "--quiet")
	require.Equal(t, 0, code)
	assert.Equal(t, "hi "+evil+"\n", out, "a pipe gets the answer as it is")
	code, out, _ = runCLITTY(t, env, "run", "--query", "q", "--quiet", "--json")
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"answer": "hi \u001b]0;pwned\u0007\u001b[2J"`)

	dir := t.TempDir()
	f := filepath.Join(dir, "v.txt")
	require.NoError(t, os.WriteFile(f, []byte("value"), 0o644))
	senv := map[string]string{"RLM_STORE": filepath.Join(dir, "store")}
	code, _, errOut = runCLI(t, "", senv, "store", "put", "k"+evil, f)
	require.Equal(t, 0, code, errOut)
	for _, args := range [][]string{{"store", "ls"}, {"store", "show", "k" + evil}} {
		code, out, errOut = runCLITTY(t, senv, args...)
		require.Equal(t, 0, code, errOut)
		assert.NotContains(t, out, "\x1b", "%v", args)
		assert.Contains(t, out, `\x1b]0;pwned\x07`, "%v", args)
	}
}
