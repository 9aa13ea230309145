//go:build unix

package runs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunLock: the run lock is an flock on the run directory, held until
// released; a run directory of an earlier version, locked through its
// .lock file, still reads as locked.
func TestRunLock(t *testing.T) {
	tests := []struct {
		name string
		hold func(t *testing.T, dir string) *os.File
	}{
		{"directory", func(t *testing.T, dir string) *os.File {
			f, err := lockDir(dir)
			require.NoError(t, err)
			return f
		}},
		{"earlier version's lock file", func(t *testing.T, dir string) *os.File {
			f, err := os.OpenFile(filepath.Join(dir, oldLockFile), os.O_CREATE|os.O_RDWR, 0o644)
			require.NoError(t, err)
			require.NoError(t, flock(f))
			return f
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			assert.False(t, locked(dir, Meta{}))
			f := tt.hold(t, dir)
			assert.True(t, locked(dir, Meta{}))
			if tt.name == "directory" {
				_, err := lockDir(dir)
				assert.ErrorIs(t, err, ErrRunning)
			}
			require.NoError(t, f.Close())
			assert.False(t, locked(dir, Meta{}))
		})
	}
}
