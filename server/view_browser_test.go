package server

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browserTab starts a headless Chromium for one test, or skips the test
// naming the missing browser (the viewer's browser tests find it the same
// way).
func browserTab(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("RLM_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		t.Skip(
			"browser test skipped: no Chromium found ($RLM_CHROMIUM, or chromium, chromium-browser or google-chrome on PATH); install it with apt-get install -y chromium",
		)
	}
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true))
	ctx, stop := chromedp.NewContext(alloc)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute) // a loaded machine is slow
	t.Cleanup(func() { cancel(); stop(); stopAlloc() })
	require.NoError(t, chromedp.Do(ctx))
	return ctx
}

// TestBrowserLiveViewWithToken: the live viewer page of a server with a
// token opens in a browser as .../view#token=TOKEN: the page loads without
// the header, takes the token out of its address and sends it only in the
// Authorization header of its event stream requests; the token is in no
// URL the browser requested and in no access log line. A wrong token and
// none are reported on the page.
func TestBrowserLiveViewWithToken(t *testing.T) {
	ts := newTestServer(t, nil)
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("echo launch code 7731", nil))
	require.Equal(t, 202, code, string(body))
	var created RunResult
	require.NoError(t, json.Unmarshal(body, &created))
	ts.waitRun(t, created.ID)

	ctx := browserTab(t)
	var mu sync.Mutex
	var urls []string
	authed := 0
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			defer mu.Unlock()
			urls = append(urls, e.Request.URL)
			if e.Request.Headers["Authorization"] == "Bearer "+canaryToken && strings.HasSuffix(e.Request.URL, "/events") {
				authed++
			}
		}
	}))
	view := ts.http.URL + "/v1/runs/" + created.ID + "/view"
	// A navigation can leave chromedp holding the execution context of the
	// page it replaced ("Cannot find context with specified id"); that is
	// the test's race, not the page's, so the call is retried.
	retry := func(run func() error) error {
		var err error
		for range 20 {
			if err = run(); err == nil || !strings.Contains(err.Error(), "Cannot find context") {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return err
	}
	waitFor := func(expr string) {
		t.Helper()
		err := retry(func() error {
			_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(90*time.Second)))
			return err
		})
		require.NoError(t, err, "waiting for %s", expr)
	}
	eval := func(expr string) string {
		t.Helper()
		var v string
		err := retry(func() (err error) {
			v, err = chromedp.Run(ctx, chromedp.Evaluate[string](expr))
			return err
		})
		require.NoError(t, err, expr)
		return v
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(view+"#token="+url.QueryEscape(canaryToken))))
	waitFor(`document.getElementById('answer-0') !== null && document.getElementById('answer-0').textContent !== ''`)
	answer, href := eval(`document.getElementById('answer-0').textContent`), eval(`location.href`)
	assert.Equal(t, "launch code 7731", answer)
	assert.NotContains(t, href, canaryToken, "the page takes the token out of its address")
	mu.Lock()
	assert.Positive(t, authed, "the event stream was requested with the header")
	for _, u := range urls {
		assert.NotContains(t, u, canaryToken, "no requested URL holds the token")
	}
	mu.Unlock()
	logs := ts.logs.String()
	assert.NotContains(t, logs, canaryToken)
	assert.Contains(t, logs, `"path":"/v1/runs/`+created.ID+`/events","status":200`)
	assert.Contains(t, logs, `"path":"/v1/runs/`+created.ID+`/view","status":200`)

	// A wrong token, and none: the page says the stream refused it.
	for _, frag := range []string{"#token=wrong", ""} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(view+frag)))
		waitFor(`document.getElementById('live-error') !== null`)
		msg := eval(`document.getElementById('live-error').textContent`)
		if frag != "" {
			assert.Contains(t, msg, "401", frag)
		} else {
			assert.Contains(t, msg, "#token=TOKEN")
		}
	}
	assert.NotContains(t, ts.logs.String(), canaryToken)
}
