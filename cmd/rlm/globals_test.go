package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// show_vars and FINAL_VAR read the session's variables while a step runs
// (the session itself is locked then): the context variables, those of
// earlier steps and those of the running step.
func TestExecShowVarsAndFinalVar(t *testing.T) {
	notes := "notes=" + execData("notes.txt")
	tests := []struct {
		name string
		code string
		want []string
	}{
		{"show_vars lists context and step variables", "x = [1, 2]\nshow_vars()", []string{"notes", "str", "x", "list[int]"}},
		{"FINAL_VAR of this step's variable", "x = 'found it'\nFINAL_VAR(\"x\")", []string{`{"answer":"found it"}`}},
		{"FINAL_VAR of a context variable", "FINAL_VAR(\"notes\")", []string{`{"answer":"Meeting notes, 3 March`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", nil, "exec", "--var", notes, "-c", tt.code)
			require.Equal(t, 0, code, errOut)
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
		})
	}
}

func TestREPLShowVarsAndFinalVarAcrossSteps(t *testing.T) {
	input := strings.Join([]string{
		`early = 'from step one'`,
		`show_vars()`,
		`late = 3`,
		`FINAL_VAR("early")`,
	}, "\n") + "\n"
	code, out, errOut := runCLI(t, input, nil, "repl", "--var", "notes="+execData("notes.txt"))
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(out, "\n")
	require.NotEmpty(t, lines)
	assert.Contains(t, out, "notes")
	assert.Contains(t, out, "early")
	assert.Contains(t, out, `submitted: {"answer":"from step one"}`)
}
