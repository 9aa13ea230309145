package sandbox

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// outBuf collects a step's printed output up to max bytes.
type outBuf struct {
	mu  sync.Mutex
	b   strings.Builder
	max int
}

func (o *outBuf) write(s string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.b.Len()+len(s) > o.max {
		room := o.max - o.b.Len()
		if room > 0 {
			o.b.WriteString(s[:room])
		}
		return fmt.Errorf(
			"%w: the step printed more than %s; print a summary or a slice instead",
			ErrOutputLimit,
			py.FmtBytes(int64(o.max)),
		)
	}
	o.b.WriteString(s)
	return nil
}

// room is how many more bytes may be written.
func (o *outBuf) room() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.max - o.b.Len()
}

func (o *outBuf) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// bytesPerToken is the estimate used to turn a token budget into bytes.
const bytesPerToken = 4

// excerpt returns the head and tail of out within maxTokens (estimated),
// with a line saying how much was cut, and whether anything was cut.
// Runs of identical lines are collapsed first (seed 002: a loop printing
// the same progress line 10,000 times shows it twice with a count).
func excerpt(full string, maxTokens int) (string, bool) {
	out, collapsed := collapseRepeats(full)
	limit := maxTokens * bytesPerToken
	// Never hide a short middle: an output at most a sixth over the
	// budget (what would be hidden is under 15% of it) is shown whole.
	if len(out) <= limit+limit*15/85 {
		return out, collapsed
	}
	headN := limit * 2 / 3
	tailN := limit - headN
	head := out[:headN]
	// Cut at a line boundary when one is near, else at a rune boundary.
	if i := strings.LastIndexByte(head, '\n'); i > headN/2 {
		head = head[:i+1]
	} else {
		head = trimRuneEnd(head)
	}
	tail := out[len(out)-tailN:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < tailN/2 {
		tail = tail[i+1:]
	} else {
		tail = trimRuneStart(tail)
	}
	cut := out[len(head) : len(out)-len(tail)]
	first := strings.Count(head, "\n") + 1 // the first line not shown (in part, if head ends mid-line)
	last := first + strings.Count(cut, "\n")
	if strings.HasSuffix(cut, "\n") {
		last-- // the cut ends at a line's end: the tail starts a new line
	}
	total := strings.Count(out, "\n")
	if !strings.HasSuffix(out, "\n") {
		total++
	}
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	marker := fmt.Sprintf("... [output truncated: lines %d-%d of %d not shown (%d of %d bytes); print less, e.g. a slice or a count] ...\n",
		first, last, total, len(cut), len(full))
	return head + marker + tail, true
}

func trimRuneEnd(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
		if s[i] < 0x80 || s[i] >= 0xC0 {
			if s[i] >= 0xC0 {
				return s[:i]
			}
			return s
		}
	}
	return s
}

func trimRuneStart(s string) string {
	for i := 0; i < len(s) && i < 4; i++ {
		if s[i] < 0x80 || s[i] >= 0xC0 {
			return s[i:]
		}
	}
	return s
}

// minRepeatRun is the shortest run of identical lines that is collapsed.
const minRepeatRun = 4

// collapseRepeats replaces each run of at least minRepeatRun identical
// consecutive lines by its first line, a marker with the number of lines
// left out, and its last line. It reports whether anything was collapsed.
func collapseRepeats(out string) (string, bool) {
	lines := strings.SplitAfter(out, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	collapsed := false
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && strings.TrimSuffix(lines[j], "\n") == strings.TrimSuffix(lines[i], "\n") {
			j++
		}
		if n := j - i; n >= minRepeatRun {
			if !collapsed {
				b.Grow(len(out) / 4)
				for _, l := range lines[:i] {
					b.WriteString(l)
				}
				collapsed = true
			}
			b.WriteString(lines[i])
			fmt.Fprintf(&b, "[... line repeated %s times ...]\n", groupThousands(n-2))
			last := lines[j-1]
			b.WriteString(last)
		} else if collapsed {
			for _, l := range lines[i:j] {
				b.WriteString(l)
			}
		}
		i = j
	}
	if !collapsed {
		return out, false
	}
	return b.String(), true
}

// groupThousands formats n with commas: 9998 -> "9,998".
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
