package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunViewServesTheLivePage(t *testing.T) {
	ts := newTestServer(t, nil)
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("sub", nil))
	require.Equal(t, 202, code, string(body))
	var created RunResult
	require.NoError(t, json.Unmarshal(body, &created))

	code, hdr, page := ts.do(t, "GET", "/v1/runs/"+created.ID+"/view", nil)
	require.Equal(t, 200, code, string(page))
	assert.Equal(t, "text/html; charset=utf-8", hdr.Get("Content-Type"))
	assert.Contains(t, string(page), `"events_url":"events"`, "the page reads /v1/runs/{id}/events")
	assert.Contains(t, string(page), `"title":"run `+created.ID+`"`)
	assert.Contains(t, string(page), "connect-src 'self'")

	ts.waitRun(t, created.ID)
	code, _, _ = ts.do(t, "GET", "/v1/runs/"+created.ID+"/view", nil)
	assert.Equal(t, 200, code, "a finished run too")
	code, _, _ = ts.do(t, "GET", "/v1/runs/nope/view", nil)
	assert.Equal(t, 404, code)
}

// TestRunViewWithoutToken: with a token configured, the live page is
// served without one (a browser cannot send the header with a page load),
// the same for any well-formed run id so it tells nothing about the runs,
// and only the page: the event stream still wants the token.
func TestRunViewWithoutToken(t *testing.T) {
	ts := newTestServer(t, nil)
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("echo hi", nil))
	require.Equal(t, 202, code, string(body))
	var created RunResult
	require.NoError(t, json.Unmarshal(body, &created))
	ts.waitRun(t, created.ID)
	get := func(path string) (int, http.Header, string) {
		resp, err := http.Get(ts.http.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	code, hdr, page := get("/v1/runs/" + created.ID + "/view")
	require.Equal(t, 200, code, page)
	assert.Equal(t, "no-referrer", hdr.Get("Referrer-Policy"))
	assert.Contains(t, page, `"events_url":"events"`)
	assert.NotContains(t, page, "echo hi", "no run data in the public page")
	code, _, other := get("/v1/runs/20991231-235959-abcdef/view")
	assert.Equal(t, 200, code, "an unknown run gets the same page")
	assert.Equal(t, strings.ReplaceAll(page, created.ID, "20991231-235959-abcdef"), other)
	code, _, _ = get("/v1/runs/" + url.PathEscape("<b>PLEASE LOG IN<b>") + "/view")
	assert.Equal(t, 404, code, "the public page echoes only run ids")
	for _, p := range []string{"/v1/runs/" + created.ID + "/events", "/v1/runs/" + created.ID, "/v1/runs/" + created.ID + "/view/x"} {
		code, _, _ = get(p)
		assert.Equal(t, 401, code, p)
	}
}
