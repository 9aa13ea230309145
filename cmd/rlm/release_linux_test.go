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

// TestImageSpans checks which mappings releaseImage drops: the read-only
// private mappings of the executable and of shared libraries, not a
// writable one, not one holding anonymous (written, e.g. relocated RELRO)
// pages, not a shared one, and no anonymous mapping (vdso, heap).
func TestImageSpans(t *testing.T) {
	smaps := `00400000-00600000 r-xp 00000000 fe:01 42 /usr/bin/rlm
Size:               2048 kB
Rss:                1024 kB
Anonymous:             0 kB
00600000-00700000 r--p 00200000 fe:01 42 /usr/bin/rlm
Size:               1024 kB
Anonymous:             0 kB
00700000-00710000 r--p 00300000 fe:01 42 /usr/bin/rlm
Size:                 64 kB
Anonymous:            12 kB
00710000-00800000 rw-p 00310000 fe:01 42 /usr/bin/rlm
Anonymous:           100 kB
7f0000000000-7f0000100000 r-xp 00000000 fe:01 77 /usr/lib/libc.so.6
Anonymous:             0 kB
7f0000200000-7f0000300000 rw-p 00000000 00:00 0 
Anonymous:          1024 kB
7f0000400000-7f0000401000 r--s 00000000 fe:01 78 /dev/shm/x
Anonymous:             0 kB
7ffc00000000-7ffc00002000 r--p 00000000 00:00 0                          [vvar]
Anonymous:             0 kB
`
	got := imageSpans(strings.NewReader(smaps))
	assert.Equal(t, []span{{0x400000, 0x600000}, {0x600000, 0x700000}, {0x7f0000000000, 0x7f0000100000}}, got)
	assert.Empty(t, imageSpans(strings.NewReader("")), "no mappings")
}
