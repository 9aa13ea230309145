// Package sdk is the SDK conformance suite (issue 27): the official openai
// npm package (pinned in node/package.json) against a real rlm serve
// process, whose upstream is the fake OpenAI server of llm/llmtest. The
// Node tests (node/*.test.mjs, run with node --test) and a TypeScript
// type-check (node/typed.ts, npx tsc --noEmit) are driven by
// TestSDKNode, which runs only with RLM_SDK_TEST=1: make test-sdk
// installs the npm packages and runs it.
package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/servetest"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// The markers a Node test puts in its question to choose the fake model's
// behaviour (see script).
const (
	markFail = "SDK-FAIL" // the upstream refuses every call: the run fails
	markJSON = "SDK-JSON" // the answer is {"city": "Lisbon", "population": 545000}
	token    = "sdk-conformance-token-0123456789"
)

// script is the fake model: a question with markFail gets a 401 (the run
// fails with stop reason model_error); any other run takes two calls, one
// code block that prints and then a SUBMIT (of the markJSON object, else
// answer="42").
func script(c llmtest.Call) llmtest.Reply {
	var all strings.Builder
	assistant := false
	for _, m := range c.Messages {
		all.WriteString(m.Content)
		all.WriteByte('\n')
		if m.Role == "assistant" {
			assistant = true
		}
	}
	text := all.String()
	switch {
	case strings.Contains(text, markFail):
		return llmtest.ErrorReply(401, "invalid_api_key", "Incorrect API key provided")
	case !assistant:
		return llmtest.Text("```python\nprint(\"looking\")\n```")
	case strings.Contains(text, markJSON):
		return llmtest.Text("```python\nSUBMIT(city=\"Lisbon\", population=545000)\n```")
	default:
		return llmtest.Text("```python\nSUBMIT(answer=\"42\")\n```")
	}
}

func TestSDKNode(t *testing.T) {
	if os.Getenv("RLM_SDK_TEST") != "1" {
		t.Skip("the SDK conformance suite runs with RLM_SDK_TEST=1 (make test-sdk)")
	}
	nodeDir, err := filepath.Abs("node")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"node", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping the SDK conformance suite: %s is not installed", tool)
		}
	}
	for _, pkg := range []string{"openai", "typescript"} {
		if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", pkg, "package.json")); err != nil {
			t.Skipf(
				"skipping the SDK conformance suite: the npm package %s is not installed in sdk/node (make test-sdk runs npm ci there)",
				pkg,
			)
		}
	}

	bin := filepath.Join(t.TempDir(), "rlm")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/rlm").CombinedOutput(); err != nil {
		t.Fatalf("building rlm: %v\n%s", err, out)
	}

	up := llmtest.NewServer(t)
	up.SetDefault(script)
	stats := statsServer(t, up)
	base := startServe(t, bin, up.URL())

	t.Run("typecheck", func(t *testing.T) {
		run(t, nodeDir, nil, "npx", "--no-install", "tsc", "--noEmit", "-p", ".")
	})
	t.Run("node", func(t *testing.T) {
		run(t, nodeDir, []string{
			"RLM_SERVE_URL=" + base,
			"RLM_SERVE_TOKEN=" + token,
			"RLM_SDK_UPSTREAM_STATS=" + stats,
			"RLM_SDK_MARK_FAIL=" + markFail,
			"RLM_SDK_MARK_JSON=" + markJSON,
		}, "node", "--test", "--test-reporter=spec")
	})
}

// statsServer serves GET /calls?marker=M on loopback: {"calls": N}, the
// number of upstream calls whose messages contain M (how a Node test sees
// what its runs cost the upstream). It returns the URL of /calls.
func statsServer(t *testing.T, up *llmtest.Server) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		marker := r.URL.Query().Get("marker")
		if r.URL.Path != "/calls" || marker == "" {
			http.Error(w, "GET /calls?marker=M", http.StatusBadRequest)
			return
		}
		n := 0
		for _, c := range up.Calls() {
			for _, m := range c.Messages {
				if strings.Contains(m.Content, marker) {
					n++
					break
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]int{"calls": n})
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/calls"
}

// startServe starts bin serve on a free loopback port against upstream,
// kept in memory (--no-keep), with the store and settings in a temporary
// home; it returns the base URL (ending in /v1). The server is stopped
// with SIGTERM at the end of the test.
func startServe(t *testing.T, bin, upstream string) string {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--no-keep")
	cmd.Env = append(cleanEnv(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"RLM_RUNS_DIR="+filepath.Join(home, "runs"),
		"RLM_STORE="+filepath.Join(home, "store"),
		"OPENAI_BASE_URL="+upstream,
		"OPENAI_API_KEY=sk-fake",
		"RLM_MODEL=fake-model",
		"RLM_SERVE_TOKEN="+token,
	)
	return servetest.Start(t, cmd)
}

// cleanEnv is the machine's environment without any rlm or OpenAI
// setting (a later entry, e.g. HOME, overrides an earlier one).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "RLM_") || strings.HasPrefix(k, "OPENAI_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// run runs name args in dir with the clean environment and extra, and
// fails the test with its output if it fails.
func run(t *testing.T, dir string, extra []string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), extra...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if testing.Verbose() || err != nil {
		t.Logf("%s %s:\n%s", name, strings.Join(args, " "), out.String())
	}
	if err != nil {
		t.Fatal(fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err))
	}
}
