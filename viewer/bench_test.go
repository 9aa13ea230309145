package viewer_test

import (
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// renderCost opens file in a new tab and returns the time from the start of
// the navigation to the first render (ms) and the V8 heap after it: used
// and total (MB; total is what V8 reserved, so at least the peak of the
// used heap since the last collection).
func renderCost(b *testing.B, file string) (ms, usedMB, totalMB float64) {
	p := open(b, "file://"+file, "", 1280, 900)
	ms = js[float64](p, "rlmViewer.firstRenderMs")
	if testing.Verbose() {
		// Where the time went: reading the page, inflating, ingesting
		// the events, the first update (ms since the navigation).
		b.Logf("%s: phases %s", file, js[string](p, "JSON.stringify(rlmViewer.phases)"))
	}
	_, err := chromedp.Call(p.ctx, performance.Enable, performance.EnableParams{})
	require.NoError(b, err)
	m, err := chromedp.Call(p.ctx, performance.GetMetrics, cdp.Empty{})
	require.NoError(b, err)
	for _, x := range m.Metrics {
		switch x.Name {
		case "JSHeapUsedSize":
			usedMB = x.Value / (1 << 20)
		case "JSHeapTotalSize":
			totalMB = x.Value / (1 << 20)
		}
	}
	return ms, usedMB, totalMB
}

// BenchmarkFirstRender opens the page of a 2,000-step trajectory with 5,000
// sub-calls and 50 MB of outputs, and, as the baseline in the same run, one
// of 20 steps (50 sub-calls, 500 KB). It reports the time to the first
// render and the JS heap of each, and their ratios.
func BenchmarkFirstRender(b *testing.B) {
	big := writePage(b, "bench-2000-steps.html", synthetic(2000, 5000, 50<<20))
	small := writePage(b, "bench-20-steps.html", synthetic(20, 50, 500_000))
	var bigMS, bigUsed, bigTotal, smallMS, smallUsed, smallTotal float64
	n := 0
	for b.Loop() {
		ms, used, total := renderCost(b, big)
		bigMS, bigUsed, bigTotal = bigMS+ms, bigUsed+used, max(bigTotal, total)
		ms, used, total = renderCost(b, small)
		smallMS, smallUsed, smallTotal = smallMS+ms, smallUsed+used, max(smallTotal, total)
		n++
	}
	f := float64(n)
	b.ReportMetric(bigMS/f, "ms-first-render-2000")
	b.ReportMetric(smallMS/f, "ms-first-render-20")
	b.ReportMetric(bigMS/smallMS, "x-render-vs-20")
	b.ReportMetric(bigUsed/f, "MB-heap-used-2000")
	b.ReportMetric(bigTotal, "MB-heap-total-2000")
	b.ReportMetric(smallUsed/f, "MB-heap-used-20")
	b.ReportMetric(bigUsed/smallUsed, "x-heap-vs-20")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkFirstRender100MB opens the page of a 4,000-step trajectory with
// 100 MB of outputs (embedded gzipped, so streamed) and reports the time
// from the navigation to the first render and to the last event read
// (ms), and the first render against the 20-step page's as the baseline.
func BenchmarkFirstRender100MB(b *testing.B) {
	big := writePage(b, "bench-100mb.html", synthetic(4000, 5000, 100<<20))
	small := writePage(b, "bench-20-steps.html", synthetic(20, 50, 500_000))
	var first, loaded, smallMS float64
	n := 0
	for b.Loop() {
		p := open(b, "file://"+big, "", 1280, 900)
		first += js[float64](p, "rlmViewer.firstRenderMs")
		loaded += js[float64](p, "rlmViewer.loadedMs || rlmViewer.firstRenderMs")
		if testing.Verbose() {
			b.Logf(
				"phases %s, events at the first render %d",
				js[string](p, "JSON.stringify(rlmViewer.phases)"),
				js[int](p, "rlmViewer.firstRenderEvents || 0"),
			)
		}
		p = open(b, "file://"+small, "", 1280, 900)
		smallMS += js[float64](p, "rlmViewer.firstRenderMs")
		n++
	}
	f := float64(n)
	b.ReportMetric(first/f, "ms-first-render-100MB")
	b.ReportMetric(loaded/f, "ms-loaded-100MB")
	b.ReportMetric(smallMS/f, "ms-first-render-20")
	b.ReportMetric(first/smallMS, "x-first-render-vs-20")
	b.ReportMetric(0, "ns/op")
}
