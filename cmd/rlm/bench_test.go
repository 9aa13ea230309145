package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/internal/bench"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

var needleRe = regexp.MustCompile(`special magic number for [a-z]+-[a-z]+ is (\d+)`)

// benchServer is a fake endpoint that solves niah tasks both ways: direct
// requests are answered from the pasted context; RLM root requests search,
// ask a sub-call about the hit, then SUBMIT; sub-calls read the number
// from the excerpt they are given.
func benchServer(t *testing.T) *llmtest.Server {
	return llmtest.NewServer(t).SetDefault(benchReply)
}

// benchReply is benchServer's reply to one call.
func benchReply(c llmtest.Call) llmtest.Reply {
	all := ""
	for _, m := range c.Messages {
		all += m.Content + "\n"
	}
	root := len(c.Messages) > 0 && c.Messages[0].Role == llm.RoleSystem && strings.Contains(c.Messages[0].Content, "SUBMIT")
	if !root {
		// direct request or llm_query sub-call: read the needle.
		if m := needleRe.FindStringSubmatch(all); m != nil {
			return llmtest.Text(m[1])
		}
		return llmtest.Text("unknown")
	}
	for _, m := range c.Messages {
		if m.Role == llm.RoleAssistant {
			return llmtest.Text("```python\nSUBMIT({\"answer\": ans.value})\n```")
		}
	}
	return llmtest.Text(
		"```python\nhits = search(context, \"special magic number\")\nprint(hits[0][\"match\"])\nans = llm_query(\"What is the number in: \" + hits[0][\"preview\"])\n```",
	)
}

func benchEnv(srv *llmtest.Server) map[string]string {
	return map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-bench-secret", "RLM_MODEL": "gpt-4o-mini"}
}

func TestBenchEndToEnd(t *testing.T) {
	srv := benchServer(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "", benchEnv(srv), "bench", "--task", "niah", "--sizes", "8k", "--n", "2",
		"--modes", "rlm,direct", "--parallel", "2", "--out", out, "--seed", "3")
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.NotContains(t, stderr, "\r", "no progress bar when stderr is not a terminal")
	assert.NotContains(t, stderr, "\x1b[K")
	assert.Contains(t, stdout, "| 8k | rlm | 2 | 1.000")
	assert.Contains(t, stdout, "| 8k | direct | 2 | 1.000")
	for _, f := range []string{bench.ReportMarkdown, bench.ResultsFile, "chart-niah.svg"} {
		assert.FileExists(t, filepath.Join(out, f))
	}
	results, err := bench.ReadResults(filepath.Join(out, bench.ResultsFile))
	require.NoError(t, err)
	require.Len(t, results, 4)
	var rlmRoot, directRoot int
	for _, r := range results {
		assert.Equal(t, 1.0, r.Score, "%s: %q vs %q (%s)", r.Key, r.Answer, r.Gold, r.Error)
		switch r.Mode {
		case bench.ModeRLM:
			rlmRoot = r.RootPromptTokens
			assert.Equal(t, 3, r.Calls, "two root steps and one sub-call")
			assert.Greater(t, r.SubPromptTokens, 0)
			assert.Equal(t, 2, r.Iterations)
			assert.Equal(t, "submit", r.StopReason)
		case bench.ModeDirect:
			directRoot = r.RootPromptTokens
			assert.Equal(t, 1, r.Calls)
			assert.Zero(t, r.SubPromptTokens)
		}
		assert.True(t, r.CostKnown)
	}
	assert.Greater(t, directRoot, 8000, "direct pastes the context")
	assert.Less(t, rlmRoot, 4000, "rlm root prompts hold summaries only")
	b, err := os.ReadFile(filepath.Join(out, bench.ResultsFile))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "sk-bench-secret")

	// --resume with a larger n runs only the new items.
	before := srv.Count()
	code, _, stderr = runCLI(t, "", benchEnv(srv), "bench", "--task", "niah", "--sizes", "8k", "--n", "3",
		"--modes", "rlm,direct", "--out", out, "--seed", "3", "--resume")
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Equal(t, 3+1, srv.Count()-before, "one new item per mode: 3 rlm calls + 1 direct call")
	results, err = bench.ReadResults(filepath.Join(out, bench.ResultsFile))
	require.NoError(t, err)
	assert.Len(t, results, 6)

	// Without --resume the existing results are not overwritten.
	code, _, stderr = runCLI(t, "", benchEnv(srv), "bench", "--task", "niah", "--out", out, "--seed", "3")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--resume")
}

func TestBenchDirectOverflow(t *testing.T) {
	srv := benchServer(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "", benchEnv(srv), "bench", "--task", "aggregate", "--sizes", "8k",
		"--modes", "direct", "--context-window", "2000", "--out", out)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Zero(t, srv.Count(), "an overflowing prompt is not sent")
	assert.Contains(t, stdout, "context_overflow: 1")
	results, err := bench.ReadResults(filepath.Join(out, bench.ResultsFile))
	require.NoError(t, err)
	require.Len(t, results, 1)
	assert.Equal(t, bench.FailContextOverflow, results[0].Failure)
	assert.Zero(t, results[0].Score)

	// The server's context-length error is recorded the same way.
	srv.Enqueue("", llmtest.ContextLengthExceeded())
	out2 := t.TempDir()
	code, _, stderr = runCLI(t, "", benchEnv(srv), "bench", "--task", "aggregate", "--modes", "direct", "--out", out2)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	results, err = bench.ReadResults(filepath.Join(out2, bench.ResultsFile))
	require.NoError(t, err)
	require.Len(t, results, 1)
	assert.Equal(t, bench.FailContextOverflow, results[0].Failure)
}

func TestBenchDryRun(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "", nil, "bench", "--dry-run", "--task", "niah,files", "--sizes", "8k,32k", "--out", out)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	rowRe := regexp.MustCompile(`(?m)^\| (\w+) \| (\w+) \| 0 \| [\d.]+ \| (\d+) \| (\d+) \|`)
	rows := rowRe.FindAllStringSubmatch(stdout, -1)
	require.Len(t, rows, 4, stdout)
	for i := 0; i < 4; i += 2 {
		small, big := rows[i], rows[i+1]
		assert.Equal(t, "8k", small[2])
		assert.Equal(t, "32k", big[2])
		assert.Greater(t, atoi(t, big[3]), 3*atoi(t, small[3]), "direct prompt grows with the context")
		assert.InDelta(t, atoi(t, small[4]), atoi(t, big[4]), 30, "rlm root prompt stays flat")
		assert.Less(t, atoi(t, big[4]), 1500+200, "rlm root prompt near the 1,500-token target")
	}
	md, err := os.ReadFile(filepath.Join(out, "dry-run.md"))
	require.NoError(t, err)
	assert.Equal(t, stdout, string(md))
}

func atoi(t *testing.T, s string) int {
	var n int
	require.NoError(t, json.Unmarshal([]byte(s), &n))
	return n
}

func TestBenchGen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "task")
	code, stdout, stderr := runCLI(t, "", nil, "bench", "gen", "--task", "files", "--size", "8k", "--seed", "2", "--out", dir)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Contains(t, stdout, "--var files="+filepath.Join(dir, "files.json"))
	var tf bench.TaskFile
	b, err := os.ReadFile(filepath.Join(dir, "task.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &tf))
	assert.Equal(t, "files", tf.Task)
	assert.Equal(t, bench.GoldFiles, tf.Gold.Format)
	assert.NotEmpty(t, tf.Gold.Callers)
	want, err := bench.Generate("files", 8000, 2, 0)
	require.NoError(t, err)
	assert.Equal(t, want.Query, tf.Query)

	// The written variable loads as the rlm CLI loads --var files.
	c, _, err := loadContext(
		&cliEnv{getenv: func(string) string { return "" }},
		tf.Query,
		[]string{"files=" + filepath.Join(dir, "files.json")},
		"",
		t.TempDir(),
	)
	require.NoError(t, err)
	v, ok := c.Get("files")
	require.True(t, ok)
	assert.Equal(t, want.Vars[0].Value, v.GoValue(), "same files dict, same order")
}

func TestBenchUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"bench", "--task", "bogus"}, 2, `bench: unknown task "bogus"`},
		{[]string{"bench", "--sizes", "big"}, 2, "bench: bad size"},
		{[]string{"bench", "--modes", "rlm,psychic"}, 2, `unknown mode "psychic"`},
		{[]string{"bench", "--n", "0"}, 2, "--n must be >= 1"},
		{[]string{"bench", "--max-steps", "0"}, 2, "--max-steps"},
		{[]string{"bench", "--context-window", "-1"}, 2, "--context-window must be >= 0"},
		{[]string{"bench", "--max-cost", "-1"}, 2, "budgets"},
		{[]string{"bench", "--protocol", "yaml"}, 2, "--protocol must be text or tools"},
		{[]string{"bench", "--nope"}, 2, "flag provided but not defined"},
		{[]string{"bench", "gen", "--task", "niah"}, 2, "--task and --out are required"},
		{[]string{"bench", "gen", "--task", "bogus", "--out", "x"}, 2, "bench: unknown task"},
		{[]string{"bench", "--out", "x"}, 1, "OPENAI_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string(nil), tt.args...)
			for i, a := range args {
				if a == "x" {
					args[i] = filepath.Join(dir, "x")
				}
			}
			code, _, stderr := runCLI(t, "", nil, args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.msg)
		})
	}
}

// TestBenchGenRunnable: the commands rlm bench gen prints work as printed:
// rlm run answers the task over the written variable (scored against the
// gold), and rlm exec explores it offline.
func TestBenchGenRunnable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "niah task")
	code, stdout, stderr := runCLI(t, "", nil, "bench", "gen", "--task", "niah", "--size", "8k", "--seed", "4", "--out", dir)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	ctxFile := filepath.Join(dir, "context.txt")
	assert.Contains(t, stdout, "--var 'context="+ctxFile+"'", "paths with spaces are quoted")
	assert.Contains(t, stdout, "rlm exec --var")
	want, err := bench.Generate(bench.KindNIAH, 8000, 4, 0)
	require.NoError(t, err)
	query, err := os.ReadFile(filepath.Join(dir, "query.txt"))
	require.NoError(t, err)

	srv := benchServer(t)
	code, stdout, stderr = runCLI(
		t,
		"",
		benchEnv(srv),
		"run",
		"--quiet",
		"--query",
		strings.TrimSuffix(string(query), "\n"),
		"--var",
		"context="+ctxFile,
	)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Equal(t, 1.0, bench.Score(want.Gold, stdout), "rlm run answered %q, gold %q", stdout, want.Gold.Answer)

	code, stdout, stderr = runCLI(
		t,
		"",
		nil,
		"exec",
		"--var",
		"context="+ctxFile,
		"-c",
		"print(len(context))\nprint(search(context, 'special magic number')[0]['match'])",
	)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Equal(
		t,
		fmt.Sprintf("%d\nspecial magic number\n", len(want.Vars[0].Value.(string))),
		stdout,
		"the variable is the generated text, byte for byte",
	)
}

// TestBenchInterruptResume: a run interrupted mid-way (Ctrl-C) keeps the
// finished items and a report, exits non-zero naming --resume, and the
// resumed run does only the rest; the final report covers every item.
func TestBenchInterruptResume(t *testing.T) {
	srv := llmtest.NewServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
		if calls.Add(1) == 6 {
			cancel() // interrupt during the second item's calls
		}
		return benchReply(c)
	})
	out := filepath.Join(t.TempDir(), "out")
	args := []string{
		"bench",
		"--task",
		"niah",
		"--sizes",
		"8k,16k",
		"--n",
		"2",
		"--modes",
		"rlm,direct",
		"--out",
		out,
		"--seed",
		"6",
		"--quiet",
	}
	var stdout, stderr bytes.Buffer
	env := benchEnv(srv)
	e := &cliEnv{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return env[k] }}
	code := runMain(ctx, e, args)
	assert.Equal(t, 1, code, "an interrupted run fails")
	assert.Contains(t, stderr.String(), "--resume")
	first, err := bench.ReadResults(filepath.Join(out, bench.ResultsFile))
	require.NoError(t, err)
	require.NotEmpty(t, first)
	require.Less(t, len(first), 8)
	assert.FileExists(t, filepath.Join(out, bench.ReportMarkdown), "a partial report is written")

	before := srv.Count()
	code, stdout2, stderr2 := runCLI(t, "", env, append(args, "--resume")...)
	require.Equal(t, 0, code, "stderr: %s", stderr2)
	all, err := bench.ReadResults(filepath.Join(out, bench.ResultsFile))
	require.NoError(t, err)
	require.Len(t, all, 8, "every item once")
	seen := map[bench.Key]bool{}
	for _, r := range all {
		assert.False(t, seen[r.Key], "%s twice", r.Key)
		seen[r.Key] = true
	}
	assert.Equal(t, first, all[:len(first)], "finished items are kept, not rerun")
	assert.Greater(t, srv.Count(), before)
	assert.Contains(t, stdout2, "## niah")
	for _, row := range []string{"| 8k | rlm | 2 | 1.000", "| 8k | direct | 2 | 1.000", "| 16k | rlm | 2 | 1.000", "| 16k | direct | 2 | 1.000"} {
		assert.Contains(t, stdout2, row)
	}
	svg, err := os.ReadFile(filepath.Join(out, "chart-niah.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "<svg")
}

// TestBenchDryRunMatchesRun: --dry-run counts exactly the first requests a
// real run sends, in both modes, with the same model flags.
func TestBenchDryRunMatchesRun(t *testing.T) {
	srv := benchServer(t)
	args := []string{"bench", "--task", "niah", "--sizes", "8k", "--seed", "8", "--quiet"}
	code, stdout, stderr := runCLI(t, "", benchEnv(srv), append(args, "--dry-run")...)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Zero(t, srv.Count(), "a dry run calls no model")
	row := regexp.MustCompile(`(?m)^\| niah \| 8k \| 0 \| [\d.]+ \| (\d+) \| (\d+) \|`).FindStringSubmatch(stdout)
	require.NotNil(t, row, stdout)

	for _, mode := range []string{"direct", "rlm"} {
		before := srv.Count()
		code, _, stderr = runCLI(t, "", benchEnv(srv), append(args, "--modes", mode, "--out", t.TempDir())...)
		require.Equal(t, 0, code, "stderr: %s", stderr)
		first := srv.Calls()[before]
		n := bench.RequestTokens(llm.Request{Model: first.Model, Messages: first.Messages})
		want := row[1]
		if mode == "rlm" {
			want = row[2]
		}
		assert.Equal(t, want, fmt.Sprint(n), "%s: dry-run count of the first request", mode)
	}
}
