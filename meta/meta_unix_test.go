//go:build unix

package meta

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLoadRefusesFIFOsAndLargeFiles: a FIFO (which would block the
// reader), a device and a file over MaxDocumentBytes are refused before
// they are read.
func TestLoadRefusesFIFOsAndLargeFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "meta.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, _, err := Load(fifo)
	require.ErrorIs(t, err, ErrNotRegular)
	_, _, err = Load(os.DevNull)
	require.ErrorIs(t, err, ErrNotRegular)
	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, make([]byte, MaxDocumentBytes+1), 0o600))
	_, _, err = Load(big)
	require.ErrorIs(t, err, ErrTooLarge)
}
