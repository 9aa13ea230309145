package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettingsFile: flags come from the command line, then the
// environment, then the settings file, then the default; rlm config shows
// each with its source and redacts secrets; a bad file is refused with its
// name and the key.
func TestSettingsFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`
model: from-file
api-key: sk-file-secret-0123456789
base-url: http://file.example/v1?key=filesecret
max-iterations: 7
serve:
  max-runs: 5
  addr: 127.0.0.1:9999
run:
  max-iterations: 9
  store-read: [a, b*]
`), 0o600))
	env := map[string]string{"RLM_CONFIG": file, "RLM_MODEL": "from-env"}

	code, out, errOut := runCLI(t, "", env, "config", "run", "--max-depth", "3")
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		"# settings file: " + file,
		"--max-iterations  9", // the run section wins over the top level
		"--max-depth       3                flag",
		"--model           from-env         env RLM_MODEL", // the environment wins over the file
		"--api-key         [REDACTED]       file",
		"--store-read      a b*             file",
	} {
		assert.Contains(t, collapse(out), collapse(want))
	}
	assert.NotContains(t, out, "sk-file-secret")
	assert.NotContains(t, out, "filesecret")

	code, out, errOut = runCLI(t, "", env, "config", "serve", "--max-runs", "6")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, collapse(out), collapse("--max-runs 6 flag"), "the command line wins over the file")
	assert.Contains(t, collapse(out), collapse("--addr 127.0.0.1:9999 file"))
	assert.Contains(t, collapse(out), collapse("--max-iterations 7 file"), "the top level applies to every command")

	// A key the command has no flag for, in its own section, is an error.
	require.NoError(t, os.WriteFile(file, []byte("run:\n  max-runz: 5\n"), 0o600))
	code, _, errOut = runCLI(t, "", env, "config", "run")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "settings file "+file+": rlm run has no flag --max-runz")

	require.NoError(t, os.WriteFile(file, []byte("max-iterations: [[\n"), 0o600))
	code, _, errOut = runCLI(t, "", env, "config", "run")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "settings file "+file)

	require.NoError(t, os.WriteFile(file, []byte("max-iterations: lots\n"), 0o600))
	code, _, errOut = runCLI(t, "", env, "exec", "-c", "print(1)")
	assert.Equal(t, 0, code, "exec has no --max-iterations: a top-level key of another command is ignored: %s", errOut)
	code, _, errOut = runCLI(t, "", env, "config", "run")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "max-iterations")

	// $RLM_CONFIG must exist; the default file may not.
	code, _, errOut = runCLI(t, "", map[string]string{"RLM_CONFIG": filepath.Join(dir, "missing.yaml")}, "config", "run")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "missing.yaml")
	code, _, errOut = runCLI(t, "", map[string]string{"HOME": dir}, "config", "run")
	assert.Equal(t, 0, code, errOut)
}

// collapse squeezes runs of spaces, so table alignment does not matter.
func collapse(s string) string {
	out := make([]rune, 0, len(s))
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' {
			if !space {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		space = false
		out = append(out, r)
	}
	return string(out)
}
