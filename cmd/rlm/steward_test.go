package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/meta"
)

// TestStewardCommands: kept runs whose code hits the same error twice lead
// rlm steward propose to a lesson; review shows its evidence, apply writes
// meta v1 and the changelog, the next run uses it, rollback restores v0 as
// v2, drift and backfill run over the same runs.
func TestStewardCommands(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		n := 0
		for _, m := range c.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		if n == 0 {
			return llmtest.Text("```python\nasync def f():\n    return 1\n```")
		}
		return llmtest.Text("```python\nSUBMIT({\"answer\": \"42\"})\n```")
	})
	dir := t.TempDir()
	ctxFile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(ctxFile, []byte("the magic number is 42\n"), 0o644))
	metaFile := filepath.Join(dir, "meta.json")
	env := map[string]string{
		"OPENAI_BASE_URL": srv.URL(),
		"RLM_MODEL":       "root",
		"RLM_RUNS_DIR":    filepath.Join(dir, "runs"),
		"RLM_META":        metaFile,
		"USER":            "ops",
	}
	for range 2 {
		code, _, errOut := runCLI(t, "", env, "run", "--query", "magic?", "--var", "context="+ctxFile, "--quiet")
		require.Equal(t, 0, code, "stderr: %s", errOut)
	}

	code, out, errOut := runCLI(t, "", env, "steward", "propose")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, errOut, "2 run(s) read")
	assert.Contains(t, out, "add_lesson no_async")
	id := strings.Fields(out)[0]

	code, out, _ = runCLI(t, "", env, "steward", "review")
	require.Equal(t, 0, code)
	assert.Contains(t, out, id)
	assert.Contains(t, out, "evidence: 2 in 2 of 2 runs (distinct queries: 1)")
	assert.Contains(t, out, "async def f()", "the code that failed")

	code, out, errOut = runCLI(t, "", env, "steward", "apply", id)
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, out, "applied "+id)
	doc, _, err := meta.Load(metaFile)
	require.NoError(t, err)
	assert.Equal(t, 1, doc.Version)
	require.Len(t, doc.Lessons, 1)
	require.Len(t, doc.Lessons[0].Sources, 2, "the two runs that showed it")
	for _, src := range doc.Lessons[0].Sources {
		assert.DirExists(t, filepath.Join(dir, "runs", src), "a source is a kept run")
	}

	code, out, _ = runCLI(t, "", env, "steward", "log")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "v1")
	assert.Contains(t, out, "no_async")
	assert.Contains(t, out, "ops@")
	assert.Contains(t, out, "meta hit rate: no kept run had a lesson in force")

	// The next run uses v1 (RLM_META) and records it.
	code, _, errOut = runCLI(t, "", env, "run", "--query", "magic?", "--var", "context="+ctxFile, "--quiet")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	calls := srv.Calls()
	lesson, _ := meta.LessonText("no_async", meta.Params{})
	assert.Contains(t, calls[len(calls)-1].Messages[1].Content, lesson)
	code, out, _ = runCLI(t, "", env, "runs", "ls")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "v1")
	// That run had the lesson in force and the error it is about.
	code, out, _ = runCLI(t, "", env, "steward", "log")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "meta hit rate: 100% (1 of 1 pairs")
	assert.Regexp(t, `no_async\s+1\s+1\s+100%\s+`+doc.Lessons[0].Sources[0]+" "+doc.Lessons[0].Sources[1], out)

	code, out, errOut = runCLI(t, "", env, "steward", "rollback", "0")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Equal(t, "meta v2 restores the content of v0\n", out)

	code, _, errOut = runCLI(t, "", env, "steward", "drift", "--window", "5")
	assert.Equal(t, 0, code, "too few runs is not drift: %s", errOut)
	assert.Contains(t, errOut, "too few runs")

	code, _, errOut = runCLI(t, "", env, "steward", "backfill")
	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, errOut, "0 of 3 run(s) changed", "current trajectories need nothing")

	code, _, errOut = runCLI(t, "", env, "steward", "apply")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "IDs or --all")
	code, _, _ = runCLI(t, "", env, "steward", "frobnicate")
	assert.Equal(t, 2, code)

	// Each subcommand takes only its own flags.
	for _, args := range [][]string{{"review", "--since", "7d"}, {"log", "--all"}, {"backfill", "--window", "3"}, {"apply", "--json", "--all"}} {
		code, _, errOut = runCLI(t, "", env, append([]string{"steward"}, args...)...)
		assert.Equal(t, 2, code, "steward %v", args)
		assert.Contains(t, errOut, "flag provided but not defined: -"+strings.TrimLeft(args[1], "-"), "steward %v", args)
	}
}
