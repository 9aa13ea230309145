// Package benchtext builds the deterministic 100 MB corpus of the search
// benchmarks; builtins/testdata/bench/search.py builds the same text for
// CPython.
package benchtext

import (
	"strings"
	"sync"
)

var words = strings.Fields("the of and to in is was for on that with as by at from this be are or an it his which but not were " +
	"error warning info debug request response user server client value number magic Magic data time system file")

// Needle is the line inserted every 2,000 lines of the block.
const Needle = "The Magic number is 4242 and the magic NUMBER is 17"

// Block returns about 1 MB of pseudo-English lines from a fixed LCG, every
// 2,000th line being Needle.
func Block() string {
	var b strings.Builder
	x := uint64(12345)
	for line := 0; b.Len() < 1<<20; line++ {
		if line%2000 == 1999 {
			b.WriteString(Needle)
			b.WriteByte('\n')
			continue
		}
		x = x*6364136223846793005 + 1442695040888963407
		n := 4 + int(x>>33)%12
		for j := 0; j < n; j++ {
			x = x*6364136223846793005 + 1442695040888963407
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[int(x>>33)%len(words)])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Text is Block repeated 100 times (about 100 MB), built once.
var Text = sync.OnceValue(func() string { return strings.Repeat(Block(), 100) })
