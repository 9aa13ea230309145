package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestREPLPlainInput(t *testing.T) {
	input := strings.Join([]string{
		`len(notes.splitlines())`,
		`x = 5`,
		`x * 2`,
		`for i in range(2):`,
		`    print(i)`,
		``,
		`d = {`,
		`  "a": 1,`,
		`}`,
		`d`,
		`print(undefined)`,
		`x # still here after an error`,
		`search(notes, "magic")[0]["line"]`,
		`def f(n):`,
		`    if n > 0:`,
		`        return n`,
		``,
		`f(3)`,
		`FINAL(x)`,
		`"after submit"`,
	}, "\n") + "\n"
	code, out, errOut := runCLI(t, input, nil, "repl", "--var", "notes="+execData("notes.txt"))
	require.Equal(t, 1, code, "a script with a failed input exits 1: %s", errOut)
	assert.Contains(t, errOut, "1 input(s) failed")
	assert.Equal(t, "7\n10\n0\n1\n{'a': 1}\n5\n7\n3\nsubmitted: {\"answer\":5}\n'after submit'\n", out)
	assert.Contains(t, errOut, "NameError")
	assert.Contains(t, errOut, "line 1")
	assert.Contains(t, errOut, "    print(undefined)\n")
	assert.NotContains(t, errOut, "_ = (")
	assert.NotContains(t, out, ">>>", "no prompts when stdin is not a terminal")
}

func TestREPLExitAndEOF(t *testing.T) {
	code, out, _ := runCLI(t, "print('a')\nexit()\nprint('b')\n", nil, "repl")
	assert.Equal(t, 0, code)
	assert.Equal(t, "a\n", out)

	code, out, _ = runCLI(t, "1 + 1", nil, "repl") // no final newline
	assert.Equal(t, 0, code)
	assert.Equal(t, "2\n", out)

	code, out, _ = runCLI(t, "for i in range(2):\n    print(i)", nil, "repl") // EOF ends the block
	assert.Equal(t, 0, code)
	assert.Equal(t, "0\n1\n", out)
}

func TestREPLUsage(t *testing.T) {
	code, _, errOut := runCLI(t, "", nil, "repl", "--var", "a=-")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "the REPL reads its input from stdin")
	code, _, errOut = runCLI(t, "", nil, "repl", "script.py")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "use rlm exec")
}

func TestNeedsMore(t *testing.T) {
	tests := map[string]bool{
		`x = (1,`:           true,
		`x = (1, 2)`:        false,
		`s = """abc`:        true,
		`s = """abc"""`:     false,
		`s = "(" # ( `:      false,
		`x = 1 + \`:         true,
		`d = {"a": [1, 2]}`: false,
	}
	for src, want := range tests {
		assert.Equal(t, want, needsMore(src), src)
	}
	assert.True(t, endsWithColon("if x:  # comment"))
	assert.False(t, endsWithColon(`print("a:")`))
}

// A script fed to rlm repl goes on after a failed input, SyntaxErrors
// included, and exits 1 if any input failed.
func TestREPLScriptContinuesAfterErrors(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		code   int
		out    string
		errs   []string
		failed int
	}{
		{"clean script", "x = 1\nprint(x + 1)\n", 0, "2\n", nil, 0},
		{"syntax error", "print(1)\nx = )\nprint(2)\n", 1, "1\n2\n", []string{"SyntaxError"}, 1},
		{
			"unclosed bracket does not swallow the rest",
			"print(1)\nx = (1,\nprint(2)\ny = [3]\nprint(y)\n",
			1,
			"1\n2\n[3]\n",
			[]string{"x = (1,", "SyntaxError"},
			1,
		},
		{"unclosed string inside a block", "def f():\n    return \"\"\"abc\n\nprint(3)\n", 1, "3\n", []string{"SyntaxError"}, 1},
		{"runtime and syntax errors", "print(undefined)\nx = )\nprint('end')\n", 1, "end\n", []string{"NameError", "SyntaxError"}, 2},
		{"submit is no failure", "FINAL('ok')\n", 0, "submitted: {\"answer\":\"ok\"}\n", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.input, nil, "repl")
			assert.Equal(t, tc.code, code, errOut)
			assert.Equal(t, tc.out, out)
			for _, e := range tc.errs {
				assert.Contains(t, errOut, e)
			}
			if tc.failed > 0 {
				assert.Contains(t, errOut, fmt.Sprintf("%d input(s) failed", tc.failed))
			}
		})
	}
}
