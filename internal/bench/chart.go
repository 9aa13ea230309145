package bench

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"os"
	"sort"
	"strconv"
)

// The charts are drawn as SVG by hand: a charting library (gonum/plot)
// parsed twelve embedded fonts in its package init, which every rlm
// command paid for at start-up (2 MB of resident pages and its code),
// rlm exec included, for charts only rlm bench draws.

// modeColors are the line colours of the modes (others are grey).
var modeColors = map[string]string{
	ModeRLM:    "#1F77B4",
	ModeDirect: "#D62728",
}

// Chart geometry, in points: panels of chartWidth x panelHeight stacked
// vertically, each with its plot area inset by the margins.
const (
	chartWidth   = 504
	panelHeight  = 252
	marginLeft   = 56
	marginRight  = 14
	marginTop    = 26
	marginBottom = 40
)

// point is one data point; low and high are the error bar's extent below
// and above y (both 0: no bar).
type point struct{ x, y, low, high float64 }

// series is one mode's line in a panel.
type series struct {
	name, color string
	pts         []point
	bars        bool
}

// tick is an axis tick; a labelled one is drawn longer.
type tick struct {
	value float64
	label string
}

// panel is one plot against context size (log x axis) with its legend at
// the top left.
type panel struct {
	title, yLabel string
	yMin, yMax    float64
	yLog          bool
	yTicks        func(min, max float64) []tick
	lines         []series
	crosses       []point // context overflow: nothing was sent
	xMin, xMax    float64
}

// writeChart draws score (top) and mean total tokens per item (bottom)
// against context size (log scale), one line per mode, as SVG.
func writeChart(path, task string, sums []Summary) error {
	panels := chartPanels(task, sums)
	var b bytes.Buffer
	h := panelHeight * len(panels)
	fmt.Fprintf(
		&b,
		"<?xml version=\"1.0\"?>\n<svg width=\"%dpt\" height=\"%dpt\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		chartWidth,
		h,
		chartWidth,
		h,
	)
	fmt.Fprintf(&b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" style=\"fill:#FFFFFF\" />\n", chartWidth, h)
	for i, p := range panels {
		p.draw(&b, float64(i*panelHeight))
	}
	b.WriteString("</svg>\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("bench: chart: %w", err)
	}
	return nil
}

// chartPanels builds the score panel and, when any item used tokens, the
// tokens panel of task.
func chartPanels(task string, sums []Summary) []*panel {
	score := &panel{title: task + ": score against context size", yLabel: "mean score",
		yMin: 0, yMax: 1.25, // headroom for the legend
		yTicks: func(float64, float64) []tick { return scoreTicks() }}
	tokens := &panel{title: task + ": tokens per item", yLabel: "total tokens per item", yLog: true, yTicks: sizeTicks}

	modes := map[string]bool{}
	for _, s := range sums {
		if s.Task == task {
			modes[s.Mode] = true
		}
	}
	names := sortedKeys(modes)
	sort.SliceStable(names, func(i, j int) bool { return modeRank(names[i]) < modeRank(names[j]) })
	for i, m := range names {
		c, ok := modeColors[m]
		if !ok {
			g := uint8(60 + 40*i%160)
			c = fmt.Sprintf("#%02X%02X%02X", g, g, g)
		}
		ss := series{name: m, color: c, bars: true}
		ts := series{name: m, color: c}
		// Modes sit side by side around each size (a few percent apart on
		// the log axis) so equal scores and their intervals stay visible.
		dodge := math.Pow(1.05, float64(i)-float64(len(names)-1)/2)
		for _, s := range sums {
			if s.Task != task || s.Mode != m {
				continue
			}
			x := float64(s.Size) * dodge
			ss.pts = append(ss.pts, point{x: x, y: s.MeanScore, low: s.MeanScore - s.CILow, high: s.CIHigh - s.MeanScore})
			if s.Failures[FailContextOverflow] == s.N {
				score.crosses = append(score.crosses, point{x: x, y: s.MeanScore})
			}
			if s.TotalTokens > 0 {
				ts.pts = append(ts.pts, point{x: x, y: s.TotalTokens})
			}
		}
		if len(ss.pts) > 0 {
			score.lines = append(score.lines, ss)
		}
		if len(ts.pts) > 0 {
			tokens.lines = append(tokens.lines, ts)
		}
	}
	if len(score.crosses) > 0 {
		score.yMax = 1.4 // room for a third legend entry
	}
	panels := []*panel{score}
	if len(tokens.lines) > 0 {
		tokens.yMin, tokens.yMax = math.Inf(1), math.Inf(-1)
		for _, l := range tokens.lines {
			for _, p := range l.pts {
				tokens.yMin, tokens.yMax = min(tokens.yMin, p.y), max(tokens.yMax, p.y)
			}
		}
		tokens.yMin, tokens.yMax = tokens.yMin/1.5, tokens.yMax*3 // headroom for the legend
		panels = append(panels, tokens)
	}
	// Pad log axes so a single size or an equal value still has a range.
	for _, p := range panels {
		p.xMin, p.xMax = math.Inf(1), math.Inf(-1)
		for _, l := range p.lines {
			for _, q := range l.pts {
				p.xMin, p.xMax = min(p.xMin, q.x), max(p.xMax, q.x)
			}
		}
		if math.IsInf(p.xMin, 0) {
			p.xMin, p.xMax = 1e3, 1e6
		}
		p.xMin, p.xMax = p.xMin/1.5, p.xMax*1.5
	}
	return panels
}

// draw writes the panel at vertical offset top.
func (p *panel) draw(b *bytes.Buffer, top float64) {
	x0, x1 := float64(marginLeft), float64(chartWidth-marginRight)
	y0, y1 := top+marginTop, top+panelHeight-marginBottom // y0 is the top of the plot area
	lx0, lx1 := math.Log10(p.xMin), math.Log10(p.xMax)
	px := func(x float64) float64 { return x0 + (math.Log10(x)-lx0)/(lx1-lx0)*(x1-x0) }
	ly := func(y float64) float64 { return y }
	if p.yLog {
		ly = math.Log10
	}
	ymin, ymax := ly(p.yMin), ly(p.yMax)
	if ymax <= ymin {
		ymax = ymin + 1
	}
	py := func(y float64) float64 { return y1 - (ly(y)-ymin)/(ymax-ymin)*(y1-y0) }

	text(b, (x0+x1)/2, top+16, "middle", 12, p.title)
	text(b, (x0+x1)/2, y1+34, "middle", 12, "context tokens")
	fmt.Fprintf(
		b,
		"<text x=\"%s\" y=\"%s\" transform=\"rotate(-90 %s %s)\" style=\"font-family:sans-serif;font-size:12px;text-anchor:middle\">%s</text>\n",
		num(14),
		num((y0+y1)/2),
		num(14),
		num((y0+y1)/2),
		html.EscapeString(p.yLabel),
	)
	path(b, "#000000", 0.5, [2]float64{x0, y1}, [2]float64{x1, y1})
	path(b, "#000000", 0.5, [2]float64{x0, y0}, [2]float64{x0, y1})
	for _, t := range sizeTicks(p.xMin, p.xMax) {
		if t.value < p.xMin || t.value > p.xMax {
			continue
		}
		x, l := px(t.value), 4.0
		if t.label != "" {
			l = 8
			text(b, x, y1+20, "middle", 10, t.label)
		}
		path(b, "#000000", 0.5, [2]float64{x, y1}, [2]float64{x, y1 + l})
	}
	for _, t := range p.yTicks(p.yMin, p.yMax) {
		if t.value < p.yMin || t.value > p.yMax {
			continue
		}
		y, l := py(t.value), 4.0
		if t.label != "" {
			l = 8
			text(b, x0-10, y+3.5, "end", 10, t.label)
		}
		path(b, "#000000", 0.5, [2]float64{x0 - l, y}, [2]float64{x0, y})
	}
	for _, s := range p.lines {
		pts := make([][2]float64, len(s.pts))
		for i, q := range s.pts {
			pts[i] = [2]float64{px(q.x), py(q.y)}
		}
		path(b, s.color, 1.5, pts...)
		for i, q := range s.pts {
			fmt.Fprintf(
				b,
				"<circle cx=\"%s\" cy=\"%s\" r=\"3\" style=\"fill:none;stroke:%s;stroke-width:1\" />\n",
				num(pts[i][0]),
				num(pts[i][1]),
				s.color,
			)
			if s.bars && (q.low != 0 || q.high != 0) {
				x, lo, hi := pts[i][0], py(q.y-q.low), py(q.y+q.high)
				path(b, s.color, 1, [2]float64{x, lo}, [2]float64{x, hi})
				path(b, s.color, 1, [2]float64{x - 2.5, lo}, [2]float64{x + 2.5, lo})
				path(b, s.color, 1, [2]float64{x - 2.5, hi}, [2]float64{x + 2.5, hi})
			}
		}
	}
	for _, q := range p.crosses {
		cross(b, px(q.x), py(q.y), 6)
	}
	// The legend, top left inside the plot area.
	ly0 := y0 + 12
	for i, s := range p.lines {
		y := ly0 + float64(i)*14
		path(b, s.color, 1.5, [2]float64{x0 + 8, y}, [2]float64{x0 + 28, y})
		fmt.Fprintf(b, "<circle cx=\"%s\" cy=\"%s\" r=\"3\" style=\"fill:none;stroke:%s;stroke-width:1\" />\n", num(x0+18), num(y), s.color)
		text(b, x0+34, y+3.5, "start", 10, s.name)
	}
	if len(p.crosses) > 0 {
		y := ly0 + float64(len(p.lines))*14
		cross(b, x0+18, y, 5)
		text(b, x0+34, y+3.5, "start", 10, "context overflow (not sent)")
	}
}

// path writes an unfilled polyline through pts.
func path(b *bytes.Buffer, color string, width float64, pts ...[2]float64) {
	if len(pts) == 0 {
		return
	}
	b.WriteString(`<path d="`)
	for i, q := range pts {
		if i == 0 {
			b.WriteByte('M')
		} else {
			b.WriteByte('L')
		}
		b.WriteString(num(q[0]))
		b.WriteByte(',')
		b.WriteString(num(q[1]))
	}
	fmt.Fprintf(b, "\" style=\"fill:none;stroke:%s;stroke-width:%s\" />\n", color, num(width))
}

// cross draws an x of half-size r centred on (x, y).
func cross(b *bytes.Buffer, x, y, r float64) {
	path(b, "#000000", 1, [2]float64{x - r, y - r}, [2]float64{x + r, y + r})
	path(b, "#000000", 1, [2]float64{x - r, y + r}, [2]float64{x + r, y - r})
}

// text writes s at (x, y) with the given anchor and font size.
func text(b *bytes.Buffer, x, y float64, anchor string, size int, s string) {
	fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\" style=\"font-family:sans-serif;font-size:%dpx;text-anchor:%s\">%s</text>\n",
		num(x), num(y), size, anchor, html.EscapeString(s))
}

// num formats a coordinate without an exponent.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// scoreTicks are the score axis ticks: 0 to 1 by 0.2, labelled, with
// unlabelled ticks between (the axis runs on to 1.25 to make room for the
// legend, without labels past 1).
func scoreTicks() []tick {
	var ts []tick
	for i := 0; i <= 10; i++ {
		t := tick{value: float64(i) / 10}
		if i%2 == 0 {
			t.label = fmt.Sprintf("%.1f", t.value)
		}
		ts = append(ts, t)
	}
	return ts
}

// sizeTicks puts ticks at powers of ten and labels them 1k, 10k, 1m...
func sizeTicks(min, max float64) []tick {
	if min <= 0 {
		min = 1
	}
	if max < min {
		max = min
	}
	var ticks []tick
	lo := math.Floor(math.Log10(min))
	hi := math.Ceil(math.Log10(max))
	if lo == hi {
		hi++
	}
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, e)
		ticks = append(ticks, tick{value: v, label: shortNumber(v)})
		for k := 2.0; k < 10 && e < hi; k++ {
			ticks = append(ticks, tick{value: k * v})
		}
	}
	return ticks
}

func shortNumber(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%gb", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%gm", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%gk", v/1e3)
	}
	return fmt.Sprintf("%g", v)
}
