package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSysStreamsAndLimits(t *testing.T) {
	out, errKind := execIn(t, Config{Limits: Limits{MaxRecursion: 300}}, `import sys
sys.stdout.write("a")
sys.stderr.write("b\n")
sys.setrecursionlimit(100000)
print(sys.getrecursionlimit(), sys.argv)`)
	assert.Empty(t, errKind)
	assert.Equal(t, "ab\n300 []\n", out, "setrecursionlimit changes nothing; the sandbox's limit stays")
}
