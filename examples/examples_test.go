// Package examples runs the scripts in this directory as a user would: with
// an rlm binary built once for the package, on loopback only (the model is
// the fake OpenAI-compatible server of llm/llmtest).
package examples

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/internal/servetest"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// binDir holds the rlm binary the scripts find on PATH.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "rlm-examples-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "rlm"), "../cmd/rlm")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building rlm:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// scriptEnv is the environment of an example: the machine's, without
// any rlm or OpenAI setting, with rlm on PATH, kept runs, the store and
// the settings file in temporary directories, and extra on top.
func scriptEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "RLM_") || strings.HasPrefix(k, "OPENAI_") || k == "PATH" || k == "HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	home := t.TempDir()
	env = append(env,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home,
		"RLM_RUNS_DIR="+filepath.Join(home, "runs"),
		"RLM_STORE="+filepath.Join(home, "store"),
		"NO_COLOR=1",
	)
	return append(env, extra...)
}

// runScript runs name (relative to this directory) with args and returns
// its stdout and stderr; it fails the test if the script fails.
func runScript(t *testing.T, env []string, name string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "%s %s\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), out.String(), errb.String())
	return out.String(), errb.String()
}

// The offline exploration runs in full: no model, no network.
func TestExampleExplore(t *testing.T) {
	out, _ := runScript(t, scriptEnv(t), "sh", "explore/explore.sh")
	for _, want := range []string{
		"changelog  str",
		"outline of 3 items",
		"incident-212.md",
		"release v1.4.0 on 2026-03-02 at line 5",
		"release v1.2.0 on 2025-09-20 at line 33",
		"- A crash when the config file was empty (issue #212).",
		"mentioned in incident-212.md",
		"fixes per release: {'v1.4.0': 2, 'v1.3.1': 2, 'v1.3.0': 0, 'v1.2.0': 2}",
		"2 lines mention a crash",
		"search(var, pattern, regex=False, max_results=10, field=None)",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "v1.3.1 (2026-01-15)\n\n### Fixed", "peek stops at the next release")
}

// hasAssistant reports whether the conversation already has a reply of
// the model: the fake model explores first, then submits.
func hasAssistant(c llmtest.Call) bool {
	for _, m := range c.Messages {
		if m.Role == "assistant" {
			return true
		}
	}
	return false
}

// The rlm run example against an OpenAI-compatible server: here the fake.
func TestExampleRun(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if !hasAssistant(c) {
			return llmtest.Text("```python\nfor h in search(changelog, \"empty\"):\n    print(h[\"line\"], h[\"preview\"])\n```")
		}
		return llmtest.Text(
			"```python\nSUBMIT(answer=\"v1.4.0 fixed it (issue #212); it was released on 2026-03-02.\", release=\"v1.4.0\")\n```",
		)
	})
	env := scriptEnv(t, "OPENAI_BASE_URL="+srv.URL(), "RLM_MODEL=fake-model")
	out, errb := runScript(t, env, "sh", "run/run.sh")
	assert.Contains(t, out, "v1.4.0 fixed it (issue #212)")
	assert.Contains(t, errb, `search(changelog, "empty")`, "-v shows the model's code")
	assert.Contains(t, errb, "A crash when the config file was empty", "-v shows the output it saw")
	assert.Contains(t, errb, "rlm view ", "a kept run says how to view it")
	assert.GreaterOrEqual(t, srv.Count(), 2)

	// The README's last tutorial step: rlm view ID renders the kept run.
	m := regexp.MustCompile(`rlm view (\S+)`).FindStringSubmatch(errb)
	require.NotNil(t, m, errb)
	page := filepath.Join(t.TempDir(), "view.html")
	runScript(t, env, filepath.Join(binDir, "rlm"), "view", m[1], "-o", page)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<html")
}

// startServe starts rlm serve on a free loopback port with the fake model
// as upstream and token as its bearer token, and returns its base URL
// (ending in /v1). The server is stopped with SIGTERM at the end of the test.
func startServe(t *testing.T, upstream, token string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "rlm"), "serve", "--addr", "127.0.0.1:0", "--no-keep")
	cmd.Env = scriptEnv(t, "OPENAI_BASE_URL="+upstream, "RLM_MODEL=fake-model", "RLM_SERVE_TOKEN="+token)
	return servetest.Start(t, cmd)
}

// canRun reports whether the command name args... succeeds in dir (the
// check that a client's runtime and its OpenAI package are installed).
func canRun(dir, name string, args ...string) bool {
	if _, err := exec.LookPath(name); err != nil {
		return false
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	return cmd.Run() == nil
}

// The clients of rlm serve, each against a server whose upstream is the
// fake model. The Python and Node clients need their OpenAI SDK, which
// the test does not install: without it the client is skipped.
func TestExampleServeClients(t *testing.T) {
	abs, err := filepath.Abs("serve")
	require.NoError(t, err)
	tests := []struct {
		name    string
		ready   func() bool
		missing string
		cmd     []string
		want    []string
	}{
		{
			name:    "curl",
			ready:   func() bool { return canRun(abs, "curl", "--version") },
			missing: "curl is not installed",
			cmd:     []string{"sh", filepath.Join(abs, "client.sh")},
			want:    []string{`"id":"rlm"`, `"content":"42"`, `"stop_reason":"submit"`},
		},
		{
			name:    "python",
			ready:   func() bool { return canRun(abs, "python3", "-c", "import openai") },
			missing: "python3 with the openai package is not installed (pip install openai)",
			cmd:     []string{"python3", filepath.Join(abs, "client.py")},
			want:    []string{"answer: 42", "stop: submit", "streamed: 42", "progress chunks: True"},
		},
		{
			name:    "node",
			ready:   func() bool { return canRun(abs, "node", "--input-type=module", "-e", `await import("openai")`) },
			missing: "node with the openai npm package is not installed (npm install openai in examples/serve)",
			cmd:     []string{"node", filepath.Join(abs, "client.mjs")},
			want:    []string{"answer: 42", "stop: submit", "streamed: 42", "progress chunks: true"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ready() {
				t.Skip("skipping the " + tt.name + " client: " + tt.missing)
			}
			srv := llmtest.NewServer(t)
			srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
				if !hasAssistant(c) {
					return llmtest.Text("```python\nprint(search(notes, \"magic number\"))\n```")
				}
				return llmtest.Text("```python\nSUBMIT(answer=\"42\")\n```")
			})
			const token = "example-token-0123456789"
			base := startServe(t, srv.URL(), token)
			out, _ := runScript(t, scriptEnv(t, "RLM_SERVE_URL="+base, "RLM_SERVE_TOKEN="+token), tt.cmd[0], tt.cmd[1:]...)
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
		})
	}
}
