package bench

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws "[#####.....] 12/40 3m02s  direct niah/8k #3" in place.
type progress struct {
	w       io.Writer
	mu      sync.Mutex
	total   int
	n       int // finished, skipped included
	skipped int
	label   string
	began   time.Time
}

func newProgress(w io.Writer, total, skipped int) *progress {
	p := &progress{w: w, total: total, n: skipped, skipped: skipped, began: time.Now()}
	p.draw()
	return p
}

func (p *progress) start(label string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	p.label = label
	p.mu.Unlock()
	p.draw()
}

// done counts one finished item.
func (p *progress) done() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	p.n++
	p.mu.Unlock()
	p.draw()
}

func (p *progress) draw() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	const width = 30
	filled := 0
	if p.total > 0 {
		filled = width * p.n / p.total
	}
	eta := ""
	if ran := p.n - p.skipped; ran > 0 && p.n < p.total {
		per := time.Since(p.began) / time.Duration(ran)
		eta = " eta " + (per * time.Duration(p.total-p.n)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d %s%s  %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		p.n, p.total, time.Since(p.began).Round(time.Second), eta, p.label)
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	p.label = ""
	p.mu.Unlock()
	p.draw()
	fmt.Fprintln(p.w)
}
