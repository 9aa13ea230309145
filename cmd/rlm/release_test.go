package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVarFilesSize(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.json")
	require.NoError(t, os.WriteFile(a, make([]byte, 1000), 0o644))
	require.NoError(t, os.WriteFile(b, make([]byte, 234), 0o644))
	tests := []struct {
		name string
		vars []string
		want int64
	}{
		{"none", nil, 0},
		{"one file", []string{"doc=" + a}, 1000},
		{"typed specs add up", []string{"doc=" + a, "data:json=" + b}, 1234},
		{"stdin, store and directories count 0", []string{"x=-", "y=store:k", "z=" + dir}, 0},
		{"missing file and bad spec count 0", []string{"doc=" + filepath.Join(dir, "nope"), "bad"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, varFilesSize(tt.vars))
		})
	}
}
