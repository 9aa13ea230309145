package builtins_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rlmhq/rlm/builtins"
)

// TestHelp: help() lists the helpers as the prompt does, help(helper) and
// help("name") print a helper's signature and description, anything else
// says what it is.
func TestHelp(t *testing.T) {
	e := newEnv(t, nil, map[string]any{"doc": "a text"})
	tests := []struct {
		code string
		want []string
	}{
		{
			"help()",
			[]string{
				"Helpers (help(name) describes one",
				"- search(var, pattern, regex=False, max_results=10, field=None): Find pattern",
				"- SUBMIT(outputs=None, **kwargs):",
			},
		},
		{"help(search)", []string{"search(var, pattern, regex=False, max_results=10, field=None)\n\nFind pattern"}},
		{"help('llm_query')", []string{"llm_query(prompt, model=None, truncate=False)\n\nAsk a sub-model"}},
		{"help(len)", []string{"len(var)\n\nNumber of characters"}},
		{"help(sorted)", []string{"sorted: not one of the helpers"}},
		{"help(doc)", []string{"a value of type str: dir(x) lists"}},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			out := e.run(tt.code)
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
		})
	}
	for _, d := range builtins.Docs() {
		assert.Equal(t, d.Signature+"\n\n"+d.Summary, builtins.HelperDoc(d.Name), d.Name)
	}
	assert.Empty(t, builtins.HelperDoc("sorted"))
}
