package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunVerbose: rlm run -v prints each step as it happens (code, output,
// sub-calls, SUBMIT, the end), in colour only on a terminal without
// NO_COLOR or TERM=dumb, and every kept run says how to view it.
func TestRunVerbose(t *testing.T) {
	_, _, ctxFile, env := magicFixture(t)
	args := []string{
		"run",
		"-v",
		"--query",
		"What is the magic number?",
		"--var",
		"context=" + ctxFile,
		"--output",
		"answer:str, confidence:float",
	}

	code, out, errOut := runCLI(t, "", env, args...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "42\n", out, "the answer alone on stdout")
	for _, want := range []string{
		"── root step 1 ──\n",
		"│ hits = search(context, \"magic\")\n",
		"→ magic\n",
		"↳ llm_query (sub) ",
		"→ 42",
		"── root step 2 ──\n",
		"SUBMIT accepted\n",
		"── root ended: submit after 2 iteration(s)",
		"rlm run: see the run step by step with: rlm view ",
	} {
		assert.Contains(t, errOut, want)
	}
	assert.NotContains(t, errOut, "\x1b[", "no colour off a terminal")

	code, _, errOut = runCLITTY(t, env, args...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "\x1b[1m── root step 1 ──\x1b[0m", "colour on a terminal")
	assert.NotContains(t, errOut, "\rrlm: iter", "no status line under -v")

	for _, k := range []string{"NO_COLOR", "TERM"} {
		e := map[string]string{k: map[string]string{"NO_COLOR": "1", "TERM": "dumb"}[k]}
		for kk, v := range env {
			e[kk] = v
		}
		code, _, errOut = runCLITTY(t, e, args...)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, errOut, "── root step 1 ──")
		assert.NotContains(t, errOut, "\x1b[1m", "%s turns colour off", k)
	}

	// The status line: on a terminal, not on TERM=dumb.
	plain := append([]string{"run"}, args[2:]...)
	code, _, errOut = runCLITTY(t, env, plain...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "\r\x1b[Krlm: iter")
	dumb := map[string]string{"TERM": "dumb"}
	for k, v := range env {
		dumb[k] = v
	}
	code, _, errOut = runCLITTY(t, dumb, plain...)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, "\x1b[K", "TERM=dumb: no status line")

	code, _, errOut = runCLI(t, "", env, append(args, "--quiet")...)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut, "quiet stays quiet")
}
