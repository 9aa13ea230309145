//go:build unix

package rlmctx

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadRefusesNonRegularFiles: devices and FIFOs are refused before
// they are opened (/dev/zero never ends, a FIFO without a writer never
// starts).
func TestLoadRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, tt := range []struct{ path, kind string }{
		{"/dev/zero", "a character device"},
		{"/dev/urandom", "a character device"},
		{fifo, "a FIFO"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skip(err)
			}
			l, err := LoadSource(context.Background(), tt.path, LoadOptions{})
			require.ErrorIs(t, err, ErrNotRegular)
			assert.Nil(t, l)
			assert.Contains(t, err.Error(), tt.path+": rlmctx: not a regular file ("+tt.kind+"); give a file, a directory, or - to read a stream from stdin")
		})
	}
}
