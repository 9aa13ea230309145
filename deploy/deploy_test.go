// Package deploy holds the deployment examples of the cluster mode; its
// test keeps them true to the binary.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// commandFlags reads each command's flags from docs/cli.md, which
// TestCLIReference keeps equal to the binary's help.
func commandFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../docs/cli.md")
	require.NoError(t, err)
	out := map[string]map[string]bool{}
	flagLine := regexp.MustCompile(`^  -([a-z][a-z0-9-]*)`)
	var cur map[string]bool
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "## rlm "); ok {
			cur = map[string]bool{}
			out[strings.Fields(name)[0]] = cur
			continue
		}
		if m := flagLine.FindStringSubmatch(line); m != nil && cur != nil {
			cur[m[1]] = true
		}
	}
	return out
}

// argLists finds the rlm argument lists of a manifest: a container's
// args, a compose service's command.
func argLists(node any, found *[][]string) {
	switch v := node.(type) {
	case map[string]any:
		for k, c := range v {
			if list, ok := c.([]any); ok && (k == "args" || k == "command") {
				var args []string
				for _, a := range list {
					s, _ := a.(string)
					args = append(args, s)
				}
				*found = append(*found, args)
				continue
			}
			argLists(c, found)
		}
	case []any:
		for _, c := range v {
			argLists(c, found)
		}
	}
}

// TestManifestsMatchTheBinary: every manifest is valid YAML, and every rlm
// command and flag it passes exists (rlm worker refuses serve's HTTP
// flags, which docs/cli.md does not list for it).
func TestManifestsMatchTheBinary(t *testing.T) {
	flags := commandFlags(t)
	require.NotEmpty(t, flags["serve"])
	require.NotEmpty(t, flags["worker"])
	files, err := filepath.Glob("*/*.yaml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 4)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, f)
			var lists [][]string
			argLists(doc, &lists)
			for _, args := range lists {
				if len(args) == 0 || flags[args[0]] == nil {
					continue // not an rlm command (pg_isready, ...)
				}
				for _, a := range args[1:] {
					if name, ok := strings.CutPrefix(a, "--"); ok {
						assert.True(t, flags[args[0]][name], "%s: rlm %s has no flag --%s", f, args[0], name)
						checked++
					}
				}
			}
		}
	}
	assert.Greater(t, checked, 10, "the manifests' flags were found")
}
