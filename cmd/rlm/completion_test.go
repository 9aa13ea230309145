package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompletionBash loads the bash script into a real bash and asks it
// for completions as the shell would at each position.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	code, script, errOut := runCLI(t, "", nil, "completion", "bash")
	require.Equal(t, 0, code, errOut)
	file := filepath.Join(t.TempDir(), "rlm.bash")
	require.NoError(t, os.WriteFile(file, []byte(script), 0o644))
	tests := []struct {
		line string // the words typed so far; the last one is being completed
		want []string
		not  []string
	}{
		{"rlm ru", []string{"run", "runs"}, []string{"exec"}},
		{"rlm run --max-it", []string{"--max-iterations"}, nil},
		{"rlm serve --max-r", []string{"--max-runs"}, nil},
		{"rlm steward ", []string{"propose", "review", "apply", "rollback", "log", "drift", "backfill"}, nil},
		{"rlm store ", []string{"put", "ls", "rm"}, nil},
		{"rlm runs ", []string{"ls", "show", "rm", "gc"}, nil},
		{"rlm bench ", []string{"gen"}, nil},
		{"rlm help ex", []string{"exec"}, nil},
		{"rlm completion ", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			words := strings.Fields(tt.line)
			if strings.HasSuffix(tt.line, " ") {
				words = append(words, "")
			}
			quoted := make([]string, len(words))
			for i, w := range words {
				quoted[i] = "'" + w + "'"
			}
			prog := "source " + file + "; COMP_WORDS=(" + strings.Join(quoted, " ") + "); COMP_CWORD=" +
				strconv.Itoa(len(words)-1) + "; _rlm; printf '%s\\n' \"${COMPREPLY[@]}\""
			out, err := exec.Command(bash, "-c", prog).CombinedOutput()
			require.NoError(t, err, "%s", out)
			got := strings.Fields(string(out))
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			for _, w := range tt.not {
				assert.NotContains(t, got, w)
			}
		})
	}
}

func TestCompletionShells(t *testing.T) {
	for _, shell := range []string{"zsh", "fish"} {
		code, script, errOut := runCLI(t, "", nil, "completion", shell)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, script, "--max-iterations"[2:], shell)
		if bin, err := exec.LookPath(shell); err == nil {
			file := filepath.Join(t.TempDir(), "rlm."+shell)
			require.NoError(t, os.WriteFile(file, []byte(script), 0o644))
			out, err := exec.Command(bin, "-n", file).CombinedOutput() // syntax check
			assert.NoError(t, err, "%s: %s", shell, out)
		}
	}
	code, _, errOut := runCLI(t, "", nil, "completion", "tcsh")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown shell "tcsh"`)
}
