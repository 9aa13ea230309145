package sandbox

import (
	"fmt"
	"strings"
	"sync"
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
		return fmt.Errorf("%w: the step printed more than %s; print a summary or a slice instead", ErrOutputLimit, fmtBytes(int64(o.max)))
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
func excerpt(out string, maxTokens int) (string, bool) {
	limit := maxTokens * bytesPerToken
	if len(out) <= limit {
		return out, false
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
	lines := strings.Count(cut, "\n")
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	marker := fmt.Sprintf("... [output truncated: %d of %d bytes (%d lines) not shown; print less, e.g. a slice or a count] ...\n", len(cut), len(out), lines)
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
