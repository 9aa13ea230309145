package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// runCLI runs rlm with args and returns exit status, stdout and stderr.
func runCLI(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cliEnv{
		stdin:  strings.NewReader(stdin),
		stdout: &out,
		stderr: &errb,
		getenv: func(k string) string { return env[k] },
	}
	code := runMain(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestMainFrame(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderrIn string
	}{
		{name: "no args prints usage", args: nil, code: 2, stderrIn: "usage: rlm <command>"},
		{name: "help", args: []string{"-h"}, code: 0, stderrIn: "commands:"},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderrIn: `unknown command "frobnicate"`},
		{name: "version", args: []string{"version"}, code: 0, stdout: "rlm "},
		{name: "version bad flag", args: []string{"version", "--nope"}, code: 2, stderrIn: "flag provided but not defined: -nope"},
		{name: "version -h", args: []string{"version", "-h"}, code: 0, stderrIn: "usage: rlm version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", nil, tt.args...)
			assert.Equal(t, tt.code, code, "stderr: %s", errOut)
			if tt.stdout != "" {
				assert.Contains(t, out, tt.stdout)
			}
			if tt.stderrIn != "" {
				assert.Contains(t, errOut, tt.stderrIn)
			}
		})
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", nil, name, "-h")
			assert.Equal(t, 0, code, "stderr: %s", errOut)
			assert.Contains(t, errOut, "usage: rlm "+name)
		})
	}
}
