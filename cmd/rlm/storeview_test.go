package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// storeReadScript is a fake model whose root starts a child with
// rlm_query, then reads the child's stored result back by reference in a
// later step with store_keys and store_get, and submits from it.
func storeReadScript(c llmtest.Call) llmtest.Reply {
	n, child := 0, false
	for _, m := range c.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
		if m.Role == llm.RoleUser && strings.Contains(m.Content, "Find the magic number") {
			child = true
		}
	}
	code := func(s string) llmtest.Reply { return llmtest.Text("```python\n" + s + "\n```") }
	switch {
	case child:
		return code(`SUBMIT({"answer": "42", "where": part.splitlines()[1]})`)
	case n == 0:
		return code(`r = rlm_query("Find the magic number", part=context)
print(r.value)`)
	case n == 1:
		return code(`ks = [k["key"] for k in store_keys()]
res = store_get(ks[0])
print(len(ks), sorted(res.keys()))
print(store_keys(summaries=True)[0]["summary"])`)
	default:
		return code(`SUBMIT(answer=res["answer"] + " from " + repr(res["where"]))`)
	}
}

// TestStoreGetChildResult: a later step of a run reads its rlm_query
// child's stored result by reference (store_keys, store_get); the system
// prompt lists the store helpers only when something is readable; the
// run cannot read another run's children; rlm exec reads the keys given
// with --store-read or --var store:KEY only.
func TestStoreGetChildResult(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(storeReadScript)
	dir := t.TempDir()
	storeDir := filepath.Join(dir, "store")
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte("x\nthe magic number is 42\n"), 0o644))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "root", "RLM_SUB_MODEL": "sub", "RLM_STORE": storeDir}
	args := []string{"run", "--query", "What is the magic number?", "--var", "context=" + ctxFile, "--max-depth", "2"}

	for i := range 2 { // the second run sees its own child only
		code, out, errOut := runCLI(t, "", env, args...)
		require.Equal(t, 0, code, "stderr: %s", errOut)
		assert.Equal(t, "42 from 'the magic number is 42'\n", out)
		calls := srv.Calls()
		var step2 string
		for _, c := range calls {
			if c.Model == "root" && len(c.Messages) > 0 && strings.Contains(c.Messages[0].Content, "store_get(key)") {
				for _, m := range c.Messages {
					if strings.Contains(m.Content, "sorted(res.keys())") {
						step2 = c.Messages[len(c.Messages)-1].Content
					}
				}
			}
		}
		assert.Contains(t, step2, "1 ['answer', 'where']", "run %d: the later step read the child's result: %s", i, step2)
		assert.Contains(t, step2, `json dict of 2 keys`, "run %d: and its summary", i)
	}
	require.NotEmpty(t, srv.Calls())
	system := srv.Calls()[0].Messages[0].Content
	assert.Contains(t, system, "Read the store (read-only)")
	assert.Contains(t, system, `- store_keys(prefix="", summaries=False):`)

	// Not kept, nothing given: no store helpers in the prompt.
	srv.SetDefault(func(llmtest.Call) llmtest.Reply { return llmtest.Text("```python\nSUBMIT(answer='ok')\n```") })
	n := len(srv.Calls())
	code, _, errOut := runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile, "--no-keep")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.NotContains(t, srv.Calls()[n].Messages[0].Content, "store_get")

	// Kept at depth 1: no child is ever stored, so with nothing given the
	// prompt lists no store helpers; with --store-read it lists them for
	// the keys given, without promising children.
	n = len(srv.Calls())
	code, _, errOut = runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.NotContains(t, srv.Calls()[n].Messages[0].Content, "store_get")
	n = len(srv.Calls())
	code, _, errOut = runCLI(t, "", env, "run", "--query", "q", "--var", "context="+ctxFile, "--store-read", "x*")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	system = srv.Calls()[n].Messages[0].Content
	assert.Contains(t, system, "Read the store (read-only): the keys given to this run")
	assert.Contains(t, system, "List the stored keys given to this run")
	assert.NotContains(t, system, "rlm_query child")

	// rlm exec: only the keys given.
	code, lsOut, errOut := runCLI(t, "", env, "store", "ls")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	var keys []string
	for _, line := range strings.Split(lsOut, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "/0.1.") {
			keys = append(keys, f[0])
		}
	}
	require.Len(t, keys, 2, "store ls:\n%s", lsOut)
	code, out, errOut := runCLI(
		t,
		"",
		env,
		"exec",
		"--store-read",
		keys[0],
		"-c",
		"print(store_get('"+keys[0]+"')['answer'], len(store_keys()))",
	)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "42 1\n", out)
	runPrefix := keys[1][:strings.Index(keys[1], "/")+1]
	code, out, errOut = runCLI(
		t,
		"",
		env,
		"exec",
		"--store-read",
		runPrefix+"*",
		"-c",
		"print([k['key'] for k in store_keys()] == ['"+keys[1]+"'])",
	)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "True\n", out)
	code, _, errOut = runCLI(t, "", env, "exec", "--store-read", keys[0], "-c", "store_get('"+keys[1]+"')")
	assert.Equal(t, 1, code)
	assert.Contains(
		t,
		errOut,
		"KeyError: store_get: key \""+keys[1]+"\" is not readable by this run; readable keys near it: \""+keys[0]+"\"",
	)
	code, _, errOut = runCLI(t, "", env, "exec", "-c", "store_keys()")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no store is readable in this run")

	// A run given a stored key finds it listed with the variables, with
	// its summary, and how to load it.
	n = len(srv.Calls())
	code, _, errOut = runCLI(t, "", env, "run", "--query", "q", "--store-read", keys[0])
	require.Equal(t, 0, code, "stderr: %s", errOut)
	var prompt strings.Builder
	for _, m := range srv.Calls()[n].Messages {
		prompt.WriteString(m.Content)
	}
	assert.Contains(t, prompt.String(), "- store_get(\""+keys[0]+"\"): json dict of 2 keys")
	assert.NotContains(t, prompt.String(), "(no context variables)")
}
