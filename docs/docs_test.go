package docs_test

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/docs"
)

var update = flag.Bool("update", false, "rewrite the generated pages (helpers.md)")

// The committed helpers.md is what Helpers renders: regenerate it with
// go generate ./docs (or go test ./docs -update) after changing a helper.
func TestHelpersReference(t *testing.T) {
	for _, d := range builtins.Docs() {
		assert.NotEmpty(t, docs.Examples[d.Name], "helper %s has no example in docs.Examples", d.Name)
		assert.NotEmpty(t, d.Module, d.Name)
	}
	want := docs.Helpers()
	if *update {
		require.NoError(t, os.WriteFile(docs.HelpersFile, []byte(want), 0o644))
	}
	got, err := os.ReadFile(docs.HelpersFile)
	require.NoError(t, err)
	assert.Equal(t, want, string(got), "docs/helpers.md is stale: run go generate ./docs")
}

// Every helper is listed under one of the page's groups, and the examples
// name no helper that does not exist.
func TestHelpersDocsCoverEveryHelper(t *testing.T) {
	page := docs.Helpers()
	names := map[string]bool{}
	for _, d := range builtins.Docs() {
		names[d.Name] = true
		assert.Contains(t, page, "### "+d.Name+"\n", d.Name)
		assert.Contains(t, page, d.Signature, d.Name)
		assert.Contains(t, page, d.Summary, d.Name)
	}
	for name := range docs.Examples {
		assert.True(t, names[name], "example for %s, which is not a helper", name)
	}
}
