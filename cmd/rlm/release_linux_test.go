package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exeResident is the resident size (kB) of the test binary's read-only
// mappings and of its writable ones, from /proc/self/smaps.
func exeResident(t *testing.T) (readOnly, writable int) {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	require.NoError(t, err)
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	var cur *int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		switch {
		case len(fl) >= 6 && strings.Contains(fl[0], "-"):
			cur = nil
			if strings.Join(fl[5:], " ") == exe {
				cur = &readOnly
				if fl[1][1] == 'w' {
					cur = &writable
				}
			}
		case cur != nil && len(fl) == 3 && fl[0] == "Rss:":
			n, err := strconv.Atoi(fl[1])
			require.NoError(t, err)
			*cur += n
		}
	}
	require.NoError(t, sc.Err())
	return readOnly, writable
}

// TestReleaseImage checks releaseImage gives back the resident pages of
// the executable's code and read-only data, leaves its writable data
// alone, and that the code runs on (its pages fault back in).
func TestReleaseImage(t *testing.T) {
	ro, rw := exeResident(t)
	require.Positive(t, ro)
	releaseImage()
	ro2, rw2 := exeResident(t)
	assert.Less(t, ro2, ro/2, "read-only pages of the executable given back")
	assert.GreaterOrEqual(t, rw2, rw*9/10, "writable pages kept")
	assert.Equal(t, int64(1234), varFilesSize([]string{"a=" + writeTemp(t, 1234)}), "code still runs")
}

func writeTemp(t *testing.T, n int) string {
	t.Helper()
	p := t.TempDir() + "/f"
	require.NoError(t, os.WriteFile(p, make([]byte, n), 0o644))
	return p
}
