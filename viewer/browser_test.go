package viewer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/viewer"
)

// One headless Chromium serves every browser test of the package; each
// test opens its own tabs.
var browser struct {
	once        sync.Once
	ctx         context.Context
	stop        func()
	err         error
	userDataDir string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.stop != nil {
		browser.stop()
	}
	if browser.userDataDir != "" {
		os.RemoveAll(browser.userDataDir)
	}
	os.Exit(code)
}

// chromiumPath finds the browser: $RLM_CHROMIUM, else chromium,
// chromium-browser or google-chrome on PATH.
func chromiumPath() string {
	if p := os.Getenv("RLM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newTab opens a tab of the shared browser, or skips the test, naming the
// missing browser.
func newTab(t testing.TB) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip(
			"browser tests skipped: no Chromium found ($RLM_CHROMIUM, or chromium, chromium-browser or google-chrome on PATH); install it with apt-get install -y chromium",
		)
	}
	browser.once.Do(func() {
		dir, err := os.MkdirTemp("", "rlm-viewer-chromium")
		if err != nil {
			browser.err = err
			return
		}
		browser.userDataDir = dir
		alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
			// A closed network: Chromium's own connections would only fail.
			chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
			chromedp.WindowSize(1280, 900))
		ctx, stopBrowser := chromedp.NewContext(alloc)
		browser.ctx = ctx
		browser.stop = func() { stopBrowser(); stopAlloc() }
		browser.err = chromedp.Do(ctx) // starts the browser
	})
	require.NoError(t, browser.err, "starting %s", path)
	tab, cancel := chromedp.NewContext(browser.ctx)
	tab, cancelTimeout := context.WithTimeout(tab, 4*time.Minute) // a loaded machine is slow
	t.Cleanup(func() { cancelTimeout(); cancel() })
	return tab
}

// artifacts is where the tests leave screenshots and pages:
// $RLM_TEST_ARTIFACTS, else rlm-viewer-artifacts in the temp directory.
func artifacts(t testing.TB) string {
	dir := os.Getenv("RLM_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "rlm-viewer-artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// writePage renders trajectories to an HTML file in the artifacts directory.
func writePage(t testing.TB, name string, trajs ...[]byte) string {
	t.Helper()
	var ts []*viewer.Trajectory
	for i, b := range trajs {
		tr, err := viewer.Read(fmt.Sprintf("%s-%d.jsonl", strings.TrimSuffix(name, ".html"), i), bytes.NewReader(b))
		require.NoError(t, err)
		ts = append(ts, tr)
	}
	path := filepath.Join(artifacts(t), name)
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, viewer.Write(f, ts...))
	require.NoError(t, f.Close())
	return path
}

// page is an open viewer page with what it requested and logged.
type page struct {
	t        testing.TB
	ctx      context.Context
	url      string
	mu       sync.Mutex
	requests []string
	errors   []string
}

// open loads url (plus hash) in a new tab at the given viewport and waits
// for the first render and for all the embedded events to be read.
func open(t testing.TB, url, hash string, width, height int64) *page {
	t.Helper()
	p := &page{t: t, ctx: newTab(t), url: url}
	require.NoError(t, chromedp.Do(p.ctx, chromedp.EmulateViewport(width, height), chromedp.Navigate("about:blank")))
	require.NoError(t, chromedp.Listen(p.ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			p.requests = append(p.requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p.errors = append(p.errors, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			p.errors = append(p.errors, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				p.errors = append(p.errors, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	}))
	require.NoError(t, chromedp.Do(p.ctx, chromedp.Navigate(url+hash)))
	p.waitJS(`document.body.dataset.ready === '1' && document.body.dataset.loaded === '1'`)
	return p
}

// js evaluates expr and returns its value as T.
func js[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	require.NoError(p.t, err, "evaluating %s\nerrors: %v", expr, p.errors)
	return v
}

// waitJS waits until expr is true.
func (p *page) waitJS(expr string) {
	p.t.Helper()
	var err error
	for range 5 {
		_, err = chromedp.Run(p.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(90*time.Second)))
		if err == nil || !strings.Contains(err.Error(), "Cannot find context") {
			break
		}
		time.Sleep(50 * time.Millisecond) // the page was still replacing about:blank
	}
	require.NoError(p.t, err, "waiting for %s\nerrors: %v", expr, p.errors)
}

func (p *page) do(expr string) { p.t.Helper(); js[chromedp.Void](p, expr) }

// screenshot saves the viewport as a PNG artifact.
func (p *page) screenshot(name string) string {
	p.t.Helper()
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	require.NoError(p.t, err)
	path := filepath.Join(artifacts(p.t), name)
	require.NoError(p.t, os.WriteFile(path, buf, 0o644))
	p.t.Logf("screenshot: %s", path)
	return path
}

// offline asserts the page requested nothing but itself and logged no
// error (a blocked request would log one too).
func (p *page) offline() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range p.requests {
		assert.True(p.t, strings.HasPrefix(u, p.url), "the page requested %s", u)
	}
	assert.Empty(p.t, p.errors, "console errors")
}

func stepCount(run string) string {
	return `document.querySelectorAll('.run[data-run="` + run + `"] > .steps > section.step').length`
}

func TestBrowserRun(t *testing.T) {
	file := writePage(t, "run.html", realTrajectory(t))
	url := "file://" + file
	p := open(t, url, "", 1280, 900)
	defer p.offline()

	assert.Equal(t, 4, js[int](p, stepCount("0")))
	assert.Equal(t, fixtureAnswer, js[string](p, `document.getElementById('answer-0').textContent`))
	assert.Contains(t, js[string](p, `document.getElementById('hdr-0').textContent`), "root-model")
	step1 := `section.step[data-run="0"][data-step="1"]`
	p.waitJS(`document.querySelector('` + step1 + ` table.subs') !== null`)
	assert.Equal(
		t,
		3,
		js[int](p, `document.querySelectorAll('`+step1+` table.subs tr.op').length`),
		"two llm_query (one memoized) and a ranking",
	)
	assert.Equal(
		t,
		1,
		js[int](p, `[...document.querySelectorAll('`+step1+` table.subs tr.op')].filter(r => r.textContent.includes('memoized')).length`),
	)
	assert.Equal(
		t,
		1,
		js[int](p, `document.querySelectorAll('section.step[data-run="0"][data-step="2"] .box.err').length`),
		"the ZeroDivisionError",
	)
	assert.Contains(
		t,
		js[string](p, `document.querySelector('section.step[data-run="0"][data-step="2"] .box.err').textContent`),
		"ZeroDivisionError",
	)
	assert.Contains(t, js[string](p, `document.querySelector('section.step[data-run="0"][data-step="3"]').textContent`), "rejected")
	p.screenshot("run.png")

	// The child run, collapsed at first, expands with its two steps.
	child := `section.step[data-run="0"][data-step="2"] details.child`
	p.waitJS(`document.querySelector('` + child + `') !== null`)
	assert.False(t, js[bool](p, `document.querySelector('`+child+`').open`))
	p.do(`document.querySelector('` + child + ` > summary').click()`)
	p.waitJS(`document.querySelectorAll('` + child + ` .run section.step').length === 2`)
	childID := js[string](p, `document.querySelector('`+child+` .run').dataset.run`)
	assert.True(t, strings.HasPrefix(childID, "0.2."), childID)
	assert.Contains(t, js[string](p, `document.querySelector('`+child+`').textContent`), childQuery)
	p.screenshot("run-child.png")

	// Search finds the needle in step 1's output and marks it.
	require.NoError(t, chromedp.Do(p.ctx, chromedp.SendKeys(chromedp.CSS("#search"), outputNeedle)))
	p.waitJS(`document.getElementById('searchinfo').textContent === '1 step match'`)
	assert.Equal(
		t,
		[]string{"0/1"},
		js[[]string](p, `[...document.querySelectorAll('section.step.hit')].map(s => s.dataset.run + '/' + s.dataset.step)`),
	)
	p.waitJS(`document.querySelector('` + step1 + ` .out mark') !== null`)
	assert.Equal(t, outputNeedle, js[string](p, `document.querySelector('`+step1+` .out mark').textContent`))
	p.screenshot("run-search.png")

	// Filters hide the steps without errors.
	p.do(`document.getElementById('f-errors').click()`)
	assert.Equal(
		t,
		[]int{2, 3},
		js[[]int](
			p,
			`[...document.querySelectorAll('.run[data-run="0"] > .steps > section.step')].filter(s => s.offsetParent).map(s => +s.dataset.step)`,
		),
	)
	p.do(`document.getElementById('f-errors').click()`)

	// Dark mode, and phone width.
	p.do(`document.getElementById('theme').click()`)
	p.do(`window.scrollTo(0, 0)`)
	p.screenshot("run-dark.png")
	require.NoError(t, chromedp.Do(p.ctx, chromedp.EmulateViewport(390, 844)))
	p.do(`window.scrollTo(0, 0)`)
	assert.LessOrEqual(t, js[int](p, `document.documentElement.scrollWidth`), 390, "no horizontal scrolling at phone width")
	p.screenshot("run-phone.png")
	p.do(`document.getElementById('theme').click()`) // the choice is kept: leave light for the other tests
}

func TestBrowserDeepLinkAndKeys(t *testing.T) {
	file := writePage(t, "deeplink.html", synthetic(60, 30, 600_000))
	p := open(t, "file://"+file, "#run/0/step/45", 1280, 900)
	defer p.offline()
	target := `document.querySelector('section.step[data-run="0"][data-step="45"]')`
	p.waitJS(target + `.classList.contains('target')`)
	p.waitJS(`(() => { const r = ` + target + `.getBoundingClientRect(); return r.top >= 0 && r.top < 120; })()`)
	assert.Greater(t, js[float64](p, `window.scrollY`), 1000.0)

	// j moves to the next step (and the link follows); k back.
	p.do(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'j'}))`)
	p.waitJS(`location.hash === '#run/0/step/46'`)
	p.waitJS(`document.querySelector('section.step[data-step="46"]').classList.contains('target')`)
	p.do(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'k'}))`)
	p.waitJS(`location.hash === '#run/0/step/45'`)

	// A link to a child run's step opens the child.
	file2 := writePage(t, "deeplink-child.html", realTrajectory(t))
	q := open(t, "file://"+file2, "", 1280, 900)
	defer q.offline()
	childID := js[string](q, `[...rlmViewer.sources[0].runs.keys()].find(id => id !== '0')`)
	q.do(`location.hash = '#run/` + childID + `/step/2'`)
	q.waitJS(`document.querySelector('details.child').open`)
	q.waitJS(`document.querySelector('section.step[data-run="` + childID + `"][data-step="2"]').classList.contains('target')`)
}

func TestBrowserBadInput(t *testing.T) {
	in := `{"v":1,"type":"run_start","run":"0","data":{"query":"q","meta_version":"m7","limits":{"max_iterations":5}}}` + "\n" +
		`{"v":1,"type":"reply","run":"0","step":1,"elapsed_ms":5,"data":{"content":"hi","reasoning":"a new field"}}` + "\n" +
		"this line is not json\n" +
		`{"v":2,"type":"brand_new","run":"0","step":1,"elapsed_ms":6,"data":{"shiny":true}}` + "\n" +
		`{"v":1,"type":"exec","run":"0","step":2,"elapsed_ms":7,"data":{"code":"print(1)","output":"1\n"}}` + "\n" +
		`{"v":1,"type":"reply","run":"0","step":3,"data":{"content":"cut in the mid`
	file := writePage(t, "bad.html", []byte(in))
	p := open(t, "file://"+file, "", 1280, 900)
	defer p.offline()
	banners := js[string](p, `document.getElementById('banners').textContent`)
	assert.Contains(t, banners, "the last line was cut")
	assert.Contains(t, banners, "1 line is not a JSON event")
	assert.Contains(t, banners, "this line is not json")
	assert.Contains(t, banners, "1 event uses trajectory schema version 2")
	assert.Contains(t, banners, "brand_new")
	assert.Equal(t, 2, js[int](p, stepCount("0")), "the complete steps render")
	p.waitJS(`document.querySelector('section.step[data-step="1"] .raw') !== null`)
	raw := js[string](p, `document.querySelector('section.step[data-step="1"]').textContent`)
	assert.Contains(t, raw, `Unknown event "brand_new"`)
	assert.Contains(t, raw, `"shiny": true`)
	assert.Contains(t, raw, "other fields of reply")
	assert.Contains(t, raw, `"reasoning": "a new field"`, "unknown fields of known events are shown")
	hdr := js[string](p, `document.getElementById('hdr-0').textContent`)
	assert.Contains(t, hdr, "meta_version", "unknown run_start fields are shown")
	assert.Contains(t, hdr, "no run_end")
	p.screenshot("bad-input.png")
}

func TestBrowserCompare(t *testing.T) {
	a := realTrajectory(t)
	b := synthetic(6, 4, 20_000)
	file := writePage(t, "compare.html", a, b)
	p := open(t, "file://"+file, "", 1400, 900)
	defer p.offline()
	rows := js[[][]string](p, `[...document.querySelectorAll('#compare tr')].map(r => [...r.children].map(c => c.textContent))`)
	byName := map[string][]string{}
	for _, r := range rows {
		byName[r[0]] = r[1:]
	}
	assert.Equal(t, []string{fixtureAnswer, "done"}, byName["answer"])
	assert.Equal(t, []string{"4", "6"}, byName["iterations"])
	assert.True(
		t,
		js[bool](
			p,
			`[...document.querySelectorAll('#compare tr')].find(r => r.firstChild.textContent === 'answer').children[1].classList.contains('diff')`,
		),
	)
	assert.Equal(t, 12, js[int](p, `document.getElementById('cmp-steps').children.length`), "six rows of two cells")
	assert.Equal(
		t,
		2,
		js[int](p, `document.querySelectorAll('#cmp-steps > .cmp-row-empty').length`),
		"steps 5 and 6 exist only on the right",
	)
	p.screenshot("compare.png")
}

func TestBrowserLiveFromEventStream(t *testing.T) {
	traj := realTrajectory(t)
	lines := strings.Split(strings.TrimSpace(string(traj)), "\n")
	mux := http.NewServeMux()
	mux.HandleFunc("/view", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		require.NoError(t, viewer.WriteLive(w, viewer.Live{Title: "run 7", EventsURL: "/events"}))
	})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i, l := range lines {
			fmt.Fprintf(w, "event: trajectory\nid: %d\ndata: %s\n\n", i+1, l) // as rlm serve sends them
			if i%5 == 0 {
				fl.Flush()
				time.Sleep(5 * time.Millisecond)
			}
		}
		fmt.Fprint(w, "event: end\ndata: {}\n\n")
		fl.Flush()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	p := open(t, srv.URL+"/view", "", 1280, 900)
	p.url = srv.URL // the page and its event stream
	defer p.offline()
	p.waitJS(`document.getElementById('answer-0') !== null && document.getElementById('answer-0').textContent === '` + fixtureAnswer + `'`)
	assert.Equal(t, 4, js[int](p, stepCount("0")))
	assert.Contains(t, js[string](p, `document.getElementById('hdr-0').textContent`), "run 7")
}

func TestBrowserLargeTrajectoryRendersLazily(t *testing.T) {
	file := writePage(t, "large.html", synthetic(2000, 5000, 8<<20))
	p := open(t, "file://"+file, "", 1280, 900)
	defer p.offline()
	assert.Equal(t, 2000, js[int](p, stepCount("0")))
	rendered := js[int](p, `[...document.querySelectorAll('section.step')].filter(s => s._step.rendered).length`)
	assert.Less(t, rendered, 100, "only the steps near the viewport have bodies")
	assert.Less(t, js[int](p, `document.documentElement.outerHTML.length`), 4<<20, "the DOM holds excerpts, not the 8 MB of outputs")
	// Only the steps shown have their outputs parsed.
	lazy := js[int](p, `rlmViewer.stats()[0].lazy`)
	assert.Greater(t, lazy, 2000-rendered-1, "the outputs of steps not shown are not parsed")
	// Search reaches a step far below, in the part of its output not shown
	// (parsing the outputs it searches).
	p.do(`rlmViewer.setQuery('` + outputNeedle + `')`)
	p.waitJS(`document.getElementById('searchinfo').textContent === '1 step match'`)
	assert.Zero(t, js[int](p, `rlmViewer.stats()[0].lazy`))
	p.do(`document.querySelector('#results a').click()`)
	p.waitJS(`location.hash === '#run/0/step/1000'`)
	p.waitJS(`document.querySelector('section.step[data-step="1000"]').classList.contains('target')`)
	p.waitJS(`document.querySelector('section.step[data-step="1000"] .out mark') !== null`)
	p.screenshot("large.png")
}

// TestBrowserLazyTextsAreExact: the long texts of a step, left unparsed
// until the step is shown, render exactly (escaped quotes and backslashes
// included), in every field that holds one.
func TestBrowserLazyTextsAreExact(t *testing.T) {
	head := `quoted "x" and back\slash\ then \"both\\"` + "\n"
	out := head + strings.Repeat("a", 2500) + "\nEND\\\""
	long := strings.Repeat("p", 300)
	traj := synthetic(1, 0, 10)
	lines := strings.SplitAfter(string(traj), "\n")
	ev, err := json.Marshal(map[string]any{"v": 1, "type": "exec", "run": "0", "step": 1, "elapsed_ms": 5,
		"data": map[string]any{"block": 2, "code": "print(x)", "output": out, "error": "ValueError: " + long}})
	require.NoError(t, err)
	sub, err := json.Marshal(map[string]any{"v": 1, "type": "sub_call", "run": "0", "step": 1, "elapsed_ms": 6,
		"data": map[string]any{
			"seq":      1,
			"kind":     "llm_query",
			"model":    "m",
			"prompt":   "P:" + long + strings.Repeat("q", 2000),
			"response": "R:" + long,
		}})
	require.NoError(t, err)
	// After the step's exec event.
	page := strings.Join(lines[:4], "") + string(ev) + "\n" + string(sub) + "\n" + strings.Join(lines[4:], "")
	file := writePage(t, "lazy.html", []byte(page))
	p := open(t, "file://"+file, "", 1280, 900)
	defer p.offline()
	step := `document.querySelector('section.step[data-step="1"]')`
	p.waitJS(step + `._step.rendered`)
	text := js[string](p, step+`.textContent`)
	assert.Contains(t, text, `quoted "x" and back\slash\ then \"both\\"`)
	assert.Contains(t, text, "END\\\"")
	assert.Contains(t, text, "ValueError: "+long)
	assert.NotContains(t, text, "rlm-lazy")
	p.do(step + `.querySelector('table.subs tr.op').click()`)
	assert.Contains(t, js[string](p, step+`.textContent`), "R:"+long, "the sub-call's response")
	assert.Zero(t, js[int](p, `rlmViewer.stats()[0].lazy`))
}

// TestBrowserStreamsLargeTrajectory: a large trajectory (embedded gzipped)
// is inflated and parsed as a stream: the page renders its first steps
// before the whole stream is parsed, says "loading N of M events" until
// it is, and then shows every step; a link to a step far down still lands
// once that step has arrived.
func TestBrowserStreamsLargeTrajectory(t *testing.T) {
	const steps = 3000
	traj := synthetic(steps, 3000, 40<<20)
	file := writePage(t, "stream.html", traj)
	total := strings.Count(string(traj), "\n")
	p := open(t, "file://"+file, "#run/0/step/2900", 1280, 900)
	defer p.offline()
	first := js[int](p, `rlmViewer.firstRenderEvents`)
	assert.Greater(t, first, 0, "the first render had events")
	assert.Less(t, first, total, "the first render came before the whole stream was parsed")
	assert.LessOrEqual(t, js[float64](p, `rlmViewer.firstRenderMs`), js[float64](p, `rlmViewer.loadedMs`))
	assert.Equal(t, total, js[int](p, `rlmViewer.stats()[0].events`))
	assert.Equal(t, steps, js[int](p, stepCount("0")))
	assert.Empty(t, js[string](p, `document.getElementById('loading').textContent`), "no loading note once loaded")
	p.waitJS(`document.querySelector('section.step[data-step="2900"]').classList.contains('target')`)
	p.screenshot("stream.png")
}

// TestBrowserLoadingNote: while a gzipped trajectory is still being read,
// the bar says how many of its events are in.
func TestBrowserLoadingNote(t *testing.T) {
	file := writePage(t, "loading.html", synthetic(2000, 2000, 20<<20))
	p := &page{t: t, ctx: newTab(t), url: "file://" + file}
	require.NoError(t, chromedp.Do(p.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate("about:blank")))
	// Record the bar's note at every change, from the first render on.
	_, err := chromedp.Call(
		p.ctx,
		cdppage.AddScriptToEvaluateOnNewDocument,
		cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: `window.rlmNotes = [];
new MutationObserver(() => { const l = document.getElementById('loading'); if (l && l.textContent) window.rlmNotes.push(l.textContent); })
  .observe(document, {subtree: true, childList: true, characterData: true});`},
	)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(p.ctx, chromedp.Navigate(p.url)))
	p.waitJS(`document.body.dataset.loaded === '1'`)
	notes := js[[]string](p, `window.rlmNotes`)
	require.NotEmpty(t, notes, "a loading note was shown")
	m := regexp.MustCompile(`^loading ([0-9,]+) of ([0-9,]+) events…$`).FindStringSubmatch(notes[0])
	require.NotNil(t, m, notes[0])
	n := func(s string) int {
		v, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		require.NoError(t, err)
		return v
	}
	assert.Equal(t, js[int](p, `rlmViewer.stats()[0].events`), n(m[2]), "M is every event")
	assert.Less(t, n(m[1]), n(m[2]), "shown before all were in")
	assert.Empty(t, js[string](p, `document.getElementById('loading').textContent`))
}

// TestBrowserHeaderExcerptsAndControls: a run's header shows excerpts of a
// huge query and answer, the whole text one click away (issue 26: a 20 MB
// answer made a 20 M-character page), and invisible bidi controls in code
// are shown as visible markers (Trojan Source).
func TestBrowserHeaderExcerptsAndControls(t *testing.T) {
	bigQuery := "Q" + strings.Repeat("q", 200_000)
	bigAnswer := "A" + strings.Repeat("a", 500_000) + "END"
	var out []string
	for _, line := range strings.SplitAfter(string(synthetic(1, 0, 10)), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil {
			out = append(out, line)
			continue
		}
		data, _ := ev["data"].(map[string]any)
		switch ev["type"] {
		case "run_start":
			data["query"] = bigQuery
		case "run_end":
			data["answer"] = bigAnswer
		case "exec":
			data["code"] = "access = 'user' # \u202e } \u2066if admin\u2069 \u2066"
		}
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		out = append(out, string(b)+"\n")
	}
	file := writePage(t, "header.html", []byte(strings.Join(out, "")))
	p := open(t, "file://"+file, "", 1280, 900)
	defer p.offline()
	p.waitJS(`document.getElementById('answer-0') !== null`)
	answer := js[string](p, `document.getElementById('answer-0').textContent`)
	assert.Less(t, len(answer), 5000, "an excerpt of the answer")
	assert.Contains(t, answer, "show more")
	assert.Less(t, js[int](p, `document.querySelector('.hdr .query').textContent.length`), 5000, "an excerpt of the query")
	p.do(`document.querySelector('#answer-0 .more button').click()`)
	assert.Greater(t, len(js[string](p, `document.getElementById('answer-0').textContent`)), len(answer), "one click shows more")

	step := `document.querySelector('section.step[data-step="1"]')`
	p.waitJS(step + ` && ` + step + `._step.rendered`)
	code := js[string](p, step+`.textContent`)
	assert.Contains(t, code, "\u27e6U+202E\u27e7", "the RTL override is shown, not applied")
	assert.Contains(t, code, "\u27e6U+2066\u27e7")
	assert.NotContains(t, code, "\u202e")
}

// TestBrowserMetaNotes: the header shows the meta document a run used and
// the lessons its prompt had, each with the runs whose evidence added it;
// hostile ids are text, not markup.
func TestBrowserMetaNotes(t *testing.T) {
	in := `{"v":1,"type":"run_start","run":"0","data":{"query":"q","meta":{"version":3,"digest":"0123456789abcdef","lessons":["no_async","name_error@m<b>x</b>"],` +
		`"sources":{"no_async":["20261129-025553-4d40f4f32ce2","20261129-025601-aaaaaaaaaaaa"]}}}}` + "\n" +
		`{"v":1,"type":"run_start","run":"0.1.1","data":{"query":"child","parent":"0","meta":{"version":0}}}` + "\n"
	file := writePage(t, "meta.html", []byte(in))
	p := open(t, "file://"+file, "", 1280, 900)
	defer p.offline()
	hdr := js[string](p, `document.getElementById('hdr-0').textContent`)
	assert.Contains(t, hdr, "v3 · 0123456789ab")
	assert.Contains(t, hdr, "no_async · added on the evidence of 20261129-025553-4d40f4f32ce2, 20261129-025601-aaaaaaaaaaaa")
	assert.Contains(t, hdr, "name_error@m<b>x</b>", "an id is text")
	assert.Equal(t, 2, js[int](p, `document.querySelectorAll('#hdr-0 .meta-notes li').length`))
	assert.Equal(t, 0, js[int](p, `document.querySelectorAll('#hdr-0 .meta-notes b').length`))
	assert.NotContains(t, hdr, `"lessons"`, "not the raw JSON")
}

// TestBrowserChildUsage: a child's usage (its child_end) is shown on its
// rlm_query line without opening it, each run's header shows its usage
// with its children's, and the root's stats add the active time and the
// share of the calls its children made.
func TestBrowserChildUsage(t *testing.T) {
	childUsage := `{"calls":3,"prompt_tokens":1200,"completion_tokens":80,"cost_usd":0.0123,"cost_known":true,"wall_ms":4000,"active_ms":2500}`
	treeUsage := `{"calls":5,"prompt_tokens":2000,"completion_tokens":130,"cost_usd":0.02,"cost_known":true,"wall_ms":9000,"active_ms":6000}`
	in := strings.Join([]string{
		`{"v":1,"type":"run_start","run":"0","data":{"query":"q","depth":0}}`,
		`{"v":1,"type":"request","run":"0","step":1,"data":{"model":"m","total_tokens":10}}`,
		`{"v":1,"type":"reply","run":"0","step":1,"data":{"content":"x","usage":{"prompt_tokens":400,"completion_tokens":25}}}`,
		`{"v":1,"type":"child_start","run":"0","step":1,"data":{"child":"0.1.abcdef","query":"count them","depth":1,"mode":"rlm"}}`,
		`{"v":1,"type":"run_start","run":"0.1.abcdef","data":{"query":"count them","depth":1,"parent":"0"}}`,
		`{"v":1,"type":"reply","run":"0.1.abcdef","step":1,"data":{"content":"y","usage":{"prompt_tokens":400,"completion_tokens":30}}}`,
		`{"v":1,"type":"run_end","run":"0.1.abcdef","data":{"stop_reason":"submit","answer":"3","iterations":1,"tree_usage":` + childUsage + `}}`,
		`{"v":1,"type":"child_end","run":"0","step":1,"data":{"child":"0.1.abcdef","answer":"3","stop_reason":"submit","usage":` + childUsage + `}}`,
		`{"v":1,"type":"run_end","run":"0","data":{"stop_reason":"submit","answer":"3","iterations":2,` +
			`"usage":{"calls":5,"prompt_tokens":2000,"completion_tokens":130,"cost_usd":0.02,"cost_known":true},"tree_usage":` + treeUsage + `}}`,
	}, "\n") + "\n"
	file := writePage(t, "child-usage.html", []byte(in))
	p := open(t, "file://"+file, "", 1280, 900)
	defer p.offline()
	assert.Equal(t, "3 calls · 1,200 in / 80 out tokens · $0.012 · active 2.50 s · wall 4.00 s",
		strings.TrimSpace(js[string](p, `document.querySelector('[data-child="0.1.abcdef"] .child-usage').textContent`)),
		"the child's usage, without opening it")
	root := js[string](p, `document.querySelector('[data-run="0"] .runhdr .tree-usage').textContent`)
	assert.Contains(t, root, "5 calls · 2,000 in / 130 out tokens · $0.020 · active 6.00 s · wall 9.00 s (with its 1 child)",
		"the root's total includes its child")
	stats := js[string](p, `document.querySelector('#hdr-0 .stats').textContent`)
	assert.Contains(t, stats, "6.00 sactive time")
	assert.Contains(t, stats, "child runs (3 of the calls)")
	assert.NotContains(t, js[string](p, `document.getElementById('hdr-0').textContent`), `"active_ms"`, "tree_usage is not dumped raw")
	p.do(`document.querySelector('[data-child="0.1.abcdef"] > summary').click()`)
	p.waitJS(`!!document.querySelector('[data-run="0.1.abcdef"] .runhdr .tree-usage')`)
	assert.Contains(t, js[string](p, `document.querySelector('[data-run="0.1.abcdef"] .runhdr .tree-usage').textContent`), "3 calls")
}
